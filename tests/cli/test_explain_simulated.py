"""``kubesched explain`` of pods that controllers create: a pod by the name ``simulate`` prints,
explained at its first scheduling attempt in the same simulation, and ``--pod KIND/NS/NAME``,
a workload explained through its first pod whose first attempt fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

HERE = Path(__file__).parent
PODS = HERE / "fixtures" / "controller-pods.yaml"
WORKLOADS = HERE.parent.parent / "examples" / "workloads"

runner = CliRunner()


def _simulated(path: Path, *extra: str) -> dict[str, dict[str, Any]]:
    """simulate -o json: pod key -> its outcome."""
    result = runner.invoke(app, ["simulate", str(path), "-o", "json", *extra])
    assert result.exit_code == 0, result.output
    return {p["pod"]: p for p in json.loads(result.stdout)["pods"]}


def _named(pods: dict[str, dict[str, Any]], prefix: str) -> list[str]:
    return sorted(k for k in pods if k.startswith(prefix))


def _explain_json(path: Path, pod: str, *extra: str) -> dict[str, Any]:
    result = runner.invoke(app, ["explain", str(path), "--pod", pod, "-o", "json", *extra])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _text(path: Path, pod: str, *extra: str) -> str:
    result = runner.invoke(app, ["explain", str(path), "--pod", pod, *extra], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    return result.stdout


# -- a pod by its simulated name ------------------------------------------------------------
def test_deployment_pod_by_its_simulated_name_is_explained_at_its_first_attempt() -> None:
    pods = _simulated(WORKLOADS)
    for key in _named(pods, "default/web-"):
        out = _explain_json(WORKLOADS, key)
        assert out["pod"] == key
        # Each web pod fits at its first attempt: the explained choice is the simulation's.
        assert out["selectedNode"] == pods[key]["node"]
        assert out["simulation"] == {
            "createdBy": "Deployment default/web", "time": 0.0, "attempted": True, "workload": None,
            "firstAttemptFailed": None, "podGroup": None,
            "note": f"{key} is created by Deployment default/web; explained at its first "
                    "scheduling attempt (t=0s of the simulation)"}


def test_text_says_where_in_the_simulation() -> None:
    key = _named(_simulated(WORKLOADS), "default/web-")[0]
    first = _text(WORKLOADS, key).splitlines()[0]
    assert first == (f"note: {key} is created by Deployment default/web; explained at its first "
                     "scheduling attempt (t=0s of the simulation)")


def test_names_follow_the_seed() -> None:
    at_seed_0 = set(_named(_simulated(WORKLOADS), "default/web-"))
    key = _named(_simulated(WORKLOADS, "--seed", "7"), "default/web-")[0]
    assert key not in at_seed_0
    assert _explain_json(WORKLOADS, key, "--seed", "7")["pod"] == key
    result = runner.invoke(app, ["explain", str(WORKLOADS), "--pod", key])
    assert result.exit_code == 2 and "not found" in result.stderr


def test_pod_created_later_is_explained_on_the_state_of_that_moment() -> None:
    # The Job runs one pod at a time: its second pod is created when the first has finished.
    second = _named(_simulated(PODS), "default/small-")
    out = [_explain_json(PODS, key)["simulation"]["time"] for key in second]
    assert sorted(out) == [0.0, 60.0]


def test_pod_that_fails_its_first_attempt() -> None:
    pods = _simulated(PODS)
    (pending,) = [k for k in _named(pods, "default/web-") if not pods[k]["node"]]
    out = _explain_json(PODS, pending)
    # Three replicas (600m each) were placed before it on the 2-cpu node.
    assert out["selectedNode"] is None
    assert out["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert out["simulation"]["attempted"] is True and out["simulation"]["time"] == 0.0


def test_pod_never_attempted_is_explained_at_the_end() -> None:
    (gated,) = _named(_simulated(PODS), "default/gated-")
    out = _explain_json(PODS, gated)
    assert out["preEnqueue"]["plugin"] == "SchedulingGates" and out["nodes"] == []
    sim = out["simulation"]
    assert sim["attempted"] is False and sim["time"] > 0
    assert sim["note"] == (f"{gated} is created by Deployment default/gated and never reached a "
                           f"scheduling attempt; explained at the end of the simulation (t={sim['time']:g}s)")


def test_pod_of_the_input_is_explained_on_the_loaded_state() -> None:
    out = _explain_json(WORKLOADS.parent / "quickstart", "default/db-0")
    assert out["simulation"] is None
    assert "note:" not in _text(WORKLOADS.parent / "quickstart", "default/db-0")


# -- a workload ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["Deployment", "deployment", "deploy", "deployments.apps"])
def test_workload_explains_its_first_pod_failing_its_first_attempt(kind: str) -> None:
    pods = _simulated(PODS)
    (pending,) = [k for k in _named(pods, "default/web-") if not pods[k]["node"]]
    out = _explain_json(PODS, f"{kind}/default/web")
    assert out["pod"] == pending and out["selectedNode"] is None
    sim = out["simulation"]
    assert (sim["workload"], sim["createdBy"], sim["firstAttemptFailed"], sim["attempted"]) == (
        "Deployment default/web", "Deployment default/web", True, True)
    assert sim["note"] == (f"{pending} is the first pod of Deployment default/web whose first "
                           "scheduling attempt fails; explained at its first scheduling attempt "
                           "(t=0s of the simulation)")


def test_workload_whose_pods_all_fit_explains_its_first_pod() -> None:
    pods = _simulated(WORKLOADS)
    out = _explain_json(WORKLOADS, "Deployment/default/web")
    assert out["pod"] in _named(pods, "default/web-") and out["selectedNode"] == pods[out["pod"]]["node"]
    sim = out["simulation"]
    assert sim["firstAttemptFailed"] is False
    assert sim["note"].startswith(f"no pod of Deployment default/web fails its first scheduling attempt; "
                                  f"{out['pod']} is the first one attempted;")


def test_job_explains_the_shard_that_waits() -> None:
    # Six 1.5-cpu shards on three 4-cpu workers beside the other workloads: some wait.
    out = _explain_json(WORKLOADS, "job/default/report")
    assert out["pod"].startswith("default/report-")
    assert out["simulation"]["firstAttemptFailed"] is True and out["selectedNode"] is None
    assert "Insufficient cpu" in out["message"]


def test_replica_set_of_a_deployment_is_a_workload_too() -> None:
    # The ReplicaSet is not in the input: its Deployment creates it in the simulation.
    via_deployment = _explain_json(PODS, "Deployment/default/web")
    (rs,) = {p.rsplit("-", 1)[0] for p in _named(_simulated(PODS), "default/web-")}
    out = _explain_json(PODS, f"rs/{rs}")
    assert out["pod"] == via_deployment["pod"]
    assert out["simulation"]["workload"] == f"ReplicaSet {rs}"
    assert out["simulation"]["createdBy"] == "Deployment default/web"


def test_gang_pod_is_told_to_be_scheduled_with_its_group() -> None:
    # With the gates on, the Job's three pods form a PodGroup scheduled in one cycle: they do
    # not all fit at first, so each fails its first attempt, though one alone would fit.
    gates = ["--feature-gates", "GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true"]
    pods = _simulated(WORKLOADS, *gates)
    out = _explain_json(WORKLOADS, "Job/default/train", *gates)
    assert out["pod"] in _named(pods, "default/train-")
    sim = out["simulation"]
    assert sim["firstAttemptFailed"] is True and sim["podGroup"].startswith("default/train-")
    assert sim["note"].endswith(f"that attempt is PodGroup {sim['podGroup']}'s cycle, which places the "
                                "group's pods together or not at all: shown is the pod's own cycle, "
                                "without the group's constraints")
    # Without the gates they are ordinary pods: no group.
    assert _explain_json(WORKLOADS, "Job/default/train")["simulation"]["podGroup"] is None


def test_workload_whose_pods_never_get_an_attempt() -> None:
    (gated,) = _named(_simulated(PODS), "default/gated-")
    out = _explain_json(PODS, "Deployment/default/gated")
    assert out["pod"] == gated and out["preEnqueue"] is not None
    assert out["simulation"]["attempted"] is False and out["simulation"]["firstAttemptFailed"] is None


# -- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pod", "error"),
    [
        pytest.param("default/web-nope", 'pod "default/web-nope" not found: not in the input, and the '
                     "simulation (seed 0) creates no pod of that name", id="unknown-pod"),
        pytest.param("Deployment/default/nope", 'Deployment "default/nope" not found: not in the input, '
                     "and the simulation (seed 0) creates none", id="unknown-workload"),
        pytest.param("Deployment/default/idle", 'Deployment "default/idle" has no pod in the simulation '
                     "(seed 0)", id="workload-without-pods"),
        pytest.param("StatefulSet/default/web", 'StatefulSet "default/web" not found', id="wrong-kind"),
        pytest.param("Pod/default/web", "unknown workload kind 'Pod'", id="not-a-workload-kind"),
    ],
)
def test_not_found_exit_2(pod: str, error: str) -> None:
    result = runner.invoke(app, ["explain", str(PODS), "--pod", pod])
    assert result.exit_code == 2 and result.stdout == ""
    assert error in " ".join(result.stderr.split())


def test_the_docs_show_the_output_as_printed() -> None:
    """docs/commands/explain.md's console block under "Pods that controllers create": each
    command's first lines (``| head -N``) as explain prints them."""
    page = (HERE.parent.parent / "docs" / "commands" / "explain.md").read_text()
    section = page.split("## Pods that controllers create, and workloads", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    commands = block.split("$ ")[1:]
    assert len(commands) == 2
    for command in commands:
        line, *shown = command.rstrip("\n").split("\n")
        args, _, head = line.partition(" | head -")
        argv = args.split()[1:]  # without "kubesched"
        assert argv[1] == "examples/workloads/" and int(head) == len(shown)
        result = runner.invoke(app, [argv[0], str(WORKLOADS), *argv[2:]], env={"COLUMNS": "80"})
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[:len(shown)] == shown
