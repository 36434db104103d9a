"""Finished pods (``status.phase`` Succeeded or Failed) hold nothing: upstream's pod informer
excludes them with a field selector, so they are in neither the cache nor the queue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from _cli import json_output
from kubesched.api import Pod
from kubesched.api.loader import load_documents
from kubesched.cache import compare
from kubesched.cli import app
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.testing import make_pod

from .env import Env
from .test_schedule_one import _node, _pod

runner = CliRunner()

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}


def _manifest_pod(name: str, cpu: str, *, node: str = "", phase: str = "", priority: int = 0,
                  labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": {"priority": priority, "restartPolicy": "Never", **spec,
                 "containers": [{"name": "c", "image": "busybox",
                                 "resources": {"requests": {"cpu": cpu}}}]},
    }
    if node:
        pod["spec"]["nodeName"] = node
    if phase:
        pod["status"] = {"phase": phase}
        if phase == "Succeeded":
            # A completed Job pod as `kubectl get pods -o yaml` shows it.
            pod["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job",
                                                   "name": "job", "uid": "j1", "controller": True}]
            pod["status"]["conditions"] = [{"type": "Ready", "status": "False", "reason": "PodCompleted"}]
    return pod


def _write(tmp_path: Path, *docs: dict[str, Any]) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path


def test_completed_job_pod_on_a_full_node_frees_it(tmp_path: Path) -> None:
    path = _write(tmp_path, NODE, _manifest_pod("job-x7k2p", "2", node="node-1", phase="Succeeded"),
                  _manifest_pod("web", "1500m"))
    report = json_output("simulate", str(path))
    pods = {p["pod"]: p for p in report["pods"]}
    assert pods["default/web"]["status"] == "Scheduled"
    assert pods["default/web"]["node"] == "node-1"
    assert pods["default/job-x7k2p"]["status"] == "Succeeded"
    assert report["nodes"][0]["resources"]["cpu"] == {"requested": 1500, "allocatable": 2000}
    assert report["summary"]["unschedulable"] == 0

    explained = json_output("explain", str(path), "--pod", "default/web")
    assert explained["selectedNode"] == "node-1"


def test_failed_pending_pod_is_never_scheduled(tmp_path: Path) -> None:
    path = _write(tmp_path, NODE, _manifest_pod("evicted", "1", phase="Failed"))
    report = json_output("simulate", str(path))
    (pod,) = report["pods"]
    assert (pod["status"], pod["node"], pod["message"]) == ("Failed", None, "")
    assert report["summary"]["attempts"] == 0
    result = runner.invoke(app, ["explain", str(path), "--pod", "default/evicted"])
    assert result.exit_code == 2
    assert "has finished (phase Failed)" in result.output


def test_finished_pods_are_not_counted_by_anti_affinity_or_topology_spread(tmp_path: Path) -> None:
    node2 = {**NODE, "metadata": {"name": "node-2"}}
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
    spread = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
              "labelSelector": {"matchLabels": {"app": "db"}}}
    for n in (NODE, node2):
        n["metadata"]["labels"] = {"kubernetes.io/hostname": n["metadata"]["name"]}
    path = _write(
        tmp_path, NODE, node2,
        # Two finished db pods on node-1, a running one on node-2.
        _manifest_pod("db-old-1", "100m", node="node-1", phase="Failed", labels={"app": "db"}),
        _manifest_pod("db-old-2", "100m", node="node-1", phase="Succeeded", labels={"app": "db"}),
        _manifest_pod("db-0", "100m", node="node-2", labels={"app": "db"}),
        _manifest_pod("db-1", "100m", labels={"app": "db"}, affinity={"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [term]}}),
        _manifest_pod("db-2", "100m", labels={"app": "db"}, topologySpreadConstraints=[spread]),
    )
    for pod in ("default/db-1", "default/db-2"):
        out = json_output("explain", str(path), "--pod", pod)
        assert out["selectedNode"] == "node-1", pod
        assert [n["feasible"] for n in out["nodes"]] == [True, False]


def test_finished_pod_is_no_preemption_victim(tmp_path: Path) -> None:
    path = _write(tmp_path, NODE,
                  _manifest_pod("done", "1", node="node-1", phase="Succeeded"),
                  _manifest_pod("low", "2", node="node-1"),
                  _manifest_pod("high", "2", priority=100))
    out = json_output("explain", str(path), "--pod", "default/high")
    assert out["postFilter"]["victims"] == ["default/low"]
    assert out["postFilter"]["nominatedNode"] == "node-1"


def test_bound_pod_turning_succeeded_frees_its_node() -> None:
    env = Env().add(_node("n0", cpu="1"), _pod("job"))
    env.run()
    env.add(_pod("p"))
    env.run()
    assert env.node_of("p") == ""
    d = env.pod("job").to_dict()
    d["status"]["phase"] = "Succeeded"
    env.store.update(Pod.from_dict(d))
    assert env.sched.cache.get_pod(env.pod("job")) is None
    # The cache comparer agrees: a finished pod is not one the cache missed.
    assert compare(env.sched.cache, env.store.list("Node"), env.store.list("Pod"),
                   [env.pod("p")]).consistent
    env.run()
    assert env.node_of("p") == "n0"


def test_pending_pod_turning_failed_leaves_the_queue() -> None:
    env = Env().add(_node("n0", cpu="1"), _pod("p", cpu="2"))
    env.run()
    assert [p.name for p in env.sched.queue.unschedulable_pods()] == ["p"]
    d = env.pod("p").to_dict()
    d.setdefault("status", {})["phase"] = "Failed"
    env.store.update(Pod.from_dict(d))
    assert env.sched.queue.pending_pods()[0] == []


def test_finished_pod_is_never_healthy_for_a_pdb() -> None:
    store = MemoryStore(VirtualClock(0.0))
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}}
    store.load(load_documents(json.dumps(pdb), "pdb.json", json_only=True))
    store.create(make_pod().name("done").label("app", "x").node("n1").phase("Succeeded")
                 .condition("Ready", "True").obj())
    status = store.get("PodDisruptionBudget", "default", "b").raw["status"]
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (0, 0)


def test_validate_counts_finished_pods_apart(tmp_path: Path) -> None:
    path = _write(tmp_path, NODE, _manifest_pod("job-x7k2p", "2", node="node-1", phase="Succeeded"),
                  _manifest_pod("web", "1500m"))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "pods: 0 bound, 1 pending, 1 finished" in result.stdout
