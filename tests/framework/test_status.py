"""How a plugin builds a Status: one reason as a string, several as a sequence, errors, plugin name.

Through the public API, then through out-of-tree plugins (a toy one and the documented example)
run in ``kubesched simulate``, whose FailedScheduling message must show each reason whole.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.framework import Code, Status, as_status

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"


@pytest.mark.parametrize(
    ("reasons", "expected"),
    [
        pytest.param("node(s) are busy", ("node(s) are busy",), id="one-string"),
        pytest.param(["too hot", "too loud"], ("too hot", "too loud"), id="list"),
        pytest.param(("too hot", "too loud"), ("too hot", "too loud"), id="tuple"),
        pytest.param((r for r in ["a", "b"]), ("a", "b"), id="generator"),
        pytest.param((), (), id="none"),
    ],
)
def test_reasons_from_a_string_or_a_sequence(reasons: Any, expected: tuple[str, ...]) -> None:
    st = Status(Code.UNSCHEDULABLE, reasons)
    assert st.reasons == expected
    assert st.message() == ", ".join(expected)
    assert st == Status(Code.UNSCHEDULABLE, list(expected)) == Status.of(Code.UNSCHEDULABLE, *expected)


def test_one_reason_keyword_and_plugin() -> None:
    st = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons="node(s) were under maintenance")
    named = st.with_plugin("NodeMaintenance")
    assert named.plugin == "NodeMaintenance" and named.reasons == ("node(s) were under maintenance",)
    assert str(named) == "UnschedulableAndUnresolvable: node(s) were under maintenance"
    assert named.is_rejected() and not named.is_success()


def test_non_string_reason_is_refused() -> None:
    with pytest.raises(TypeError, match="Status reasons must be strings, got int 3"):
        Status(Code.UNSCHEDULABLE, ["ok", 3])  # type: ignore[list-item]


def test_as_status_of_an_exception() -> None:
    err = ValueError("label example.com/maintenance='soon': want true or false")
    st = as_status(err)
    assert st.code == Code.ERROR and st.reasons == (str(err),) and st.as_error() is err
    assert as_status(None).is_success() and Status.from_error(err) == st


TOY_PLUGIN = textwrap.dedent("""
    from kubesched.framework import Code, PluginBase, Status

    class Busy(PluginBase):
        NAME = "Busy"
        def filter(self, state, pod, node_info):
            if node_info.name == "node-a":
                return Status(Code.UNSCHEDULABLE, "node(s) were busy")
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["node(s) were too hot", "too loud"])
""")

CLUSTER = textwrap.dedent("""
    apiVersion: v1
    kind: Node
    metadata: {name: node-a, labels: {example.com/maintenance: "true"}}
    status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: node-b, labels: {example.com/maintenance: "true"}}
    status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: node-c, labels: {example.com/maintenance: "NODE_C"}}
    status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: web, namespace: default}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
""")


def _simulate_with(tmp_path: Path, plugin: str, node_c: str = "soon") -> dict[str, Any]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER.replace("NODE_C", node_c))
    (tmp_path / "config.yaml").write_text(textwrap.dedent(f"""
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{{name: "{plugin}"}}]
    """))
    result = CliRunner().invoke(app, ["simulate", str(tmp_path / "cluster.yaml"), "--config",
                                      str(tmp_path / "config.yaml"), "-o", "json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_toy_plugin_reasons_whole_in_simulation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "toy_status_plugin.py").write_text(TOY_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    pod = _simulate_with(tmp_path, "toy_status_plugin:Busy")["pods"][0]
    assert pod["status"] == "Unschedulable"
    assert pod["message"] == ("0/3 nodes are available: 1 node(s) were busy, 2 node(s) were too hot, "
                              "2 too loud. no new claims to deallocate, "
                              "preemption: 0/3 nodes are available: 1 No preemption victims "
                              "found for incoming pod, 2 Preemption is not helpful for scheduling.")


def test_example_filter_plugin_in_simulation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    pod = _simulate_with(tmp_path, "node_maintenance:NodeMaintenance", node_c="true")["pods"][0]
    assert pod["status"] == "Unschedulable"
    assert pod["message"] == ("0/3 nodes are available: 3 node(s) were under maintenance. "
                              "no new claims to deallocate, preemption: "
                              "0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
    pod = _simulate_with(tmp_path, "node_maintenance:NodeMaintenance")["pods"][0]
    # node-c's label is neither true nor false: the plugin's Error status aborts the cycle
    # (upstream: a Filter error fails the attempt with the error's text).
    assert pod["status"] == "SchedulerError"
    assert "node node-c: label example.com/maintenance='soon': want true or false" in pod["message"]
