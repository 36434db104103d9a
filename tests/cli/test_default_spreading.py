"""Default topology spreading end to end: Services, ReplicationControllers, ReplicaSets and
StatefulSets load, round-trip and are validated; their selectors drive the system default
constraints as upstream's DefaultSelector (scoring_test.go "system defaulting, nodes don't have
zone, pods match service": 44/66/77/100)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api.loader import load_paths
from kubesched.cli import app

runner = CliRunner()
HOSTNAME = "kubernetes.io/hostname"


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME: name}},
            "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}


def _pod(name: str, labels: dict[str, str], node: str = "",
         owner: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": labels}
    if owner is not None:
        meta["ownerReferences"] = [{"controller": True, "uid": owner["name"], **owner}]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"foo": ""}, "ports": [{"port": 80}]}}
REPLICA_SET = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "rs1", "namespace": "default"},
               "spec": {"replicas": 3,
                        "selector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                        "template": {"metadata": {"labels": {"foo": ""}},
                                     "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
STATEFUL_SET = {"apiVersion": "apps/v1", "kind": "StatefulSet",
                "metadata": {"name": "db", "namespace": "default"},
                "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                         "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": []}}}}
REPLICATION_CONTROLLER = {"apiVersion": "v1", "kind": "ReplicationController",
                          "metadata": {"name": "rc", "namespace": "default"},
                          "spec": {"template": {"metadata": {"labels": {"app": "legacy"}}}}}


def _cluster(*extra: dict[str, Any], pending: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Four nodes without zones; pods labelled foo spread 4/3/2/1; the pending pod ``p``."""
    names = ["node-a", "node-b", "node-c", "node-d"]
    docs: list[dict[str, Any]] = [_node(n) for n in names]
    for n, k in zip(names, (4, 3, 2, 1), strict=True):
        docs += [_pod(f"p-{n[-1]}{i}", {"foo": ""}, node=n) for i in range(k)]
    docs.append(pending if pending is not None else _pod("p", {"foo": ""}))
    return [*docs, *extra]


def _write(tmp_path: Path, docs: list[dict[str, Any]]) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def _spread_scores(path: Path) -> list[int] | None:
    result = runner.invoke(app, ["explain", str(path), "--pod", "default/p", "-o", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    scores = [[s["normalized"] for s in n["scores"] if s["plugin"] == "PodTopologySpread"]
              for n in out["nodes"]]
    if not any(scores):
        return None
    return [s[0] for s in scores]


def test_pods_matching_a_service_are_spread(tmp_path: Path) -> None:
    assert _spread_scores(_write(tmp_path, _cluster(SERVICE))) == [44, 66, 77, 100]


def test_the_owning_replica_set_spreads(tmp_path: Path) -> None:
    pending = _pod("p", {"foo": ""}, owner={"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs1"})
    assert _spread_scores(_write(tmp_path, _cluster(REPLICA_SET, pending=pending))) == [44, 66, 77, 100]


def test_no_service_and_an_owner_not_loaded_no_spreading(tmp_path: Path) -> None:
    """Upstream spreads by the owner's selector, never by the pod's own labels: an owner that is
    not loaded adds nothing, so PodTopologySpread skips scoring."""
    pending = _pod("p", {"foo": ""}, owner={"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "gone"})
    assert _spread_scores(_write(tmp_path, _cluster(pending=pending))) is None


def test_workload_kinds_round_trip(tmp_path: Path) -> None:
    docs = _cluster(SERVICE, REPLICA_SET, STATEFUL_SET, REPLICATION_CONTROLLER)
    path = _write(tmp_path, docs)
    loaded = load_paths([path])
    assert [s.name for s in loaded.services] == ["web"]
    assert [r.name for r in loaded.replica_sets] == ["rs1"]
    assert [s.name for s in loaded.stateful_sets] == ["db"]
    rc = loaded.replication_controllers[0]
    assert dict(rc.selector) == {"app": "legacy"}  # defaulted from the template's labels
    first = runner.invoke(app, ["simulate", str(path), "-o", "yaml"])
    assert first.exit_code == 0, first.output
    out = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(first.stdout)}
    for want in (SERVICE, REPLICA_SET, STATEFUL_SET, REPLICATION_CONTROLLER):
        got = out[(want["kind"], want["metadata"]["name"])]
        got["metadata"].pop("uid")
        got["metadata"].pop("creationTimestamp")
        assert got == want
    kinds = [d["kind"] for d in yaml.safe_load_all(first.stdout)]
    assert kinds.index("StatefulSet") < kinds.index("Pod")
    validate = runner.invoke(app, ["validate", str(path)])
    assert validate.exit_code == 0, validate.output
    assert "Service" in validate.stdout and "ReplicaSet" in validate.stdout


def _with(doc: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {**doc, "spec": {**doc["spec"], **spec}}


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        pytest.param(_with(SERVICE, selector={"foo": [1]}), "(Service default/web): spec.selector.foo",
                     id="svc-int"),
        pytest.param(_with(SERVICE, selector=["foo"]),
                     "(Service default/web): spec.selector: Invalid value: ['foo']: must be an object",
                     id="svc-list"),
        pytest.param({**SERVICE, "spec": "oops"},
                     "(Service default/web): spec: Invalid value: \"oops\": must be an object",
                     id="svc-spec"),
        pytest.param(_with(REPLICA_SET, selector=None),
                     "(ReplicaSet default/rs1): spec.selector: Required value", id="rs-missing"),
        pytest.param(_with(REPLICA_SET, selector={}),
                     "(ReplicaSet default/rs1): spec.selector: Invalid value: "
                     "empty selector is invalid for deployment", id="rs-empty"),
        pytest.param(_with(STATEFUL_SET, selector={"matchLabels": {}}),
                     "(StatefulSet default/db): spec.selector: Invalid value: "
                     "empty selector is invalid for statefulset", id="ss-empty"),
        pytest.param(_with(REPLICA_SET, selector={"matchExpressions": [{"key": "a", "operator": "Is"}]}),
                     "(ReplicaSet default/rs1): spec.selector: matchExpressions[0].operator",
                     id="rs-operator"),
        pytest.param(_with(STATEFUL_SET, selector={"matchLabels": {"app": "other"}}),
                     "(StatefulSet default/db): spec.template.metadata.labels: Invalid value: "
                     "`selector` does not match template `labels`", id="ss-template"),
        pytest.param(_with(REPLICATION_CONTROLLER, template=None),
                     "(ReplicationController default/rc): spec.selector: Required value", id="rc-empty"),
        pytest.param(_with(REPLICATION_CONTROLLER, selector={"app": "x"}),
                     "(ReplicationController default/rc): spec.template.metadata.labels", id="rc-template"),
        pytest.param({**REPLICA_SET, "apiVersion": "extensions/v1beta1"}, "apiVersion 'extensions/v1beta1'",
                     id="rs-old-api"),
    ],
)
def test_bad_workload_objects_exit_2(tmp_path: Path, doc: dict[str, Any], error: str) -> None:
    path = _write(tmp_path, [doc])
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert "cluster.yaml: document 1" in result.stderr and error in result.stderr, result.stderr
    assert "Traceback" not in result.output


def test_typed_lists_of_the_new_kinds_load(tmp_path: Path) -> None:
    """``ServiceList`` / ``ReplicaSetList`` as the raw API returns them (items without kind)."""
    docs = [
        {"apiVersion": "v1", "kind": "ServiceList",
         "items": [{k: v for k, v in SERVICE.items() if k not in ("kind", "apiVersion")}]},
        {"apiVersion": "apps/v1", "kind": "ReplicaSetList",
         "items": [{k: v for k, v in REPLICA_SET.items() if k not in ("kind", "apiVersion")}]},
    ]
    loaded = load_paths([_write(tmp_path, docs)])
    assert loaded.counts() == {"Service": 1, "ReplicaSet": 1}
