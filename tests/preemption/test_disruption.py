"""PDB status as the disruption controller computes it, and how the store keeps it."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Pod, PodDisruptionBudget
from kubesched.cluster._disruption import PdbStatus, compute_pdb_status, pdb_status
from kubesched.testing.wrappers import make_pod

from ._sim import Sim


def pdb(spec: dict[str, Any], status: dict[str, Any] | None = None,
        generation: int = 0) -> PodDisruptionBudget:
    d: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                         "metadata": {"name": "b", "namespace": "default", "generation": generation},
                         "spec": spec}
    if status is not None:
        d["status"] = status
    return PodDisruptionBudget.from_dict(d)


def pods(ready: int, not_ready: int = 0, terminating: int = 0, namespace: str = "default",
         app: str = "x") -> list[Pod]:
    out = []
    for i in range(ready + not_ready + terminating):
        b = make_pod().name(f"{namespace}-{app}-{i}").namespace(namespace).label("app", app).node("n1")
        if i < ready or i >= ready + not_ready:
            b.ready()
        if i >= ready + not_ready:
            b.terminating()
        out.append(b.obj())
    return out


SEL = {"matchLabels": {"app": "x"}}


@pytest.mark.parametrize(("spec", "cluster", "want"), [
    pytest.param({"minAvailable": 2, "selector": SEL}, pods(3), PdbStatus(1, 3, 2, 3),
                 id="min-available-int"),
    pytest.param({"minAvailable": 5, "selector": SEL}, pods(3), PdbStatus(0, 3, 5, 3),
                 id="min-available-above-pods"),
    pytest.param({"minAvailable": "50%", "selector": SEL}, pods(3), PdbStatus(1, 3, 2, 3),
                 id="min-available-percentage-rounds-up"),
    pytest.param({"maxUnavailable": 1, "selector": SEL}, pods(3), PdbStatus(1, 3, 2, 3),
                 id="max-unavailable-int"),
    pytest.param({"maxUnavailable": "34%", "selector": SEL}, pods(3), PdbStatus(2, 3, 1, 3),
                 id="max-unavailable-percentage-rounds-up"),
    pytest.param({"maxUnavailable": 5, "selector": SEL}, pods(3), PdbStatus(3, 3, 0, 3),
                 id="max-unavailable-above-pods"),
    pytest.param({"minAvailable": 1, "selector": SEL}, pods(1, not_ready=2), PdbStatus(0, 1, 1, 3),
                 id="not-ready-pods-are-not-healthy"),
    pytest.param({"minAvailable": 1, "selector": SEL}, pods(2, terminating=1), PdbStatus(1, 2, 1, 3),
                 id="terminating-pods-are-not-healthy"),
    pytest.param({"minAvailable": 1, "selector": SEL}, pods(3, namespace="other"), PdbStatus(0, 0, 1, 0),
                 id="other-namespace-not-selected"),
    pytest.param({"minAvailable": 1, "selector": SEL}, pods(3, app="y"), PdbStatus(0, 0, 1, 0),
                 id="selector-mismatch"),
    pytest.param({"minAvailable": 1, "selector": {}}, pods(2, app="y"), PdbStatus(1, 2, 1, 2),
                 id="empty-selector-selects-all"),
    pytest.param({"minAvailable": 0}, pods(2), PdbStatus(0, 0, 0, 0), id="missing-selector-selects-none"),
    pytest.param({"selector": SEL}, pods(2), PdbStatus(0, 2, 0, 0), id="neither-field-allows-nothing"),
])
def test_compute_pdb_status(spec: dict[str, Any], cluster: list[Pod], want: PdbStatus) -> None:
    assert compute_pdb_status(pdb(spec), cluster) == want


def test_disrupted_pods_are_not_counted_healthy() -> None:
    b = pdb({"minAvailable": 1, "selector": SEL},
            {"disruptionsAllowed": 5, "disruptedPods": {"default-x-0": "t"}})
    assert compute_pdb_status(b, pods(2)) == PdbStatus(0, 1, 1, 2)
    assert pdb_status(b, pods(2))["disruptedPods"] == {"default-x-0": "t"}


def test_pdb_status_manifest() -> None:
    st = pdb_status(pdb({"minAvailable": 1, "selector": SEL}, generation=3), pods(2), now=60.0)
    assert st == {
        "disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2,
        "observedGeneration": 3,
        "conditions": [{"type": "DisruptionAllowed", "status": "True", "reason": "SufficientPods",
                        "message": "", "observedGeneration": 3,
                        "lastTransitionTime": "1970-01-01T00:01:00Z"}],
    }
    # The transition time stays while the condition's status does not change.
    again = pdb_status(pdb({"minAvailable": 1, "selector": SEL}, st, generation=3), pods(3), now=120.0)
    assert again["conditions"][0]["lastTransitionTime"] == "1970-01-01T00:01:00Z"
    flipped = pdb_status(pdb({"minAvailable": 5, "selector": SEL}, st, generation=3), pods(3), now=120.0)
    assert flipped["conditions"][0]["reason"] == "InsufficientPods"
    assert flipped["conditions"][0]["lastTransitionTime"] == "1970-01-01T00:02:00Z"


def test_store_recomputes_a_pdb_without_status_when_its_pods_change() -> None:
    s = Sim()
    s.node("n1", cpu="4")
    s.pdb("b", {"app": "x"}, min_available=1)
    assert s.store.get("PodDisruptionBudget", "default", "b").disruptions_allowed == 0
    s.pod("p0", node="n1", labels={"app": "x"})
    s.pod("p1", node="n1", labels={"app": "x"})
    assert s.store.get("PodDisruptionBudget", "default", "b").disruptions_allowed == 1
    s.store.delete("Pod", "default", "p0")  # graceful: terminating, no longer healthy
    assert s.store.get("PodDisruptionBudget", "default", "b").disruptions_allowed == 0


def test_store_keeps_a_status_given_with_the_pdb() -> None:
    s = Sim()
    s.node("n1", cpu="4")
    s.pdb("b", {"app": "x"}, min_available=1, status={"disruptionsAllowed": 3})
    s.pod("p0", node="n1", labels={"app": "x"})
    s.store.delete("Pod", "default", "p0")
    got = s.store.get("PodDisruptionBudget", "default", "b")
    assert got.disruptions_allowed == 3 and got.raw["status"] == {"disruptionsAllowed": 3}
