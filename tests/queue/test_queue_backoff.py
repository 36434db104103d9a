"""backoffQ: durations, windows, ordering, error backoff (backoff_queue_test.go)."""

from __future__ import annotations

import pytest
from queue_helpers import NODE_ADD, fail, make_pod, new_queue, priority_less

from kubesched.clock import VirtualClock
from kubesched.framework import QueuedPodInfo
from kubesched.queue import calculate_backoff_duration
from kubesched.queue._backoff_queue import BackoffQueue

MAX_INT32_NS = (2**31 - 1) / 1e9
MAX_INT64_NS = (2**63 - 1) / 1e9


@pytest.mark.parametrize(("initial", "maximum", "count", "want"), [
    pytest.param(1e-9, 32e-9, 0, 0.0, id="no backoff"),
    pytest.param(1e-9, 32e-9, 16, 32e-9, id="normal"),
    pytest.param(1e-9, MAX_INT32_NS, 32, MAX_INT32_NS, id="overflow_32bit"),
    pytest.param(1e-9, MAX_INT64_NS, 64, MAX_INT64_NS, id="overflow_64bit"),
])
def test_calculate_backoff_duration(initial: float, maximum: float, count: int, want: float) -> None:
    assert calculate_backoff_duration(count, initial, maximum) == want


def test_backoff_doubles_per_attempt_up_to_max() -> None:
    # Defaults 1 s / 10 s: 1, 2, 4, 8, then capped at 10.
    got = [calculate_backoff_duration(n, 1.0, 10.0) for n in range(1, 7)]
    assert got == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def _qpi(name: str, ts: float, priority: int = 0, plugins: tuple[str, ...] = ("plugin",)) -> QueuedPodInfo:
    return QueuedPodInfo(pod=make_pod(name, priority), timestamp=ts, attempts=1,
                         unschedulable_count=1, unschedulable_plugins=set(plugins))


# popAllBackoffCompleted: now = 10; pods failed 2 s ago are done with their 1 s backoff,
# pods "failing" 1 s in the future are not. pod2/pod3 have no plugins: podErrorBackoffQ.
_POD_TIMES = {"pod0": (8.0, ("plugin",)), "pod1": (11.0, ("plugin",)), "pod2": (8.0, ()), "pod3": (11.0, ())}


@pytest.mark.parametrize(("in_backoff", "want"), [
    pytest.param([], [], id="Both queues empty, no pods moved to activeQ"),
    pytest.param(["pod0", "pod1"], ["pod0"], id="Pods only in backoffQ, some pods moved to activeQ"),
    pytest.param(["pod2", "pod3"], ["pod2"], id="Pods only in errorBackoffQ, some pods moved to activeQ"),
    pytest.param(["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"],
                 id="Pods in both queues, some pods moved to activeQ"),
    pytest.param(["pod0", "pod2"], ["pod0", "pod2"], id="Pods in both queues, all pods moved to activeQ"),
    pytest.param(["pod1", "pod3"], [], id="Pods in both queues, no pods moved to activeQ"),
])
@pytest.mark.parametrize("pop_from_backoff_q", [True, False])
def test_pop_all_backoff_completed(in_backoff: list[str], want: list[str], pop_from_backoff_q: bool) -> None:
    clock = VirtualClock(10.0)
    bq = BackoffQueue(clock, 1.0, 10.0, priority_less, pop_from_backoff_q)
    for n in in_backoff:
        ts, plugins = _POD_TIMES[n]
        bq.add(_qpi(n, ts, plugins=plugins))
    assert [p.pod.name for p in bq.pop_all_backoff_completed()] == want
    assert len(bq) == len(in_backoff) - len(want)


@pytest.mark.parametrize(("pop_from_backoff_q", "want"), [
    pytest.param(True, ["pod5", "pod4", "pod2", "pod3"],
                 id="Pods with the same window are ordered by priority if PopFromBackoffQ is enabled"),
    pytest.param(False, ["pod5", "pod3", "pod4", "pod2"],
                 id="Pods priority doesn't matter if PopFromBackoffQ is disabled"),
])
def test_backoff_queue_ordering(pop_from_backoff_q: bool, want: list[str]) -> None:
    now = 100.0  # aligned with the ordering window
    clock = VirtualClock(now)
    bq = BackoffQueue(clock, 1.0, 10.0, priority_less, pop_from_backoff_q)
    for name, ts, prio in [("pod0", now, 1), ("pod1", now - 1, 1), ("pod2", now - 2 + 0.001, 2),
                           ("pod3", now - 2, 1), ("pod4", now - 2, 2), ("pod5", now - 3, 1)]:
        bq.add(_qpi(name, ts, prio))
    assert [p.pod.name for p in bq.pop_all_backoff_completed()] == want


def test_max_backoff_zero_disables_backoff() -> None:
    bq = BackoffQueue(VirtualClock(5.0), 1.0, 0.0, priority_less)
    p = _qpi("p", 5.0)
    assert bq.backoff_time(p) is None
    assert not bq.is_pod_backing_off(p)


def test_error_backoff_counts_consecutive_errors() -> None:
    # A pod failing with an Error (no rejecting plugin) twice in a row backs off 2 s in the
    # error queue; a later plugin rejection resets the error count.
    clock = VirtualClock()
    q = new_queue(clock, pop_from_backoff_q=False)
    pod = make_pod("p")
    q.add(pod)
    fail(q, pod)
    assert q.get_pod("p", "ns").consecutive_errors == 1  # type: ignore[union-attr]
    clock.advance(2.0)
    q.flush_backoff_q_completed()
    p = fail(q, pod)
    assert (p.consecutive_errors, p.backoff_expiration) == (2, clock.now + 2.0)
    assert q.pods_in_backoff_q() == [pod]
    clock.advance(3.0)
    q.flush_backoff_q_completed()
    p = fail(q, pod, "fooPlugin")
    assert (p.consecutive_errors, p.unschedulable_count) == (0, 1)
    assert q.unschedulable_pods() == [pod]


def test_pods_leave_backoff_q_when_due_on_the_clock() -> None:
    # A pod rejected n times backs off 1, 2, 4, 8, 10, 10 s; with the flush timers running it
    # returns to activeQ at the first whole-second tick after its backoff ends (the ordering
    # window it expires in is flushed as a whole, KEP-5142).
    clock = VirtualClock()
    q = new_queue(clock)
    q.start()
    pod = make_pod("p")
    q.add(pod)
    released = []
    for attempt in range(1, 7):
        failed_at = clock.now
        popped = q.pop()
        assert popped is not None
        # A node is added while the pod is in flight: its rejecting plugin may now pass, so
        # the failed pod goes to backoffQ instead of unschedulablePods.
        q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
        popped.unschedulable_plugins = {"fooPlugin"}
        q.add_unschedulable_if_not_present(popped, q.scheduling_cycle)
        assert q.pods_in_backoff_q() == [pod], attempt
        expiry = popped.backoff_expiration
        assert expiry is not None
        clock.run(until=expiry)
        assert q.pods_in_backoff_q() == [pod], f"still backing off at {clock.now}"
        clock.step()  # the next flush tick
        assert q.pods_in_active_q() == [pod]
        released.append((expiry - failed_at, clock.now - expiry))
    assert released == [(1.0, 1.0), (2.0, 1.0), (4.0, 1.0), (8.0, 1.0), (10.0, 1.0), (10.0, 1.0)]
    assert q.next_wakeup() is None
