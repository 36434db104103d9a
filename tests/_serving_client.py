"""Talking to kubesched's serving ports in tests (``kubesched run``, ``extender`` and ``ui``): a
GET with an optional bearer token, and ``kubesched ui`` served for the length of a ``with``
block (the commands themselves are started with :class:`kubesched.testing.command.ServingCommand`)."""

from __future__ import annotations

import re
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from kubesched.testing.browser import UIServer


def http_get(url: str, token: str | None = None, *, context: ssl.SSLContext | None = None,
             timeout: float = 10.0) -> tuple[int, str]:
    """(status, body) of a GET on ``url``, with ``token`` as a bearer token; an HTTP error
    status is returned, not raised."""
    req = urllib.request.Request(url)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as resp:
            return int(resp.status), resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return int(err.code), err.read().decode()


def insecure_context() -> ssl.SSLContext:
    """A client context accepting any certificate (a self-signed serving certificate, as the
    kubelet's HTTPS probes accept it)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


@contextmanager
def served_ui(*args: str) -> Iterator[str]:
    """``kubesched ui ARGS... --port 0`` in its own process (the browser tests' server): its
    URL, on loopback; interrupted as Ctrl-C does after, exiting 0."""
    with UIServer(args) as server:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.url), server.url
        yield server.url
        assert server.stop() == 0
