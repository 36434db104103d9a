"""``kubesched run`` and ``kubesched extender`` serve /metrics as kube-scheduler does: only to
clients the API server authenticates (TokenReview) and RBAC allows ``get`` on the non-resource
URL ``/metrics`` (SubjectAccessReview); /healthz, /readyz and /livez to anyone.

The reviews are made with the kubesched ServiceAccount's token alone (deploy/'s RBAC: the
bootstrap ``system:kube-scheduler`` role grants creating both reviews, the
``extension-apiserver-authentication-reader`` binding reading the client CA), and a client
certificate signed by that CA authenticates as its CommonName. The callers' tokens come from
``kubectl create token``.
"""

from __future__ import annotations

import os
import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
import trustme

from _serving_client import http_get, insecure_context
from kubesched.cluster import NotFound
from kubesched.cluster.live import RestClient
from kubesched.testing.command import ServingCommand

from ._kube import KubeschedProcess, https_get, rest_for, wait_for
from ._rbac import admin_client, apply, kubesched_kubeconfig
from .conftest import ControlPlane

ANONYMOUS_403 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                 '"forbidden: User \\"system:anonymous\\" cannot get path \\"/metrics\\"",'
                 '"reason":"Forbidden","details":{},"code":403}\n')
UNAUTHORIZED_401 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                    '"message":"Unauthorized","reason":"Unauthorized","code":401}\n')
AUTH_CONFIGMAP = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
READER_ROLE = "kubesched-test-metrics-reader"


def kubectl_token(cp: ControlPlane, namespace: str, name: str) -> str:
    """``kubectl create token``, as the control plane's README says."""
    env = {**os.environ, "KUBECONFIG": str(cp.kubeconfig)}
    out = subprocess.run(["kubectl", "create", "token", name, "-n", namespace], env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


class Callers:
    """Two ServiceAccounts in a fresh namespace: ``reader`` bound to a ClusterRole allowing
    ``get`` on ``/metrics``, ``other`` bound to nothing; their tokens; and a client CA
    published in kube-system/extension-apiserver-authentication, as the API server publishes
    its own."""

    def __init__(self, cp: ControlPlane, rest: RestClient, ns: str) -> None:
        self.ns, self.ca = ns, trustme.CA()
        role = f"{READER_ROLE}-{ns}"
        admin = admin_client(cp)
        try:
            apply(admin, [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
                *({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": sa, "namespace": ns}}
                  for sa in ("reader", "other")),
                {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                 "metadata": {"name": role}, "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]},
                {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                 "metadata": {"name": role},
                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                 "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns},
                              {"kind": "User", "name": f"cert-reader-{ns}"}]},
            ])
        finally:
            admin.close()
        self.reader, self.other = kubectl_token(cp, ns, "reader"), kubectl_token(cp, ns, "other")
        ca = {"client-ca-file": self.ca.cert_pem.bytes().decode()}
        self.saved: dict[str, Any] | None = None
        try:
            self.saved = rest.request("GET", AUTH_CONFIGMAP)
        except NotFound:
            rest.request("POST", AUTH_CONFIGMAP.rsplit("/", 1)[0], {
                "apiVersion": "v1", "kind": "ConfigMap", "data": ca,
                "metadata": {"name": AUTH_CONFIGMAP.rsplit("/", 1)[1], "namespace": "kube-system"}})
        else:
            data = {**(self.saved.get("data") or {}), **ca}
            rest.request("PUT", AUTH_CONFIGMAP, {**self.saved, "data": data})

    def cleanup(self, rest: RestClient) -> None:
        for path in (f"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{READER_ROLE}-{self.ns}",
                     f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{READER_ROLE}-{self.ns}",
                     f"/api/v1/namespaces/{self.ns}"):
            with suppress(NotFound):
                rest.request("DELETE", path)
        if self.saved is None:
            with suppress(NotFound):
                rest.request("DELETE", AUTH_CONFIGMAP)
        else:  # as it was
            current = rest.request("GET", AUTH_CONFIGMAP)
            rest.request("PUT", AUTH_CONFIGMAP, {**self.saved, "metadata": current["metadata"]})


@pytest.fixture
def callers(control_plane: ControlPlane, namespace_name: str) -> Iterator[Callers]:
    rest = rest_for(control_plane)
    c = Callers(control_plane, rest, namespace_name)
    try:
        yield c
    finally:
        c.cleanup(rest)
        rest.close()


def delegation_flags(cp: ControlPlane, tmp_path: Path) -> list[str]:
    """Delegate with nothing but kubesched's ServiceAccount token (deploy/'s RBAC); a client CA
    that cannot be looked up is an error, not a warning."""
    sa = str(kubesched_kubeconfig(cp, tmp_path))
    return ["--authentication-kubeconfig", sa, "--authorization-kubeconfig", sa,
            "--authentication-tolerate-lookup-failure=false"]


def test_kubesched_run_serves_metrics_only_to_authorized_clients(
        control_plane: ControlPlane, tmp_path: Path, callers: Callers) -> None:
    args = ["--kubeconfig", str(control_plane.kubeconfig), "--leader-elect=false",
            "--authorization-always-allow-paths", "/healthz,/readyz,/livez",  # the default, explicitly
            *delegation_flags(control_plane, tmp_path)]
    with KubeschedProcess(tmp_path / "kubesched.log", *args) as ks:
        wait_for("readiness", lambda: _ok(lambda: https_get(ks.port, "/readyz")[0] == 200), timeout=30)
        assert https_get(ks.port, "/metrics") == (403, ANONYMOUS_403)
        for path in ("/healthz", "/readyz", "/livez"):
            assert https_get(ks.port, path) == (200, "ok"), path
        status, text = https_get(ks.port, "/metrics", callers.reader)
        assert status == 200, text
        assert "# TYPE scheduler_schedule_attempts_total counter" in text
        assert re.search(r"^process_resident_memory_bytes \d", text, re.M)
        assert "_created" not in text
        status, text = https_get(ks.port, "/metrics", callers.other)
        assert status == 403
        assert f'User \\"system:serviceaccount:{callers.ns}:other\\" cannot get path \\"/metrics\\"' in text
        assert https_get(ks.port, "/metrics", "not-a-token") == (401, UNAUTHORIZED_401)
        # a client certificate signed by the cluster's client CA: the user of its CommonName
        cert = callers.ca.issue_cert(f"cert-reader-{callers.ns}", common_name=f"cert-reader-{callers.ns}")
        ctx = insecure_context()
        cert.configure_cert(ctx)
        with urllib.request.urlopen(f"https://127.0.0.1:{ks.port}/metrics", timeout=5, context=ctx) as resp:
            assert resp.status == 200
        # plain HTTP on the HTTPS port: Go's 400 to the client, one line in the log, no traceback
        assert http_get(f"http://127.0.0.1:{ks.port}/metrics") == (
            400, "Client sent an HTTP request to an HTTPS server.\n")
        wait_for("the handshake error logged", lambda: "TLS handshake error" in ks.log())
        assert ks.stop(30) == 0
        log = ks.log()
    assert "Traceback" not in log
    assert len(re.findall(r"http: TLS handshake error from 127\.0\.0\.1:\d+: client sent an HTTP request "
                          r"to an HTTPS server", log)) == 1


def _ok(fn: object) -> bool:
    try:
        return bool(fn())  # type: ignore[operator]
    except OSError:
        return False


def test_kubesched_extender_serves_metrics_only_to_authorized_clients(
        control_plane: ControlPlane, tmp_path: Path, callers: Callers) -> None:
    with ServingCommand("extender", "--kubeconfig", str(control_plane.kubeconfig),
                        "--bind-address", "127.0.0.1:0", *delegation_flags(control_plane, tmp_path)) as cmd:
        m = re.search(r"serving profile 'default-scheduler' on (http://127\.0\.0\.1:\d+)", cmd.line)
        assert m, cmd.line
        url = m.group(1)
        wait_for("readiness", lambda: _ok(lambda: http_get(url + "/readyz")[0] == 200), timeout=30)
        assert http_get(url + "/metrics") == (403, ANONYMOUS_403)
        assert http_get(url + "/healthz") == (200, "ok")
        status, text = http_get(url + "/metrics", callers.reader)
        assert status == 200 and "kubesched_extender_requests_total" in text and "_created" not in text
        assert http_get(url + "/metrics", callers.other)[0] == 403
        assert http_get(url + "/metrics", "not-a-token") == (401, UNAUTHORIZED_401)
        assert cmd.stop(15) == 0
