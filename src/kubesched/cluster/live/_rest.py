"""A small JSON REST client for the API server, with the kubeconfig's TLS and credentials:
rate limited (``TokenBucket``), retrying, API errors mapped to the store's. Plain requests
go over the standard library's keep-alive connections (:mod:`._http`: half urllib3's CPU per
request), watches over urllib3; bodies are encoded with orjson when installed.

Retries mirror client-go's request.go: a write is retried on 429, and on a 5xx that carries
``Retry-After``, never after a connection error (it may have been applied: a second Binding
would fail as a conflict); a read (GET, as the informers' lists) is also retried on any 5xx
and on connection errors, the reflector's backoff. Waits honour ``Retry-After``, else back off
exponentially (0.2 s doubling to 5 s, 6 attempts). An error that
remains is raised as the :mod:`kubesched.cluster` error for its status: 404 NotFound,
409 AlreadyExists or Conflict, 403/422 Invalid, 410 Expired, others StoreError.

Why not the generated client: its models are slow to build for thousands of pods, and the
scheduler parses into its own api objects anyway (``kubesched.api``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any
from urllib.parse import urlencode

import urllib3

from ...api import dumps_json, loads_json
from .._memory import Expired
from .._store import AlreadyExists, Conflict, Invalid, NotFound, StoreError
from ._config import JSON, ClientSettings
from ._fence import WriteFence
from ._http import CONNECTION_ERRORS, ConnectionPool, tls_context
from ._ratelimit import TokenBucket

__all__ = ["ApiError", "RestClient", "error_for_status"]

log = logging.getLogger(__name__)

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_MAX_ATTEMPTS = 6
_BACKOFF_START = 0.2
_BACKOFF_CAP = 5.0
_FAILED_EXCHANGE: tuple[type[Exception], ...] = (urllib3.exceptions.HTTPError, *CONNECTION_ERRORS)
# How often the kubeconfig loader's credential hook runs at most (client-go's cached token
# source re-reads a token file once a minute; the loader's own hooks refresh only when a token
# expires or its file's period has passed, so once a second never serves a stale token longer).
REFRESH_PERIOD = 1.0
MAX_CONNECTIONS = 128
"""Keep-alive connections kept per API server: the informers' watches (one each, held for the
watch's length), the scheduler's binding workers (64) and the loop's own writes fit. Beyond
it urllib3 still connects, but closes the connection after the request, so the next one pays
a TCP and TLS handshake."""


class ApiError(StoreError):
    """Any other failure answer; ``status`` is the HTTP code."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


def error_for_status(status: int, body: bytes | str) -> StoreError:
    """The store error for an API failure answer (its metav1.Status message when present)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    reason, message = "", text.strip() or f"HTTP {status}"
    try:
        st = json.loads(text)
        if isinstance(st, dict):
            reason = str(st.get("reason") or "")
            message = str(st.get("message") or message)
    except ValueError:
        pass
    if status == 404:
        return NotFound(message)
    if status == 409:
        return AlreadyExists(message) if reason == "AlreadyExists" else Conflict(message)
    if status in (403, 422):
        return Invalid(message)
    if status == 410:
        return Expired(message)
    return ApiError(message, status)


class RestClient:
    """JSON requests to one API server. ``cfg`` is a ``kubernetes.client.Configuration``."""

    def __init__(self, cfg: Any, settings: ClientSettings | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings or ClientSettings()
        self.fence: WriteFence | None = None
        """Checked right before each write (any method but GET) is sent (see :mod:`._fence`);
        None: writes always leave."""
        self.host = str(cfg.host).rstrip("/")
        self._cfg = cfg
        self._sleep = sleep
        self._monotonic = monotonic
        self._refreshed_at: float | None = None
        self._auth: dict[str, str] = {}
        self.limiter = TokenBucket(self.settings.qps, self.settings.burst, sleep=sleep)
        kw: dict[str, Any] = {"maxsize": MAX_CONNECTIONS, "block": False}
        if self.host.startswith("https"):
            kw["cert_reqs"] = "CERT_REQUIRED" if cfg.verify_ssl else "CERT_NONE"
            if cfg.ssl_ca_cert:
                kw["ca_certs"] = cfg.ssl_ca_cert
            if cfg.cert_file:
                kw["cert_file"] = cfg.cert_file
            if cfg.key_file:
                kw["key_file"] = cfg.key_file
            if cfg.tls_server_name:
                kw["server_hostname"] = cfg.tls_server_name
            if cfg.assert_hostname is not None:
                kw["assert_hostname"] = cfg.assert_hostname
        self._pool = urllib3.PoolManager(num_pools=4, **kw)
        # Plain requests: the lighter pool (see _http), unless assert_hostname asks for a
        # check urllib3 makes and the standard library's TLS does not.
        self._plain: ConnectionPool | None = None
        if cfg.assert_hostname is None:
            tls = tls_context(cfg) if self.host.startswith("https") else None
            self._plain = ConnectionPool(self.host, tls, cfg.tls_server_name or None, maxsize=MAX_CONNECTIONS)

    def clone(self) -> RestClient:
        """The same server and settings with its own token bucket and connections (upstream's
        separate event client: events never use up the scheduler's request budget), and no
        write fence."""
        return RestClient(self._cfg, self.settings, self._sleep, self._monotonic)

    def _credentials(self) -> dict[str, str]:
        """The auth headers, recomputed at most once per ``REFRESH_PERIOD``: the loader's
        ``refresh_api_key_hook`` (rotated service-account token files, expiring tokens) resets
        the whole Configuration and rescans proxy variables, too slow to run per request. A
        client without a hook (static credentials) computes them once, like client-go's
        ``cachingTokenSource`` (transport/token_source.go) caches a token between re-reads."""
        cfg = self._cfg
        now = self._monotonic()
        if self._refreshed_at is not None and (
                cfg.refresh_api_key_hook is None or now - self._refreshed_at < REFRESH_PERIOD):
            return self._auth
        if cfg.refresh_api_key_hook is not None:
            cfg.refresh_api_key_hook(cfg)
        auth: dict[str, str] = {}
        for setting in cfg.auth_settings().values():  # bearer token (or basic auth)
            if setting.get("in") == "header" and setting.get("value"):
                auth[str(setting["key"]).title()] = str(setting["value"])
        self._auth, self._refreshed_at = auth, now
        return auth

    def _headers(self, content_type: str | None) -> dict[str, str]:
        h = {"Accept": JSON, "User-Agent": "kubesched", **self._credentials()}
        if content_type:
            h["Content-Type"] = content_type
        return h

    def url(self, path: str, query: Mapping[str, Any] | None = None) -> str:
        q = {k: v for k, v in (query or {}).items() if v is not None}
        return self.host + path + (("?" + urlencode(q)) if q else "")

    def request(self, method: str, path: str, body: Any = None, *, query: Mapping[str, Any] | None = None,
                content_type: str = JSON, timeout: float = 30.0, retry: bool = True) -> Any:
        """One request with retries (``retry=False``: one attempt, whose connect timeout is
        bounded by ``timeout`` too); the decoded JSON answer (None when empty)."""
        data = dumps_json(body) if body is not None else None
        resp = self._send(method, path, data, query, content_type if data is not None else None,
                          timeout, stream=False, attempts=_MAX_ATTEMPTS if retry else 1)
        raw = resp.data
        return loads_json(raw) if raw else None

    def stream(self, path: str, query: Mapping[str, Any], timeout: float) -> Any:
        """A streaming GET (a watch): the open urllib3 response; close it when done."""
        return self._send("GET", path, None, query, None, timeout, stream=True)

    def _send(self, method: str, path: str, data: bytes | None, query: Mapping[str, Any] | None,
              content_type: str | None, timeout: float, stream: bool, attempts: int = _MAX_ATTEMPTS) -> Any:
        plain = self._plain if not stream else None
        url = self.url(path, query)
        target = url[len(self.host):]
        delay = _BACKOFF_START
        connect = 10.0 if attempts > 1 else min(10.0, timeout)
        fence = self.fence if method != "GET" else None
        before_send = partial(fence.check, method, path) if fence is not None else None
        resp: Any
        for attempt in range(1, attempts + 1):
            self.limiter.accept()
            try:
                if plain is not None:
                    resp = plain.request(method, target, data, self._headers(content_type), connect, timeout,
                                         before_send)
                else:
                    conn_timeout = connect
                    if fence is not None:  # urllib3 connects and sends in one call: check before,
                        fence.check(method, path)  # and never connect past the fence's limit
                        conn_timeout = max(0.001, min(connect, fence.remaining()))
                    resp = self._pool.request(method, url, body=data, headers=self._headers(content_type),
                                              timeout=urllib3.Timeout(connect=conn_timeout, read=timeout),
                                              retries=False, preload_content=not stream, redirect=False)
            except _FAILED_EXCHANGE as exc:
                if attempt == attempts or method != "GET":
                    raise ApiError(f"{method} {path}: {exc}") from None
                # refused, reset, a TLS handshake or certificate failure: an error, as
                # client-go's reflector reports a failed list or watch (HandleError)
                log.error("%s %s: %s; retrying in %.1fs", method, path, exc, delay)
                self._sleep(delay)
                delay = min(delay * 2, _BACKOFF_CAP)
                continue
            if resp.status < 300:
                return resp
            body = resp.data if not stream else resp.read()
            if stream:
                resp.release_conn()
            retry_after = resp.headers.get("Retry-After")
            retryable = resp.status in _RETRY_STATUSES and (
                method == "GET" or resp.status == 429 or retry_after is not None)
            if retryable and attempt < attempts:
                wait = _retry_after(retry_after, delay)
                log.info("%s %s: HTTP %d; retrying in %.1fs", method, path, resp.status, wait)
                self._sleep(wait)
                delay = min(delay * 2, _BACKOFF_CAP)
                continue
            raise error_for_status(resp.status, body)
        raise ApiError(f"{method} {path}: gave up")  # pragma: no cover - the loop returns or raises

    def close(self) -> None:
        self._pool.clear()
        if self._plain is not None:
            self._plain.clear()


def _retry_after(header: str | None, default: float) -> float:
    try:
        return min(max(float(header), 0.0), 30.0) if header else default
    except ValueError:
        return default


def iter_lines(resp: Any) -> Iterator[bytes]:
    """The newline-delimited JSON documents of a watch response, as they arrive."""
    buf = b""
    for chunk in resp.stream(64 * 1024, decode_content=True):
        buf += chunk
        while True:
            i = buf.find(b"\n")
            if i < 0:
                break
            line, buf = buf[:i], buf[i + 1:]
            if line.strip():
                yield line
    if buf.strip():
        yield buf
