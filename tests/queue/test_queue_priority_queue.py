"""PriorityQueue: ordering, event-driven moves, hints, gating, in-flight events, flushes
(scheduling_queue_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from queue_helpers import (
    GATES_ELIMINATED,
    NODE_ADD,
    PVC_ADD,
    boom,
    fail,
    make_pod,
    names,
    new_queue,
    priority_less,
    queue,
    queue_skip,
)

from kubesched.clock import VirtualClock
from kubesched.framework import ActionType, ClusterEvent, Code, EventResource, QueueingHint, Status
from kubesched.queue import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    PriorityQueue,
    QueueingHintEntry,
)


def test_priority_queue_add_orders_by_priority_then_timestamp() -> None:
    # TestPriorityQueue_Add: the highest priority pops first; equal priorities in arrival order.
    clock = VirtualClock()
    q = new_queue(clock)
    for name, prio in [("low", 1), ("mid-1", 5), ("high", 10), ("mid-2", 5)]:
        q.add(make_pod(name, prio))
        clock.advance(1.0)
    popped = []
    while (p := q.pop()) is not None:
        popped.append(p.pod.name)
    assert popped == ["high", "mid-1", "mid-2", "low"]
    assert q.scheduling_cycle == 4


def test_pop_sets_attempts_and_initial_attempt_timestamp() -> None:
    clock = VirtualClock(3.0)
    q = new_queue(clock)
    q.add(make_pod("p"))
    p = q.pop()
    assert p is not None and (p.attempts, p.initial_attempt_timestamp) == (1, 3.0)
    assert names(q.in_flight_pods()) == ["p"]
    q.done(p.pod.uid)
    assert q.in_flight_pods() == [] and q.in_flight_events() == []


@pytest.mark.parametrize(("event", "moved"), [
    pytest.param(NODE_ADD, True, id="registered node add moves the pod"),
    pytest.param(PVC_ADD, False, id="unrelated pvc add keeps it parked"),
    pytest.param(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL), False,
                 id="node update the plugin did not register keeps it parked"),
])
def test_move_all_to_active_or_backoff_queue(event: ClusterEvent, moved: bool) -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "fooPlugin")
    assert names(q.unschedulable_pods()) == ["p"]
    q.move_all_to_active_or_backoff_queue(event, None, None)
    if moved:
        # Still backing off (1 s), so it goes to backoffQ; after the backoff, to activeQ.
        assert names(q.pods_in_backoff_q()) == ["p"]
        clock.advance(2.0)
        q.flush_backoff_q_completed()
        assert names(q.pods_in_active_q()) == ["p"]
    else:
        assert names(q.unschedulable_pods()) == ["p"]


def test_moved_pod_skips_backoff_when_already_over() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "fooPlugin")
    clock.advance(5.0)
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert names(q.pods_in_active_q()) == ["p"]


def test_pod_only_moved_by_its_rejecting_plugins_events() -> None:
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin"), QueueingHintEntry(PVC_ADD, "barPlugin")])
    foo, bar = make_pod("foo", 2), make_pod("bar", 1)
    q.add(foo)
    q.add(bar)
    fail(q, foo, "fooPlugin")
    fail(q, bar, "barPlugin")
    clock.advance(5.0)
    q.move_all_to_active_or_backoff_queue(PVC_ADD, None, None)
    assert names(q.pods_in_active_q()) == ["bar"]
    assert names(q.unschedulable_pods()) == ["foo"]


@pytest.mark.parametrize(("hint", "moved"), [
    pytest.param(queue_skip, False, id="QueueSkip keeps the pod parked"),
    pytest.param(queue, True, id="Queue moves the pod"),
    pytest.param(boom, True, id="a failing hint counts as Queue"),
])
def test_queueing_hint_decides(hint, moved: bool) -> None:  # type: ignore[no-untyped-def]
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin", hint)])
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "fooPlugin")
    clock.advance(5.0)
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert names(q.pods_in_active_q() if moved else q.unschedulable_pods()) == ["p"]


def test_pending_plugin_queue_skips_backoff() -> None:
    # Queue from a plugin that returned Pending means activeQ at once, backoff or not.
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin"), QueueingHintEntry(PVC_ADD, "barPlugin")])
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "fooPlugin", pending=("barPlugin",))
    q.move_all_to_active_or_backoff_queue(PVC_ADD, None, None)
    assert names(q.pods_in_active_q()) == ["p"]


def test_pod_with_no_rejecting_plugin_is_moved_by_any_event() -> None:
    clock = VirtualClock()
    q = new_queue(clock, pop_from_backoff_q=False)
    pod = make_pod("p")
    q.add(pod)
    p = q.pop()
    assert p is not None
    q._unschedulable.add_or_update(p)  # parked with an empty plugin set
    q.done(p.pod.uid)
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert names(q.pods_in_active_q()) == ["p"]


def test_pre_check_filters_pods() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    a, b = make_pod("a", 2), make_pod("b", 1)
    q.add(a)
    q.add(b)
    fail(q, a, "fooPlugin")
    fail(q, b, "fooPlugin")
    clock.advance(5.0)
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None, lambda pod: pod.name == "b")
    assert names(q.pods_in_active_q()) == ["b"]


# -- in-flight events -------------------------------------------------------------------


@pytest.mark.parametrize(("event", "want_queue"), [
    pytest.param(NODE_ADD, "backoff", id="a relevant event during the attempt requeues to backoffQ"),
    pytest.param(PVC_ADD, "unschedulable", id="an unrelated event during the attempt parks the pod"),
    pytest.param(None, "unschedulable", id="no event during the attempt parks the pod"),
])
def test_add_unschedulable_if_not_present_with_in_flight_events(event, want_queue: str) -> None:  # type: ignore[no-untyped-def]
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin"), QueueingHintEntry(PVC_ADD, "barPlugin")])
    pod = make_pod("p")
    q.add(pod)
    p = q.pop()
    assert p is not None
    if event is not None:
        q.move_all_to_active_or_backoff_queue(event, None, "obj")
        assert [type(x).__name__ for x in q.in_flight_events()] == ["Pod", "InFlightEvent"]
    p.unschedulable_plugins = {"fooPlugin"}
    assert q.add_unschedulable_if_not_present(p, q.scheduling_cycle) is None
    got = {"backoff": q.pods_in_backoff_q(), "unschedulable": q.unschedulable_pods()}
    assert names(got[want_queue]) == ["p"]
    assert q.in_flight_events() == []  # done() pruned everything


def test_event_before_pop_does_not_count() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    pod, other = make_pod("p", 1), make_pod("other", 2)
    q.add(pod)
    q.add(other)
    first = q.pop()
    assert first is not None and first.pod.name == "other"
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)  # while only "other" in flight
    fail(q, pod, "fooPlugin")  # popped after the event
    assert names(q.unschedulable_pods()) == ["p"]
    # The event stays recorded for "other", which was in flight when it arrived.
    first.unschedulable_plugins = {"fooPlugin"}
    q.add_unschedulable_if_not_present(first, q.scheduling_cycle)
    assert names(q.pods_in_backoff_q()) == ["other"]


def test_add_unschedulable_if_not_present_rejects_queued_pod() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    pod = make_pod("p")
    q.add(pod)
    p = q.pop()
    assert p is not None
    q.add(pod)  # re-added by someone while in flight
    p.unschedulable_plugins = {"fooPlugin"}
    err = q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
    assert err == "Pod ns/p is already present in the active queue"
    assert q.in_flight_pods() == []


def test_activate_in_flight_pod_records_force_activate() -> None:
    # TestPriorityQueue_Activate: an in-flight pod that is activated comes back to activeQ.
    clock = VirtualClock()
    q = new_queue(clock, pop_from_backoff_q=False)
    pod = make_pod("p")
    q.add(pod)
    p = q.pop()
    assert p is not None
    q.activate([pod])
    p.unschedulable_plugins = {"fooPlugin"}
    q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
    assert names(q.pods_in_backoff_q()) == ["p"]


def test_activate_moves_parked_and_backing_off_pods() -> None:
    clock = VirtualClock()
    q = new_queue(clock, pop_from_backoff_q=False)
    a, b = make_pod("a", 2), make_pod("b", 1)
    q.add(a)
    q.add(b)
    fail(q, a, "fooPlugin")
    fail(q, b)  # error: backoffQ
    assert names(q.unschedulable_pods()) == ["a"] and names(q.pods_in_backoff_q()) == ["b"]
    q.activate({"ns/a": a, "ns/b": b, "ns/unknown": make_pod("unknown")})
    assert names(q.pods_in_active_q()) == ["a", "b"]


# -- PopFromBackoffQ -----------------------------------------------------------------------


@pytest.mark.parametrize(("enabled", "want"), [
    pytest.param(True, "p", id="pop from backoffQ when activeQ is empty"),
    pytest.param(False, None, id="gate off: nothing to pop"),
])
def test_pop_from_backoff_q(enabled: bool, want: str | None) -> None:
    clock = VirtualClock()
    q = new_queue(clock, pop_from_backoff_q=enabled)
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod)  # Error: error backoffQ, which is never popped early
    assert q.pop() is None
    clock.advance(2.0)
    q.flush_backoff_q_completed()
    fail(q, pod, "fooPlugin")
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert names(q.pods_in_backoff_q()) == ["p"]
    got = q.pop()
    assert (got.pod.name if got else None) == want


# -- gating -----------------------------------------------------------------------------------


def test_gated_pod_waits_until_ungated() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    gated = make_pod("p", gates=("example.com/gate",))
    q.add(gated)
    assert q.pop() is None
    assert q.pending_pod_counts() == {"active": 0, "backoff": 0, "unschedulable": 0, "gated": 1}
    info = q.get_pod("p", "ns")
    assert info is not None and info.gated and info.gating_plugin == "SchedulingGates"
    # Node events do not concern the gating plugin: the pod stays gated.
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert q.pods_in_active_q() == []
    # The timeout flush runs PreEnqueue again; still gated, the pod stays, and its next turn
    # is a full period after this flush (1000 + 300, at the next 30 s tick).
    clock.advance(1000.0)
    q.flush_unschedulable_pods_left_over()
    assert q.pods_in_active_q() == [] and q.next_wakeup() == 1320.0
    ungated = make_pod("p")
    q.update(gated, ungated)
    assert names(q.pods_in_active_q()) == ["p"]
    assert q.pending_pod_counts()["gated"] == 0


def test_gated_pod_update_that_keeps_gates_stays_gated() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    old = make_pod("p", gates=("a", "b"))
    q.add(old)
    q.update(old, make_pod("p", gates=("a",)))
    assert q.pods_in_active_q() == [] and q.pending_pod_counts()["gated"] == 1


class _TogglePreEnqueue:
    """A PreEnqueue plugin that gates pods while ``gating`` is set, and counts its calls (as
    DefaultPreemption gates a preemptor while its preemption runs)."""

    def __init__(self, name: str = "DefaultPreemption") -> None:
        self._name = name
        self.gating = True
        self.calls = 0

    def name(self) -> str:
        return self._name

    def pre_enqueue(self, pod: Any) -> Status | None:
        self.calls += 1
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting") if self.gating else None


ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
CLAIM_UPDATE = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.UPDATE)


def _gated_after_failure(clock: VirtualClock) -> tuple[PriorityQueue, _TogglePreEnqueue]:
    """A pod rejected by fooPlugin (which registered node adds), then gated by a PreEnqueue
    plugin that registered assigned-pod deletions with a Skip hint (DefaultPreemption's)."""
    gate = _TogglePreEnqueue()
    gate.gating = False
    q = PriorityQueue(clock, priority_less, {"default-scheduler": [gate]},
                      {"default-scheduler": [
                          QueueingHintEntry(NODE_ADD, "fooPlugin"),
                          QueueingHintEntry(ASSIGNED_POD_DELETE, gate.name(), queue_skip)]})
    q.start()
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "fooPlugin")
    gate.gating = True
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)  # worth a retry, but gated now
    info = q.get_pod("p", "ns")
    assert info is not None and info.gated and names(q.unschedulable_pods()) == ["p"]
    return q, gate


@pytest.mark.parametrize("gated", [
    # upstream: "Queue queues pod to backoffQ if Pod is not gated and the event is wildcard"
    pytest.param(False, id="not gated, wildcard event: backoffQ"),
    # upstream: "Queue queues pod to backoffQ when Pod is no longer gated and the event is
    # wildcard" (kubernetes PR 139162: a gated pod is offered wildcard events)
    pytest.param(True, id="no longer gated, wildcard event: backoffQ"),
])
def test_wildcard_event_moves_a_pod_whatever_its_gating(gated: bool) -> None:
    clock = VirtualClock()
    gate = _TogglePreEnqueue()
    gate.gating = False
    asked: list[str] = []

    def hint(pod: Any, old: Any, new: Any) -> QueueingHint:
        asked.append(pod.name)
        return QueueingHint.QUEUE

    q = PriorityQueue(clock, priority_less, {"default-scheduler": [gate]},
                      {"default-scheduler": [QueueingHintEntry(PVC_ADD, "foo", hint)]})
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "foo")  # still backing off (1 s) at t=0
    if gated:
        gate.gating = True
        q.move_all_to_active_or_backoff_queue(PVC_ADD, None, None)  # worth a retry, but gated
        gate.gating = False
        asked.clear()
    info = q.get_pod("p", "ns")
    assert info is not None and info.gated == gated and names(q.unschedulable_pods()) == ["p"]
    q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT, None, None)
    assert names(q.pods_in_backoff_q()) == ["p"] and q.unschedulable_pods() == []
    assert asked == []  # a wildcard event asks no hint


def test_preemptor_gated_while_preempting_is_moved_by_the_leftover_flush() -> None:
    """The DRA preemptor's path: gated by DefaultPreemption while its preemption runs; the
    victim's deletion (the gating plugin's event) finds no plugin to requeue it, and the
    claim's deallocation later concerns no event of the gating plugin. Only the 5-minute
    flush, which re-runs PreEnqueue (kubernetes PR 139162), moves it on."""
    clock = VirtualClock()
    q, gate = _gated_after_failure(clock)
    gate.gating = False  # the preemption's API calls are done
    q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, None, None)
    q.move_all_to_active_or_backoff_queue(CLAIM_UPDATE, None, None)
    assert names(q.unschedulable_pods()) == ["p"]
    assert q.next_wakeup() == 330.0  # parked at t=0: the first tick after 300 s
    clock.run(until=330.0)
    assert names(q.pods_in_active_q()) == ["p"]
    info = q.get_pod("p", "ns")
    assert info is not None and not info.gated and info.timestamp == 0.0


def test_a_pod_kept_gated_by_the_flush_waits_a_full_period_again() -> None:
    """kubernetes PR 139331: the flush stamps the pod (FlushTimestamp) rather than its timestamp
    (the queue order), so a pod still gated is offered the timeout every 5 minutes, not at
    every 30 s tick."""
    clock = VirtualClock()
    q, gate = _gated_after_failure(clock)
    calls = gate.calls
    clock.run(until=330.0)
    assert gate.calls == calls + 1 and names(q.unschedulable_pods()) == ["p"]
    info = q.get_pod("p", "ns")
    assert info is not None and info.gated and info.timestamp == 0.0 and info.flush_timestamp == 330.0
    assert q.next_wakeup() == 660.0
    clock.run(until=659.0)
    assert gate.calls == calls + 1
    gate.gating = False
    clock.run(until=660.0)
    assert names(q.pods_in_active_q()) == ["p"] and gate.calls == calls + 2


# -- flushes ---------------------------------------------------------------------------------


def test_flush_unschedulable_pods_left_over_after_five_minutes() -> None:
    # TestPriorityQueue_flushUnschedulablePodsLeftover: parked > 5 min -> moved, by the 30 s tick.
    clock = VirtualClock()
    q = new_queue(clock)
    q.start()
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "fooPlugin")
    assert q.next_wakeup() == 330.0  # first 30 s tick strictly after 300 s
    clock.run(until=329.0)
    assert names(q.unschedulable_pods()) == ["p"]
    clock.step()
    assert clock.now == 330.0
    assert names(q.pods_in_active_q()) == ["p"]
    assert q.next_wakeup() is None and clock.peek() == float("inf")


def test_flush_unschedulable_pods_left_over_manual() -> None:
    clock = VirtualClock()
    q = new_queue(clock, pod_max_in_unschedulable_pods_duration=60.0)
    a, b = make_pod("a", 2), make_pod("b", 1)
    q.add(a)
    q.add(b)
    fail(q, a, "fooPlugin")
    clock.advance(30.0)
    fail(q, b, "fooPlugin")
    clock.advance(31.0)
    q.flush_unschedulable_pods_left_over()
    assert names(q.pods_in_active_q()) == ["a"] and names(q.unschedulable_pods()) == ["b"]


def test_no_timer_when_nothing_can_move() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    q.start()
    q.add(make_pod("p"))
    assert q.next_wakeup() is None and clock.peek() == float("inf")
    q.stop()


def test_wildcard_timeout_event_moves_every_parked_pod() -> None:
    clock = VirtualClock()
    q = new_queue(clock)
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "unregisteredPlugin")
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert names(q.unschedulable_pods()) == ["p"]
    clock.advance(5.0)
    q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT, None, None)
    assert names(q.pods_in_active_q()) == ["p"]


# -- update / delete ---------------------------------------------------------------------------


def test_priority_queue_update() -> None:
    # TestPriorityQueue_Update: in activeQ the pod is updated in place and re-sorted.
    clock = VirtualClock()
    q = new_queue(clock)
    low, high = make_pod("low", 1), make_pod("high", 2)
    q.add(low)
    q.add(high)
    q.update(low, make_pod("low", 3))
    head = q.pop()
    assert head is not None and head.pod.name == "low" and head.pod.priority == 3
    # Not queued at all: the update adds it.
    q.update(None, make_pod("new"))
    assert names(q.pods_in_active_q()) == ["high", "new"]


def test_update_of_parked_pod_asks_the_hints() -> None:
    clock = VirtualClock()
    label_event = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL)
    q = new_queue(clock, [QueueingHintEntry(label_event, "fooPlugin")])
    old = make_pod("p", labels={"a": "1"})
    q.add(old)
    fail(q, old, "fooPlugin")
    # A toleration was added: UpdatePodToleration, which fooPlugin did not register.
    tolerating = make_pod("p", labels={"a": "1"}, tolerate="k")
    q.update(old, tolerating)
    assert names(q.unschedulable_pods()) == ["p"]
    assert q.get_pod("p", "ns").pod.tolerations  # type: ignore[union-attr]
    clock.advance(5.0)
    q.update(tolerating, make_pod("p", labels={"a": "2"}, tolerate="k"))
    assert names(q.pods_in_active_q()) == ["p"]


def test_update_in_flight_pod_is_recorded() -> None:
    clock = VirtualClock()
    label_event = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL)
    q = new_queue(clock, [QueueingHintEntry(label_event, "fooPlugin")], pop_from_backoff_q=False)
    old = make_pod("p")
    q.add(old)
    p = q.pop()
    assert p is not None
    q.update(old, make_pod("p", labels={"x": "y"}))
    assert q.pods_in_active_q() == []  # not re-added while in flight
    p.unschedulable_plugins = {"fooPlugin"}
    q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
    assert names(q.pods_in_backoff_q()) == ["p"]


@pytest.mark.parametrize("where", ["active", "backoff", "unschedulable"])
def test_priority_queue_delete(where: str) -> None:
    clock = VirtualClock()
    q = new_queue(clock, pop_from_backoff_q=False)
    pod = make_pod("p", nominated="node1")
    q.add(pod)
    if where == "backoff":
        fail(q, pod)
    elif where == "unschedulable":
        fail(q, pod, "fooPlugin")
    assert len(q.pending_pods()[0]) == 1 and len(q.nominated_pods_for_node("node1")) == 1
    q.delete(pod)
    assert q.pending_pods() == ([], "activeQ:0; backoffQ:0; unschedulablePods:0")
    assert q.nominated_pods_for_node("node1") == []


# -- assigned pods ----------------------------------------------------------------------------


def _affinity(labels: dict[str, str]) -> dict[str, Any]:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": labels}, "topologyKey": "zone"}]}}


def test_assigned_pod_added_moves_only_pods_with_matching_affinity() -> None:
    # TestPriorityQueue_AssignedPodAdded
    clock = VirtualClock()
    pod_add = ClusterEvent(EventResource.POD, ActionType.ADD)
    q = new_queue(clock, [QueueingHintEntry(pod_add, "InterPodAffinity")])
    match = make_pod("match", 2, affinity=_affinity({"app": "web"}))
    other = make_pod("other", 1, affinity=_affinity({"app": "db"}))
    q.add(match)
    q.add(other)
    fail(q, match, "InterPodAffinity")
    fail(q, other, "InterPodAffinity")
    clock.advance(5.0)
    q.assigned_pod_added(make_pod("web-1", labels={"app": "web"}, node="n1"))
    assert names(q.pods_in_active_q()) == ["match"]
    assert names(q.unschedulable_pods()) == ["other"]


def test_assigned_pod_added_moves_spread_rejected_pods_in_namespace() -> None:
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(EVENT_ASSIGNED_POD_ADD, "PodTopologySpread")],
                  namespace_spread_plugins={"PodTopologySpread"})
    same, elsewhere = make_pod("same", 2), make_pod("elsewhere", 1, namespace="other")
    q.add(same)
    q.add(elsewhere)
    fail(q, same, "PodTopologySpread")
    fail(q, elsewhere, "PodTopologySpread")
    clock.advance(5.0)
    q.assigned_pod_added(make_pod("x", node="n1"))
    assert names(q.pods_in_active_q()) == ["same"]


def test_assigned_pod_scale_down_moves_all_pods() -> None:
    clock = VirtualClock()
    scale_down = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN)
    q = new_queue(clock, [QueueingHintEntry(scale_down, "NodeResourcesFit")])
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod, "NodeResourcesFit")
    clock.advance(5.0)
    old, new = make_pod("x", node="n1", cpu="2"), make_pod("x", node="n1", cpu="1")
    event = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN)
    q.assigned_pod_updated(old, new, event)
    assert names(q.pods_in_active_q()) == ["p"]


def test_gates_eliminated_registration_is_used() -> None:
    # The gating plugin's registered event ungates through move_all as well.
    clock = VirtualClock()
    q = new_queue(clock)
    gated = make_pod("p", gates=("g",))
    q.add(gated)
    ungated = make_pod("p")
    q._unschedulable.get("ns/p").pod = ungated  # type: ignore[union-attr]
    q.move_all_to_active_or_backoff_queue(
        ClusterEvent(EventResource.UNSCHEDULED_POD, GATES_ELIMINATED.action), gated, ungated)
    assert names(q.pods_in_active_q()) == ["p"]
