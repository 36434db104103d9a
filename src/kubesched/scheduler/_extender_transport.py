"""The extender's HTTP client: TLS settings, timeout, and Go-like error messages.

Mirrors makeTransport / NewHTTPExtender (pkg/scheduler/extender.go, master 2026) and client-go's
TLS setup it relies on (rest.TLSConfigFor -> transport.TLSConfigFor, loadTLSFiles,
dataFromSliceOrFile, rootCertPool):

- the URL scheme comes from ``urlPrefix``; ``enableHTTPS`` only matters for the TLS settings:
  with it and no CA, the server's certificate is not verified (``Insecure``);
- no TLS setting at all: the default client (an ``https`` URL is verified against the system's
  roots);
- a CA (``caData``, else ``caFile``) is the only root trusted; with ``insecure`` it is an error;
- a client certificate needs both a certificate and a key (data, else file);
- ``serverName`` is the name sent (SNI) and verified instead of the URL's host;
- at least TLS 1.2.

Bad TLS material (an unreadable file, no PEM, a key that does not match) is a ``ValueError``
when the extender is built, as NewHTTPExtender fails upstream. Uses urllib only.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import ssl
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..framework.config import ExtenderTLSConfig

__all__ = ["ExtenderError", "Transport", "make_transport", "tls_context"]

Transport = Callable[[str, bytes, float], tuple[int, bytes]]
"""(url, body, timeout) -> (HTTP status, response body); raises ExtenderError."""


class ExtenderError(Exception):
    """An extender call failed (transport, HTTP status, or an ``error`` in its result)."""


def _data_or_file(data: bytes, file: str, what: str) -> bytes:
    """dataFromSliceOrFile: the inline data when set, else the file's content."""
    if data:
        return data
    if not file:
        return b""
    try:
        return Path(file).read_bytes()
    except OSError as exc:
        raise ValueError(f"tlsConfig.{what}: cannot read {file}: {exc.strerror or exc}") from exc


def tls_context(tls: ExtenderTLSConfig | None, enable_https: bool) -> ssl.SSLContext | None:
    """makeTransport + TLSConfigFor: the client's TLS settings, or None when none applies (the
    default client, which verifies ``https`` servers against the system's roots)."""
    t = tls or ExtenderTLSConfig()
    has_ca = bool(t.ca_data or t.ca_file)
    insecure = t.insecure or (enable_https and not has_ca)
    has_cert = bool(t.cert_data or t.cert_file) and bool(t.key_data or t.key_file)
    if not (has_ca or has_cert or insecure or t.server_name):
        return None
    if has_ca and insecure:
        raise ValueError("tlsConfig: specifying a root certificates file with the insecure flag "
                         "is not allowed")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ca = _data_or_file(t.ca_data, t.ca_file, "caFile")
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif ca:
        try:
            ctx.load_verify_locations(cadata=ca.decode("ascii"))
        except (ssl.SSLError, ValueError) as exc:
            raise ValueError(f"tlsConfig: unable to load root certificates: {exc}") from exc
    else:
        ctx.load_default_certs()
    if has_cert:
        _load_client_cert(ctx, _data_or_file(t.cert_data, t.cert_file, "certFile"),
                          _data_or_file(t.key_data, t.key_file, "keyFile"))
    return ctx


def _load_client_cert(ctx: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """tls.X509KeyPair: the ssl module loads a key pair from files only, so inline data goes
    through a private temporary file, removed at once."""
    fd, path = tempfile.mkstemp(suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cert.rstrip(b"\n") + b"\n" + key)
        ctx.load_cert_chain(path)
    except (ssl.SSLError, ValueError) as exc:
        raise ValueError(f"tlsConfig: invalid client certificate or key: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


class _NamedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection that sends and verifies ``server_name`` (tls.Config.ServerName)."""

    def __init__(self, *args: Any, server_name: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._server_name = server_name

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock,  # type: ignore[attr-defined]
                                              server_hostname=self._server_name)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, context: ssl.SSLContext, server_name: str) -> None:
        super().__init__(context=context)
        self._ctx = context
        self._server_name = server_name

    def https_open(self, req: urllib.request.Request) -> Any:
        if not self._server_name:
            return super().https_open(req)
        conn: Any = _NamedHTTPSConnection  # takes server_name, which the stub's protocol lacks
        return self.do_open(conn, req, context=self._ctx, server_name=self._server_name)


def make_transport(tls: ExtenderTLSConfig | None, enable_https: bool) -> Transport:
    """The extender's client (http.Client with makeTransport's transport). ``timeout`` bounds
    the connection and each read (Go's Client.Timeout bounds the whole exchange)."""
    ctx = tls_context(tls, enable_https)
    if ctx is None:
        opener = urllib.request.build_opener()
    else:
        opener = urllib.request.build_opener(_HTTPSHandler(ctx, tls.server_name if tls else ""))

    def send(url: str, body: bytes, timeout: float) -> tuple[int, bytes]:
        req = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with opener.open(req, timeout=timeout) as resp:
                return int(resp.status), resp.read()
        except urllib.error.HTTPError as exc:
            return int(exc.code), b""
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise ExtenderError(f'Post "{url}": {_describe(url, exc)}') from exc

    return send


def _describe(url: str, exc: BaseException) -> str:
    """The cause as Go's http.Client words the common ones."""
    reason: Any = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError):
        return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
    if isinstance(reason, ConnectionRefusedError):
        return f"dial tcp {urlsplit(url).netloc}: connect: connection refused"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"tls: failed to verify certificate: x509: {reason.verify_message}"
    return str(reason)
