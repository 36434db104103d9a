"""The real-time run loop: ``sched.Run`` of pkg/scheduler/scheduler.go with wall-clock time.

One thread (the caller's) owns the scheduler's state. Each turn it fires what is due on the
:class:`~kubesched.clock.RealClock` (watch events delivered by the live store, binding-cycle
failures handed back by the binding workers, queue flushes, backoff expiry, permit timeouts),
then runs one scheduling cycle (ScheduleOne). When activeQ is empty it blocks until the next
timer or until something is scheduled, never spinning. Binding cycles run on the binding
workers meanwhile (``SchedulerOptions(binding="thread")``).

Stopping (``stop`` set, e.g. on SIGTERM): no more pods are popped; binding cycles in flight
are finished (bounded by ``drain_timeout``) with their results handled on this thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..clock import RealClock
from ._scheduler import Scheduler

__all__ = ["IDLE_WAIT", "run_realtime"]

IDLE_WAIT = 1.0
"""The longest a blocked loop sleeps before checking ``stop`` again (a wake-up ends it sooner)."""


def run_realtime(sched: Scheduler, clock: RealClock, stop: threading.Event, *,
                 on_ready: Callable[[], None] | None = None, drain_timeout: float = 30.0) -> None:
    """Schedule until ``stop`` is set (call ``clock.wake()`` after setting it to stop at once)."""
    if on_ready is not None:
        on_ready()
    while not stop.is_set():
        clock.run_due()
        if stop.is_set():
            break
        if sched.schedule_one():
            continue
        sched._update_pending_metric()
        clock.wait(IDLE_WAIT)
    deadline = time.monotonic() + drain_timeout
    while sched.bindings_in_flight > 0 and time.monotonic() < deadline:
        clock.run_due()
        clock.wait(0.05)
    clock.run_due()
    sched.shutdown_binding(wait=False)
