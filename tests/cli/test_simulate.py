"""``kubesched simulate`` end to end through the CLI: outputs, round trip, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from _cli import json_output
from kubesched.cli import app

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
SMALL = FIXTURES / "small-cluster.yaml"
QUICKSTART = HERE.parent.parent / "examples" / "quickstart"

runner = CliRunner()


def _simulate(*args: str, input: str | None = None) -> Any:
    return runner.invoke(app, ["simulate", *args], input=input)


def _json(*args: str) -> dict[str, Any]:
    return json_output("simulate", *args)


@pytest.fixture(scope="module")
def quickstart_report() -> dict[str, Any]:
    return _json(str(QUICKSTART))


def _pod(report: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in report["pods"] if p["pod"] == key)
    return found


def test_quickstart_table() -> None:
    result = _simulate(str(QUICKSTART))
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in ("Pods", "Preemptions", "default/batch-4", "default/db-0", "requested / allocatable"):
        assert text in out


def test_quickstart_json_preemption(quickstart_report: dict[str, Any]) -> None:
    # db-0 (high, 3 cpu) fits nowhere; every untainted node has a 2-cpu batch pod. Each candidate
    # has one victim of priority 10 and no PDB violation (the PDB allows one disruption), so
    # pickOneNodeForPreemption falls through to the latest start time: batch-4 on node-b2.
    r = quickstart_report
    assert r["kind"] == "SimulationReport"
    assert r["preemptions"] == [
        {"victim": "default/batch-4", "preemptor": "default/db-0", "node": "node-b2",
         "time": r["preemptions"][0]["time"]}]
    db = _pod(r, "default/db-0")
    assert db["node"] == "node-b2" and db["status"] == "Scheduled" and db["priority"] == 100000
    assert _pod(r, "default/batch-4")["status"] == "Preempted"
    assert _pod(r, "default/batch-0") == {
        "pod": "default/batch-0", "node": "node-a1", "status": "Bound", "priority": 10,
        "nominatedNode": None, "message": ""}
    assert _pod(r, "default/gpu-train")["node"] == "node-b3"  # the only node it tolerates and selects
    assert r["summary"]["preemptions"] == 1 and r["summary"]["bound"] == 4


def test_quickstart_json_allocation(quickstart_report: dict[str, Any]) -> None:
    node_b2 = next(n for n in quickstart_report["nodes"] if n["name"] == "node-b2")
    # db-0 alone on node-b2 after the preemption: 3 cpu (millicores), 8Gi, one pod.
    assert node_b2["resources"]["cpu"] == {"requested": 3000, "allocatable": 3900}
    assert node_b2["resources"]["memory"] == {"requested": 8 * 2**30, "allocatable": 15 * 2**30}
    assert node_b2["resources"]["pods"] == {"requested": 1, "allocatable": 110}


def test_yaml_round_trip_changes_nothing(tmp_path: Path) -> None:
    first = _simulate(str(QUICKSTART), "-o", "yaml")
    assert first.exit_code == 0, first.output
    docs = list(yaml.safe_load_all(first.stdout))
    pods = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Pod"}
    assert "batch-4" not in pods  # the victim is gone
    assert pods["db-0"]["spec"]["nodeName"] == "node-b2"
    assert any(c["type"] == "PodScheduled" and c["status"] == "True"
               for c in pods["db-0"]["status"]["conditions"])
    assert not any(d["kind"] == "PriorityClass" and d["metadata"]["name"].startswith("system-")
                   for d in docs)
    state = tmp_path / "state.yaml"
    state.write_text(first.stdout)

    second = _simulate(str(state), "-o", "yaml")
    assert second.exit_code == 0, second.output
    assert second.stdout == first.stdout
    report = _json(str(state))
    assert report["summary"]["scheduled"] == 0
    assert report["preemptions"] == []


def test_unschedulable_pod_reports_upstream_message() -> None:
    r = _json(str(SMALL))
    huge = _pod(r, "default/huge")
    assert huge["status"] == "Unschedulable" and huge["node"] is None
    # node-a fails TaintToleration first (counted once, for the taint); the others lack cpu.
    # 6 cpu exceeds every node's allocatable, and the pod may not preempt anyway.
    assert huge["message"] == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                               "2 Insufficient cpu. no new claims to deallocate, "
                               "preemption: not eligible due to preemptionPolicy=Never.")
    assert _pod(r, "default/ssd-1")["node"] == "node-b"
    assert r["summary"]["unschedulable"] == 1


@pytest.mark.parametrize(
    ("args", "code"),
    [
        pytest.param([str(SMALL)], 0, id="unschedulable-without-flag"),
        pytest.param([str(SMALL), "--fail-on-unschedulable"], 1, id="unschedulable-with-flag"),
        pytest.param([str(QUICKSTART), "--fail-on-unschedulable"], 0, id="all-scheduled-with-flag"),
    ],
)
def test_fail_on_unschedulable(args: list[str], code: int) -> None:
    result = _simulate(*args, "-o", "json")
    assert result.exit_code == code, result.output


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param("a: [", "malformed YAML", id="malformed"),
        pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                     "spec: {priorityClassName: gold, containers: [{name: c}]}\n",
                     "no PriorityClass with name gold was found", id="unknown-priority-class"),
    ],
)
def test_bad_manifest_exit_2_names_file(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    result = _simulate(str(path))
    assert result.exit_code == 2
    err = " ".join(result.stderr.split())
    assert "bad.yaml" in err and error in err
    assert result.stdout == ""


def test_bad_config_exit_2_names_file(tmp_path: Path) -> None:
    cfg = tmp_path / "sched.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                   "profiles:\n- schedulerName: s\n  plugins:\n    score:\n"
                   "      enabled: [{name: NoSuchPlugin}]\n")
    result = _simulate(str(SMALL), "--config", str(cfg))
    assert result.exit_code == 2
    assert "sched.yaml" in result.stderr


def test_missing_path_exit_2() -> None:
    result = _simulate("no-such-dir/")
    assert result.exit_code == 2
    assert "no-such-dir" in result.stderr


def test_bad_output_format_is_a_usage_error() -> None:
    assert _simulate(str(SMALL), "-o", "xml").exit_code == 2


def test_stdin_and_seed_determinism() -> None:
    text = SMALL.read_text()
    runs = [_simulate("-", "--seed", "7", "-o", "json", input=text) for _ in range(2)]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    assert runs[0].stdout == runs[1].stdout
    assert json.loads(runs[0].stdout)["seed"] == 7


def test_wide_shows_messages_in_a_column() -> None:
    result = runner.invoke(app, ["simulate", str(SMALL), "-o", "wide"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "MESSAGE" in result.stdout
    assert ("2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to "
            "preemptionPolicy=Never.") in result.stdout


def test_progress_callback_counts_bindings() -> None:
    from kubesched.api.loader import load_paths
    from kubesched.simulator import run_simulation

    seen: list[tuple[int, int]] = []
    sim = run_simulation(load_paths([QUICKSTART]), progress=lambda done, total: seen.append((done, total)))
    # 8 pending pods, all bound in the end; the first report is (0, 8).
    assert seen[0] == (0, 8) and seen[-1] == (8, 8)
    assert sim.count("Scheduled") == 8


def test_other_schedulers_pods_stay_pending_and_do_not_fail(tmp_path: Path) -> None:
    path = tmp_path / "other.yaml"
    path.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: '2'}}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                    "spec: {schedulerName: other, containers: [{name: c, image: pause}]}\n")
    result = _simulate(str(path), "-o", "json", "--fail-on-unschedulable")
    assert result.exit_code == 0, result.output
    assert _pod(json.loads(result.stdout), "default/p")["status"] == "Pending"


def test_yaml_round_trip_keeps_unschedulable_pods(tmp_path: Path) -> None:
    first = _simulate(str(SMALL), "-o", "yaml")
    assert first.exit_code == 0, first.output
    huge = next(d for d in yaml.safe_load_all(first.stdout) if d["metadata"]["name"] == "huge")
    cond = next(c for c in huge["status"]["conditions"] if c["type"] == "PodScheduled")
    assert cond["status"] == "False" and cond["reason"] == "Unschedulable"
    assert "nodeName" not in huge["spec"]
    state = tmp_path / "state.yaml"
    state.write_text(first.stdout)
    second = _simulate(str(state), "-o", "yaml")
    assert second.exit_code == 0, second.output
    assert second.stdout == first.stdout


@pytest.mark.parametrize(("tty", "bar_shown"), [
    pytest.param("1", True, id="terminal-shows-the-bar"),
    pytest.param("0", False, id="pipe-hides-the-bar"),
])
def test_progress_bar_on_stderr_only_on_a_terminal(tty: str, bar_shown: bool) -> None:
    # rich decides "is a terminal" from TTY_COMPATIBLE before looking at isatty().
    result = runner.invoke(app, ["simulate", str(QUICKSTART), "-o", "json"],
                           env={"TTY_COMPATIBLE": tty, "FORCE_COLOR": None, "NO_COLOR": None})
    assert result.exit_code == 0, result.output
    assert ("scheduling" in result.stderr) is bar_shown
    json.loads(result.stdout)  # the bar never mixes into stdout


def test_kubectl_dump_terminating_pod_is_deleted_not_preempted() -> None:
    # legacy-0 is terminating in the dump: it goes when its grace period ends, and is no victim.
    report = _json(str(HERE.parent / "fixtures" / "kubectl-dump.yaml"))
    legacy = _pod(report, "shop/legacy-0")
    assert (legacy["status"], legacy["message"]) == ("Deleted", "")
    assert report["preemptions"] == [] and report["summary"]["preempted"] == 0
    assert _pod(report, "shop/train-1")["status"] == "Scheduled"
