"""A pod with ``spec.schedulingGates``: the API server marks it PodScheduled=False reason
SchedulingGated on create, the SchedulingGates PreEnqueue plugin keeps it out of the queue, and
``explain`` / ``simulate`` say so instead of placing it."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from _cli import json_output
from kubesched.cli import app
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.testing import make_node, make_pod

runner = CliRunner()

GATES = ["example.com/quota", "example.com/approval"]
WAITING = "waiting for scheduling gates: [example.com/quota example.com/approval]"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}
GATED = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gated", "namespace": "default"},
         "spec": {"schedulingGates": [{"name": g} for g in GATES],
                  "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]}}


def _cluster(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, GATED]))
    return path


def test_explain_json_reports_the_pre_enqueue_status_and_no_node(tmp_path: Path) -> None:
    out = json_output("explain", str(_cluster(tmp_path)), "--pod", "default/gated")
    assert out["preEnqueue"] == {"plugin": "SchedulingGates", "code": "UnschedulableAndUnresolvable",
                                 "reasons": [WAITING]}
    assert out["selectedNode"] is None
    assert (out["nodes"], out["tiedNodes"], out["postFilter"]) == ([], [], None)
    assert out["message"] == WAITING


def test_explain_json_of_an_ungated_pod_has_no_pre_enqueue_status(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, {**GATED, "spec": {**GATED["spec"], "schedulingGates": []}}]))
    out = json_output("explain", str(path), "--pod", "default/gated")
    assert out["preEnqueue"] is None
    assert out["selectedNode"] == "node-1"


def test_explain_text_says_the_pod_is_gated(tmp_path: Path) -> None:
    result = runner.invoke(app, ["explain", str(_cluster(tmp_path)), "--pod", "default/gated"])
    assert result.exit_code == 0, result.output
    words = " ".join(result.stdout.split())
    assert "PreEnqueue SchedulingGates: UnschedulableAndUnresolvable" in words
    assert WAITING in words
    assert "Selected node" not in words


def test_simulate_shows_why_a_gated_pod_stays_pending(tmp_path: Path) -> None:
    path = _cluster(tmp_path)
    report = json_output("simulate", str(path))
    (pod,) = report["pods"]
    assert (pod["status"], pod["node"], pod["message"]) == ("SchedulingGated", None, WAITING)
    assert report["summary"]["unschedulable"] == 1
    assert report["summary"]["attempts"] == 0

    table = runner.invoke(app, ["simulate", str(path)])
    assert table.exit_code == 0, table.output
    words = " ".join(table.stdout.split())  # however the terminal width wraps it
    assert "SchedulingGated" in words and f"default/gated: {WAITING}" in words
    assert runner.invoke(app, ["simulate", str(path), "--fail-on-unschedulable"]).exit_code == 1


def test_simulate_yaml_carries_the_condition_the_api_server_sets(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", str(_cluster(tmp_path)), "-o", "yaml"])
    assert result.exit_code == 0, result.output
    pod = next(d for d in yaml.safe_load_all(result.stdout) if d["kind"] == "Pod")
    (cond,) = pod["status"]["conditions"]
    assert {k: cond[k] for k in ("type", "status", "reason", "message")} == {
        "type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates"}


def test_store_marks_gated_pods_on_create_only() -> None:
    store = MemoryStore(VirtualClock(0.0))
    store.create(make_node().name("n").obj())
    gated = store.create(make_pod().name("g").scheduling_gates(["x"]).obj())
    assert (gated.condition("PodScheduled") or {}).get("reason") == "SchedulingGated"
    plain = store.create(make_pod().name("p").obj())
    assert plain.condition("PodScheduled") is None
    # A pod that already carries PodScheduled (a dump) keeps it.
    kept = store.create(make_pod().name("k").scheduling_gates(["x"])
                        .condition("PodScheduled", "False", "Unschedulable", "0/1 nodes").obj())
    assert (kept.condition("PodScheduled") or {}).get("reason") == "Unschedulable"
