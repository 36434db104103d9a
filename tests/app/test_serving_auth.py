"""The endpoints behind kube-scheduler's delegated authentication and authorization, over real
HTTP(S) on 127.0.0.1, with a fake API server answering the TokenReviews and
SubjectAccessReviews: who is refused with what (the API server's Status bodies, byte for byte
as kube-scheduler writes them), what is cached for how long (a virtual clock), client
certificates, and one log line for a client that fails the TLS handshake."""

from __future__ import annotations

import logging
import socket
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from kubesched.app._serving import SchedulerServer, new_endpoints_server
from kubesched.cluster import StoreError
from kubesched.serving import DelegatedAuth, DelegatedAuthOptions

ANONYMOUS_403 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                 '"forbidden: User \\"system:anonymous\\" cannot get path \\"/metrics\\"",'
                 '"reason":"Forbidden","details":{},"code":403}\n')
UNAUTHORIZED_401 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                    '"message":"Unauthorized","reason":"Unauthorized","code":401}\n')


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeApi:
    """TokenReview and SubjectAccessReview answers: ``tokens`` maps a token to its user,
    ``allowed`` holds the (user, verb, path) RBAC allows; every review is recorded."""

    def __init__(self, tokens: Mapping[str, dict[str, Any]] | None = None,
                 allowed: set[tuple[str, str, str]] | None = None) -> None:
        self.tokens = dict(tokens or {})
        self.allowed = set(allowed or ())
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail = False

    def request(self, method: str, path: str, body: Any = None, **_: Any) -> Any:
        assert method == "POST"
        self.calls.append((path.rsplit("/", 1)[1], body))
        if self.fail:
            raise StoreError("connection refused")
        spec = body["spec"]
        if path.endswith("/tokenreviews"):
            user = self.tokens.get(spec["token"])
            return {"status": {"authenticated": user is not None, **({"user": user} if user else {})}}
        attrs = spec["nonResourceAttributes"]
        ok = (spec["user"], attrs["verb"], attrs["path"]) in self.allowed
        return {"status": {"allowed": ok}}

    def close(self) -> None:
        pass

    def reviews(self, kind: str) -> list[dict[str, Any]]:
        return [b for k, b in self.calls if k == kind]


READER = {"username": "system:serviceaccount:monitoring:prometheus", "uid": "u-1",
          "groups": ["system:serviceaccounts"]}
NOBODY = {"username": "system:serviceaccount:default:nobody", "groups": ["system:serviceaccounts"]}
ADMIN = {"username": "admin", "groups": ["system:masters"]}


def fetch(url: str, token: str | None = None, method: str = "GET",
          context: ssl.SSLContext | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, method=method)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=5, context=context) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read().decode()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def api() -> FakeApi:
    return FakeApi({"reader": READER, "nobody": NOBODY, "admin": ADMIN},
                   {(READER["username"], "get", "/metrics")})


def serve(auth: DelegatedAuth, ssl_context: ssl.SSLContext | None = None) -> SchedulerServer:
    return new_endpoints_server("127.0.0.1:0", auth=auth, ssl_context=ssl_context)


@pytest.fixture
def server(api: FakeApi, clock: FakeClock) -> Iterator[SchedulerServer]:
    auth = DelegatedAuth(authn=api, authz=api, monotonic=clock)  # type: ignore[arg-type]
    with serve(auth) as srv:
        yield srv


def test_anonymous_metrics_is_forbidden_health_is_not(server: SchedulerServer, api: FakeApi) -> None:
    assert fetch(server.url + "/metrics") == (403, ANONYMOUS_403)
    for path in ("/healthz", "/readyz", "/livez", "/healthz?verbose"):
        assert fetch(server.url + path)[0] == 200, path
    assert fetch(server.url + "/livez/ping")[0] == 403  # an exact path, as upstream's
    # the anonymous user is reviewed like any other (RBAC may grant system:unauthenticated)
    sar = api.reviews("subjectaccessreviews")[0]
    assert sar["spec"] == {"user": "system:anonymous", "groups": ["system:unauthenticated"],
                           "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}
    assert api.reviews("tokenreviews") == []


def test_a_token_allowed_get_on_metrics_is_served(server: SchedulerServer, api: FakeApi) -> None:
    status, body = fetch(server.url + "/metrics", "reader")
    assert (status, body) == (200, "")  # no registries here
    (tr,) = api.reviews("tokenreviews")
    assert tr == {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                  "spec": {"token": "reader"}}
    (sar,) = api.reviews("subjectaccessreviews")
    assert sar["spec"] == {"user": READER["username"], "uid": "u-1",
                           "groups": ["system:serviceaccounts", "system:authenticated"],
                           "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}


def test_a_token_without_the_permission_is_forbidden_by_name(server: SchedulerServer) -> None:
    status, body = fetch(server.url + "/metrics", "nobody")
    assert status == 403
    user = "system:serviceaccount:default:nobody"
    assert f'"message":"forbidden: User \\"{user}\\" cannot get path \\"/metrics\\""' in body


def test_the_verb_is_the_lower_cased_method(server: SchedulerServer, api: FakeApi) -> None:
    assert fetch(server.url + "/metrics", "reader", method="HEAD")[0] == 403  # RBAC granted get only
    assert api.reviews("subjectaccessreviews")[-1]["spec"]["nonResourceAttributes"]["verb"] == "head"


def test_a_token_the_api_server_rejects_is_401_everywhere(server: SchedulerServer) -> None:
    assert fetch(server.url + "/metrics", "forged") == (401, UNAUTHORIZED_401)
    assert fetch(server.url + "/healthz", "forged") == (401, UNAUTHORIZED_401)  # authn comes first


def test_system_masters_is_always_allowed(server: SchedulerServer, api: FakeApi) -> None:
    assert fetch(server.url + "/metrics", "admin")[0] == 200
    assert api.reviews("subjectaccessreviews") == []
    assert fetch(server.url + "/nope", "admin")[0] == 404  # authorized, then routed


def test_reviews_are_cached_for_their_ttl(server: SchedulerServer, api: FakeApi, clock: FakeClock) -> None:
    """Scraping every few seconds costs one TokenReview and one SubjectAccessReview per 10 s."""
    for _ in range(3):
        assert fetch(server.url + "/metrics", "reader")[0] == 200
        assert fetch(server.url + "/metrics", "nobody")[0] == 403
        assert fetch(server.url + "/metrics", "forged")[0] == 401
    assert len(api.reviews("tokenreviews")) == 3
    assert len(api.reviews("subjectaccessreviews")) == 2
    clock.now += 10.0
    assert fetch(server.url + "/metrics", "reader")[0] == 200
    assert fetch(server.url + "/metrics", "forged")[0] == 401
    assert len(api.reviews("tokenreviews")) == 5
    assert len(api.reviews("subjectaccessreviews")) == 3


def test_ttls_follow_the_flags(api: FakeApi, clock: FakeClock) -> None:
    opts = DelegatedAuthOptions(token_cache_ttl=0, allow_cache_ttl=60, deny_cache_ttl=0)
    auth = DelegatedAuth(opts, authn=api, authz=api, monotonic=clock)  # type: ignore[arg-type]
    for _ in range(2):
        assert auth.check("GET", "/metrics", "Bearer reader") is None
        assert auth.check("GET", "/metrics", "Bearer nobody") is not None
    assert len(api.reviews("tokenreviews")) == 4  # never cached
    assert len(api.reviews("subjectaccessreviews")) == 3  # the allowed answer only


def test_a_failed_review_is_not_cached(api: FakeApi, clock: FakeClock) -> None:
    auth = DelegatedAuth(authn=api, authz=api, monotonic=clock)  # type: ignore[arg-type]
    api.fail = True
    assert auth.check("GET", "/metrics", "Bearer reader") == (
        401, "application/json", UNAUTHORIZED_401.encode())
    status, _, body = auth.check("GET", "/metrics", None) or (0, "", b"")
    assert (status, body) == (500, b'Internal Server Error: "/metrics": connection refused\n')
    api.fail = False
    assert auth.check("GET", "/metrics", "Bearer reader") is None


def test_always_allow_paths(api: FakeApi) -> None:
    opts = DelegatedAuthOptions(always_allow_paths=("healthz", "/debug/*"))
    auth = DelegatedAuth(opts, authn=api, authz=api)  # type: ignore[arg-type]
    assert auth.check("GET", "/healthz", None) is None
    assert auth.check("GET", "/debug/pprof/heap", None) is None
    assert auth.check("GET", "/readyz", None) is not None  # no longer in the list
    assert api.reviews("subjectaccessreviews")[-1]["spec"]["nonResourceAttributes"]["path"] == "/readyz"
    with pytest.raises(ValueError, match="only a trailing"):
        DelegatedAuthOptions(always_allow_paths=("/a*b",))


def test_without_delegation_only_the_always_allowed_paths_are_served() -> None:
    """No authentication or authorization kubeconfig outside a cluster: tokens are not reviewed
    (the request is anonymous), and nothing else is authorized."""
    auth = DelegatedAuth()
    assert auth.check("GET", "/healthz", "Bearer anything") is None
    status, _, body = auth.check("GET", "/metrics", "Bearer anything") or (0, "", b"")
    assert (status, body) == (403, ANONYMOUS_403.encode())


def test_no_delegation_when_not_in_a_cluster(monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with caplog.at_level(logging.WARNING):
        auth = DelegatedAuth.from_options(DelegatedAuthOptions())
    assert auth.authn is None and auth.authz is None and auth.client_ca is None
    assert "SubjectAccessReview of authorization tokens won't work" in caplog.text
    assert "client certificate authentication won't work" in caplog.text


def test_client_certificates_signed_by_the_client_ca(api: FakeApi) -> None:
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    api.allowed.add(("alice", "get", "/metrics"))
    auth = DelegatedAuth(authn=api, authz=api, client_ca=ca.cert_pem.bytes().decode())  # type: ignore[arg-type]
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    with serve(auth, server_ctx) as srv:
        assert fetch(srv.url + "/metrics", context=client_ctx)[0] == 403  # no certificate: anonymous
        alice = ca.issue_cert("alice@example.com", common_name="alice", organization_name="readers")
        alice.configure_cert(client_ctx)
        assert fetch(srv.url + "/metrics", context=client_ctx)[0] == 200
    assert api.reviews("subjectaccessreviews")[-1]["spec"]["groups"] == ["readers", "system:authenticated"]
    assert api.reviews("tokenreviews") == []


def test_a_failed_tls_handshake_is_one_line(api: FakeApi, caplog: pytest.LogCaptureFixture,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    auth = DelegatedAuth(authn=api, authz=api)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="kubesched"), serve(auth, server_ctx) as srv:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            # Go's answer, in plain text, so that the client learns why
            assert s.recv(1024) == (b"HTTP/1.0 400 Bad Request\r\n\r\n"
                                    b"Client sent an HTTP request to an HTTPS server.\n")
        client_ctx = ssl.create_default_context()
        ca.configure_trust(client_ctx)
        assert fetch(srv.url + "/healthz", context=client_ctx)[0] == 200  # still serving
    lines = [r for r in caplog.records if "handshake" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert lines[0].getMessage().startswith("http: TLS handshake error from 127.0.0.1:")
    assert lines[0].getMessage().endswith(": client sent an HTTP request to an HTTPS server")
    assert "Traceback" not in capsys.readouterr().err
