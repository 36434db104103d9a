"""RealClock: timers set from any thread run on the thread that calls ``run_due`` (the
scheduler's loop), in order; ``wait`` blocks until the next timer or a wake-up."""

from __future__ import annotations

import threading
import time

from kubesched.clock import RealClock


def test_timers_from_other_threads_run_on_the_loop_thread_in_order() -> None:
    clock = RealClock()
    ran: list[tuple[int, str]] = []
    for i in range(3):
        th = threading.Thread(target=lambda i=i: clock.schedule(0.0, lambda: ran.append(
            (i, threading.current_thread().name))))
        th.start()
        th.join()
    later = clock.schedule(60.0, lambda: ran.append((99, "")))
    assert clock.run_due() == 3
    assert ran == [(i, threading.current_thread().name) for i in range(3)]
    assert clock.peek() == later.when
    later.cancel()
    assert clock.run_due() == 0


def test_wait_returns_when_something_is_scheduled() -> None:
    clock = RealClock()
    clock.schedule(30.0, lambda: None)
    threading.Timer(0.05, lambda: clock.schedule(0.0, lambda: None)).start()
    t0 = time.monotonic()
    clock.wait(10.0)
    assert time.monotonic() - t0 < 5.0
    assert clock.run_due() == 1


def test_wait_is_bounded_and_wake_ends_it() -> None:
    clock = RealClock()
    t0 = time.monotonic()
    clock.wait(0.01)  # nothing scheduled: at most max_seconds
    threading.Timer(0.05, clock.wake).start()
    clock.wait(10.0)
    assert time.monotonic() - t0 < 5.0


def test_a_clock_that_does_not_wake_on_schedule_waits_its_time_out() -> None:
    """``wake_on_schedule=False`` (the extender's delivery loop, which also runs the timers at
    the start of each answer): a timer set while ``wait`` blocks does not end it early."""
    clock = RealClock(wake_on_schedule=False)
    clock.schedule(30.0, lambda: None)
    threading.Timer(0.01, lambda: clock.schedule(0.0, lambda: None)).start()
    t0 = time.monotonic()
    clock.wait(0.2)
    assert time.monotonic() - t0 >= 0.15
    assert clock.run_due() == 1
