"""The extender's endpoints behind kube-scheduler's delegated authentication and authorization:
``/metrics`` only for a client the (fake) API server authorizes, ``/healthz`` and ``/readyz``
for anyone, the verbs never reviewed (kube-scheduler calls them without credentials); a client
failing the TLS handshake is one log line."""

from __future__ import annotations

import json
import logging
import re
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import trustme

from _serving_client import http_get
from kubesched.serving import DelegatedAuth
from kubesched.testing.command import ServingCommand

from .helpers import example_config, node, pod, post, serving

ANONYMOUS_403 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                 '"forbidden: User \\"system:anonymous\\" cannot get path \\"/metrics\\"",'
                 '"reason":"Forbidden","details":{},"code":403}\n')


class FakeApi:
    """The token ``reader`` is a user RBAC allows ``get`` on ``/metrics``; reviews are counted."""

    def __init__(self) -> None:
        self.reviews: list[str] = []

    def request(self, method: str, path: str, body: Any = None, **_: Any) -> Any:
        self.reviews.append(path.rsplit("/", 1)[1])
        spec = body["spec"]
        if path.endswith("/tokenreviews"):
            ok = spec["token"] == "reader"
            return {"status": {"authenticated": ok, **({"user": {"username": "reader"}} if ok else {})}}
        attrs = spec["nonResourceAttributes"]
        allowed = (spec["user"], attrs["verb"], attrs["path"]) == ("reader", "get", "/metrics")
        return {"status": {"allowed": allowed}}

    def close(self) -> None:
        pass


def test_metrics_need_an_authorized_client_the_verbs_do_not() -> None:
    api = FakeApi()
    auth = DelegatedAuth(authn=api, authz=api)  # type: ignore[arg-type]
    with serving(example_config(), auth=auth) as srv:
        assert http_get(srv.url + "/metrics") == (403, ANONYMOUS_403)
        assert http_get(srv.url + "/metrics", "forged")[0] == 401
        status, text = http_get(srv.url + "/metrics", "reader")
        assert status == 200 and "kubesched_extender_requests_total" in text
        assert "process_resident_memory_bytes " in text and "_created" not in text
        assert http_get(srv.url + "/healthz") == (200, "ok")
        assert http_get(srv.url + "/readyz") == (200, "ok")
        reviews = len(api.reviews)
        code, out = post(srv.url, "filter", {"Pod": pod("p"), "Nodes": {"items": [node("a")]}})
        assert code == 200 and out["Error"] == ""
        assert len(api.reviews) == reviews  # kube-scheduler's calls cost no review


def test_a_failed_tls_handshake_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    ca = trustme.CA()
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    with caplog.at_level(logging.INFO, logger="kubesched"), \
            serving(example_config(), tls=server_ctx, auth=DelegatedAuth()) as srv:
        host, port = srv.address
        with socket.create_connection((host, port), timeout=5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(1024).startswith(b"HTTP/1.0 400 Bad Request\r\n")
        req = urllib.request.Request(srv.url + "/filter", method="POST", data=json.dumps(
            {"Pod": pod("p"), "Nodes": {"items": [node("a")]}}).encode())
        with urllib.request.urlopen(req, context=client_ctx, timeout=10) as resp:  # still serving
            assert resp.status == 200
    (line,) = [r for r in caplog.records if "handshake" in r.getMessage()]
    assert line.exc_info is None
    assert re.fullmatch(r"http: TLS handshake error from 127\.0\.0\.1:\d+: "
                        r"client sent an HTTP request to an HTTPS server", line.getMessage())


def test_the_command_logs_a_failed_handshake_from_v1(tmp_path: Path) -> None:
    """``kubesched extender -v 1`` over TLS: a plain HTTP client is one info line on stderr
    (and Go's 400 for the client), no traceback; the process serves on and stops on SIGTERM."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "c.pem"))
    cert.private_key_pem.write_to_path(str(tmp_path / "k.pem"))
    with ServingCommand("extender", "--no-cache", "--bind-address", "127.0.0.1:0",
                        "--tls-cert", str(tmp_path / "c.pem"), "--tls-key", str(tmp_path / "k.pem"),
                        "-v", "1") as cmd:
        m = re.search(r"on https://127\.0\.0\.1:(\d+)", cmd.line)
        assert m, cmd.line
        with socket.create_connection(("127.0.0.1", int(m.group(1))), timeout=5) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(1024).startswith(b"HTTP/1.0 400 Bad Request\r\n")
        assert cmd.stop() == 0
        err = cmd.log()
    assert len(re.findall(r"http: TLS handshake error from 127\.0\.0\.1:\d+: client sent an HTTP request "
                          r"to an HTTPS server", err)) == 1, err
    assert "Traceback" not in err
