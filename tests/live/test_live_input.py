"""The live cluster as input, against a real API server, with a token bound only to the
read-only ClusterRole of ``deploy/readonly``: ``simulate``, ``explain``, ``capacity`` and
``snapshot`` with ``--kubeconfig`` answer about the cluster's nodes and pending pods (no
scheduler runs) as they answer offline on the snapshot, extra manifests go on top, ``kubectl
kubesched explain POD -n NS`` works as a kubectl plugin, and the API server saw no write:
every object keeps its resourceVersion, no pod is bound, no Event is recorded (and the token
may not write at all: an attempt would have failed the command)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api.loader import KINDS
from kubesched.cli import app
from kubesched.cluster import NotFound
from kubesched.cluster.live import READ_KINDS, RestClient, list_cluster, load_rest_config
from kubesched.cluster.live._resources import collection_path

from ._kube import cleanup, create, events, node_manifest, pod_manifest, rest_for, wait_for
from ._rbac import admin_client, apply, can_i
from .conftest import REPO, ControlPlane

runner = CliRunner()
AS_SERVER = ("--kube-version", "1.32")
"""Offline, the release the commands take against the test API server by default (its /version)."""
ROLE = REPO / "deploy" / "readonly" / "clusterrole.yaml"


@dataclass(frozen=True)
class Cluster:
    namespace: str
    nodes: tuple[str, ...]
    kubeconfig: Path  # the read-only token, its context's namespace the test's


def _readonly_kubeconfig(cp: ControlPlane, namespace: str, path: Path) -> Path:
    """A ServiceAccount bound only to deploy/readonly's ClusterRole, its token minted with
    ``kubectl create token``, in a kubeconfig whose context's namespace is ``namespace``."""
    role = yaml.safe_load(ROLE.read_text())
    sa = {"apiVersion": "v1", "kind": "ServiceAccount",
          "metadata": {"name": "reader", "namespace": namespace}}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": f"kubesched-readonly:{namespace}"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": role["metadata"]["name"]},
               "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": namespace}]}
    admin = admin_client(cp)
    try:
        apply(admin, [role, sa, binding])
    finally:
        admin.close()
    token = subprocess.run(["kubectl", "--kubeconfig", str(cp.kubeconfig), "create", "token", "reader",
                            "-n", namespace, "--duration=1h"],
                           check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "reader",
           "clusters": [{"name": "local", "cluster": {"server": cp.api_url,
                                                       "certificate-authority": str(cp.dir / "ca.crt")}}],
           "users": [{"name": "reader", "user": {"token": token}}],
           "contexts": [{"name": "reader", "context": {"cluster": "local", "user": "reader",
                                                       "namespace": namespace}}]}
    path.write_text(yaml.safe_dump(doc))
    path.chmod(0o600)
    from kubernetes import config

    api = config.new_client_from_config(config_file=str(path))
    try:
        wait_for("the read-only binding", lambda: can_i(api, "list", "pods"))
        assert not can_i(api, "create", "pods", namespace=namespace)
        assert not can_i(api, "create", "pods", namespace=namespace, name="p", subresource="binding")
        assert not can_i(api, "create", "events", namespace=namespace)
        assert not can_i(api, "patch", "pods", namespace=namespace, subresource="status")
    finally:
        api.close()
    return path


@pytest.fixture(scope="module")
def cluster(control_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two nodes (2 CPUs each) and, in a fresh namespace, a pod that fits and one that fits
    nowhere (3 CPUs); no scheduler runs, so both stay pending."""
    if shutil.which("kubectl") is None:
        pytest.fail("kubectl is not installed", pytrace=False)
    ns = f"t-{uuid.uuid4().hex[:10]}"
    rest = rest_for(control_plane)
    try:
        with cleanup(rest, ns) as nodes:
            create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            for i in range(2):
                name = f"{ns}-n{i}"
                create(rest, node_manifest(name, "2", "4Gi"))
                nodes.append(name)
            create(rest, pod_manifest("small", ns, "default-scheduler", cpu="500m"))
            create(rest, pod_manifest("big", ns, "default-scheduler", cpu="3"))
            path = _readonly_kubeconfig(control_plane, ns, tmp_path_factory.mktemp("reader") / "kubeconfig")
            yield Cluster(ns, tuple(nodes), path)
    finally:
        admin = admin_client(control_plane)
        try:
            from kubernetes import client

            client.RbacAuthorizationV1Api(admin).delete_cluster_role_binding(f"kubesched-readonly:{ns}")
        finally:
            admin.close()
        rest.close()


def _versions(rest: RestClient) -> dict[tuple[str, str, str], str]:
    """(kind, namespace, name) -> resourceVersion of every object of the kinds read, and of
    every Event (kubesched must not record one)."""
    out: dict[tuple[str, str, str], str] = {}
    for kind in READ_KINDS:
        try:
            items = rest.request("GET", collection_path(kind))["items"]
        except NotFound:  # resource.k8s.io/v1 not served
            continue
        for o in items:
            md = o["metadata"]
            out[(kind, md.get("namespace", ""), md["name"])] = md["resourceVersion"]
    for o in rest.request("GET", "/api/v1/events")["items"]:
        md = o["metadata"]
        out[("Event", md["namespace"], md["name"])] = md["resourceVersion"]
    return out


@pytest.fixture
def no_write(control_plane: ControlPlane, cluster: Cluster) -> Iterator[None]:
    """The API server's objects are exactly as before the test: no write happened."""
    rest = rest_for(control_plane)
    try:
        before = _versions(rest)
        yield
        assert _versions(rest) == before
        assert events(rest, cluster.namespace) == []
        for pod in ("small", "big"):
            assert not rest.request("GET", f"/api/v1/namespaces/{cluster.namespace}/pods/{pod}")["spec"].get(
                "nodeName")
    finally:
        rest.close()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_simulate_and_snapshot_answer_alike(cluster: Cluster, no_write: None, tmp_path: Path) -> None:
    kc = str(cluster.kubeconfig)
    live = json.loads(_ok("simulate", "--kubeconfig", kc, "-o", "json"))
    ours = {p["pod"]: p for p in live["pods"] if p["pod"].startswith(cluster.namespace + "/")}
    assert ours[f"{cluster.namespace}/small"]["node"] in cluster.nodes
    assert ours[f"{cluster.namespace}/big"]["node"] is None
    dump = tmp_path / "dump.yaml"
    _ok("snapshot", "--kubeconfig", kc, "-o", str(dump))
    assert json.loads(_ok("simulate", str(dump), "-o", "json", *AS_SERVER)) == live
    assert _ok("simulate", str(dump), *AS_SERVER) == _ok("simulate", "--kubeconfig", kc)


def test_explain_a_pending_pod_as_offline(cluster: Cluster, no_write: None, tmp_path: Path) -> None:
    kc, pod = str(cluster.kubeconfig), f"{cluster.namespace}/big"
    dump = tmp_path / "dump.yaml"
    _ok("snapshot", "--kubeconfig", kc, "-o", str(dump))
    for fmt in ("json", "text"):
        live = _ok("explain", "--kubeconfig", kc, "--pod", pod, "-o", fmt)
        assert live == _ok("explain", str(dump), "--pod", pod, "-o", fmt, *AS_SERVER)
    e = json.loads(live if fmt == "json" else _ok("explain", "--kubeconfig", kc, "--pod", pod, "-o", "json"))
    assert e["selectedNode"] is None
    assert "Insufficient cpu" in e["message"]


def test_capacity_as_offline(cluster: Cluster, no_write: None, tmp_path: Path) -> None:
    kc = str(cluster.kubeconfig)
    template = tmp_path / "pod.yaml"
    template.write_text(yaml.safe_dump(pod_manifest("copy", cluster.namespace, "default-scheduler", cpu="1")))
    dump = tmp_path / "dump.yaml"
    _ok("snapshot", "--kubeconfig", kc, "-o", str(dump))
    live = _ok("capacity", "--kubeconfig", kc, "--pod", str(template), "-o", "json")
    assert live == _ok("capacity", str(dump), "--pod", str(template), "-o", "json", *AS_SERVER)


def test_replay_of_a_snapshot_as_offline(cluster: Cluster, no_write: None, tmp_path: Path) -> None:
    kc = str(cluster.kubeconfig)
    dump = tmp_path / "cluster.yaml"
    _ok("snapshot", "--kubeconfig", kc, "-o", str(dump))
    live = json.loads(_ok("replay", "--format", "snapshot", "--kubeconfig", kc, "-o", "json"))
    offline = json.loads(_ok("replay", "--format", "snapshot", str(dump), "-o", "json", *AS_SERVER))
    assert live["unschedulable"] >= 1
    assert {k: v for k, v in live.items() if k != "wallSeconds"} == \
        {k: v for k, v in offline.items() if k != "wallSeconds"}


def test_extra_manifests_go_on_top(cluster: Cluster, no_write: None, tmp_path: Path) -> None:
    """What if a bigger node were added: the big pod would go there. A manifest naming an
    object the cluster has is an error naming both."""
    kc = str(cluster.kubeconfig)
    extra = tmp_path / "node.yaml"
    extra.write_text(yaml.safe_dump(node_manifest(f"{cluster.namespace}-big", "8", "16Gi")))
    out = json.loads(_ok("simulate", "--kubeconfig", kc, str(extra), "-o", "json"))
    (big,) = [p for p in out["pods"] if p["pod"] == f"{cluster.namespace}/big"]
    assert big["node"] == f"{cluster.namespace}-big"
    dup = tmp_path / "dup.yaml"
    dup.write_text(yaml.safe_dump(pod_manifest("big", cluster.namespace, "default-scheduler")))
    result = runner.invoke(app, ["simulate", "--kubeconfig", kc, str(dup)])
    assert result.exit_code == 2
    assert f"Pod {cluster.namespace}/big): duplicate object, already defined at https://" in result.stderr


def test_kubectl_plugin(cluster: Cluster, no_write: None) -> None:
    """``kubectl kubesched explain POD -n NS`` (kubectl finds ``kubectl-kubesched`` on PATH),
    and without ``-n`` the context's namespace."""
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "kubectl-kubesched").is_file(), "the package installs kubectl-kubesched"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "KUBECONFIG": str(cluster.kubeconfig)}
    want = _ok("explain", "--kubeconfig", str(cluster.kubeconfig), "--pod", f"{cluster.namespace}/big",
               "-o", "json")
    for ns in (["-n", cluster.namespace], []):
        got = subprocess.run(["kubectl", "kubesched", "explain", "big", *ns, "-o", "json"], env=env,
                             capture_output=True, text=True, timeout=120)
        assert got.returncode == 0, got.stderr
        assert json.loads(got.stdout) == json.loads(want)
    text = subprocess.run(["kubectl", "kubesched", "explain", "big", "-n", cluster.namespace], env=env,
                          capture_output=True, text=True, timeout=120)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(f"Pod {cluster.namespace}/big (profile default-scheduler)\n")


def test_listing_reports_progress(cluster: Cluster, no_write: None) -> None:
    seen: list[tuple[str, int, int]] = []
    rest = RestClient(load_rest_config(cluster.kubeconfig))
    try:
        loaded = list_cluster(rest, progress=lambda what, done, total: seen.append((what, done, total)))
    finally:
        rest.close()
    assert {f"{cluster.namespace}-n0", f"{cluster.namespace}-n1"} <= {n.name for n in loaded.nodes}
    assert {w for w, done, _ in seen if done == 0} == {f"listing {p}" for p in (
        "namespaces", "priorityclasses", "storageclasses", "csinodes", "nodes", "persistentvolumes",
        "persistentvolumeclaims", "poddisruptionbudgets", "services", "replicationcontrollers", "replicasets",
        "statefulsets", "deviceclasses", "resourceslices", "resourceclaims", "pods")}
    assert ("listing nodes", len(loaded.nodes), 0) in seen
    assert set(loaded.counts()) <= set(KINDS)


def test_a_terminal_shows_the_listing_progress(cluster: Cluster, no_write: None) -> None:
    """On a terminal (FORCE_COLOR makes rich treat stderr as one), a transient progress bar
    on stderr names the kind being listed; pods come last."""
    got = subprocess.run([str(Path(sys.executable).parent / "kubesched"), "snapshot", "--kubeconfig",
                          str(cluster.kubeconfig), "-o", os.devnull], env={**os.environ, "FORCE_COLOR": "1"},
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    assert "listing pods" in got.stderr
