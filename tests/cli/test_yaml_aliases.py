"""A YAML alias bomb ("billion laughs") in any input is refused before it expands, with
go-yaml's message (``document contains excessive aliasing``: what kubectl and the API server
answer for the same document), one line naming the file, exit 2; small anchors keep working."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _yaml_bomb import billion_laughs, manifest_bomb
from kubesched.api import EXCESSIVE_ALIASING
from kubesched.cli import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"
def _said(output: str) -> str:
    """The one-line error as written (the console may wrap a long path over lines)."""
    return output.replace("\n", "")


CONFIG_HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


@pytest.mark.parametrize("command", [["validate"], ["simulate"], ["explain", "--pod", "default/laughs"],
                                     ["snapshot"], ["ui", "--port", "0"]])
def test_a_manifest_bomb_is_refused_naming_the_file(tmp_path: Path, command: list[str]) -> None:
    bomb = tmp_path / "laughs.yaml"
    bomb.write_text(manifest_bomb())
    result = runner.invoke(app, [command[0], str(bomb), *command[1:]])
    assert result.exit_code == 2, result.output
    assert _said(result.output) == f"error: {bomb}: {EXCESSIVE_ALIASING}"


def test_a_bomb_among_other_documents_and_files_refuses_them_all(tmp_path: Path) -> None:
    bomb = tmp_path / "b.yaml"
    bomb.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n" + manifest_bomb())
    result = runner.invoke(app, ["simulate", str(QUICKSTART), str(bomb)])
    assert result.exit_code == 2
    assert _said(result.output) == f"error: {bomb}: {EXCESSIVE_ALIASING}"


def test_a_configuration_bomb_is_refused_naming_the_file(tmp_path: Path) -> None:
    config = tmp_path / "sched.yaml"
    config.write_text(CONFIG_HEAD + billion_laughs(key="profiles"))
    result = runner.invoke(app, ["simulate", str(QUICKSTART), "--config", str(config)])
    assert result.exit_code == 2
    assert _said(result.output) == f"error: {config}: <file>: {EXCESSIVE_ALIASING}"


def test_a_trace_bomb_is_refused_naming_the_file(tmp_path: Path) -> None:
    trace = tmp_path / "trace.yaml"
    trace.write_text("apiVersion: kubesched.io/v1alpha1\nkind: Trace\n" + billion_laughs(key="events"))
    result = runner.invoke(app, ["replay", str(trace)])
    assert result.exit_code == 2
    assert _said(result.output) == f"error: {trace}: {EXCESSIVE_ALIASING}"


def test_a_bench_config_bomb_is_refused_naming_the_file(tmp_path: Path) -> None:
    config = tmp_path / "performance-config.yaml"
    config.write_text(billion_laughs(key="cases"))
    result = runner.invoke(app, ["bench", str(config)])
    assert result.exit_code == 2
    assert _said(result.output) == f"error: {config}: {EXCESSIVE_ALIASING}"


def test_an_anchor_that_holds_itself_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop.yaml"
    loop.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
                    "loop: &loop [*loop]\n")
    result = runner.invoke(app, ["validate", str(loop)])
    assert result.exit_code == 2
    assert _said(result.output) == f"error: {loop}: an anchor's value contains an alias of itself"


SHARED = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status:
    allocatable: &capacity {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: *capacity
- apiVersion: v1
  kind: Pod
  metadata: {name: a}
  spec:
    containers:
    - name: main
      resources: &resources
        requests: {cpu: "3", memory: 1Gi}
- apiVersion: v1
  kind: Pod
  metadata: {name: b}
  spec:
    containers:
    - name: main
      resources: *resources
"""


def test_small_anchors_keep_working(tmp_path: Path) -> None:
    """One List whose pods share their resources through an anchor: both get the requests
    (the second one no longer fits)."""
    f = tmp_path / "shared.yaml"
    f.write_text(SHARED)
    result = runner.invoke(app, ["simulate", str(f), "-o", "json"])
    assert result.exit_code == 0, result.output
    pods = {p["pod"]: p for p in json.loads(result.stdout)["pods"]}
    assert pods["default/a"]["node"] == "n1"
    assert pods["default/b"].get("node") is None
    assert "Insufficient cpu" in pods["default/b"]["message"]
