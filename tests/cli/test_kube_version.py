"""``--kube-version`` and ``--feature-gates`` on every command that schedules: a release
outside 1.32..newest, a malformed one, or a gate the release lacks is bad input (exit 2, one
line) before anything runs; a good one runs as that release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = str(ROOT / "examples" / "quickstart")
TRACE = str(ROOT / "examples" / "replay" / "trace.jsonl")
LEAST = str(ROOT / "examples" / "replay" / "least-allocated.yaml")

COMMANDS = [
    pytest.param(["simulate", QUICKSTART], id="simulate"),
    pytest.param(["explain", QUICKSTART, "--pod", "default/x"], id="explain"),
    pytest.param(["capacity", QUICKSTART, "--pod", "missing.yaml"], id="capacity"),
    pytest.param(["replay", TRACE], id="replay"),
    pytest.param(["compare", TRACE, "--config", LEAST], id="compare"),
    pytest.param(["sweep", TRACE, "--seeds", "0"], id="sweep"),
    pytest.param(["bench"], id="bench"),
    pytest.param(["run", "--kubeconfig", "missing-kubeconfig"], id="run"),
    pytest.param(["extender", "--kubeconfig", "missing-kubeconfig"], id="extender"),
]


@pytest.mark.parametrize("args", COMMANDS)
@pytest.mark.parametrize(("flags", "message"), [
    (["--kube-version", "1.31"], "error: --kube-version 1.31: kubesched behaves as Kubernetes 1.32 to 1.37"),
    (["--kube-version", "one"], 'error: --kube-version: invalid Kubernetes version "one"'),
    (["--kube-version", "1.32", "--feature-gates", "GenericWorkload=true"],
     "error: --feature-gates: GenericWorkload is not available in Kubernetes 1.32 (it was added in 1.35)"),
    (["--feature-gates", "GenericWorkload=maybe"],
     "error: --feature-gates: invalid value of GenericWorkload"),
])
def test_every_scheduling_command_checks_the_release(args: list[str], flags: list[str], message: str) -> None:
    result = runner.invoke(app, [*args, *flags])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_simulate_as_an_older_release_runs(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", QUICKSTART, "--kube-version", "v1.32.4", "-o", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["pods"]


@pytest.mark.parametrize(("release", "nominated"), [("1.32", "node-b2"), ("1.34", "node-b2"), ("1.35", None)])
def test_a_bound_preemptor_keeps_its_nomination_before_1_35(release: str, nominated: str | None) -> None:
    """The quickstart's db-0 preempts on node-b2 and is bound there. The API server clears a
    bound pod's nominatedNodeName from 1.35 on (ClearingNominatedNodeNameAfterBinding, KEP-5278,
    kubernetes PR #132443); a 1.32 to 1.34 cluster keeps it."""
    result = runner.invoke(app, ["simulate", QUICKSTART, "--kube-version", release, "-o", "json"])
    assert result.exit_code == 0, result.output
    db = next(p for p in json.loads(result.output)["pods"] if p["pod"] == "default/db-0")
    assert (db["node"], db["nominatedNode"]) == ("node-b2", nominated)


def test_bench_skips_a_workload_whose_gates_the_release_lacks() -> None:
    result = runner.invoke(app, ["bench", "-w", "SchedulingWithExtendedResource/fast",
                                 "--kube-version", "1.32", "-o", "json"])
    assert result.exit_code == 0, result.output
    assert ("skipping SchedulingWithExtendedResource/fast: its featureGates: DRAExtendedResource is not "
            "available in Kubernetes 1.32 (it was added in 1.34)") in result.output
    assert '"results": []' in result.output


HUGE_NODE = """\
apiVersion: v1
kind: Node
metadata: {name: huge}
status:
  allocatable: {cpu: 1E, memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: half, namespace: default}
spec:
  containers:
  - name: c
    image: pause
    resources: {requests: {cpu: 500m}}
"""


@pytest.mark.parametrize(("release", "fits"), [("1.32", False), ("1.36", False), ("1.37", True)])
def test_out_of_range_quantities_are_read_as_the_release_reads_them(tmp_path: Path, release: str,
                                                                  fits: bool) -> None:
    """Before v1.37 apimachinery's MilliValue() of ``1E`` wraps to 0: a node with ``cpu: 1E``
    has no cpu (checked live against v1.32 and v1.35.4); since kubernetes PR #141305 (v1.37)
    it saturates at the int64 maximum and the pod fits (QuantityValueSaturates)."""
    (tmp_path / "in.yaml").write_text(HUGE_NODE)
    result = runner.invoke(app, ["explain", str(tmp_path / "in.yaml"), "--pod", "default/half",
                                 "--kube-version", release, "-o", "json"])
    assert result.exit_code == 0, result.output
    assert (json.loads(result.output)["selectedNode"] == "huge") is fits, result.output
