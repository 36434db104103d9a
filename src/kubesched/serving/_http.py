"""The one HTTP server of every serving command: HTTP/1.1 with keep-alive, over TLS when given
a context, one thread per connection, each request answered by the routes of whoever mounts it
(``kubesched run``'s health and metrics endpoints, ``kubesched extender``'s verbs).

Why not ``http.server.BaseHTTPRequestHandler``: it parses headers with the ``email`` package
and formats a Date header per answer, about a tenth of the extender's time per request with
kube-scheduler calling twice per pod (filter, prioritize), each call on the pod's critical
path (``benchmarks/extender_bench.py``). Here the request line and headers are read as bytes
into a dict and each answer is one write. Limits are http.server's: 64 KiB per line, 100
headers.

An answer may be a stream (:attr:`Response.stream`: server-sent events, progress of a long
run): sent with ``Transfer-Encoding: chunked`` (RFC 9112 section 7.1), each piece written and
flushed as the route yields it, the connection closed at its end; a client that goes away ends
it (the iterator is closed, running its ``finally``).

A client that fails the TLS handshake (plain HTTP on the HTTPS port, an old TLS version) is
one log line, as Go's ``http: TLS handshake error from ADDR: REASON``
(:func:`~kubesched.cluster.refuse_failed_handshake`), never a traceback; a client that stops
sending is dropped after ``read_timeout`` seconds; a route that raises is a 500, logged. After
an answer of 400 or more the connection is closed (its body may be unread).
"""

from __future__ import annotations

import logging
import socket
import socketserver
import ssl
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from ..cluster import refuse_failed_handshake

__all__ = ["HTTPServer", "Request", "Response"]

_log = logging.getLogger(__name__)

_MAX_LINE = 65536
"""Longest request line or header line read (http.server's limit)."""
_MAX_HEADERS = 100
_REASONS = {code.value: code.phrase for code in HTTPStatus}
TEXT = "text/plain; charset=utf-8"


class Request:
    """One request: ``path`` as sent (with its query), ``headers`` by lower-cased name, ``read``
    the body's reader (read ``Content-Length`` bytes at most); ``after`` takes work to run once
    the answer is sent. (A plain slotted class: one is made per request.)"""

    __slots__ = ("after", "connection", "headers", "method", "path", "read")

    def __init__(self, method: str, path: str, headers: dict[str, str], read: Callable[[int], bytes],
                 connection: Any = None) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.read = read
        self.connection = connection
        self.after: list[Callable[[], None]] = []

    @property
    def peer_cert(self) -> dict[str, Any] | None:
        """The client's verified certificate (TLS with a client CA), else None."""
        conn = self.connection
        return conn.getpeercert() if isinstance(conn, ssl.SSLSocket) else None


@dataclass(frozen=True, slots=True)
class Response:
    """An answer: status, content type, body and any more headers; or, with ``stream``, the
    pieces of a body sent as they come (``body`` is then not sent)."""

    status: int
    content_type: str
    body: bytes
    headers: Sequence[tuple[str, str]] = ()
    stream: Iterable[bytes] | None = None


Routes = Callable[[Request], Response]


def run_after(work: list[Callable[[], None]]) -> None:
    """Run what a request left for after its answer; a failure there is logged, never raised
    (the answer is already sent)."""
    for fn in work:
        try:
            fn()
        except Exception:
            _log.exception("after an answer")


class _TCPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], handler: type[socketserver.BaseRequestHandler]) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Never a traceback on stderr (socketserver's default): logged."""
        _log.error("serving a request from %s", client_address, exc_info=True)


def _handler(routes: Routes, read_timeout: float) -> type[socketserver.StreamRequestHandler]:
    class Handler(socketserver.StreamRequestHandler):
        timeout = read_timeout
        # The answer is one write; no Nagle stall on the client's delayed ACK either way.
        disable_nagle_algorithm = True

        def handle(self) -> None:
            try:
                while self._one():
                    pass
            except ssl.SSLError as exc:  # a failed handshake (plain HTTP, an old TLS version)
                refuse_failed_handshake(self.connection, self.client_address, exc)
            except OSError:  # a reset, a timeout between requests: the connection is done
                pass

        def _one(self) -> bool:
            """Serve one request; True when the connection stays open."""
            line = self.rfile.readline(_MAX_LINE + 1)
            if not line:
                return False
            if len(line) > _MAX_LINE:
                return self._reply(414, b"request line too long")
            parts = line.split()
            if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
                return self._reply(400, b"bad request line")
            method, path, version = (p.decode("latin-1") for p in parts)
            headers: dict[str, str] = {}
            for _ in range(_MAX_HEADERS + 1):
                h = self.rfile.readline(_MAX_LINE + 1)
                if len(h) > _MAX_LINE:
                    return self._reply(431, b"header line too long")
                if h in (b"\r\n", b"\n", b""):
                    break
                name, sep, value = h.partition(b":")
                if not sep:
                    return self._reply(400, b"bad header line")
                headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
            else:
                return self._reply(431, b"too many headers")
            conn = headers.get("connection", "").lower()
            keep = conn != "close" if version == "HTTP/1.1" else conn == "keep-alive"
            if headers.get("expect", "").lower() == "100-continue":
                self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            request = Request(method, path, headers, self.rfile.read, self.connection)
            try:
                answer = routes(request)
            except Exception:  # a route's bug: answered, logged, never a dead thread
                _log.exception("serving %s %s", method, path)
                answer = Response(500, TEXT, b"internal server error\n")
            _log.debug("%s %s %s %d", self.client_address[0], method, path, answer.status)
            if answer.stream is not None and method != "HEAD":
                self._stream(answer)
                run_after(request.after)
                return False
            # After an error the body may be unread or half-read: it must not be taken for the
            # next request.
            keep = self._reply(answer.status, answer.body, answer.content_type, keep and answer.status < 400,
                               answer.headers, head=method == "HEAD")
            run_after(request.after)  # while the client reads the answer and works on it
            return keep

        def _stream(self, answer: Response) -> None:
            """The answer's head, then each piece as one chunk, then the last chunk. A write
            that fails (the client went away) ends it; the stream is closed either way."""
            extra = "".join(f"{k}: {v}\r\n" for k, v in answer.headers)
            head = (f"HTTP/1.1 {answer.status} {_REASONS.get(answer.status, '')}\r\n"
                    f"Content-Type: {answer.content_type}\r\nTransfer-Encoding: chunked\r\n"
                    f"{extra}Connection: close\r\n\r\n")
            pieces: Iterator[bytes] = iter(answer.stream or ())
            try:
                self.wfile.write(head.encode("latin-1"))
                for piece in pieces:
                    if piece:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            finally:
                close = getattr(pieces, "close", None)
                if close is not None:
                    close()

        def _reply(self, code: int, body: bytes, ctype: str = TEXT, keep: bool = False,
                   more: Sequence[tuple[str, str]] = (), head: bool = False) -> bool:
            close = "" if keep else "Connection: close\r\n"
            extra = "".join(f"{k}: {v}\r\n" for k, v in more) if more else ""
            text = (f"HTTP/1.1 {code} {_REASONS.get(code, '')}\r\nContent-Type: {ctype}\r\n"
                    f"Content-Length: {len(body)}\r\n{extra}{close}\r\n")
            self.wfile.write(text.encode("latin-1") + (b"" if head else body))
            return keep

    return Handler


class HTTPServer:
    """``routes`` served on ``(host, port)`` (port 0: a free one; see :attr:`port`, :attr:`url`).

    The socket is bound when built (OSError when the address is taken). ``tls``: a server-side
    SSLContext (HTTPS), the handshake done on the connection's thread, not in the accepting
    loop. :meth:`start` serves from a daemon thread named ``name``; :meth:`close` stops it and
    frees the port (idempotent, from any thread)."""

    def __init__(self, routes: Routes, host: str, port: int, *, tls: ssl.SSLContext | None = None,
                 read_timeout: float = 30.0, name: str = "kubesched-serving") -> None:
        self._httpd = _TCPServer((host, port), _handler(routes, read_timeout))
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True,
                                                 do_handshake_on_connect=False)
        self.host = host
        self.scheme = "https" if tls is not None else "http"
        self.name = name
        self._thread: threading.Thread | None = None
        self._close_lock = threading.Lock()
        self._closed = False

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def port(self) -> int:
        return self.address[1]

    @property
    def url(self) -> str:
        host = self.address[0]
        return f"{self.scheme}://{f'[{host}]' if ':' in host else host}:{self.port}"

    def start(self) -> HTTPServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=self.name, daemon=True)
        self._thread.start()
        return self

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the serving thread to end; True while it serves."""
        t = self._thread
        if t is None:
            return False
        t.join(timeout)
        return t.is_alive()

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            if self._thread is not None:
                self._httpd.shutdown()
                self._thread.join(timeout=10)
            self._httpd.server_close()
