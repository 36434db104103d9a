"""The live client's pure parts: kubeconfig resolution, clientConnection, the token bucket,
API errors mapped to the store's, retries on 429/5xx."""

from __future__ import annotations

import json
import logging
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kubesched.clock import VirtualClock
from kubesched.cluster import AlreadyExists, Conflict, Expired, Invalid, NotFound
from kubesched.cluster.live import (
    ApiError,
    ClientSettings,
    ConfigError,
    Fenced,
    RestClient,
    TokenBucket,
    WriteFence,
    client_settings,
    error_for_status,
    load_rest_config,
    resolve_kubeconfig,
)
from kubesched.cluster.live._rest import REFRESH_PERIOD


class _QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return


@contextmanager
def _served(handler: type[BaseHTTPRequestHandler], *, tls: ssl.SSLContext | None = None,
            server: type[ThreadingHTTPServer] = ThreadingHTTPServer) -> Iterator[str]:
    """``handler`` served on a free loopback port (over TLS with ``tls``) for the length of
    the block: its URL."""
    srv = server(("127.0.0.1", 0), handler)
    if tls is not None:
        srv.socket = tls.wrap_socket(srv.socket, server_side=True)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        yield f"{'https' if tls is not None else 'http'}://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def _file(p: Path) -> str:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("x")
    return str(p)


def test_kubeconfig_flag_then_config_then_env_then_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    flag, conf = _file(tmp_path / "flag"), _file(tmp_path / "conf")
    env1, env2 = str(tmp_path / "missing"), _file(tmp_path / "env2")
    env = {"KUBECONFIG": f"{env1}:{env2}"}
    assert resolve_kubeconfig(flag, conf, env, home) == Path(flag)
    assert resolve_kubeconfig(None, conf, env, home) == Path(conf)
    assert resolve_kubeconfig(None, "", env, home) == Path(env2)  # first existing entry
    assert resolve_kubeconfig(None, "", {}, home) is None  # in-cluster
    default = _file(home / ".kube" / "config")
    assert resolve_kubeconfig(None, "", {}, home) == Path(default)


def test_an_explicit_kubeconfig_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        resolve_kubeconfig(str(tmp_path / "nope"), "", {}, tmp_path)


def test_in_cluster_without_a_service_account_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(ConfigError, match=r"in-cluster service account.*no --kubeconfig"):
        load_rest_config(None)


def test_client_connection_defaults_and_json_only() -> None:
    s = client_settings()
    assert (s.qps, s.burst, s.content_type) == (50.0, 100, "application/json")
    s = client_settings(kubeconfig="/k", qps=5, burst=7, content_type="application/vnd.kubernetes.protobuf")
    assert (s.qps, s.burst, s.content_type, s.kubeconfig) == (5.0, 7, "application/json", "/k")


def test_token_bucket_allows_burst_then_qps() -> None:
    now = [0.0]
    bucket = TokenBucket(qps=2, burst=3, clock=lambda: now[0])
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.reserve() == pytest.approx(0.5)  # the 4th waits for one token at 2/s
    assert bucket.reserve() == pytest.approx(1.0)
    now[0] = 10.0  # refilled, capped at burst
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert TokenBucket(qps=-1, burst=1).reserve() == 0.0  # disabled


@pytest.mark.parametrize(("status", "reason", "exc"), [
    (404, "NotFound", NotFound), (409, "AlreadyExists", AlreadyExists), (409, "Conflict", Conflict),
    (422, "Invalid", Invalid), (403, "Forbidden", Invalid), (410, "Expired", Expired), (500, "", ApiError),
])
def test_api_errors_map_to_store_errors(status: int, reason: str, exc: type[Exception]) -> None:
    err = error_for_status(status, json.dumps({"kind": "Status", "reason": reason, "message": "boom"}))
    assert isinstance(err, exc)
    assert str(err) == "boom"


@pytest.fixture
def flaky_server() -> Iterator[tuple[str, list[int]]]:
    """An HTTP server answering 429, then 503, then 200 (what retries must get through)."""
    answers = [429, 503, 200]
    seen: list[int] = []

    class Handler(_QuietHandler):
        def do_GET(self) -> None:
            code = answers[min(len(seen), len(answers) - 1)]
            seen.append(code)
            body = json.dumps({"ok": True} if code == 200 else {"kind": "Status", "message": "busy"}).encode()
            self.send_response(code)
            if code == 429:
                self.send_header("Retry-After", "0")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with _served(Handler) as url:
        yield url, seen


def _cfg(host: str) -> SimpleNamespace:
    return SimpleNamespace(host=host, verify_ssl=True, ssl_ca_cert=None, cert_file=None, key_file=None,
                           tls_server_name=None, assert_hostname=None, refresh_api_key_hook=None,
                           auth_settings=lambda: {})


def test_rest_client_retries_429_and_5xx(flaky_server: tuple[str, list[int]]) -> None:
    url, seen = flaky_server
    slept: list[float] = []
    client = RestClient(_cfg(url), sleep=slept.append)
    assert client.request("GET", "/api/v1/nodes") == {"ok": True}
    assert client.clone().limiter is not client.limiter  # the event client has its own budget
    assert seen == [429, 503, 200]
    assert slept == [0.0, 0.4]  # Retry-After: 0, then the doubled backoff


def test_rest_client_retries_reads_after_connection_errors_then_gives_up() -> None:
    slept: list[float] = []
    client = RestClient(_cfg("http://127.0.0.1:1"), sleep=slept.append)
    with pytest.raises(ApiError, match="GET /api/v1/nodes"):
        client.request("GET", "/api/v1/nodes")
    assert slept == [0.2, 0.4, 0.8, 1.6, 3.2]


def test_a_write_is_not_retried_after_a_connection_error() -> None:
    """It may have been applied (client-go retries only reads there)."""
    slept: list[float] = []
    client = RestClient(_cfg("http://127.0.0.1:1"), sleep=slept.append)
    with pytest.raises(ApiError, match="POST /api/v1/namespaces/ns/pods/p/binding"):
        client.request("POST", "/api/v1/namespaces/ns/pods/p/binding", {})
    assert slept == []


@pytest.fixture
def untrusted_tls_server() -> Iterator[str]:
    """An HTTPS server whose self-signed certificate no client here trusts."""
    from kubesched.serving import self_signed_context

    class Handler(_QuietHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

    with _served(Handler, tls=self_signed_context("127.0.0.1")) as url:
        yield url


def test_a_tls_failure_is_logged_as_an_error(untrusted_tls_server: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    """A certificate the client does not trust fails every attempt; each retry is logged at
    error level (not info), naming the request and the TLS error."""
    client = RestClient(_cfg(untrusted_tls_server), sleep=lambda _: None)
    with caplog.at_level(logging.INFO, logger="kubesched"), \
            pytest.raises(ApiError, match="CERTIFICATE_VERIFY"):
        client.request("GET", "/api/v1/nodes")
    retries = [r for r in caplog.records if "retrying in" in r.getMessage()]
    assert len(retries) == 5
    assert all(r.levelno == logging.ERROR and "GET /api/v1/nodes" in r.getMessage()
               and "CERTIFICATE_VERIFY_FAILED" in r.getMessage() for r in retries)


@pytest.fixture
def auth_server() -> Iterator[tuple[str, list[str]]]:
    """Answers every GET with {} and records its Authorization header."""
    seen: list[str] = []

    class Handler(_QuietHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

    with _served(Handler) as url:
        yield url, seen


def test_a_rotated_token_file_is_picked_up_within_the_refresh_period(
        auth_server: tuple[str, list[str]], tmp_path: Path) -> None:
    """The credential hook (the in-cluster loader's re-reads the service-account token file)
    runs at most once per refresh period, not per request, and a rewritten file is used after it."""
    url, seen = auth_server
    token = tmp_path / "token"
    token.write_text("one")
    now = [100.0]
    calls: list[float] = []
    cfg = _cfg(url)
    cfg.api_key = {}

    def hook(c: SimpleNamespace) -> None:
        calls.append(now[0])
        c.api_key["BearerToken"] = "Bearer " + token.read_text()

    cfg.refresh_api_key_hook = hook
    cfg.auth_settings = lambda: {"BearerToken": {"in": "header", "key": "authorization",
                                                 "value": cfg.api_key.get("BearerToken")}}
    client = RestClient(cfg, monotonic=lambda: now[0])
    for _ in range(3):
        client.request("GET", "/api/v1/nodes")
    token.write_text("two")
    now[0] += 0.5
    client.request("GET", "/api/v1/nodes")
    now[0] += REFRESH_PERIOD
    client.request("GET", "/api/v1/nodes")
    assert seen == ["Bearer one"] * 4 + ["Bearer two"]
    assert calls == [100.0, 100.0 + 0.5 + REFRESH_PERIOD]


def test_static_credentials_are_computed_once(auth_server: tuple[str, list[str]]) -> None:
    url, seen = auth_server
    cfg = _cfg(url)
    asked: list[int] = []

    def settings() -> dict[str, dict[str, str]]:
        asked.append(1)
        return {"BearerToken": {"in": "header", "key": "authorization", "value": "Bearer t"}}

    cfg.auth_settings = settings
    client = RestClient(cfg)
    client.request("GET", "/api/v1/nodes")
    client.request("GET", "/api/v1/nodes")
    assert seen == ["Bearer t", "Bearer t"] and len(asked) == 1


@pytest.fixture
def keepalive_server() -> Iterator[tuple[str, list[tuple[str, int, bytes]], threading.Event]]:
    """An HTTP/1.1 server recording (method, client port, body) per request; a request whose
    path ends in ``/drop`` is answered, then its connection closed without saying so (the
    event is set once it is closed)."""
    seen: list[tuple[str, int, bytes]] = []
    closed = threading.Event()

    class Handler(_QuietHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            seen.append((self.command, self.client_address[1], self.rfile.read(n)))
            body = b'{"ok":true}'
            self.send_response(201 if self.command == "POST" else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            if self.path.endswith("/drop"):
                self.close_connection = True

        do_GET = do_POST = _answer

    class Server(ThreadingHTTPServer):
        def shutdown_request(self, request: Any) -> None:
            super().shutdown_request(request)
            closed.set()

    with _served(Handler, server=Server) as url:
        yield url, seen, closed


def test_requests_reuse_a_keepalive_connection_and_replace_one_the_server_closed(
        keepalive_server: tuple[str, list[tuple[str, int, bytes]], threading.Event]) -> None:
    """A write is never retried after a connection error, so an idle connection the server
    has closed must be noticed before a POST is sent on it."""
    url, seen, closed = keepalive_server
    client = RestClient(_cfg(url), sleep=lambda s: None)
    try:
        assert client.request("GET", "/api/v1/nodes") == {"ok": True}
        assert client.request("POST", "/api/v1/namespaces/ns/pods/p/binding", {"target": {"name": "n"}}) == {
            "ok": True}
        assert seen[0][1] == seen[1][1]  # one connection
        assert json.loads(seen[1][2]) == {"target": {"name": "n"}}
        client.request("GET", "/api/v1/drop")
        assert closed.wait(5)
        assert client.request("POST", "/api/v1/namespaces/ns/pods/q/binding", {}) == {"ok": True}
        assert seen[-1][0] == "POST" and seen[-1][1] != seen[-2][1]  # on a new connection
    finally:
        client.close()


def test_a_request_leaves_in_one_write_with_http_client_s_headers(
        keepalive_server: tuple[str, list[tuple[str, int, bytes]], threading.Event],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Head and body in one ``sendall`` (http.client writes them separately: two TLS records
    and two packets per request), with the headers http.client would send."""
    import socket

    url, seen, _ = keepalive_server
    writes: list[bytes] = []
    real = socket.socket.sendall

    def sendall(self: socket.socket, data: bytes, *args: Any) -> None:
        writes.append(bytes(data))
        real(self, data, *args)

    monkeypatch.setattr(socket.socket, "sendall", sendall)
    client = RestClient(_cfg(url), sleep=lambda s: None)
    try:
        assert client.request("POST", "/api/v1/namespaces/ns/pods/p/binding", {"target": {"name": "n"}}) == {
            "ok": True}
    finally:
        client.close()
    post = writes[0]
    head, _, body = post.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /api/v1/namespaces/ns/pods/p/binding HTTP/1.1"
    fields = dict(line.split(": ", 1) for line in lines[1:])
    assert fields["Host"] == url.removeprefix("http://")
    assert fields["Content-Length"] == str(len(body)) and json.loads(body) == {"target": {"name": "n"}}
    assert fields["Content-Type"] == "application/json" and fields["Accept"] == "application/json"
    assert json.loads(seen[0][2]) == {"target": {"name": "n"}}
    with pytest.raises(ValueError):
        RestClient(_cfg(url)).request("GET", "/api/v1/nodes?x=a b")


def test_a_fenced_client_sends_writes_only_while_the_fence_is_open(
        keepalive_server: tuple[str, list[tuple[str, int, bytes]], threading.Event]) -> None:
    """The write fence of a leader (cluster/live/_fence.py): a write leaves only before the
    fence's time and never once it is closed; reads always do. A refused write never reaches
    the server."""
    url, seen, _ = keepalive_server
    clock = VirtualClock(1000.0)
    client = RestClient(_cfg(url), sleep=lambda s: None)
    client.fence = WriteFence(clock, open_until=1010.0)
    binding = "/api/v1/namespaces/ns/pods/p/binding"
    try:
        assert client.request("POST", binding, {}) == {"ok": True}
        clock.advance(10.0)
        with pytest.raises(Fenced, match=f"POST {binding}: not sent: the leader lease is not held"):
            client.request("POST", binding, {})
        assert client.request("GET", "/api/v1/nodes") == {"ok": True}
        client.fence.hold_until(1020.0)  # renewed
        assert client.request("POST", binding, {}) == {"ok": True}
        client.fence.close()  # lost
        client.fence.hold_until(1030.0)  # a renewal under way when the loss was seen: no effect
        with pytest.raises(Fenced, match="the leader lease was lost"):
            client.request("PATCH", "/api/v1/namespaces/ns/pods/p/status", {})
        assert [m for m, _, _ in seen] == ["POST", "GET", "POST"]
        assert client.clone().fence is None  # a clone is fenced only when told
    finally:
        client.close()


def test_the_fence_is_checked_after_the_rate_limiter_made_the_write_wait(
        keepalive_server: tuple[str, list[tuple[str, int, bytes]], threading.Event]) -> None:
    """A write that waited for a token past the fence's time is not sent: the fence is checked
    right before sending, not when the request was made."""
    url, seen, _ = keepalive_server
    clock = VirtualClock(1000.0)
    client = RestClient(_cfg(url), ClientSettings(qps=1.0, burst=1), sleep=clock.advance)
    client.limiter = TokenBucket(1.0, 1, clock=lambda: clock.now, sleep=clock.advance)
    client.fence = WriteFence(clock, open_until=1000.5)
    binding = "/api/v1/namespaces/ns/pods/p/binding"
    try:
        assert client.request("POST", binding, {}) == {"ok": True}
        with pytest.raises(Fenced):
            client.request("POST", binding, {})  # waits 1 s for its token: past the fence
        assert clock.now == 1001.0
        assert [m for m, _, _ in seen] == ["POST"]
    finally:
        client.close()


def test_the_fence_holds_on_the_urllib3_path_too(
        keepalive_server: tuple[str, list[tuple[str, int, bytes]], threading.Event]) -> None:
    """A kubeconfig asking for a hostname check the standard library's TLS does not make sends
    its writes through urllib3, which connects and sends in one call: the fence is checked
    before it, and a write refused there never reaches the server."""
    url, seen, _ = keepalive_server
    clock = VirtualClock(1000.0)
    cfg = _cfg(url)
    cfg.assert_hostname = "api.example"
    client = RestClient(cfg, sleep=lambda s: None)
    client.fence = WriteFence(clock, open_until=1010.0)
    binding = "/api/v1/namespaces/ns/pods/p/binding"
    try:
        assert client.request("POST", binding, {}) == {"ok": True}
        client.fence.close()
        with pytest.raises(Fenced):
            client.request("POST", binding, {})
        assert [m for m, _, _ in seen] == ["POST"]
    finally:
        client.close()
