"""Time for the scheduler: a deterministic virtual clock for simulation, a real one for live mode.

Shaped after SimPy's Environment (src/simpy/core.py): a read-only ``now``, a heap of timers keyed
by (time, sequence) so that timers due at the same instant fire in the order they were set,
``schedule``/``peek``/``step``/``run``. Queue backoff, permit timeouts, assumed-pod expiry and
graceful termination all receive a clock; nothing in kubesched sleeps or reads the wall clock.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Clock", "RealClock", "Timer", "VirtualClock"]


@dataclass(order=True, slots=True)
class Timer:
    """A callback due at ``when``; ``cancel()`` makes it a no-op when it comes due."""

    when: float
    seq: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class Clock(Protocol):
    """What the scheduler needs of time."""

    @property
    def now(self) -> float: ...

    def schedule(self, delay: float, callback: Callable[[], None]) -> Timer: ...


class VirtualClock:
    """Time moves only when the simulation steps to the next due timer; deterministic."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._heap: list[Timer] = []
        self._seq = itertools.count()

    @property
    def now(self) -> float:
        return self._now

    def schedule(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` ``delay`` seconds from now. A negative delay is an error."""
        if delay < 0:
            raise ValueError(f"cannot schedule in the past (delay {delay})")
        t = Timer(self._now + delay, next(self._seq), callback)
        heapq.heappush(self._heap, t)
        return t

    def peek(self) -> float:
        """Time of the next live timer, ``math.inf`` when none."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].when if self._heap else math.inf

    def step(self) -> bool:
        """Advance to the next timer and fire it; False when no timer is left."""
        if self.peek() == math.inf:
            return False
        t = heapq.heappop(self._heap)
        self._now = max(self._now, t.when)
        t.callback()
        return True

    def run_due(self) -> int:
        """Fire every timer due by now, in order; how many ran (as :meth:`RealClock.run_due`)."""
        n = 0
        while self.peek() <= self._now:
            self.step()
            n += 1
        return n

    def wait_next(self, max_seconds: float) -> None:
        """Time passes until the next timer, which fires (the scheduler's loop, idle): the
        virtual clock jumps there at once (``max_seconds`` is a real clock's bound)."""
        self.step()

    def advance(self, seconds: float) -> None:
        """Run every timer due within ``seconds`` and leave ``now`` at now+seconds."""
        self.run(until=self._now + seconds)

    def run(self, until: float | None = None) -> None:
        """Fire timers in order until none is left or the next is after ``until``."""
        if until is not None and until < self._now:
            raise ValueError(f"until ({until}) must not be before now ({self._now})")
        while True:
            nxt = self.peek()
            if nxt == math.inf or (until is not None and nxt > until):
                break
            self.step()
        if until is not None:
            self._now = until


class RealClock:
    """Wall-clock time for live mode, with the timers run by the scheduler's loop thread.

    Like SimPy's real-time environment (simpy/rt.py), only the waiting differs from the
    virtual clock: ``schedule`` may be called from any thread (informers, binding workers)
    and wakes the loop; the loop calls ``run_due`` to fire what is due, on its own thread, and
    ``wait`` to block until the next timer or until something is scheduled. Timers never run
    on other threads, so scheduler state is only touched by the loop."""

    def __init__(self, wake_on_schedule: bool = True) -> None:
        self._seq = itertools.count()
        self._heap: list[Timer] = []
        self._lock = threading.Lock()
        self._wakeup = threading.Event()
        self._wake_on_schedule = wake_on_schedule
        """False: ``schedule`` does not wake a ``wait`` in progress (a loop that also runs
        ``run_due`` at other moments and polls, trading the loop's promptness for one thread
        wake-up less per timer)."""

    @property
    def now(self) -> float:
        return time.time()

    def schedule(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` on the loop thread ``delay`` seconds from now (thread-safe)."""
        if delay < 0:
            raise ValueError(f"cannot schedule in the past (delay {delay})")
        t = Timer(self.now + delay, next(self._seq), callback)
        with self._lock:
            heapq.heappush(self._heap, t)
        if self._wake_on_schedule:
            self._wakeup.set()
        return t

    def peek(self) -> float:
        """Time of the next live timer, ``math.inf`` when none."""
        with self._lock:
            while self._heap and self._heap[0].cancelled:
                heapq.heappop(self._heap)
            return self._heap[0].when if self._heap else math.inf

    def run_due(self) -> int:
        """Fire every timer due by now, in order (on the calling thread); how many ran."""
        n = 0
        while True:
            with self._lock:
                while self._heap and self._heap[0].cancelled:
                    heapq.heappop(self._heap)
                if not self._heap or self._heap[0].when > self.now:
                    return n
                t = heapq.heappop(self._heap)
            t.callback()
            n += 1

    def wait(self, max_seconds: float) -> None:
        """Block until the next timer is due, something is scheduled, or ``wake`` is called
        (at most ``max_seconds``)."""
        self._wakeup.clear()
        timeout = min(max_seconds, max(0.0, self.peek() - self.now))
        if timeout > 0:
            self._wakeup.wait(timeout)

    def wake(self) -> None:
        """Make a ``wait`` in progress return now (e.g. to stop)."""
        self._wakeup.set()

    def wait_next(self, max_seconds: float) -> None:
        """Time passes until the next timer, which fires with any other then due (the
        scheduler's loop, idle): ``wait`` (at most ``max_seconds``), then ``run_due``."""
        self.wait(max_seconds)
        self.run_due()
