"""Preemption through full scheduling runs (MemoryStore + VirtualClock + Scheduler).

Each test follows one rule of pod priority and preemption from start to end: victims really
terminate after their grace period on the clock and the preemptor then really schedules. Tests
run with asynchronous preemption (the default) and synchronous preemption alike.
"""

from __future__ import annotations

import pytest

from ._sim import Sim


@pytest.fixture(params=[True, False], ids=["async", "sync"])
def sim(request: pytest.FixtureRequest) -> Sim:
    return Sim(async_preemption=request.param)


def test_victim_terminates_after_grace_then_preemptor_schedules(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("low", cpu="2", priority=1, node="n1", grace=20)
    sim.pod("high", cpu="2", priority=10)
    sim.run(until=5)
    # The victim is terminating (DisruptionTarget set by the scheduler), the preemptor waits,
    # nominated to the node.
    low = sim.get("low")
    assert low is not None and low.is_terminating
    cond = low.condition("DisruptionTarget")
    assert cond is not None and (cond["status"], cond["reason"], cond["message"]) == (
        "True", "PreemptionByScheduler", "default-scheduler: preempting to accommodate a higher priority pod")
    high = sim.get("high")
    assert high is not None and high.nominated_node_name == "n1" and not high.node_name
    # The preemption itself succeeded: nothing is appended to the FitError message.
    assert sim.first_failure("high") == "0/1 nodes are available: 1 Insufficient cpu."
    [ev] = sim.events("Preempted", "low")
    assert ev.message == f"Preempted by pod {high.uid} on node n1"
    assert (ev.type, ev.action) == ("Normal", "Preempting")
    sim.run()
    assert sim.get("low") is None
    assert sim.node_of("high") == "n1"
    [scheduled] = sim.events("Scheduled", "high")
    assert scheduled.last_timestamp == 20.0  # right when the grace period ended
    # Every PostFilter call is an attempt (the sync mode retries more while the victim
    # terminates); victims are observed once, for the one preemption that happened.
    assert sim.metric("scheduler_preemption_attempts_total") >= 1
    assert sim.metric("scheduler_preemption_victims_count") == 1
    assert sim.metric("scheduler_preemption_victims_sum") == 1


def test_only_the_fewest_victims_are_evicted(sim: Sim) -> None:
    # Removing all lower-priority pods makes room; then the most important are reprieved.
    sim.node("n1", cpu="3")
    sim.pod("a", priority=1, node="n1")
    sim.pod("b", priority=2, node="n1")
    sim.pod("c", priority=3, node="n1")
    sim.pod("high", cpu="2", priority=10)
    sim.run()
    assert sim.get("a") is None and sim.get("b") is None
    assert sim.node_of("c") == "n1" and sim.node_of("high") == "n1"
    assert sim.metric("scheduler_preemption_victims_sum") == 2


@pytest.mark.parametrize("priority", [pytest.param(5, id="equal-priority"),
                                      pytest.param(1, id="lower-priority")])
def test_equal_or_lower_priority_never_preempts(sim: Sim, priority: int) -> None:
    sim.node("n1")
    sim.pod("running", cpu="2", priority=5, node="n1")
    sim.pod("pending", cpu="2", priority=priority)
    sim.run()
    assert sim.node_of("running") == "n1" and not sim.events("Preempted")
    assert sim.node_of("pending") == "" and sim.nominated("pending") == ""
    assert sim.last_failure("pending") == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_preemption_policy_never_never_preempts(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("low", cpu="2", priority=1, node="n1")
    sim.pod("never", cpu="2", priority=100, policy="Never")
    sim.run()
    assert sim.node_of("low") == "n1" and not sim.events("Preempted")
    assert sim.last_failure("never") == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: not eligible due to preemptionPolicy=Never.")
    assert sim.metric("scheduler_preemption_attempts_total") >= 1


def test_preemption_policy_never_still_sorts_ahead_in_the_queue(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("blocker", cpu="2", priority=1000, node="n1")
    sim.pod("low", cpu="2", priority=1)
    sim.pod("never", cpu="2", priority=100, policy="Never")
    sim.run(until=60)
    assert sim.node_of("low") == "" and sim.node_of("never") == ""
    sim.store.delete("Pod", "default", "blocker", grace_period_seconds=0)
    sim.run()
    # Both retried on the deletion; the higher-priority one pops first and takes the node.
    assert sim.node_of("never") == "n1" and sim.node_of("low") == ""
    assert not sim.events("Preempted")


def test_unresolvable_nodes_are_not_helped_by_preemption(sim: Sim) -> None:
    s = Sim(async_preemption=sim.plugin.enable_async_preemption,
            plugins=("PrioritySort", "NodeUnschedulable", "NodeResourcesFit", "DefaultPreemption",
                     "DefaultBinder"))
    for i in range(3):
        s.node(f"n{i}", unschedulable=True)
    s.pod("high", priority=10)
    s.run()
    assert s.last_failure("high") == (
        "0/3 nodes are available: 3 node(s) were unschedulable. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


def test_unresolvable_nodes_are_skipped_and_others_reported(sim: Sim) -> None:
    s = Sim(async_preemption=sim.plugin.enable_async_preemption,
            plugins=("PrioritySort", "NodeUnschedulable", "NodeResourcesFit", "DefaultPreemption",
                     "DefaultBinder"))
    s.node("n0", unschedulable=True)
    s.node("n1")
    s.node("n2", unschedulable=True)
    s.pod("same", cpu="2", priority=10, node="n1")
    s.pod("high", cpu="2", priority=10)
    s.run()
    assert s.last_failure("high") == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable. "
        "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.")


def test_higher_priority_pod_created_while_preemptor_waits_takes_the_node(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("low-a", priority=1, node="n1")
    sim.pod("low-b", priority=2, node="n1")
    sim.pod("p1", priority=10)
    sim.run(until=5)
    # p1 evicted the less important pod and waits for it, nominated to n1.
    assert sim.get("low-a") is not None and sim.get("low-a").is_terminating  # type: ignore[union-attr]
    assert not sim.get("low-b").is_terminating  # type: ignore[union-attr]
    assert sim.nominated("p1") == "n1"
    sim.pod("p2", cpu="2", priority=20)
    sim.run(until=10)
    # p2 needs the whole node: low-b is evicted too (low-a already terminates: no second call), and
    # p1, nominated to the same node with a lower priority, loses its nomination.
    assert sim.get("low-b").is_terminating  # type: ignore[union-attr]
    assert [e.involved_name for e in sim.events("Preempted")] == ["low-a", "low-b"]
    assert sim.nominated("p2") == "n1" and sim.nominated("p1") == ""
    sim.run()
    assert sim.node_of("p2") == "n1"
    assert sim.node_of("p1") == ""
    assert sim.get("low-a") is None and sim.get("low-b") is None


def test_preemptor_lands_on_another_node_that_frees_up_first(sim: Sim) -> None:
    sim.node("n1")
    sim.node("n2")
    sim.pod("low1", cpu="2", priority=1, node="n1", grace=60)
    sim.pod("low2", cpu="2", priority=5, node="n2", grace=60)
    sim.pod("high", cpu="2", priority=10)
    sim.run(until=10)
    # n1 has the lowest-priority victim: high is nominated there.
    nominated = sim.nominated("high")
    assert nominated == "n1" and sim.get("low1").is_terminating  # type: ignore[union-attr]
    sim.store.delete("Pod", "default", "low2", grace_period_seconds=0)
    sim.run()
    assert sim.node_of("high") == "n2" != nominated
    assert sim.get("low1") is None  # the victim still went away


def test_pdb_protected_pods_are_chosen_last_on_a_node(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("protected", priority=1, node="n1", labels={"app": "db"})
    sim.pod("unprotected", priority=5, node="n1")
    sim.pdb("db", {"app": "db"}, min_available=1)
    sim.pod("high", priority=10)
    sim.run()
    # Without the PDB the lower-priority pod would go; the PDB makes the other one the victim.
    assert sim.node_of("protected") == "n1" and sim.get("unprotected") is None
    assert sim.node_of("high") == "n1"


def test_node_with_fewest_pdb_violations_is_chosen(sim: Sim) -> None:
    sim.node("n1")
    sim.node("n2")
    sim.pod("protected", cpu="2", priority=1, node="n1", labels={"app": "db"})
    sim.pod("unprotected", cpu="2", priority=5, node="n2")
    sim.pdb("db", {"app": "db"}, min_available=1)
    sim.pod("high", cpu="2", priority=10)
    sim.run()
    assert sim.node_of("protected") == "n1" and sim.get("unprotected") is None
    assert sim.node_of("high") == "n2"


def test_pdb_protected_pod_is_preempted_when_nothing_else_works(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("protected", cpu="2", priority=1, node="n1", labels={"app": "db"})
    sim.pdb("db", {"app": "db"}, min_available=1)
    assert sim.store.get("PodDisruptionBudget", "default", "db").disruptions_allowed == 0
    sim.pod("high", cpu="2", priority=10)
    sim.run()
    assert sim.get("protected") is None and sim.node_of("high") == "n1"


def test_pdb_status_given_in_a_dump_is_read_as_is(sim: Sim) -> None:
    # The dump says one disruption is allowed (a controller elsewhere knows better than the
    # pods we see): the pod does not count as violating, so the lower-priority one goes.
    sim.node("n1")
    sim.pod("protected", priority=1, node="n1", labels={"app": "db"})
    sim.pod("other", priority=5, node="n1")
    sim.pdb("db", {"app": "db"}, min_available=1, status={"disruptionsAllowed": 1})
    sim.pod("high", priority=10)
    sim.run()
    assert sim.get("protected") is None and sim.node_of("other") == "n1"
    assert sim.store.get("PodDisruptionBudget", "default", "db").disruptions_allowed == 1


def test_preemptor_does_not_preempt_again_while_victims_terminate(sim: Sim) -> None:
    sim.node("n1")
    sim.pod("low", cpu="2", priority=1, node="n1", grace=100)
    sim.pod("high", cpu="2", priority=10)
    sim.run(until=50)
    # Retried meanwhile (backoff and requeues), never a second round of victims.
    assert len(sim.events("Preempted")) == 1
    assert sim.metric("scheduler_preemption_victims_count") == 1
    sim.run()
    assert sim.node_of("high") == "n1"




def test_retried_preemptor_is_not_eligible_while_its_victims_terminate(sim: Sim) -> None:
    sim.node("n1")
    sim.node("n2", cpu="1")
    sim.pod("filler", priority=1000, node="n2")
    sim.pod("low", cpu="2", priority=1, node="n1", grace=100)
    sim.pod("high", cpu="2", priority=10)
    sim.run(until=10)
    # An assigned pod's deletion retries the preemptor (and ends the async gate); n2 is too small.
    sim.store.delete("Pod", "default", "filler", grace_period_seconds=0)
    sim.run(until=20)
    assert sim.last_failure("high") == (
        "0/2 nodes are available: 2 Insufficient cpu. "
        "preemption: not eligible due to a terminating pod on the nominated node.")
    assert sim.nominated("high") == "n1"  # the nomination is kept
    assert len(sim.events("Preempted")) == 1


def test_nominated_node_turning_unresolvable_allows_preempting_elsewhere(sim: Sim) -> None:
    s = Sim(async_preemption=sim.plugin.enable_async_preemption,
            plugins=("PrioritySort", "NodeUnschedulable", "NodeResourcesFit", "DefaultPreemption",
                     "DefaultBinder"))
    s.node("n1")
    s.node("n2")
    s.node("n3", cpu="1")
    s.pod("filler", priority=1000, node="n3")
    s.pod("low1", cpu="2", priority=1, node="n1", grace=100)
    s.pod("low2", cpu="2", priority=2, node="n2", grace=100)
    s.pod("high", cpu="2", priority=10)
    s.run(until=10)
    assert s.nominated("high") == "n1"
    n1 = s.store.get("Node", "", "n1")
    s.store.update(n1.with_changes({("spec", "unschedulable"): True}))
    s.store.delete("Pod", "default", "filler", grace_period_seconds=0)  # retries the preemptor
    s.run(until=20)
    assert s.nominated("high") == "n2" and s.get("low2").is_terminating  # type: ignore[union-attr]
    s.run()
    assert s.node_of("high") == "n2"


@pytest.mark.parametrize(("priority", "blocked"), [
    pytest.param(5, True, id="lower-priority-sees-the-nominated-pod"),
    pytest.param(10, True, id="equal-priority-sees-the-nominated-pod"),
    pytest.param(20, False, id="higher-priority-ignores-the-nominated-pod"),
])
def test_nominated_pods_of_equal_or_higher_priority_occupy_their_node(sim: Sim, priority: int,
                                                                      blocked: bool) -> None:
    sim.node("n1", cpu="4")
    sim.pod("low", cpu="2", priority=1, node="n1", grace=30)
    sim.pod("high", cpu="4", priority=10)
    sim.run(until=5)
    assert sim.nominated("high") == "n1"
    # 2 cpu are free right now, but "high" is nominated to the node and needs all 4.
    sim.pod("small", cpu="2", priority=priority)
    sim.run(until=10)
    assert sim.node_of("small") == ("" if blocked else "n1")
    sim.run()
    if blocked:
        assert sim.node_of("high") == "n1" and sim.node_of("small") == ""
        assert sim.first_failure("small") == (
            "0/1 nodes are available: 1 Insufficient cpu. "
            "preemption: 0/1 nodes are available: 1 Insufficient cpu.")


@pytest.mark.parametrize(("status", "second_victim"), [
    # Computed: after db-a is preempted the budget allows nothing more, so db-b is violating
    # and the node without PDB violations (n3, a higher-priority victim) is chosen.
    pytest.param(None, "other", id="computed-status-recomputed-after-preemption"),
    # Given (as in a dump): the status stays as loaded, db-b still counts as non-violating and
    # the node with the lowest-priority victim (n2) is chosen.
    pytest.param({"disruptionsAllowed": 1}, "db-b", id="given-status-kept-after-preemption"),
])
def test_pdb_status_after_its_pods_are_preempted(sim: Sim, status: dict[str, int] | None,
                                                 second_victim: str) -> None:
    for n in ("n1", "n2", "n3"):
        sim.node(n)
    sim.pod("db-a", cpu="2", priority=1, node="n1", labels={"app": "db"}, start=200.0)
    sim.pod("db-b", cpu="2", priority=1, node="n2", labels={"app": "db"}, start=100.0)
    sim.pod("other", cpu="2", priority=5, node="n3")
    sim.pdb("db", {"app": "db"}, min_available=1, status=status)
    assert sim.store.get("PodDisruptionBudget", "default", "db").disruptions_allowed == 1
    sim.pod("high1", cpu="2", priority=10)
    sim.run()
    # n1 and n2 tie until the start time: the node whose victim started last wins.
    assert sim.get("db-a") is None and sim.node_of("high1") == "n1"
    want_allowed = 0 if status is None else 1
    assert sim.store.get("PodDisruptionBudget", "default", "db").disruptions_allowed == want_allowed
    sim.pod("high2", cpu="2", priority=10)
    sim.run()
    assert sim.get(second_victim) is None
    assert sim.node_of("high2") == ("n3" if second_victim == "other" else "n2")
