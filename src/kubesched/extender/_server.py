"""The extender's HTTP server: extender/v1 JSON over HTTP(S), one thread per connection.

kube-scheduler's HTTPExtender (pkg/scheduler/extender.go) POSTs JSON to ``<urlPrefix>/<verb>``
and treats any status but 200 as the call's error. Routes (the last path segment decides, so
a ``urlPrefix`` with a path works): ``POST /filter``, ``/prioritize``, ``/preempt``, ``/bind``
(when binding is enabled); ``GET /healthz`` (``ok`` while the process serves), ``/readyz``
(``ok`` once the engine can answer: the informers have synced; 503 before) and ``/metrics``
(Prometheus text). A verb asked before the engine is ready is a 503 with ``Error``.

Given an ``auth`` (``kubesched extender`` passes kube-scheduler's delegated authentication and
authorization, :class:`~kubesched.cluster.DelegatedAuth`), every request but the verbs is
authenticated and authorized first: ``/metrics`` only for clients RBAC allows ``get`` on it,
``/healthz`` and ``/readyz`` for anyone. The verbs are left to the transport (kube-scheduler's
HTTPExtender sends no credentials, only a client certificate when its ``tlsConfig`` has one), so
they answer without a review on their path. A client that fails the TLS handshake is one log
line.

Bad requests never crash a thread or hang: a body that is not JSON, a field of the wrong type,
a pod or node that does not parse or an unknown node is a 400 whose JSON body has ``Error``
(the result type's own field where it has one); a body above ``max_request_bytes`` is a 413
(read no further), a body without Content-Length a 411, an unknown path a 404, another method
a 405; a plugin's failure is a 500 with ``Error``. A client that stops sending is dropped after
``read_timeout`` seconds. Requests run concurrently; the engine serializes framework calls.
"""

from __future__ import annotations

import json
import logging
import socketserver
import ssl
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from typing import Any

from ..api import dumps_json, loads_json
from ..api.extenderv1 import (
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    WireError,
    host_priority_list_text,
)
from ..cluster import DelegatedAuth, refuse_failed_handshake
from ..metrics import CONTENT_TYPE
from ._engine import EngineError, ExtenderEngine, RequestError
from ._metrics import ExtenderMetrics

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "ExtenderServer", "parse_bind_address"]

_log = logging.getLogger(__name__)

DEFAULT_MAX_REQUEST_BYTES = 64 << 20
"""64 MiB: 5000 full Node objects with long image lists fit; anything larger is refused."""

VERBS = ("filter", "prioritize", "preempt", "bind")


def parse_bind_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) -> (host, port); ValueError otherwise."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--bind-address {value!r}: want HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


def _answer(engine: ExtenderEngine, verb: str, doc: Any, after: list[Callable[[], None]]) -> bytes:
    """The verb's result as JSON (raises WireError / RequestError / EngineError); work to do
    once the answer is sent goes to ``after`` (a filter's scores, see
    :meth:`ExtenderEngine.warm_prioritize`)."""
    if verb == "prioritize":
        return host_priority_list_text(*engine.prioritize_scores(engine.args(doc))).encode()
    out: Any
    if verb == "filter":
        args = engine.args(doc)
        result = engine.filter(args)
        after.append(lambda: engine.warm_prioritize(args, result))
        out = result.to_json()
    elif verb == "bind":
        out = engine.bind(ExtenderBindingArgs.from_json(doc)).to_json()
    else:
        out = engine.preempt(ExtenderPreemptionArgs.from_json(doc)).to_json()
    return dumps_json(out)


def _run_after(work: list[Callable[[], None]]) -> None:
    """Run what a request left for after its answer; a failure there is logged, never raised
    (the answer is already sent)."""
    for fn in work:
        try:
            fn()
        except Exception:
            _log.exception("after an answer")


def _error_body(verb: str, message: str) -> bytes:
    body: Any = {"Error": message}
    if verb == "filter":
        body = ExtenderFilterResult(error=message).to_json()
    elif verb == "bind":
        body = ExtenderBindingResult(error=message).to_json()
    return json.dumps(body).encode()


class ExtenderServer:
    """Serves ``engine`` on ``(host, port)`` (port 0: a free one; see :attr:`url`).

    ``engine`` may come later (:meth:`set_engine`: the live view builds it once the informers
    have synced); until then the verbs answer 503. ``ready``: more that readiness waits for.
    ``bind``: serve ``/bind`` (kube-scheduler's ``bindVerb``). ``tls``: a server-side
    SSLContext (HTTPS). ``auth``: who may be served what is not a verb. :meth:`start` serves
    from a daemon thread, :meth:`serve_forever` from the caller's; :meth:`close` stops either,
    frees the port and closes the engine."""

    def __init__(self, engine: ExtenderEngine | None, host: str = "127.0.0.1", port: int = 0, *,
                 tls: ssl.SSLContext | None = None, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
                 read_timeout: float = 30.0, bind: bool = False,
                 ready: Callable[[], bool] | None = None, auth: DelegatedAuth | None = None) -> None:
        self.engine: ExtenderEngine | None = None
        self.auth = auth
        self.metrics = ExtenderMetrics()
        self.max_request_bytes = max_request_bytes
        self.bind = bind
        self._ready = ready
        if engine is not None:
            self.set_engine(engine)
        self._httpd = ThreadingHTTPServer((host, port), _handler(self, read_timeout))
        self._httpd.daemon_threads = True
        if tls is not None:
            if auth is not None:
                auth.configure_tls(tls)
            # the handshake happens on the connection's thread, not in the accepting loop
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True,
                                                 do_handshake_on_connect=False)
        self.scheme = "https" if tls is not None else "http"
        self._thread: threading.Thread | None = None
        self._close_lock = threading.Lock()
        self._closed = False

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"{self.scheme}://{host}:{port}"

    def set_engine(self, engine: ExtenderEngine) -> None:
        """Start answering the verbs with ``engine`` (closed with the server)."""
        engine.blind = self._blind
        engine.ahead = self._ahead
        self.engine = engine

    @property
    def ready(self) -> bool:
        return self.engine is not None and (self._ready is None or self._ready())

    def _ahead(self, result: str) -> None:
        self.metrics.ahead_result(result)

    def _blind(self, verb: str, what: str, detail: str) -> None:
        self.metrics.unseen.labels(verb, what).inc()
        _log.debug("%s: answered without seeing %s (%s)", verb, what, detail)

    def start(self) -> ExtenderServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="kubesched-extender", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.2)

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the serving thread to end; True while it serves."""
        t = self._thread
        if t is None:
            return False
        t.join(timeout)
        return t.is_alive()

    def close(self) -> None:
        """Stop serving and free the port (idempotent, from any thread)."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            if self._thread is not None:
                self._httpd.shutdown()
                self._thread.join(timeout=10)
            self._httpd.server_close()
            if self.engine is not None:
                self.engine.close()

    def __enter__(self) -> ExtenderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one request --------------------------------------------------------------------------
    def handle(self, method: str, path: str, length: str | None, read: Callable[[int], bytes],
               after: list[Callable[[], None]] | None = None, authorization: str | None = None,
               peer_cert: Any = None) -> tuple[int, str, bytes]:
        """(status, content type, body) for one request; never raises. ``after`` receives work
        to run once the answer is sent (None: run here, before answering); ``authorization``
        and ``peer_cert``: the request's credentials, for ``auth``."""
        bare = path.split("?", 1)[0]
        verb = bare.rstrip("/").rsplit("/", 1)[-1]
        if self.auth is not None and verb not in VERBS:
            try:
                refused = self.auth.check(method, bare, authorization, peer_cert)
            except Exception as exc:  # a bug: answered, logged, never a dead thread
                _log.exception("authorizing %s %s", method, bare)
                refused = 500, "text/plain; charset=utf-8", f"{type(exc).__name__}: {exc}".encode()
            if refused is not None:
                return refused
        if method == "GET" and verb == "healthz":
            return 200, "text/plain; charset=utf-8", b"ok"
        if method == "GET" and verb == "readyz":
            if self.ready:
                return 200, "text/plain; charset=utf-8", b"ok"
            return 503, "text/plain; charset=utf-8", b"not ready: the informers have not synced"
        if method == "GET" and verb == "metrics":
            return 200, CONTENT_TYPE, self.metrics.exposition()
        if verb not in VERBS or (verb == "bind" and not self.bind):
            hint = " (binding is off: start the extender with --bind)" if verb == "bind" else ""
            return self._refuse(verb or "/", 404, "not_found", f"no such path {path!r}{hint}")
        if method != "POST":
            return self._refuse(verb, 405, "method", f"{method} {path}: use POST")
        engine = self.engine
        if engine is None or not self.ready:
            return self._refuse(verb, 503, "not_ready", "not ready: the informers have not synced yet")
        start = time.perf_counter()
        later: list[Callable[[], None]] = []
        code, body = self._verb(engine, verb, length, read, later)
        self.metrics.answered(verb, code, time.perf_counter() - start)
        if after is None:
            _run_after(later)
        else:
            after.extend(later)
        return code, "application/json", body

    def _verb(self, engine: ExtenderEngine, verb: str, length: str | None,
              read: Callable[[int], bytes], after: list[Callable[[], None]]) -> tuple[int, bytes]:
        try:
            n = int(length) if length is not None else -1
        except ValueError:
            n = -1
        if n < 0:
            return self._fail(verb, 411, "bad_request", "a request body with Content-Length is required")
        if n > self.max_request_bytes:
            return self._fail(verb, 413, "too_large", f"request body of {n} bytes is larger than the "
                              f"limit of {self.max_request_bytes} bytes")
        try:
            raw = read(n)
            doc = loads_json(raw)
        except (OSError, ValueError) as exc:
            return self._fail(verb, 400, "bad_request", f"malformed JSON: {exc}")
        try:
            return 200, _answer(engine, verb, doc, after)
        except (WireError, RequestError) as exc:
            return self._fail(verb, 400, "bad_request", str(exc))
        except EngineError as exc:
            return self._fail(verb, 500, "internal", str(exc))
        except Exception as exc:  # a bug: answered, logged, never a dead thread
            _log.exception("%s: unexpected error", verb)
            return self._fail(verb, 500, "internal", f"{type(exc).__name__}: {exc}")

    def _fail(self, verb: str, code: int, kind: str, message: str) -> tuple[int, bytes]:
        self.metrics.errors.labels(verb, kind).inc()
        _log.info("%s: %d %s", verb, code, message)
        return code, _error_body(verb, message)

    def _refuse(self, verb: str, code: int, kind: str, message: str) -> tuple[int, str, bytes]:
        self.metrics.errors.labels(verb, kind).inc()
        return code, "application/json", json.dumps({"Error": message}).encode()


_MAX_LINE = 65536
"""Longest request line or header line read (http.server's limit)."""
_MAX_HEADERS = 100
_REASONS = {code.value: code.phrase for code in HTTPStatus}


def _handler(server: ExtenderServer, read_timeout: float) -> type[socketserver.StreamRequestHandler]:
    """A minimal HTTP/1.1 keep-alive handler: the request line, the headers as a dict (only
    Content-Length, Connection and Expect are read), one write per answer.

    Why not ``http.server.BaseHTTPRequestHandler``: it parses headers with the ``email``
    package and formats a Date header per answer, about a tenth of the extender's time per
    request with kube-scheduler calling twice per pod (filter, prioritize), each call on the
    pod's critical path. Limits are http.server's: 64 KiB per line, 100 headers."""

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
            after: list[Callable[[], None]] = []
            peer = None
            if server.auth is not None and isinstance(self.connection, ssl.SSLSocket):
                peer = self.connection.getpeercert()
            code, ctype, body = server.handle(method, path, headers.get("content-length"), self.rfile.read,
                                              after, headers.get("authorization"), peer)
            _log.debug("%s %s %s %d", self.client_address[0], method, path, code)
            # After an error the body may be unread or half-read: it must not be taken for the
            # next request.
            keep = self._reply(code, body, ctype, keep and code < 400)
            _run_after(after)  # while the client reads the answer and works on it
            return keep

        def _reply(self, code: int, body: bytes, ctype: str = "text/plain; charset=utf-8",
                   keep: bool = False) -> bool:
            close = "" if keep else "Connection: close\r\n"
            head = (f"HTTP/1.1 {code} {_REASONS.get(code, '')}\r\nContent-Type: {ctype}\r\n"
                    f"Content-Length: {len(body)}\r\n{close}\r\n")
            self.wfile.write(head.encode("latin-1") + body)
            return keep

    return Handler
