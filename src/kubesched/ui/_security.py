"""The rules a local web app needs so that a web page elsewhere cannot use it.

- **Host** (DNS rebinding): a server bound to loopback answers only requests whose ``Host``
  is a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``). A page on ``evil.example``
  whose name an attacker re-points at 127.0.0.1 sends ``Host: evil.example``: refused, so the
  cluster's objects never reach that page's scripts. Served with ``--allow-remote`` the names
  are the user's to choose, and any is accepted.
- **Origin** (cross-site requests): a request that changes something (any method but GET,
  HEAD, OPTIONS) must carry an ``Origin`` equal to the server's own (scheme, host and port as
  the ``Host`` header gives them). Browsers send ``Origin`` with every such request; another
  site's form or ``fetch`` carries that site's and is refused. A missing ``Origin`` is refused
  too (a client outside a browser adds it in one header).
- **Headers**: every answer forbids framing and sniffing and limits scripts and styles to the
  server's own (``Content-Security-Policy``): the page loads nothing from elsewhere.

Refusals are 403 with a one-line reason. Mirrors the checks of Jupyter's server
(``check_host``, ``check_origin``) for the same threat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

__all__ = ["SAFE_METHODS", "SECURITY_HEADERS", "refusal"]

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})

LOOPBACK_NAMES: Final = frozenset({"127.0.0.1", "localhost", "::1"})

SECURITY_HEADERS: Final = (
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Content-Security-Policy",
     "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
)


def _hostname(host: str) -> str:
    """``Host`` header to its name: ``[::1]:8080`` -> ``::1``, ``localhost:80`` -> ``localhost``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def refusal(method: str, headers: Mapping[str, str], scheme: str, allow_remote: bool) -> str | None:
    """Why the request must be refused, or None."""
    host = headers.get("host", "")
    if not host:
        return "refused: no Host header"
    if not allow_remote and _hostname(host) not in LOOPBACK_NAMES:
        return f"refused: Host {host!r} is not this loopback server's (--allow-remote serves other names)"
    if method.upper() in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if not origin:
        return f"refused: a {method} request needs an Origin header (this server's: {scheme}://{host})"
    parts = urlsplit(origin)
    if parts.scheme != scheme or parts.netloc.lower() != host.lower():
        return f"refused: cross-origin {method} from {origin!r} (this server is {scheme}://{host})"
    return None
