"""``--max-pods``: an input that would create more pods than that is refused up front (exit 2,
one line naming the file and the object asking for the most), before anything runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.simulator import Simulator

runner = CliRunner()

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
WORKLOADS = EXAMPLES / "workloads"
CONFIG = EXAMPLES / "replay" / "least-allocated.yaml"
# examples/workloads plans 20 pods: web 4 + db 3 + node-exporter 4 (one per node, an upper
# bound: the control-plane's taint is not applied) + report 6 completions + train 3.
PLANNED = 20

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _deployment(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("a simulation was built")

    monkeypatch.setattr(Simulator, "__init__", refuse)


@pytest.mark.parametrize("command", [["simulate"], ["explain", "--pod", "default/x"],
                                     ["capacity", "--pod", "pod.yaml"]], ids=lambda c: c[0])
def test_absurd_replicas_are_refused_up_front(command: list[str], tmp_path: Path, nothing_runs: None) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump_all([NODE, _deployment(2147483647)]))
    result = runner.invoke(app, [command[0], str(path), *command[1:]])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {path}: document 2 (Deployment default/web): spec.replicas 2,147,483,647: the input "
        "would create 2,147,483,647 pods, more than --max-pods 1,000,000 (raise --max-pods to run it)\n")
    assert result.stdout == ""


def test_the_sum_counts_and_names_the_largest() -> None:
    result = runner.invoke(app, ["simulate", str(WORKLOADS), "--max-pods", str(PLANNED - 1)])
    assert result.exit_code == 2, result.output
    assert f"(Job default/report): spec.completions 6: the input would create {PLANNED} pods, more than " \
           f"--max-pods {PLANNED - 1} " in result.stderr
    assert str(WORKLOADS / "40-job.yaml") in result.stderr
    assert runner.invoke(app, ["simulate", str(WORKLOADS), "--max-pods", str(PLANNED)]).exit_code == 0


def test_daemonsets_count_per_node_and_bare_pods_one_each(tmp_path: Path) -> None:
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
          "spec": {"selector": {"matchLabels": {"app": "a"}},
                   "template": {"metadata": {"labels": {"app": "a"}},
                                "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    nodes = [{**NODE, "metadata": {"name": f"n{i}"}} for i in range(3)]
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all([*nodes, ds, pod]))
    result = runner.invoke(app, ["simulate", str(path), "--max-pods", "3"])
    assert result.exit_code == 2
    assert "(DaemonSet default/agent): one pod per node, 3 nodes: the input would create 4 pods" \
        in result.stderr
    assert runner.invoke(app, ["simulate", str(path), "--max-pods", "4"]).exit_code == 0


def test_a_dump_is_not_counted_twice(tmp_path: Path) -> None:
    # simulate -o yaml writes the ReplicaSet and every pod beside their workloads: pods and the
    # Deployment's ReplicaSet count with the workload that controls them.
    dump = runner.invoke(app, ["simulate", str(WORKLOADS), "-o", "yaml"])
    assert dump.exit_code == 0, dump.output
    path = tmp_path / "state.yaml"
    path.write_text(dump.stdout)
    assert runner.invoke(app, ["simulate", str(path), "--max-pods", str(PLANNED)]).exit_code == 0
    assert runner.invoke(app, ["simulate", str(path), "--max-pods", str(PLANNED - 1)]).exit_code == 2


def _trace(tmp_path: Path, *events: dict[str, Any]) -> tuple[Path, Path]:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([NODE, _deployment(2)]))
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    return trace, cluster


POD_EVENT = {"time": 1.0, "op": "create", "object": {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "x"}]}}}


@pytest.mark.parametrize("command", ["replay", "compare", "sweep"])
def test_a_trace_scaling_past_the_limit_is_refused_before_it_runs(command: str, tmp_path: Path) -> None:
    scale = {"time": 2.0, "op": "scale", "kind": "Deployment", "namespace": "default", "name": "web",
             "replicas": 2147483647}
    trace, cluster = _trace(tmp_path, POD_EVENT, scale)
    extra = {"replay": [], "compare": ["--config", str(CONFIG)], "sweep": ["--seeds", "0"]}[command]
    result = runner.invoke(app, [command, str(trace), "--cluster", str(cluster), *extra])
    assert result.exit_code == 2, result.output
    # 2 (web) + 1 (the pod) + 2,147,483,645 more replicas
    assert result.stderr == (
        f"error: {trace}:2: scale (Deployment default/web): scale to 2,147,483,647: the trace would create "
        "2,147,483,648 pods, more than --max-pods 1,000,000 (raise --max-pods to run it)\n")
    assert result.stdout == ""


def test_a_trace_within_the_limit_runs(tmp_path: Path) -> None:
    scale = {"time": 2.0, "op": "scale", "kind": "Deployment", "namespace": "default", "name": "web",
             "replicas": 1}
    trace, cluster = _trace(tmp_path, scale, {**POD_EVENT, "time": 3.0})
    # scaling down gives nothing back: 2 + 1 = 3
    args = ["replay", str(trace), "--cluster", str(cluster), "-o", "json", "--max-pods"]
    assert runner.invoke(app, [*args, "3"]).exit_code == 0
    result = runner.invoke(app, [*args, "2"])
    assert result.exit_code == 2
    assert f"{trace}:2: create (Pod default/p): a pod: the trace would create 3 pods" in result.stderr
