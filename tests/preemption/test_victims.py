"""Victim selection and actuation details through full runs: PreFilter extensions seen by the
dry run, victims waiting at Permit, lower-priority nominations, the async PreEnqueue gate."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Pod
from kubesched.framework import Code, CycleState, PluginBase, Status

from ._sim import BASE_PLUGINS, Sim


class WaitAtPermit(PluginBase):
    """Holds pods labelled ``wait`` at Permit for 1000 s."""

    NAME = "WaitAtPermit"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if "wait" in pod.labels:
            return Status.of(Code.WAIT), 1000.0
        return None, 0.0


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
def test_victim_waiting_at_permit_is_rejected_not_deleted(async_preemption: bool) -> None:
    s = Sim(async_preemption=async_preemption, plugins=(*BASE_PLUGINS, "WaitAtPermit"),
            registry={"WaitAtPermit": WaitAtPermit})
    s.node("n1")
    s.pod("waiting", cpu="2", priority=1, labels={"wait": "yes"})
    s.run(until=1)
    fwk = s.scheduler.profiles["default-scheduler"]
    waiting = s.get("waiting")
    assert waiting is not None and fwk.get_waiting_pod(waiting.uid) is not None
    s.pod("high", cpu="2", priority=10)
    s.run(until=100)
    # Rejected at Permit: never deleted, no DisruptionTarget condition, but a Preempted event.
    waiting = s.get("waiting")
    assert waiting is not None and not waiting.is_terminating and not waiting.node_name
    assert waiting.condition("DisruptionTarget") is None
    assert [e.involved_name for e in s.events("Preempted")] == ["waiting"]
    assert s.node_of("high") == "n1"


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
def test_dry_run_sees_victims_removed_through_prefilter_extensions(async_preemption: bool) -> None:
    # The preemptor's required anti-affinity rejects n1 because of "low"; removing low through
    # InterPodAffinity's RemovePod extension makes n1 fit in the dry run.
    s = Sim(async_preemption=async_preemption,
            plugins=("PrioritySort", "InterPodAffinity", "NodeResourcesFit", "DefaultPreemption",
                     "DefaultBinder"))
    s.node("n1", cpu="4", labels={"kubernetes.io/hostname": "n1"})
    s.pod("low", priority=1, node="n1", labels={"app": "x"})
    s.pod("high", priority=10,
          pod_anti_affinity_in=("app", "kubernetes.io/hostname", ["x"]))
    s.run()
    assert s.get("low") is None and s.node_of("high") == "n1"


def test_lower_priority_nominations_on_the_node_are_cleared_even_without_victims_to_delete() -> None:
    # Sync preemption clears lower-priority nominations after its calls, also when every victim
    # was already terminating (async preemption has nothing to do then, as upstream).
    s = Sim(async_preemption=False)
    s.node("n1")
    s.pod("low", cpu="2", priority=1, node="n1", grace=100)
    s.pod("p1", cpu="2", priority=10)
    s.run(until=5)
    assert s.nominated("p1") == "n1"
    s.pod("p2", cpu="2", priority=20)
    s.run(until=10)
    assert s.nominated("p2") == "n1" and s.nominated("p1") == ""
    assert len(s.events("Preempted")) == 1  # the terminating victim got no second call


def test_async_preemption_gates_the_preemptor_until_its_calls_are_made() -> None:
    s = Sim(async_preemption=True)
    s.node("n1")
    s.pod("a", priority=1, node="n1", grace=10)
    s.pod("b", priority=1, node="n1", grace=10)
    high = s.pod("high", cpu="2", priority=10)
    sched = s.scheduler
    sched.schedule_pending()  # one cycle: PostFilter runs, the API calls are a task on the clock
    executor: Any = s.plugin.executor
    assert executor.is_pod_running_preemption(high.uid)
    assert s.plugin.pre_enqueue(high) == Status.of(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for the preemption for this pod to be finished")
    assert not s.events("Preempted")
    s.clock.step()  # the task: both victims deleted
    assert not executor.is_pod_running_preemption(high.uid)
    assert s.plugin.pre_enqueue(high) is None
    assert {e.involved_name for e in s.events("Preempted")} == {"a", "b"}
    s.run()
    assert s.node_of("high") == "n1"


def test_sync_preemption_has_no_gate() -> None:
    s = Sim(async_preemption=False)
    s.node("n1")
    s.pod("a", cpu="2", priority=1, node="n1")
    high = s.pod("high", cpu="2", priority=10)
    s.scheduler.schedule_pending()
    assert s.events("Preempted")  # deleted within the cycle
    assert s.plugin.pre_enqueue(high) is None
    assert s.plugin.events_to_register() == []


class DropNode:
    """A preempt-verb extender stand-in that removes one node from the candidates."""

    def __init__(self, node: str, ignorable: bool = False, fail: bool = False) -> None:
        self.node, self.ignorable, self.fail = node, ignorable, fail
        self.seen: list[list[str]] = []

    def supports_preemption(self) -> bool:
        return True

    def is_interested(self, pod: Pod) -> bool:
        return True

    def is_ignorable(self) -> bool:
        return self.ignorable

    def process_preemption(self, pod: Pod, victims: Any, get_node: Any) -> dict[str, Any]:
        self.seen.append(sorted(victims))
        if self.fail:
            raise RuntimeError("extender down")
        return {n: v for n, v in victims.items() if n != self.node}


def two_candidate_nodes(ext: DropNode) -> Sim:
    s = Sim(preemption_args={"minCandidateNodesPercentage": 100, "minCandidateNodesAbsolute": 0})
    s.node("n1")
    s.node("n2")
    s.pod("low1", cpu="2", priority=1, node="n1")
    s.pod("low2", cpu="2", priority=5, node="n2")
    s.pod("high", cpu="2", priority=10)
    s.scheduler.profiles["default-scheduler"].extenders().append(ext)
    s.run(until=1)
    return s


def test_extender_with_preempt_verb_trims_candidates() -> None:
    ext = DropNode("n1")
    s = two_candidate_nodes(ext)
    assert ext.seen == [["n1", "n2"]]
    assert s.nominated("high") == "n2" and s.get("low1") is not None  # n1 would have been better


def test_ignorable_extender_error_is_skipped() -> None:
    s = two_candidate_nodes(DropNode("n1", ignorable=True, fail=True))
    assert s.nominated("high") == "n1"


def test_extender_error_fails_the_preemption() -> None:
    s = two_candidate_nodes(DropNode("n1", fail=True))
    assert s.nominated("high") == "" and not s.events("Preempted")
    assert s.last_failure("high").endswith("preemption: extender down")
