"""Whole-cluster dumps through every command: kinds the scheduler does not read are skipped
with one warning (``--strict`` refuses them), empty input is bad input, a pod keeps the
priority its dump gives it when its PriorityClass is missing (one warning), document numbers
count from 1, and large inputs get a progress bar on a terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import _inputs, app

runner = CliRunner()

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def _pod(name: str, extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\n"
            f"spec:\n  containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]\n{extra}")


UNREAD = """apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: shop}, data: {k: v}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: shop}}
- {apiVersion: v1, kind: Endpoints, metadata: {name: web, namespace: shop}}
- {apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: web-1, namespace: shop}, revision: 1}
- {apiVersion: v1, kind: ServiceAccount, metadata: {name: agent, namespace: kube-system}}
- {apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: migrate, namespace: shop}}
- {apiVersion: batch/v1, kind: CronJob, metadata: {name: nightly, namespace: shop}}
- {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: shop}}
---
apiVersion: v1
kind: EventList
items:
- {metadata: {name: e1, namespace: shop}, reason: Scheduled}
- {metadata: {name: e2, namespace: shop}, reason: Pulled}
"""
SKIPPED = ("warning: skipped 10 objects of kinds kubesched does not read: ConfigMap 2, Event 2, "
           "ControllerRevision 1, CronJob 1, Endpoints 1, Ingress 1, Secret 1, ServiceAccount 1")


def _write(tmp_path: Path, text: str, name: str = "dump.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _run(command: str, *args: str) -> Any:
    extra = ["--pod", "shop/pending"] if command == "explain" else []
    return runner.invoke(app, [command, *args, *extra])


def _one_line(text: str) -> str:
    return " ".join(text.split())


COMMANDS = ["validate", "simulate", "explain"]


@pytest.mark.parametrize("command", COMMANDS)
def test_unread_kinds_are_skipped_with_one_warning(tmp_path: Path, command: str) -> None:
    path = _write(tmp_path, "---\n".join([NODE, _pod("pending"), UNREAD]))
    result = _run(command, path)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("warning:") == 1
    assert _one_line(result.stderr) == SKIPPED


@pytest.mark.parametrize("command", COMMANDS)
def test_strict_refuses_unread_kinds(tmp_path: Path, command: str) -> None:
    path = _write(tmp_path, "---\n".join([NODE, _pod("pending"), UNREAD]))
    result = _run(command, path, "--strict")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert _one_line(result.stderr).startswith(
        f"error: {path}: document 3, item 1 (ConfigMap shop/a): kind 'ConfigMap' is not read by the "
        "scheduler")


@pytest.mark.parametrize("command", COMMANDS)
def test_strict_accepts_a_dump_of_read_kinds(tmp_path: Path, command: str) -> None:
    result = _run(command, _write(tmp_path, NODE + "---\n" + _pod("pending")), "--strict")
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr


def test_read_kind_with_unsupported_api_version_is_still_bad_input(tmp_path: Path) -> None:
    pdb = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: shop}\n"
    result = _run("validate", _write(tmp_path, NODE + "---\n" + pdb))
    assert result.exit_code == 2
    assert "document 2 (PodDisruptionBudget shop/b): apiVersion 'policy/v1beta1' is not supported" \
        in _one_line(result.stderr)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n---\n"],
                         ids=["empty", "comments", "separators"])
def test_empty_file_is_bad_input(tmp_path: Path, command: str, text: str) -> None:
    path = _write(tmp_path, text)
    result = _run(command, path)
    assert result.exit_code == 2, result.output
    assert _one_line(result.stderr) == f"error: {path}: no manifest in it (the input is empty)"
    assert result.stdout == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_directory_without_manifests_is_bad_input(tmp_path: Path, command: str) -> None:
    (tmp_path / "README.md").write_text("no manifests here")
    result = _run(command, str(tmp_path))
    assert result.exit_code == 2, result.output
    assert _one_line(result.stderr).startswith(f"error: {tmp_path}: no manifest in this directory")


def test_empty_stdin_is_bad_input() -> None:
    result = runner.invoke(app, ["validate", "-"], input="")
    assert result.exit_code == 2
    assert "<stdin>: no manifest in it" in result.stderr


# A dump of pods (kubectl get pods -A -o yaml) without the PriorityClasses they name: the
# pods carry the priority admission gave them when they were created.
PODS_WITHOUT_CLASSES = "---\n".join([
    NODE,
    _pod("running", "  nodeName: n1\n  priorityClassName: business-critical\n  priority: 100000\n"),
    _pod("pending", "  priorityClassName: business-critical\n  priority: 100000\n"),
    _pod("batch", "  priorityClassName: batch-low\n  priority: -5\n  preemptionPolicy: Never\n"),
])
MISSING = ("warning: PriorityClasses missing from the input: batch-low (1 pod), business-critical (2 pods); "
           "these pods keep their spec.priority")


@pytest.mark.parametrize("command", COMMANDS)
def test_pods_keep_their_priority_when_their_class_is_missing(tmp_path: Path, command: str) -> None:
    result = _run(command, _write(tmp_path, PODS_WITHOUT_CLASSES))
    assert result.exit_code == 0, result.output
    assert result.stderr.count("warning:") == 1
    assert _one_line(result.stderr).startswith(MISSING)


def test_simulate_uses_the_kept_priorities(tmp_path: Path) -> None:
    result = _run("simulate", _write(tmp_path, PODS_WITHOUT_CLASSES), "-o", "json")
    assert result.exit_code == 0, result.output
    pods = {p["pod"]: p for p in json.loads(result.stdout)["pods"]}
    assert {k: p["priority"] for k, p in pods.items()} == {
        "shop/running": 100000, "shop/pending": 100000, "shop/batch": -5}
    assert pods["shop/pending"]["status"] == "Scheduled"


def test_a_missing_class_with_its_pods_and_a_skipped_kind_give_two_warnings(tmp_path: Path) -> None:
    result = _run("validate", _write(tmp_path, PODS_WITHOUT_CLASSES + "---\n" + UNREAD))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 2
    assert lines[0].startswith("warning: skipped 10") and lines[1].startswith(MISSING[:40])


def test_unknown_class_without_priority_is_still_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, NODE + "---\n" + _pod("p", "  priorityClassName: gold\n"))
    result = _run("validate", path)
    assert result.exit_code == 2
    assert _one_line(result.stderr) == \
        f"error: {path}: document 2 (Pod shop/p): no PriorityClass with name gold was found"


def test_an_error_is_told_alone_without_the_warnings(tmp_path: Path) -> None:
    text = PODS_WITHOUT_CLASSES + "---\n" + _pod("p", "  priorityClassName: gold\n")
    result = _run("validate", _write(tmp_path, text))
    assert result.exit_code == 2
    assert "warning" not in result.stderr and result.stderr.count("error:") == 1


def test_documents_are_counted_from_one(tmp_path: Path) -> None:
    path = _write(tmp_path, NODE + "---\n" + _pod("p").replace("100m", "lots"))
    result = _run("validate", path)
    assert result.exit_code == 2
    assert _one_line(result.stderr).startswith(f"error: {path}: document 2 (Pod shop/p): ")


def test_progress_bar_for_a_large_input_on_a_terminal(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, NODE + "---\n" + _pod("p"))
    monkeypatch.setattr(_inputs, "LARGE_INPUT_BYTES", 1)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: treat the captured stderr as a terminal
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("COLUMNS", "400")
    result = _run("validate", path)
    assert result.exit_code == 0, result.output
    assert f"reading {path}" in result.stderr


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_inputs, "LARGE_INPUT_BYTES", 1)
    result = _run("validate", _write(tmp_path, NODE))
    assert result.exit_code == 0 and result.stderr == ""
