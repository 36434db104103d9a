"""The live cluster as input, without a cluster: ``kubesched snapshot`` round trips (the dump
answers as its input does), the listing through a fake API server (one paged list per kind,
finished pods left out, optional kinds empty when not served or not granted, progress), the
``kubectl kubesched`` argument mapping, and the read-only ClusterRole in ``deploy/readonly``
against the kinds listed. Against a real API server: tests/live/test_live_input.py."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api import NEWEST_KUBE_VERSION, KubeVersion
from kubesched.api.loader import KINDS, LoadedObjects, load_paths
from kubesched.cli import app
from kubesched.cli._inputs import ClusterSource
from kubesched.cli._kubectl import kubectl_args
from kubesched.cluster import NotFound
from kubesched.cluster.live import (
    POD_FIELD_SELECTOR,
    READ_KINDS,
    error_for_status,
    list_cluster,
    read_kinds,
)
from kubesched.framework import feature_gates_for

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"
runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


# -- snapshot ---------------------------------------------------------------------------------
def test_a_snapshot_answers_as_its_input(tmp_path: Path) -> None:
    dump = tmp_path / "dump.yaml"
    result = runner.invoke(app, ["snapshot", str(QUICKSTART), "-o", str(dump)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"wrote 23 objects to {dump} "  # as docs/commands/snapshot.md shows
                             "(PriorityClass 3, Node 6, PodDisruptionBudget 1, Pod 13)\n")
    assert _ok("simulate", str(dump), "-o", "json") == _ok("simulate", str(QUICKSTART), "-o", "json")
    pending = next(p.meta.key for p in load_paths([QUICKSTART]).pods if not p.node_name)
    assert _ok("explain", str(dump), "--pod", pending, "-o", "json") == \
        _ok("explain", str(QUICKSTART), "--pod", pending, "-o", "json")


def test_a_snapshot_holds_every_object_in_dependency_order(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all(_ok("snapshot", str(QUICKSTART))) if d]
    original = load_paths([QUICKSTART])
    assert len(docs) == len(original.objects)
    order = [list(KINDS).index(d["kind"]) for d in docs]
    assert order == sorted(order)
    assert sorted(load_paths([_write(tmp_path / "d.yaml", docs)]).counts().items()) == \
        sorted(original.counts().items())


def _write(path: Path, docs: list[Any]) -> Path:
    path.write_text(yaml.safe_dump_all(docs))
    return path


def test_a_snapshot_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    result = runner.invoke(app, ["snapshot", str(QUICKSTART), "-o", str(tmp_path / "no" / "dump.yaml")])
    assert result.exit_code == 2
    assert f"{tmp_path / 'no' / 'dump.yaml'}: cannot write: No such file or directory" in result.stderr
    dump = tmp_path / "dump.yaml"
    dump.write_text("kept")
    result = runner.invoke(app, ["snapshot", str(tmp_path / "missing.yaml"), "-o", str(dump)])
    assert result.exit_code == 2
    assert dump.read_text() == "kept"
    assert list(tmp_path.iterdir()) == [dump]


def test_replay_reads_a_cluster_only_for_snapshots(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", "--kubeconfig", str(_kubeconfig(tmp_path))])
    assert result.exit_code == 2
    assert "read a cluster for --format snapshot, not --format kubesched" in result.stderr
    result = runner.invoke(app, ["replay"])
    assert result.exit_code == 2
    assert "no trace: give trace files" in result.stderr


def test_no_input_is_bad_input() -> None:
    for command in (["simulate"], ["explain", "--pod", "a/b"], ["capacity", "--pod", "x.yaml"], ["snapshot"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert "no input: give manifest files or directories, or a cluster" in result.stderr


def test_a_missing_kubeconfig_is_bad_input(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--kubeconfig", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert f"kubeconfig {tmp_path / 'nope'}: no such file" in result.stderr


def test_an_unknown_context_is_bad_input(tmp_path: Path) -> None:
    kc = _kubeconfig(tmp_path, namespace="team")
    result = runner.invoke(app, ["snapshot", "--kubeconfig", str(kc), "--context", "elsewhere"])
    assert result.exit_code == 2
    assert "elsewhere" in result.stderr


# -- listing ----------------------------------------------------------------------------------
class FakeApi:
    """GETs of collections from ``objects`` (kind -> raw items), ``page`` items a page; kinds in
    ``forbidden`` answer 403, API groups in ``unserved`` 404."""

    host = "https://api.example"

    def __init__(self, objects: Mapping[str, list[dict[str, Any]]], page: int = 2,
                 forbidden: frozenset[str] = frozenset(), unserved: frozenset[str] = frozenset()) -> None:
        from kubesched.cluster.live._resources import collection_path

        self.by_path = {collection_path(k): k for k in KINDS if k in READ_KINDS}
        self.objects, self.page, self.forbidden, self.unserved = objects, page, forbidden, unserved
        self.requests: list[tuple[str, str, dict[str, Any]]] = []

    def request(self, method: str, path: str, body: Any = None, *, query: Mapping[str, Any] | None = None,
                **_: Any) -> Any:
        q = {k: v for k, v in (query or {}).items() if v is not None}
        self.requests.append((method, path, q))
        assert method == "GET"
        if path.startswith("/apis/") and path.count("/") == 3:  # discovery
            if path[len("/apis/"):] in self.unserved:
                raise NotFound("the server could not find the requested resource")
            return {"kind": "APIResourceList"}
        kind = self.by_path[path]
        if kind in self.forbidden:
            raise error_for_status(403, json.dumps({"reason": "Forbidden", "message": f"{path} forbidden"}))
        items = self.objects.get(kind, [])
        start = int(q.get("continue") or 0)
        end = start + min(int(q["limit"]), self.page)
        md: dict[str, Any] = {"resourceVersion": "42"}
        if end < len(items):
            md["continue"] = str(end)
            md["remainingItemCount"] = len(items) - end
        return {"metadata": md, "items": items[start:end]}


def _node(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "resourceVersion": "7"},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}


def _pod(name: str, phase: str = "Pending") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"phase": phase}}


def test_each_kind_is_listed_once_page_by_page_and_only_read() -> None:
    api = FakeApi({"Node": [_node(f"n{i}") for i in range(5)], "Pod": [_pod("p")]})
    seen: list[tuple[str, int, int]] = []
    loaded = list_cluster(api, progress=lambda what, done, total: seen.append((what, done, total)))  # type: ignore[arg-type]
    assert [n.name for n in loaded.nodes] == ["n0", "n1", "n2", "n3", "n4"]
    assert [p.meta.key for p in loaded.pods] == ["default/p"]
    assert {m for m, _, _ in api.requests} == {"GET"}
    lists = [(p, q) for _, p, q in api.requests if not q.get("continue") and "limit" in q]
    assert [api.by_path[p] for p, _ in lists] == list(READ_KINDS)
    assert all(q.get("fieldSelector") == (POD_FIELD_SELECTOR if api.by_path[p] == "Pod" else None)
               for p, q in lists)
    assert ("listing nodes", 2, 5) in seen and ("listing nodes", 5, 0) in seen  # remainingItemCount
    assert loaded.origin_of(loaded.nodes[0]) == "https://api.example: nodes"


def test_optional_kinds_not_served_or_not_granted_are_empty() -> None:
    api = FakeApi({"Node": [_node("n")]}, forbidden=frozenset({"PriorityClass"}),
                  unserved=frozenset({"resource.k8s.io/v1"}))
    loaded = list_cluster(api)  # type: ignore[arg-type]
    assert loaded.counts() == {"Node": 1}
    assert not any(p.endswith("/deviceclasses") for _, p, _ in api.requests)


def test_device_taint_rules_are_listed_as_the_release_simulated_reads_them() -> None:
    """The cluster input of a simulation as 1.36 with DRADeviceTaintRules lists the rules from
    ``resource.k8s.io/v1beta2``, as ``run`` as 1.36 watches them; 1.36 with its defaults (the
    gate off) lists none, as its scheduler has no such informer."""
    rule = {"metadata": {"name": "maintenance", "resourceVersion": "3"},
            "spec": {"deviceSelector": {"device": "gpu-0"}, "taint": {"key": "k", "effect": "NoSchedule"}}}
    v136 = KubeVersion(1, 36)
    kinds = read_kinds(v136, feature_gates_for(v136, {"DRADeviceTaintRules": True}))
    assert [k for k in kinds if k != "DeviceTaintRule"] == list(READ_KINDS)
    api = FakeApi({"Node": [_node("n")], "DeviceTaintRule": [rule]})
    api.by_path["/apis/resource.k8s.io/v1beta2/devicetaintrules"] = "DeviceTaintRule"
    loaded = list_cluster(api, kinds)  # type: ignore[arg-type]
    assert loaded.counts() == {"Node": 1, "DeviceTaintRule": 1}
    assert loaded.device_taint_rules[0].device == "gpu-0"
    assert "DeviceTaintRule" not in read_kinds(v136, feature_gates_for(v136))


def test_ui_follows_the_kinds_the_first_listing_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ui --kubeconfig`` follows the cluster with informers on the kinds its first listing
    read: as 1.34 with DRADeviceTaints, DeviceTaintRules in ``v1alpha3`` too (as ``run`` as
    1.34 watches them); with no release given, the kinds every release reads."""
    import kubesched.cluster.live as live
    from kubesched.cli._ui import _follow
    from kubesched.framework.config import default_config
    from kubesched.ui.live import LiveFollower

    monkeypatch.setattr(live, "rest_client_for", lambda *_a, **_k: (FakeApi({}), None))
    monkeypatch.setattr(LiveFollower, "start", lambda self: self)  # no informer thread here
    v134 = KubeVersion(1, 34)
    cfg = default_config({"DRADeviceTaints": True}, kube_version=v134)
    # a workspace that listed nothing from this server (the informers' first list keeps none)
    workspace = SimpleNamespace(view=SimpleNamespace(loaded=LoadedObjects()))
    follower = _follow(workspace, ClusterSource(), cfg, None, False)  # type: ignore[arg-type]
    got = {i.kind: i.api_version for i in follower.informers}
    preferred = {k: KINDS[k].api_version for k in READ_KINDS}
    assert got == {**preferred, "DeviceTaintRule": "resource.k8s.io/v1alpha3"}
    assert list(got) == list(read_kinds(v134, cfg.features))  # in the listing's order
    plain = _follow(workspace, ClusterSource(), None, None, False)  # type: ignore[arg-type]
    assert [i.kind for i in plain.informers] == list(READ_KINDS)


def test_a_required_kind_refused_is_an_error() -> None:
    api = FakeApi({}, forbidden=frozenset({"Node"}))
    with pytest.raises(Exception, match="forbidden"):
        list_cluster(api)  # type: ignore[arg-type]


# -- kubectl plugin ---------------------------------------------------------------------------
def _kubeconfig(tmp_path: Path, namespace: str | None = None) -> Path:
    ctx: dict[str, Any] = {"cluster": "c", "user": "u"}
    if namespace:
        ctx["namespace"] = namespace
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "main",
           "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
           "users": [{"name": "u", "user": {"token": "t"}}],
           "contexts": [{"name": "main", "context": ctx},
                        {"name": "other", "context": {"cluster": "c", "user": "u", "namespace": "ops"}}]}
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_kubectl_flags_map_onto_the_cluster_flags(tmp_path: Path) -> None:
    kc = str(_kubeconfig(tmp_path))
    assert kubectl_args(["explain", "web-0", "-n", "shop", "--kubeconfig", kc, "-o", "json"]) == \
        ["explain", f"--kubeconfig={kc}", "--pod", "shop/web-0", "-o", "json"]
    assert kubectl_args(["--context=other", "explain", "pod/web-0", "--namespace=shop"]) == \
        ["explain", "--context=other", "--pod", "shop/web-0"]
    assert kubectl_args(["simulate", "-nshop", "extra.yaml"]) == ["simulate", "--from-cluster", "extra.yaml"]
    assert kubectl_args(["snapshot", "-o", "dump.yaml", "--context", "other"]) == \
        ["snapshot", "--context=other", "-o", "dump.yaml"]
    assert kubectl_args(["validate", "x.yaml"]) == ["validate", "x.yaml"]
    assert kubectl_args(["--help"]) == ["--help"]


def test_kubectl_explain_uses_the_contexts_namespace(tmp_path: Path) -> None:
    kc = str(_kubeconfig(tmp_path, namespace="team"))
    assert kubectl_args(["explain", "web-0", "--kubeconfig", kc])[2:] == ["--pod", "team/web-0"]
    assert kubectl_args(["explain", "web-0", "--kubeconfig", kc, "--context", "other"])[3:] == \
        ["--pod", "ops/web-0"]
    assert kubectl_args(["explain", "web-0", "--kubeconfig", str(_kubeconfig(tmp_path))])[2:] == \
        ["--pod", "default/web-0"]


# -- deploy/readonly --------------------------------------------------------------------------
def test_the_readonly_role_grants_reading_exactly_the_kinds_listed() -> None:
    (role,) = [d for d in yaml.safe_load_all((REPO / "deploy/readonly/clusterrole.yaml").read_text()) if d]
    kust = yaml.safe_load((REPO / "deploy/readonly/kustomization.yaml").read_text())
    assert kust["resources"] == ["clusterrole.yaml"]
    granted = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
               for v in rule["verbs"]}
    want = set()
    for kind in {*READ_KINDS, *read_kinds(NEWEST_KUBE_VERSION, feature_gates_for(NEWEST_KUBE_VERSION))}:
        info = KINDS[kind]
        for verb in ("get", "list", "watch"):
            want.add((info.group, info.plural, verb))
    assert granted == want


def test_an_object_kubesched_cannot_read_is_skipped_and_told(caplog: pytest.LogCaptureFixture) -> None:
    """As the informers of ``kubesched run`` do: one warning, the rest read."""
    bad = {"metadata": {"name": "bad"}, "status": {"allocatable": {"cpu": "lots"}}}
    api = FakeApi({"Node": [_node("good"), bad]})
    loaded = list_cluster(api)  # type: ignore[arg-type]
    assert [n.name for n in loaded.nodes] == ["good"]
    assert any("skipping Node bad from the API server" in r.getMessage() for r in caplog.records)
