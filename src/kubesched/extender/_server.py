"""The extender's routes: extender/v1 JSON over HTTP(S), mounted on the one serving server
(:class:`~kubesched.serving.HTTPServer`: HTTP/1.1 keep-alive, one thread per connection).

kube-scheduler's HTTPExtender (pkg/scheduler/extender.go) POSTs JSON to ``<urlPrefix>/<verb>``
and treats any status but 200 as the call's error. Routes (the last path segment decides, so
a ``urlPrefix`` with a path works): ``POST /filter``, ``/prioritize``, ``/preempt``, ``/bind``
(when binding is enabled); ``GET /healthz`` (``ok`` while the process serves), ``/readyz``
(``ok`` once the engine can answer: the informers have synced; 503 before) and ``/metrics``
(Prometheus text). A verb asked before the engine is ready is a 503 with ``Error``.

Given an ``auth`` (``kubesched extender`` passes kube-scheduler's delegated authentication and
authorization, :class:`~kubesched.serving.DelegatedAuth`), every request but the verbs is
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
import ssl
import threading
import time
from collections.abc import Callable
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
from ..metrics import CONTENT_TYPE
from ..serving import DelegatedAuth, HTTPServer, Request, Response, run_after
from ._engine import EngineError, ExtenderEngine, RequestError
from ._metrics import ExtenderMetrics

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "ExtenderServer"]

_log = logging.getLogger(__name__)

DEFAULT_MAX_REQUEST_BYTES = 64 << 20
"""64 MiB: 5000 full Node objects with long image lists fit; anything larger is refused."""

VERBS = ("filter", "prioritize", "preempt", "bind")


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
    from a daemon thread (:class:`~kubesched.serving.HTTPServer`, the one server every command
    serves through); :meth:`close` stops it, frees the port and closes the engine."""

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
        if tls is not None and auth is not None:
            auth.configure_tls(tls)
        self._http = HTTPServer(self._route, host, port, tls=tls, read_timeout=read_timeout,
                                name="kubesched-extender")
        self.scheme = self._http.scheme
        self._close_lock = threading.Lock()
        self._closed = False

    @property
    def address(self) -> tuple[str, int]:
        return self._http.address

    @property
    def url(self) -> str:
        return self._http.url

    @property
    def _httpd(self) -> Any:
        """The one server's socketserver (its handler class's settings, for tests)."""
        return self._http._httpd

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
        self._http.start()
        return self

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the serving thread to end; True while it serves."""
        return self._http.wait(timeout)

    def close(self) -> None:
        """Stop serving, free the port and close the engine (idempotent, from any thread)."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            self._http.close()
            if self.engine is not None:
                self.engine.close()

    def __enter__(self) -> ExtenderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one request --------------------------------------------------------------------------
    def _route(self, request: Request) -> Response:
        """The one server's route: every request is :meth:`handle`'s."""
        peer = request.peer_cert if self.auth is not None else None
        headers = request.headers
        code, ctype, body = self.handle(request.method, request.path, headers.get("content-length"),
                                        request.read, request.after, headers.get("authorization"), peer)
        return Response(code, ctype, body)

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
            run_after(later)
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
