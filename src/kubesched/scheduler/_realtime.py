"""The real-time run loop: ``sched.Run`` of pkg/scheduler/scheduler.go with wall-clock time.

The loop is the one every front end runs (:func:`~._loop.run`), with the real clock as its
clock. One thread (the caller's) owns the scheduler's state. Each turn it fires what is due on the
:class:`~kubesched.clock.RealClock` (watch events delivered by the live store, binding-cycle
failures handed back by the binding workers, queue flushes, backoff expiry, permit timeouts),
then runs one scheduling cycle (ScheduleOne). When activeQ is empty it blocks until the next
timer or until something is scheduled, never spinning. Binding cycles run on the binding
workers meanwhile (``SchedulerOptions(binding=BindingMode.THREAD)``).

Stopping (``stop`` set, e.g. on SIGTERM): no more pods are popped; binding cycles in flight
are finished (bounded by ``drain_timeout``) with their results handled on this thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..clock import RealClock
from ._loop import IDLE_WAIT, run
from ._scheduler import Scheduler

__all__ = ["IDLE_WAIT", "run_realtime"]


def run_realtime(sched: Scheduler, clock: RealClock, stop: threading.Event, *,
                 on_ready: Callable[[], None] | None = None, drain_timeout: float = 30.0) -> None:
    """Schedule until ``stop`` is set (call ``clock.wake()`` after setting it to stop at once):
    :func:`~._loop.run` on the real clock, each binding failure handed back run right after
    its cycle; then the binding cycles in flight are drained."""
    if on_ready is not None:
        on_ready()
    clock.run_due()
    run(sched, stop=stop.is_set, due_after_cycle=True)
    deadline = time.monotonic() + drain_timeout
    while sched.cycles.bindings_in_flight > 0 and time.monotonic() < deadline:
        clock.run_due()
        clock.wait(0.05)
    clock.run_due()
    sched.shutdown_binding(wait=False)
