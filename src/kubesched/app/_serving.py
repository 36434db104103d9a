"""The scheduler's HTTP endpoints: health, readiness, liveness and metrics.

Mirrors what kube-scheduler serves (cmd/kube-scheduler/app/server.go, newEndpointsHandler and
the checks Run sets up) with the apiserver's health handlers
(staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go):

- ``/healthz``: the ``leaderElection`` watchdog when leader election is on, else ``ping``;
- ``/livez``: ``ping``;
- ``/readyz``: ``leaderElection`` (when on), ``shutdown`` (fails once the process is stopping)
  and ``sched-handler-sync`` (fails until the informers have synced and their initial lists
  reached the event handlers);
- ``/<endpoint>/<check>`` for each check alone (the failure reason in the body), ``?verbose``
  and ``?exclude=NAME`` on the three roots, with upstream's texts (``[+]ping ok``,
  ``[-]shutdown failed: reason withheld``, ``readyz check failed``);
- ``/metrics``: the Prometheus text format of the given registries (the scheduler's
  ``SchedulerMetrics.registry``, the leader election metrics, the process's), without
  ``_created`` series (:mod:`kubesched.metrics`).

Every request goes through the given :class:`RequestAuth` first (``kubesched run`` passes
the delegated authentication and authorization kube-scheduler uses, see
:class:`~kubesched.serving.DelegatedAuth`: only ``/healthz``, ``/readyz`` and ``/livez``
are served to anyone); without one every request is served. The routes are mounted on the
one server every serving command uses (:class:`~kubesched.serving.HTTPServer`: keep-alive, a
failed TLS handshake one log line as Go's, a plain HTTP client Go's ``400 Bad Request``).

Differences from upstream, on purpose: plain HTTP unless an ``ssl.SSLContext`` is given (the
command always gives one: upstream always serves HTTPS, with a self-signed certificate when none
is configured), and by default bound to loopback (:data:`DEFAULT_BIND_ADDRESS`, port 10259 as
upstream; ``0.0.0.0:10259`` in a pod, for the kubelet's probes). No ``/configz``, ``/flagz``,
``/statusz``, ``/debug/pprof`` or ``/metrics/resources``.
"""

from __future__ import annotations

import logging
import ssl
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from prometheus_client import CollectorRegistry

from ..metrics import CONTENT_TYPE, exposition
from ..serving import HTTPServer, Request, Response, parse_bind_address

__all__ = [
    "DEFAULT_BIND_ADDRESS",
    "DEFAULT_PORT",
    "HealthChecker",
    "NamedCheck",
    "RequestAuth",
    "SchedulerServer",
    "handler_sync_check",
    "new_endpoints_server",
    "parse_bind_address",
    "ping_check",
    "shutdown_check",
]

_log = logging.getLogger(__name__)

DEFAULT_PORT = 10259
"""DefaultKubeSchedulerPort (pkg/scheduler/apis/config/types.go)."""

DEFAULT_BIND_ADDRESS = f"127.0.0.1:{DEFAULT_PORT}"

_TEXT = "text/plain; charset=utf-8"


class HealthChecker(Protocol):
    """healthz.HealthChecker: a name and a check giving None when healthy, else why not."""

    def name(self) -> str: ...

    def check(self) -> str | None: ...


class RequestAuth(Protocol):
    """Who may be served (kubesched.serving.DelegatedAuth): ``check`` gives None to serve
    the request, else the (status, content type, body) refusing it; ``configure_tls`` lets the
    serving context ask for client certificates."""

    def check(self, method: str, path: str, authorization: str | None,
              peer_cert: Mapping[str, Any] | None = None) -> tuple[int, str, bytes] | None: ...

    def configure_tls(self, ctx: ssl.SSLContext) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class NamedCheck:
    """healthz.NamedCheck: a health check from a name and a function."""

    check_name: str
    fn: Callable[[], str | None]

    def name(self) -> str:
        return self.check_name

    def check(self) -> str | None:
        return self.fn()


def ping_check() -> NamedCheck:
    """healthz.PingHealthz: always healthy; the check of an endpoint given none."""
    return NamedCheck("ping", lambda: None)


def shutdown_check(stopping: threading.Event) -> NamedCheck:
    """healthz.NewShutdownHealthz: fails once ``stopping`` is set, so a terminating scheduler
    is taken out of readiness while it finishes."""
    return NamedCheck("shutdown", lambda: "process is shutting down" if stopping.is_set() else None)


def handler_sync_check(synced: Callable[[], bool]) -> NamedCheck:
    """kube-scheduler's ``sched-handler-sync`` readiness check: fails until ``synced()`` says
    the informers have synced and their initial items reached the event handlers."""
    return NamedCheck("sched-handler-sync",
                      lambda: None if synced() else "handlers are not fully synchronized")


class _Endpoints:
    """The path mux: health roots with their checks, one path per check, and /metrics."""

    def __init__(self, health: dict[str, Sequence[HealthChecker]],
                 registries: Sequence[CollectorRegistry]) -> None:
        # InstallPathHandler: an endpoint given no check serves ping
        self.health = {path: (list(checks) or [ping_check()]) for path, checks in health.items()}
        self.registries = list(registries)

    def serve(self, path: str, query: dict[str, list[str]]) -> tuple[int, str, bytes]:
        """(status, content type, body) for a GET of ``path``."""
        if path == "/metrics":
            return 200, CONTENT_TYPE, exposition(self.registries)
        if path in self.health:
            return self._root(path, query)
        root, _, name = path.rpartition("/")
        for check in self.health.get(root, ()):
            if check.name() == name:
                err = check.check()
                if err is None:
                    return 200, _TEXT, b"ok"
                return 500, _TEXT, f"internal server error: {err}\n".encode()
        return 404, _TEXT, b"404 page not found\n"

    def _root(self, path: str, query: dict[str, list[str]]) -> tuple[int, str, bytes]:
        """handleRootHealth: every check, the failed ones' reasons withheld (they are logged)."""
        endpoint = path.strip("/").split("/")[0]
        excluded = list(dict.fromkeys(query.get("exclude", [])))
        out: list[str] = []
        failed: list[str] = []
        log_lines: list[str] = []
        for check in self.health[path]:
            name = check.name()
            if name in excluded:
                excluded.remove(name)
                out.append(f"[+]{name} excluded: ok\n")
                continue
            err = check.check()
            if err is not None:
                out.append(f"[-]{name} failed: reason withheld\n")
                log_lines.append(f"[-]{name} failed: {err}\n")
                failed.append(name)
            else:
                out.append(f"[+]{name} ok\n")
        if excluded:
            names = ",".join(f'"{n}"' for n in sorted(excluded))
            out.append(f"warn: some health checks cannot be excluded: no matches for {names}\n")
        if failed:
            _log.info("%s check failed: %s\n%s", ",".join(failed), endpoint, "".join(log_lines))
            return 500, _TEXT, f"{''.join(out)}{endpoint} check failed\n".encode()
        if "verbose" not in query:
            return 200, _TEXT, b"ok"
        return 200, _TEXT, f"{''.join(out)}{endpoint} check passed\n".encode()


def _routes(endpoints: _Endpoints, auth: RequestAuth | None) -> Callable[[Request], Response]:
    """GET and HEAD of the endpoints, each request checked by ``auth`` first; another method is
    a 501 (net/http's mux serves these paths to GET alone)."""

    def route(request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return Response(501, _TEXT, f"Unsupported method ({request.method!r})\n".encode())
        url = urlsplit(request.path)
        try:
            answer = None
            if auth is not None:
                answer = auth.check(request.method, url.path, request.headers.get("authorization"),
                                    request.peer_cert)
            if answer is None:
                answer = endpoints.serve(url.path, parse_qs(url.query, keep_blank_values=True))
            status, ctype, body = answer
        except Exception:  # a failing check or collector must not kill the server
            _log.exception("serving %s", url.path)
            status, ctype, body = 500, _TEXT, b"internal server error\n"
        return Response(status, ctype, body, _HEADERS)

    return route


_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-cache, private"))


class SchedulerServer:
    """The endpoints served on one address from a background thread, through the one
    :class:`~kubesched.serving.HTTPServer`.

    ``start()`` binds (raising OSError when the address is taken) and serves; ``shutdown()``
    stops accepting, waits for the thread and closes the socket. Usable as a context manager."""

    def __init__(self, bind_address: str = DEFAULT_BIND_ADDRESS, *,
                 healthz: Iterable[HealthChecker] = (), livez: Iterable[HealthChecker] = (),
                 readyz: Iterable[HealthChecker] = (), registries: Sequence[CollectorRegistry] = (),
                 ssl_context: ssl.SSLContext | None = None, auth: RequestAuth | None = None) -> None:
        self._host, self._port = parse_bind_address(bind_address)
        self._auth = auth
        if auth is not None and ssl_context is not None:
            auth.configure_tls(ssl_context)
        self._endpoints = _Endpoints({"/healthz": list(healthz), "/livez": list(livez),
                                      "/readyz": list(readyz)}, registries)
        self._ssl = ssl_context
        self._server: HTTPServer | None = None

    def start(self) -> SchedulerServer:
        if self._server is not None:
            return self
        # a client that connects and sends nothing does not hold a thread forever
        self._server = HTTPServer(_routes(self._endpoints, self._auth), self._host, self._port,
                                  tls=self._ssl, read_timeout=60, name="kubesched-serving").start()
        _log.info("Serving %s on %s", "securely" if self._ssl else "insecurely", self.url)
        return self

    @property
    def port(self) -> int:
        """The port bound (the one the OS chose when the address asked for port 0)."""
        if self._server is None:
            return self._port
        return self._server.port

    @property
    def url(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"{'https' if self._ssl else 'http'}://{host}:{self.port}"

    def shutdown(self) -> None:
        server = self._server
        if server is None:
            return
        server.close()
        self._server = None

    def __enter__(self) -> SchedulerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def new_endpoints_server(bind_address: str = DEFAULT_BIND_ADDRESS, *,
                         registries: Sequence[CollectorRegistry] = (),
                         synced: Callable[[], bool] = lambda: True,
                         stopping: threading.Event | None = None,
                         leader_election: HealthChecker | None = None,
                         ssl_context: ssl.SSLContext | None = None,
                         auth: RequestAuth | None = None) -> SchedulerServer:
    """The server kube-scheduler's Run sets up: ``leader_election`` (the elector's
    HealthzAdaptor, when leader election is on) in /healthz and /readyz, ``shutdown``
    (``stopping``) and ``sched-handler-sync`` (``synced``) in /readyz, ping in /livez, and
    ``registries`` on /metrics, each request checked by ``auth`` first. Not started: call
    ``start()``."""
    healthz: list[HealthChecker] = []
    readyz: list[HealthChecker] = []
    if leader_election is not None:
        healthz.append(leader_election)
        readyz.append(leader_election)
    readyz.append(shutdown_check(stopping if stopping is not None else threading.Event()))
    readyz.append(handler_sync_check(synced))
    return SchedulerServer(bind_address, healthz=healthz, readyz=readyz, registries=registries,
                           ssl_context=ssl_context, auth=auth)
