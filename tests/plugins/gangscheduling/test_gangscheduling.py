"""GangScheduling (gangscheduling.go, gangscheduling_test.go) through the scheduler: PreEnqueue
waits for minCount pods and for the PodGroup, the pod-group scheduling cycle places a gang
whole (PlacementFeasible) or holds nothing, and with the gates off gang pods are ordinary pods.
Newest upstream decides a gang in that one cycle; the Permit wait (and its 5-minute timeout)
of the release before is exercised pod by pod in test_gang_flow.py."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod, PodGroup
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import Code, PlacementProgress, QueueingHint
from kubesched.plugins.gangscheduling import GangScheduling
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node, make_pod

GATES = {"GenericWorkload": True, "GangScheduling": True}
WAITING_FOR_PODS = "waiting for minCount pods from a gang to appear in scheduling queue"


def pod_group(name: str, min_count: int | None = None, namespace: str = "default") -> PodGroup:
    policy: dict[str, Any] = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return PodGroup.from_dict({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
                               "metadata": {"name": name, "namespace": namespace},
                               "spec": {"schedulingPolicy": policy}})


def worker(name: str, group: str = "train", cpu: str = "3") -> Pod:
    return make_pod().name(name).uid(name).req({"cpu": cpu}).pod_group(group).obj()


def cluster(objs: list[Any], features: dict[str, bool] | None = None,
            nodes: int = 2) -> tuple[MemoryStore, Scheduler, VirtualClock]:
    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    store.load([make_node().name(f"n{i}").capacity({"cpu": "4", "memory": "8Gi"}).obj()
                for i in range(1, nodes + 1)] + objs)
    options = SchedulerOptions(features=GATES if features is None else features)
    sched = Scheduler(store, clock, None, options=options)
    return store, sched, clock


def node_of(store: MemoryStore, name: str) -> str:
    return store.get("Pod", "default", name).node_name


def message(store: MemoryStore, name: str) -> str:
    cond = store.get("Pod", "default", name).condition("PodScheduled") or {}
    return str(cond.get("message", ""))


def pre_enqueue_message(sched: Scheduler, store: MemoryStore, name: str) -> str:
    st = sched.profiles["default-scheduler"].run_pre_enqueue_plugins(store.get("Pod", "default", name))
    return "" if st.is_success() else st.message()


# -- gates off -------------------------------------------------------------------------------
def test_with_the_gates_off_gang_pods_are_ordinary_pods() -> None:
    # 3 pods of 3 cpu, two 4-cpu nodes: two fit; no gang, so two are bound.
    store, sched, _ = cluster([pod_group("train", 3), worker("w0"), worker("w1"), worker("w2")], features={})
    assert "GangScheduling" not in sched.profiles["default-scheduler"].plugins_map
    sched.run_until_idle()
    assert sorted(bool(node_of(store, f"w{i}")) for i in range(3)) == [False, True, True]


def test_with_the_gates_off_a_missing_pod_group_does_not_hold_pods() -> None:
    store, sched, _ = cluster([worker("w0", group="nowhere")], features={})
    sched.run_until_idle()
    assert node_of(store, "w0")


# -- PreEnqueue ------------------------------------------------------------------------------
def test_pods_wait_out_of_the_queue_until_min_count_pods_exist() -> None:
    store, sched, _clock = cluster([pod_group("train", 3), worker("w0", cpu="1"), worker("w1", cpu="1")])
    summary = sched.run_until_idle()
    assert summary.attempts == 0  # never popped: PreEnqueue keeps them out of activeQ
    assert pre_enqueue_message(sched, store, "w0") == WAITING_FOR_PODS
    store.create(worker("w2", cpu="1"))  # the third pod completes the gang
    sched.run_until_idle()
    assert all(node_of(store, f"w{i}") for i in range(3))


def test_pods_wait_for_their_pod_group_to_appear() -> None:
    store, sched, _ = cluster([worker("w0", cpu="1"), worker("w1", cpu="1")])
    sched.run_until_idle()
    assert pre_enqueue_message(sched, store, "w0") == \
        'waiting for pods\'s pod group "train" to appear in scheduling queue'
    store.create(pod_group("train", 2))  # PodGroup/Add moves them
    sched.run_until_idle()
    assert node_of(store, "w0") and node_of(store, "w1")


def test_lowering_min_count_lets_waiting_pods_in() -> None:
    store, sched, _ = cluster([pod_group("train", 3), worker("w0", cpu="1"), worker("w1", cpu="1")])
    sched.run_until_idle()
    assert not node_of(store, "w0")
    pg = store.get("PodGroup", "default", "train")
    store.update(PodGroup.from_dict({**pg.raw, "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}))
    sched.run_until_idle()
    assert node_of(store, "w0") and node_of(store, "w1")


def test_a_basic_policy_group_schedules_pod_by_pod() -> None:
    store, sched, _ = cluster([pod_group("train"), worker("w0"), worker("w1"), worker("w2")])
    sched.run_until_idle()
    assert sorted(bool(node_of(store, f"w{i}")) for i in range(3)) == [False, True, True]


# -- the pod-group scheduling cycle (newest upstream; the older flow held pods at Permit) ------
def test_one_pod_group_cycle_places_the_whole_gang_and_binds_it() -> None:
    store, sched, _clock = cluster([pod_group("train", 3)] + [worker(f"w{i}", cpu="1") for i in range(3)])
    fwk = sched.profiles["default-scheduler"]
    sched.schedule_one()  # pops w0 and, with it, w1 and w2: one cycle for the group
    assert sched.queue.pending_pods()[0] == []
    assert len(fwk.waiting_pods) == 0  # Permit found the quorum assumed: nobody waits
    assert sched.cycles.bindings_in_flight == 3
    sched.run_until_idle()
    assert all(node_of(store, f"w{i}") for i in range(3))


def test_a_gang_that_cannot_be_placed_whole_places_none() -> None:
    # Two 4-cpu nodes, three 3-cpu pods: any two fit, the third never does.
    store, sched, _clock = cluster([pod_group("train", 3), worker("w0"), worker("w1"), worker("w2")])
    summary = sched.run_until_idle()
    assert summary.scheduled == 0
    assert not any(node_of(store, f"w{i}") for i in range(3))
    assert sched.cycles.bindings_in_flight == 0 and sched.cache.assumed_pod_count() == 0  # nothing held
    # The two that fitted carry the group's reason (PlacementFeasible), the third its own.
    messages = sorted(message(store, f"w{i}") for i in range(3))
    assert messages[0].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert messages[1:] == ["minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"] * 2


def test_an_infeasible_gang_holds_no_node_and_no_pod_waits_on_permit() -> None:
    # Newest upstream decides the group in one cycle: nothing waits 5 minutes at Permit.
    _store, sched, _clock = cluster([pod_group("train", 3), worker("w0"), worker("w1"), worker("w2")])
    fwk = sched.profiles["default-scheduler"]
    sched.schedule_pending()
    assert len(fwk.waiting_pods) == 0 and sched.cache.assumed_pod_count() == 0
    assert sched.cycles.bindings_in_flight == 0
    pending, _ = sched.queue.pending_pods()
    assert sorted(p.name for p in pending) == ["w0", "w1", "w2"]


def test_the_group_cycle_stops_early_once_min_count_cannot_be_met() -> None:
    # One 4-cpu node, three 3-cpu pods: once the second fails, 1 placed + 1 left < 3, so the
    # third is never tried.
    store, sched, _clock = cluster([pod_group("train", 3), worker("w0"), worker("w1"), worker("w2")],
                                   nodes=1)
    sched.schedule_one()  # one pod-group cycle
    messages = sorted(message(store, f"w{i}") for i in range(3))
    assert messages[0].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    # The one that fitted and the one never tried carry the group's reason.
    assert messages[1:] == ["minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"] * 2


def test_a_freed_node_lets_the_unschedulable_gang_in_whole() -> None:
    # A 3-cpu blocker leaves room for one worker; once it is deleted, the group cycle places all.
    blocker = make_pod().name("blocker").uid("blocker").req({"cpu": "3"}).node("n2").obj()
    store, sched, _clock = cluster([blocker, pod_group("train", 2), worker("w0"), worker("w1")])
    sched.run_until_idle()
    assert not node_of(store, "w0") and not node_of(store, "w1")
    store.delete("Pod", "default", "blocker")
    sched.run_until_idle()
    assert node_of(store, "w0") and node_of(store, "w1")


def test_a_gang_that_fits_is_bound_whole_even_when_some_pods_came_first() -> None:
    # Four pods of a minCount-3 gang, all fit: all bound (minCount is a floor, not a size).
    store, sched, _ = cluster([pod_group("train", 3)] + [worker(f"w{i}", cpu="1") for i in range(4)])
    sched.run_until_idle()
    assert all(node_of(store, f"w{i}") for i in range(4))


# -- hints -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("added", "want"), [
    pytest.param(worker("x", group="train"), QueueingHint.QUEUE, id="same group"),
    pytest.param(worker("x", group="other"), QueueingHint.QUEUE_SKIP, id="other group"),
    pytest.param(make_pod().name("x").obj(), QueueingHint.QUEUE_SKIP, id="no group"),
])
def test_pod_added_hint(added: Pod, want: QueueingHint) -> None:
    assert GangScheduling().is_schedulable_after_pod_added(worker("w0"), None, added) == want


def test_pod_group_updated_hint_only_when_min_count_drops() -> None:
    pl = GangScheduling()
    w = worker("w0")
    assert pl.is_schedulable_after_pod_group_updated(w, pod_group("train", 3), pod_group("train", 2)) \
        == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pod_group_updated(w, pod_group("train", 2), pod_group("train", 3)) \
        == QueueingHint.QUEUE_SKIP
    assert pl.is_schedulable_after_pod_group_updated(w, pod_group("other", 3), pod_group("other", 2)) \
        == QueueingHint.QUEUE_SKIP


def test_pre_enqueue_without_a_group_passes() -> None:
    st = GangScheduling().pre_enqueue(make_pod().name("p").obj())
    assert st is None
    st = GangScheduling().pre_enqueue(worker("w0"))
    assert st is not None and st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


# -- property: all or nothing ----------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    node_cpus=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    pod_cpus=st.lists(st.integers(1, 4), min_size=1, max_size=6),
    min_count=st.integers(1, 6),
    seed=st.integers(0, 3),
)
def test_a_gang_is_bound_whole_or_not_at_all(node_cpus: list[int], pod_cpus: list[int], min_count: int,
                                             seed: int) -> None:
    """Whatever the sizes: at the end either no pod of the gang is bound, or at least minCount
    are, and nothing stays assumed; with room for every pod on a node of its own, all are bound."""
    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    nodes = [make_node().name(f"n{i}").capacity({"cpu": str(c), "memory": "8Gi"}).obj()
             for i, c in enumerate(node_cpus)]
    pods = [worker(f"w{i}", cpu=str(c)) for i, c in enumerate(pod_cpus)]
    store.load([*nodes, pod_group("train", min_count), *pods])
    sched = Scheduler(store, clock, None, seed=seed, options=SchedulerOptions(features=GATES))
    sched.run_until_idle()
    bound = sum(1 for p in store.list("Pod") if p.node_name)
    assert bound == 0 or bound >= min_count
    assert sched.cache.assumed_pod_count() == 0 and sched.cycles.bindings_in_flight == 0
    if min_count > len(pods):
        assert bound == 0  # the gang never forms: PreEnqueue holds every pod
    # While a pod is left, fewer pods than nodes are placed, so some node is empty and takes it.
    if min_count <= len(pods) <= len(node_cpus) and max(pod_cpus) <= min(node_cpus):
        assert bound == len(pods)


# -- PodGroup status: PodGroupInitiallyScheduled -----------------------------------------------
def condition(store: MemoryStore, name: str = "train") -> dict[str, Any]:
    pg = store.get("PodGroup", "default", name)
    [cond] = [c for c in (pg.raw.get("status") or {}).get("conditions", [])
              if c["type"] == "PodGroupInitiallyScheduled"]
    return dict(cond)


def test_an_unschedulable_group_reports_why_then_scheduled_once_it_fits() -> None:
    blocker = make_pod().name("blocker").uid("blocker").req({"cpu": "3"}).node("n2").obj()
    store, sched, clock = cluster([blocker, pod_group("train", 2), worker("w0"), worker("w1")])
    sched.run_until_idle()
    cond = condition(store)
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"] == "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    assert cond["lastTransitionTime"] == "1970-01-01T00:00:00Z" and cond["observedGeneration"] == 0
    clock.run(until=clock.now + 42)
    store.delete("Pod", "default", "blocker")
    sched.run_until_idle()
    cond = condition(store)
    assert (cond["status"], cond["reason"], cond["message"]) == ("True", "Scheduled", "")
    assert cond["lastTransitionTime"] != "1970-01-01T00:00:00Z"  # the status changed


def test_initially_scheduled_never_goes_back_to_false() -> None:
    # Two fit and are bound (True); a third pod that never fits is then tried alone: its
    # cycles fail ("no pods were schedulable") but the group stays initially scheduled.
    store, sched, _clock = cluster([pod_group("train", 2), worker("w0"), worker("w1")])
    sched.run_until_idle()
    assert condition(store)["status"] == "True"
    store.create(worker("w2"))
    sched.run_until_idle()
    assert not node_of(store, "w2")
    assert message(store, "w2").startswith("0/2 nodes are available")
    assert (condition(store)["status"], condition(store)["reason"]) == ("True", "Scheduled")


def test_a_group_whose_only_pod_does_not_fit_is_unschedulable() -> None:
    # minCount 1: once its only pod has failed, nothing is left to meet it.
    store, sched, _clock = cluster([pod_group("solo", 1), worker("w0", group="solo", cpu="5")])
    sched.schedule_one()
    cond = condition(store, "solo")
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"] == "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining"


def test_a_group_already_placed_whose_new_pod_fails_is_told_no_pods_were_schedulable() -> None:
    # Two members already bound meet minCount; the third does not fit: PlacementFeasible says
    # yes, but a success needs one pod placed in the cycle.
    bound = [make_pod().name(f"w{i}").uid(f"w{i}").req({"cpu": "3"}).pod_group("train")
             .node(f"n{i + 1}").obj() for i in range(2)]
    store, sched, _clock = cluster([pod_group("train", 2), *bound, worker("w2")])
    sched.schedule_one()
    assert message(store, "w2").startswith("0/2 nodes are available: 2 Insufficient cpu.")
    cond = condition(store)
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "Unschedulable",
                                                                 "no pods were schedulable")


# -- PlacementFeasible (gangscheduling_test.go's table) ---------------------------------------
@pytest.mark.parametrize(("min_count", "scheduled", "remaining", "code", "msg"), [
    pytest.param(3, 0, 3, Code.WAIT, "minCount (3) is not yet satisfied: 0 scheduled, 3 remaining",
                 id="nothing placed yet"),
    pytest.param(3, 2, 1, Code.WAIT, "minCount (3) is not yet satisfied: 2 scheduled, 1 remaining",
                 id="one more needed"),
    pytest.param(3, 1, 1, Code.UNSCHEDULABLE, "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining",
                 id="too few left"),
    pytest.param(3, 3, 0, Code.SUCCESS, "", id="met"),
    pytest.param(3, 4, 2, Code.SUCCESS, "", id="more than met"),
    pytest.param(None, 0, 1, Code.WAIT, "minCount (1) is not yet satisfied: 0 scheduled, 1 remaining",
                 id="basic: one pod needed"),
    pytest.param(None, 1, 0, Code.SUCCESS, "", id="basic: one placed"),
])
def test_placement_feasible(min_count: int | None, scheduled: int, remaining: int, code: Code,
                            msg: str) -> None:
    progress = PlacementProgress(remaining, scheduled)
    st = GangScheduling().placement_feasible(pod_group("train", min_count), progress)
    assert (st.code if st is not None else Code.SUCCESS) == code
    assert (st.message() if st is not None else "") == msg


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    node_cpus=st.lists(st.integers(1, 8), min_size=1, max_size=4),
    pod_cpu=st.integers(1, 4),
    pods=st.integers(1, 6),
    min_count=st.integers(1, 6),
)
def test_a_homogeneous_gang_is_placed_in_one_cycle_iff_a_placement_exists(
        node_cpus: list[int], pod_cpu: int, pods: int, min_count: int) -> None:
    """Upstream's promise for the default algorithm: identical pods without inter-pod
    constraints find a placement whenever one exists. Brute force: the slots the nodes offer."""
    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    nodes = [make_node().name(f"n{i}").capacity({"cpu": str(c), "memory": "8Gi"}).obj()
             for i, c in enumerate(node_cpus)]
    gang = [worker(f"w{i}", cpu=str(pod_cpu)) for i in range(pods)]
    store.load([*nodes, pod_group("train", min_count), *gang])
    sched = Scheduler(store, clock, None, options=SchedulerOptions(features=GATES))
    sched.schedule_one()  # one pod-group cycle (nothing queued when PreEnqueue holds the gang)
    placeable = min(pods, sum(c // pod_cpu for c in node_cpus))
    expected = placeable if pods >= min_count and placeable >= min_count else 0
    assert sched.cycles.bindings_in_flight == expected
    sched.run_until_idle()
    assert sum(1 for p in store.list("Pod") if p.node_name) == expected


def test_a_pod_group_condition_write_is_not_progress_but_a_spec_change_is() -> None:
    store, _sched, _clock = cluster([pod_group("train", 2)])
    events: list[Any] = []
    store.subscribe(events.append)
    pg = store.get("PodGroup", "default", "train")
    store.update(PodGroup.from_dict({**pg.raw, "status": {"conditions": [
        {"type": "PodGroupInitiallyScheduled", "status": "False", "reason": "Unschedulable"}]}}))
    store.update(pod_group("train", 1))
    assert [e.is_pending_pod_status_update for e in events if e.kind == "PodGroup"] == [True, False]
