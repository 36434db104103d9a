"""``kubesched simulate`` on awkward inputs: it either runs (exit 0, a report) or refuses the
input with one error naming the file and the object (exit 2, nothing on stdout); never a
traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 2Gi, pods: 10}}
"""
BARE_NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: bare}\n"


def _pod(name: str, extra: str = "", cpu: str = "100m", labels: str = "{app: a}") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {labels}}}\nspec:\n{extra}"
            f"  containers: [{{name: c, image: x, resources: {{requests: {{cpu: {cpu}}}}}}}]\n")


BOUND_LOW = _pod("low", "  nodeName: n1\n", cpu='"2"') + \
    "status: {phase: Running, conditions: [{type: Ready, status: \"True\"}]}\n"
HIGH = _pod("high", "  priority: 1000\n", cpu='"2"')
PDB_ZERO = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: zero}
spec: {maxUnavailable: 0, selector: {matchLabels: {app: a}}}
"""


def _write(tmp_path: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / name) for name in files] or [str(tmp_path)]


def _report(tmp_path: Path, files: dict[str, str]) -> dict[str, Any]:
    result = runner.invoke(app, ["simulate", *_write(tmp_path, files), "-o", "json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _status(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {p["pod"]: (p["status"], p["message"]) for p in report["pods"]}


def test_empty_directory_is_bad_input(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", str(tmp_path)])
    assert result.exit_code == 2 and str(tmp_path) in result.output and "no manifest" in result.output


def test_only_nodes(tmp_path: Path) -> None:
    r = _report(tmp_path, {"nodes.yaml": NODE})
    assert [n["name"] for n in r["nodes"]] == ["n1"] and r["pods"] == []


def test_only_pods(tmp_path: Path) -> None:
    # schedule_one.go: ErrNoNodesAvailable when the snapshot has no node.
    r = _report(tmp_path, {"pods.yaml": _pod("p")})
    assert _status(r) == {"default/p": ("Unschedulable", "no nodes available to schedule pods")}


def test_pod_for_another_scheduler(tmp_path: Path) -> None:
    r = _report(tmp_path, {"all.yaml": NODE + "---\n" + _pod("other", "  schedulerName: someone-else\n")})
    assert _status(r) == {"default/other": ("Pending", "")}
    assert r["summary"]["attempts"] == 0 and r["summary"]["unschedulable"] == 0


def test_node_without_allocatable(tmp_path: Path) -> None:
    # No allocatable and no capacity: zero pods fit (NodeResourcesFit "Too many pods"),
    # and no request can ever fit, so preemption cannot help either.
    r = _report(tmp_path, {"all.yaml": BARE_NODE + "---\n" + _pod("p")})
    status, message = _status(r)["default/p"]
    assert status == "Unschedulable"
    assert message.startswith("0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods.")


def test_terminating_bound_pod_frees_its_node(tmp_path: Path) -> None:
    # deletionTimestamp is when the grace period ends: the pod is gone then, its cpu freed.
    terminating = _pod("old", "  nodeName: n1\n", cpu='"2"').replace(
        "labels: {app: a}", "labels: {app: a}, deletionTimestamp: '2026-01-01T00:00:30Z'")
    r = _report(tmp_path, {"all.yaml": NODE + "---\n" + terminating + "---\n" + _pod("new", cpu='"2"')})
    assert _status(r) == {"default/old": ("Deleted", ""), "default/new": ("Scheduled", "")}


def test_pdb_with_max_unavailable_zero_is_best_effort(tmp_path: Path) -> None:
    # The only victim violates the PDB: preemption still evicts it (pickOneNodeForPreemption
    # prefers fewer violations but does not refuse them).
    r = _report(tmp_path, {"all.yaml": "---\n".join([NODE, BOUND_LOW, HIGH, PDB_ZERO])})
    assert r["preemptions"][0]["victim"] == "default/low"
    assert _status(r)["default/high"] == ("Scheduled", "")


@pytest.mark.parametrize(
    ("files", "error"),
    [
        pytest.param({"a.yaml": _pod("p"), "b.yaml": _pod("p")},
                     "b.yaml: document 1 (Pod default/p): duplicate object, already defined at",
                     id="duplicate-across-files"),
        pytest.param({"a.yaml": _pod("p", "  priority: 99999999999999999999\n")},
                     "a.yaml: document 1 (Pod p): spec.priority: Invalid value: 99999999999999999999: "
                     "must be an int32",
                     id="huge-priority"),
        pytest.param({"a.yaml": _pod("p", "  priorityClassName: gold\n")},
                     "a.yaml: document 1 (Pod default/p): no PriorityClass with name gold was found",
                     id="unknown-priority-class"),
        pytest.param({"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 5}\n"},
                     "a.yaml: document 1 (Pod p): spec.containers: Invalid value: 5: must be a list",
                     id="wrong-field-type"),
    ],
)
def test_bad_input_exits_2(tmp_path: Path, files: dict[str, str], error: str) -> None:
    result = runner.invoke(app, ["simulate", *_write(tmp_path, files)])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" or result.stdout.startswith("error:")
    assert error in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output
