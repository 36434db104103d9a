"""The one run loop: scheduling cycles and the clock's timers, on any clock.

``sched.Run`` (pkg/scheduler/scheduler.go) is ``wait.UntilWithContext(ctx, sched.ScheduleOne,
0)`` beside the informers, the binding goroutines and the queue's flush goroutines, all on wall
time. Here they take turns on one thread, the scheduler's: each turn runs one scheduling cycle
(ScheduleOne) when activeQ has a pod; when it has none, time moves on to the next timer of the
clock (watch events, binding cycles, backoff expiry, queue flushes, permit timeouts, graceful
termination, a controller's reconcile). Only that move differs between clocks
(``clock.wait_next``): a :class:`~kubesched.clock.VirtualClock` jumps to its next timer and fires
it; a :class:`~kubesched.clock.RealClock` blocks until something is due (or is scheduled from
another thread) and fires it. ``simulate``, ``replay``, ``bench`` and ``kubesched run`` all run
this loop; they differ only in when it ends and in what they watch on the way (the hooks).

A closed clock (the virtual one: every future event is one of its timers) ends the run by
itself: when no timer is left, when the next is after ``until``, or at the fixed point (see
:func:`run`). A real clock's run ends only when ``stop`` says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..clock import RealClock, VirtualClock
from ..framework import MAX_PERMIT_TIMEOUT
from ..queue import DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION, UNSCHEDULABLE_PODS_FLUSH_INTERVAL

if TYPE_CHECKING:
    from ._scheduler import Scheduler

__all__ = ["FIXED_POINT_HORIZON", "IDLE_WAIT", "run"]

IDLE_WAIT = 1.0
"""The longest a real clock's idle turn blocks before ``stop`` is asked again (a wake-up, such as
a timer scheduled from another thread, ends it sooner)."""

FIXED_POINT_HORIZON = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + UNSCHEDULABLE_PODS_FLUSH_INTERVAL
"""Virtual seconds without a change in the cluster after which nothing more can happen: by then
every parked pod has been retried by the 5-minute unschedulable flush (podMaxInUnschedulable-
PodsDuration, checked every 30 s by flushUnschedulablePodsLeftover), every pod in backoff (10 s
at most) retried, and nothing changed since: further flushes and retries would fail forever."""


def run(sched: Scheduler, until: float | None = None, *,
        stop: Callable[[], bool] | None = None,
        before_cycle: Callable[[], None] | None = None,
        before_step: Callable[[float], None] | None = None,
        due_after_cycle: bool = False,
        fixed_point: bool = True,
        wake: Callable[[], float] | None = None,
        max_cycles: int | None = None,
        gauge: bool = True) -> None:
    """Run scheduling cycles and ``sched.clock``'s timers, turn by turn, until the run ends.

    Each turn: ``stop()`` ends the run when true; ``before_cycle()`` (the bench's churn and
    pacer); one scheduling cycle; when it ran, the timers due now when ``due_after_cycle`` (the
    binding cycle at once, as kube-scheduler's concurrent binding goroutines; otherwise they
    wait until activeQ is empty). When activeQ is empty, the pending-pods gauge is brought up to
    date and the clock moves on to its next timer (``before_step`` is told of its time first: a
    replay samples its metrics on the way, ``simulate`` shows progress).

    On a closed (virtual) clock the run also ends when no timer is left, when the next timer is
    after ``until`` (the clock stays at the last timer fired: a caller moves it on to ``until``
    as it needs), or, with ``fixed_point``, once the next timer is more than
    :data:`FIXED_POINT_HORIZON` after the last change in the cluster (``sched.last_progress``: a
    watch event, which includes every binding, but not the scheduler's own status writes on
    pending pods), plus the longest Permit wait while a binding cycle is in flight (a gang that
    can never be placed whole keeps one in flight, its pods waiting, timing out and retrying
    without changing anything); such cycles are then run to their end without starting new ones.
    ``wake`` then says when something outside the fixed point acts next (a controller's
    reconcile, the simulated kubelet finishing a pod long after the scheduler went idle): the
    clock is moved there and the run goes on. When the attempt hook stops the run
    (``sched.cycles.stopped_before``), it ends at once, the clock where that attempt
    was about to run. ``max_cycles`` bounds the scheduling cycles (a safety net). ``gauge``
    False leaves the pending-pods gauge alone (a replay runs the loop twice per trace event: a
    Prometheus write each time for a gauge nobody scrapes meanwhile; it brings it up to date at
    the end)."""
    clock = sched.clock
    if not isinstance(clock, VirtualClock | RealClock):
        raise TypeError(f"run needs a VirtualClock or a RealClock, not {type(clock).__name__}")
    cycles = 0
    while stop is None or not stop():
        if before_cycle is not None:
            before_cycle()
        if (max_cycles is None or cycles < max_cycles) and sched.schedule_one():
            cycles += 1
            if due_after_cycle:
                clock.run_due()
            continue
        if gauge:
            sched._update_pending_metric()
        if sched.cycles.stopped_before is not None or (max_cycles is not None and cycles >= max_cycles):
            break
        if isinstance(clock, VirtualClock):
            nxt = clock.peek()
            if nxt == math.inf or (until is not None and nxt > until) or (
                    fixed_point and _at_fixed_point(sched, nxt, until)):
                due = wake() if wake is not None else math.inf
                if due == math.inf or (until is not None and due > until):
                    break
                nxt = max(due, clock.now)
                if before_step is not None and nxt > clock.now:
                    before_step(nxt)
                clock.run(until=nxt)
                continue
            if before_step is not None:
                before_step(nxt)
        clock.wait_next(IDLE_WAIT)
    if gauge:
        sched._update_pending_metric()


def _at_fixed_point(sched: Scheduler, nxt: float, until: float | None) -> bool:
    """The next timer, at ``nxt``, is past the fixed point (see :func:`run`); binding cycles
    still in flight are then run to their end (``_drain_bindings``)."""
    limit = FIXED_POINT_HORIZON
    if sched.cycles.bindings_in_flight > 0:
        limit += MAX_PERMIT_TIMEOUT
    if nxt - sched.last_progress <= limit:
        return False
    sched._drain_bindings(until)
    return True
