"""The queue's shortcuts answer as the long way round would.

HintIndex memoises, per incoming event, isEventOfInterest and the registrations that match;
the flush timer is not recomputed while backoffQ and unschedulablePods are empty. Each test
checks the shortcut against the plain computation or against the clock's timers.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from queue_helpers import NODE_ADD, fail, make_pod, new_queue

from kubesched.clock import VirtualClock
from kubesched.framework import ActionType, ClusterEvent, EventResource, QueuedPodInfo
from kubesched.queue import QueueingHintEntry, QueueingStrategy
from kubesched.queue._events import matches
from kubesched.queue._hints import HintIndex, is_event_of_interest, is_pod_worth_requeuing
from kubesched.queue._unschedulable_pods import UnschedulablePods

_RESOURCES = [EventResource.POD, EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD,
              EventResource.NODE, EventResource.PERSISTENT_VOLUME_CLAIM, EventResource.WILDCARD]
_ACTIONS = [ActionType.ADD, ActionType.DELETE, ActionType.UPDATE_NODE_LABEL, ActionType.UPDATE_POD_LABEL,
            ActionType.UPDATE, ActionType.ALL, ActionType.ADD | ActionType.UPDATE_NODE_TAINT]
_EVENTS = st.builds(ClusterEvent, st.sampled_from(_RESOURCES), st.sampled_from(_ACTIONS))
_PLUGINS = ["A", "B", "C"]
_ENTRIES = st.lists(st.builds(QueueingHintEntry, _EVENTS, st.sampled_from(_PLUGINS), st.none()), max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["p1", "p2"]), _ENTRIES, max_size=2), st.lists(_EVENTS, max_size=6))
def test_hint_index_matches_the_plain_scan(hint_map: dict[str, list[QueueingHintEntry]],
                                           events: list[ClusterEvent]) -> None:
    index = HintIndex(hint_map)
    for event in events + events:  # the second round is answered from the memo
        plain = (event.resource == EventResource.WILDCARD and event.action == ActionType.ALL) or any(
            matches(e.event, event) for entries in hint_map.values() for e in entries)
        assert index.is_event_of_interest(event) == plain == is_event_of_interest(hint_map, event)
        for profile in ("p1", "p2"):
            want = None if profile not in hint_map else tuple(
                e for e in hint_map[profile] if matches(e.event, event))
            assert index.matching(profile, event) == want


@settings(max_examples=200, deadline=None)
@given(_ENTRIES, _EVENTS, st.sets(st.sampled_from(_PLUGINS)), st.sets(st.sampled_from(_PLUGINS)))
def test_requeue_strategy_same_with_index_or_plain_map(entries: list[QueueingHintEntry], event: ClusterEvent,
                                                       rejectors: set[str], pending: set[str]) -> None:
    hint_map = {"default-scheduler": entries}
    p = QueuedPodInfo(make_pod("p"), unschedulable_plugins=rejectors, pending_plugins=pending)
    plain = _plain_strategy(entries, p, event)
    assert is_pod_worth_requeuing(HintIndex(hint_map), p, event, None, None) == plain
    assert is_pod_worth_requeuing(hint_map, p, event, None, None) == plain


def _plain_strategy(entries: list[QueueingHintEntry], p: QueuedPodInfo,
                    event: ClusterEvent) -> QueueingStrategy:
    """isPodWorthRequeuing spelled out over every registration (hints are all Queue here)."""
    rejectors = (p.unschedulable_plugins or set()) | (p.pending_plugins or set())
    if not rejectors or (event.resource == EventResource.WILDCARD and event.action == ActionType.ALL):
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    strategy = QueueingStrategy.QUEUE_SKIP
    for e in entries:
        if e.plugin in rejectors and matches(e.event, event):
            if e.plugin in (p.pending_plugins or set()):
                return QueueingStrategy.QUEUE_IMMEDIATELY
            strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
    return strategy


def test_flush_timer_dropped_when_the_last_parked_pod_leaves_and_armed_again() -> None:
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin")])
    q.start()
    a = make_pod("a")
    q.add(a)
    fail(q, a, "barPlugin")  # parked: only the 5-minute flush can move it
    assert q.next_wakeup() is not None and clock.peek() == q.next_wakeup()
    q.delete(a)
    assert q.next_wakeup() is None and clock.peek() == math.inf  # no timer keeps the clock busy
    clock.advance(7.0)
    b = make_pod("b")
    q.add(b)
    fail(q, b, "barPlugin")
    # Parked at t=7: moved at the first 30-second tick after t=307.
    assert clock.peek() == q.next_wakeup() == 330.0


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(["add", "fail", "delete", "advance", "move"]),
                          st.integers(0, 3)), max_size=24))
def test_armed_timer_always_fires_at_the_next_flush(ops: list[tuple[str, int]]) -> None:
    """The flush timer is re-computed only when a pod entered backoffQ or unschedulablePods;
    after any operations it still fires no later than the next flush that can move a pod, and
    no timer is left when nothing is parked."""
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin")])
    q.start()
    pods = [make_pod(f"p{i}") for i in range(4)]
    known: set[int] = set()
    for op, i in ops:
        pod = pods[i]
        if op == "add" and i not in known:
            q.add(pod)
            known.add(i)
        elif op in ("fail", "pop"):
            p = q.pop()
            if p is not None:
                p.unschedulable_plugins = {"fooPlugin" if i % 2 else "barPlugin"}
                q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
        elif op == "delete" and i in known:
            q.delete(pod)
            known.discard(i)
        elif op == "advance":
            clock.advance(float(i) * 0.7)
        elif op == "move":
            q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
        wake = q.next_wakeup()
        if wake is None:
            assert clock.peek() == math.inf
        else:
            assert clock.peek() <= max(wake, clock.now)


def test_unschedulable_pods_oldest_timestamp_after_emptying() -> None:
    pods = UnschedulablePods()
    a = QueuedPodInfo(make_pod("a"), timestamp=1.0)
    pods.add_or_update(a)
    pods.delete(a.pod.key)
    assert pods.oldest_timestamp() is None
    b = QueuedPodInfo(make_pod("b"), timestamp=5.0)
    pods.add_or_update(b)
    pods.add_or_update(a)  # a re-enters with its old timestamp
    assert pods.oldest_timestamp() == 1.0
    pods.delete(a.pod.key)
    assert pods.oldest_timestamp() == 5.0


def test_unschedulable_pods_oldest_is_the_last_schedule_time() -> None:
    """A flush that leaves a pod parked (kept gated) moves its turn to a full period later
    (upstream's max(Timestamp, FlushTimestamp)), its timestamp untouched."""
    pods = UnschedulablePods()
    a, b = QueuedPodInfo(make_pod("a"), timestamp=1.0), QueuedPodInfo(make_pod("b"), timestamp=5.0)
    pods.add_or_update(a)
    pods.add_or_update(b)
    assert pods.oldest_timestamp() == 1.0
    a.flush_timestamp = 330.0
    assert pods.oldest_timestamp() == 5.0
    b.flush_timestamp = 400.0
    assert pods.oldest_timestamp() == 330.0 and a.timestamp == 1.0
    pods.delete(a.pod.key)
    assert pods.oldest_timestamp() == 400.0
    # A pod kept gated flush after flush (taken out and put back each time) keeps one entry.
    for k in range(1, 100):
        b.flush_timestamp = 400.0 + 300.0 * k
        pods.delete(b.pod.key)
        pods.add_or_update(b)
        pods.add_or_update(a)
        assert pods.oldest_timestamp() == 330.0  # a's flush
        pods.delete(a.pod.key)
        assert pods.oldest_timestamp() == b.flush_timestamp
    assert len(pods._by_time) <= 2



def test_move_all_with_nothing_parked_or_in_flight_changes_nothing() -> None:
    """The early return of MoveAllToActiveOrBackoffQueue: no pod to move, no event kept. Once
    a pod is in flight the event is recorded again (and helps it when it fails); a parked pod
    is moved by it."""
    clock = VirtualClock()
    q = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin")])
    q.start()
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
    assert q.in_flight_events() == [] and sum(q.pending_pod_counts().values()) == 0
    a = make_pod("a")
    q.add(a)
    p = q.pop()
    assert p is not None
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)  # a is in flight: recorded
    assert len(q.in_flight_events()) == 2  # the pod and the event
    p.unschedulable_plugins = {"fooPlugin"}
    assert q.add_unschedulable_if_not_present(p, q.scheduling_cycle) is None
    assert q.unschedulable_pods() == []  # requeued on the recorded NodeAdd, not parked

    q2 = new_queue(clock, [QueueingHintEntry(NODE_ADD, "fooPlugin")])
    q2.start()
    b = make_pod("b")
    q2.add(b)
    fail(q2, b, "fooPlugin")
    assert [x.name for x in q2.unschedulable_pods()] == ["b"]
    q2.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)  # parked: moved
    assert q2.unschedulable_pods() == []
