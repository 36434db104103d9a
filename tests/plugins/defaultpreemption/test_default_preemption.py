"""DefaultPreemption's policy hooks: PDB filtering, eligibility and SelectVictimsOnNode.

Case names follow upstream's default_preemption_test.go where a matching case exists."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Pod, PodDisruptionBudget
from kubesched.cache import PodInfo
from kubesched.framework import Code, CycleState, Status
from kubesched.plugins.defaultpreemption import (
    NO_VICTIMS_REASON,
    filter_pods_with_pdb_violation,
    pod_terminating_by_preemption,
)
from kubesched.testing.wrappers import make_pod
from preemption._sim import Sim


def pdb(name: str, selector: dict[str, Any] | None, allowed: int, namespace: str = "default",
        disrupted: tuple[str, ...] = ()) -> PodDisruptionBudget:
    spec: dict[str, Any] = {"minAvailable": 1}
    if selector is not None:
        spec["selector"] = selector
    return PodDisruptionBudget.from_dict({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace}, "spec": spec,
        "status": {"disruptionsAllowed": allowed, "disruptedPods": {d: "t" for d in disrupted}}})


def pi(name: str, namespace: str = "default", **labels: str) -> PodInfo:
    b = make_pod().name(name).namespace(namespace)
    for k, v in labels.items():
        b.label(k, v)
    return PodInfo(b.obj())


APP_X = {"matchLabels": {"app": "x"}}


@pytest.mark.parametrize(("pods", "pdbs", "violating"), [
    pytest.param([pi("a", app="x"), pi("b", app="x")], [pdb("p", APP_X, 1)], ["b"], id="budget-of-one"),
    pytest.param([pi("a", app="x")], [pdb("p", APP_X, 0)], ["a"], id="no-budget"),
    pytest.param([pi("a", app="x")], [pdb("p", APP_X, 0, namespace="other")], [], id="other-namespace"),
    pytest.param([pi("a")], [pdb("p", {}, 0)], [], id="pod-without-labels"),
    pytest.param([pi("a", app="x")], [pdb("p", {}, 0)], [], id="empty-selector-matches-nothing"),
    pytest.param([pi("a", app="x")], [pdb("p", None, 0)], [], id="missing-selector-matches-nothing"),
    pytest.param([pi("a", app="x"), pi("b", app="x")], [pdb("p", APP_X, 0, disrupted=("a",))], ["b"],
                 id="already-disrupted-pod-is-not-violating"),
    pytest.param([pi("a", app="x", tier="db")],
                 [pdb("p", APP_X, 1), pdb("q", {"matchLabels": {"tier": "db"}}, 0)],
                 ["a"], id="any-violated-pdb-counts"),
])
def test_filter_pods_with_pdb_violation(pods: list[PodInfo], pdbs: list[PodDisruptionBudget],
                                        violating: list[str]) -> None:
    v, nv = filter_pods_with_pdb_violation(pods, pdbs)
    assert [p.pod.name for p in v] == violating
    assert [p.pod.name for p in nv] == [p.pod.name for p in pods if p.pod.name not in violating]


def terminating_by_preemption(b: Any) -> Any:
    return b.terminating().condition("DisruptionTarget", "True", "PreemptionByScheduler")


@pytest.mark.parametrize(("pod", "want"), [
    pytest.param(terminating_by_preemption(make_pod().name("p")).obj(), True, id="preempted"),
    pytest.param(make_pod().name("p").terminating().obj(), False, id="terminating-otherwise"),
    pytest.param(make_pod().name("p").condition("DisruptionTarget", "True", "PreemptionByScheduler").obj(),
                 False, id="not-terminating"),
    pytest.param(make_pod().name("p").terminating()
                 .condition("DisruptionTarget", "True", "EvictionByEvictionAPI").obj(),
                 False, id="other-disruption-reason"),
])
def test_pod_terminating_by_preemption(pod: Pod, want: bool) -> None:
    assert pod_terminating_by_preemption(pod) is want


# -- PodEligibleToPreemptOthers ------------------------------------------------------------
UNRESOLVABLE = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
UNSCHEDULABLE = Status.of(Code.UNSCHEDULABLE)


@pytest.mark.parametrize(("preemptor", "on_node", "status", "eligible", "msg"), [
    pytest.param(make_pod().name("p").priority(10).nominated_node_name("n1"), [], UNSCHEDULABLE, True, "",
                 id="Pod with nominated node"),
    pytest.param(make_pod().name("p").priority(10).nominated_node_name("n1"), [], None, True, "",
                 id="Pod with nominated node, but without nominated node status"),
    pytest.param(make_pod().name("p").priority(10), [], None, True, "", id="Pod without nominated node"),
    pytest.param(make_pod().name("p").priority(10).preemption_policy("Never"), [], None, False,
                 "not eligible due to preemptionPolicy=Never.",
                 id="Pod with 'PreemptNever' preemption policy"),
    pytest.param(make_pod().name("p").priority(10).nominated_node_name("n1"),
                 [terminating_by_preemption(make_pod().name("v").priority(1))], UNSCHEDULABLE, False,
                 "not eligible due to a terminating pod on the nominated node.",
                 id="victim Pods are still terminating"),
    pytest.param(make_pod().name("p").priority(10).nominated_node_name("n1"),
                 [make_pod().name("v").priority(1).terminating()], UNSCHEDULABLE, True, "",
                 id="victim Pods are terminating but not by preemption"),
    pytest.param(make_pod().name("p").priority(10).nominated_node_name("n1"),
                 [terminating_by_preemption(make_pod().name("v").priority(20))], UNSCHEDULABLE, True, "",
                 id="non-victim Pods are still terminating"),
    pytest.param(make_pod().name("p").priority(10).nominated_node_name("n1"),
                 [terminating_by_preemption(make_pod().name("v").priority(1))], UNRESOLVABLE, True, "",
                 id="victim Pods are still terminating but the nominated node is unresolvable"),
])
def test_pod_eligible_to_preempt_others(preemptor: Any, on_node: list[Any], status: Status | None,
                                        eligible: bool, msg: str) -> None:
    s = Sim()
    s.node("n1")
    for b in on_node:
        b.node("n1").uid(b.to_dict()["metadata"]["name"])
        s.scheduler.cache.add_pod(b.obj())
    s.scheduler._update_snapshot()
    assert s.plugin.pod_eligible_to_preempt_others(preemptor.obj(), status) == (eligible, msg)


# -- SelectVictimsOnNode --------------------------------------------------------------------
def select(s: Sim, pod: Pod, node: str = "n1") -> tuple[list[str], int, Status]:
    sched = s.scheduler
    sched._update_snapshot()
    fwk = sched.profiles["default-scheduler"]
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    found = sched.snapshot.get(node)
    assert found is not None
    ni = found.snapshot_copy()
    pdbs = s.store.list("PodDisruptionBudget")
    victims, violations, status = s.plugin.select_victims_on_node(state, pod, ni, pdbs)
    return [v.name for v in victims], violations, status


def test_no_lower_priority_pods_no_victims() -> None:
    s = Sim()
    s.node("n1")
    s.pod("same", cpu="2", priority=5, node="n1")
    assert select(s, make_pod().name("p").priority(5).req({"cpu": "1"}).obj()) == (
        [], 0, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS_REASON))


def test_pod_not_fitting_without_all_victims_is_no_candidate() -> None:
    s = Sim()
    s.node("n1")
    s.pod("low", priority=1, node="n1")
    s.pod("high", priority=100, node="n1")
    victims, n, status = select(s, make_pod().name("p").priority(10).req({"cpu": "2"}).obj())
    assert (victims, n, status.code, status.reasons) == ([], 0, Code.UNSCHEDULABLE, ("Insufficient cpu",))


def test_victims_most_important_first_and_pdb_violations_counted() -> None:
    s = Sim()
    s.node("n1", cpu="4")
    s.pod("a", priority=1, node="n1", labels={"app": "x"}, start=10.0)
    s.pod("b", priority=1, node="n1", labels={"app": "x"}, start=20.0)
    s.pod("c", priority=3, node="n1")
    s.pod("d", priority=2, node="n1")
    s.pdb("x", {"app": "x"}, min_available=2)  # both x pods ready: 0 disruptions allowed
    victims, violations, status = select(s, make_pod().name("p").priority(10).req({"cpu": "4"}).obj())
    assert status.is_success() and violations == 2
    # re-sorted by importance: priority first, then the earlier start
    assert victims == ["c", "d", "a", "b"]


def test_reprieve_violating_pods_first() -> None:
    s = Sim()
    s.node("n1", cpu="3")
    s.pod("protected", priority=1, node="n1", labels={"app": "x"})
    s.pod("free-hi", priority=3, node="n1")
    s.pod("free-lo", priority=2, node="n1")
    s.pdb("x", {"app": "x"}, max_unavailable=0)
    victims, violations, status = select(s, make_pod().name("p").priority(10).req({"cpu": "1"}).obj())
    assert status.is_success() and violations == 0
    assert victims == ["free-lo"]  # the protected pod was reprieved first, then free-hi
