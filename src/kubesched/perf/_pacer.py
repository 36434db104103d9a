"""Virtual time that keeps pace with the wall clock while measured pods are scheduled.

Upstream's scheduler_perf runs kube-scheduler in real time: a pod's backoff (1 s, doubling),
a preemption victim's deletion and the periodic flushes come due while other pods are being
scheduled. The bench runs on a :class:`~kubesched.clock.VirtualClock`, which moves only when
activeQ is empty; left alone, no timer would fire during a burst of measured pods, and a pod
that failed early in a burst would wait out the whole burst before its backoff could expire.

During measured ops the :class:`WallPacer` moves the virtual clock up to the harness time
(wall time since the op started, plus idle time skipped, below) before each scheduling cycle, so
that timers fire when they would have in real time. When nothing is left to schedule and the
next timer lies ahead, the runner jumps to it instead of waiting; the jump is added to the
harness time (``skipped``), which is what the throughput samples are measured in: the figure
counts that wait as upstream's scheduler would spend it, idle, without the run lasting longer.

Pacing makes decisions depend on how fast the machine is (which pods a backoff expiry
interleaves with), as they do upstream. Each move is recorded as (loop step, virtual time), so
that ``check_decisions`` replays the first run's clock in the second, as it replays churn ticks.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence

from ..clock import VirtualClock

__all__ = ["WallPacer"]


class WallPacer:
    """Keeps ``clock`` level with the harness time between :meth:`start` and :meth:`stop`;
    ``replay`` (a previous run's :attr:`moves`) sets the clock at the same loop steps instead.
    With ``paced=False`` it never moves the clock (the harness time is then wall time)."""

    def __init__(self, clock: VirtualClock, replay: Sequence[tuple[int, float]] | None = None,
                 wall: Callable[[], float] = time.perf_counter, paced: bool = True) -> None:
        self.clock = clock
        self.paced = paced
        self._wall = wall
        self._replay = deque(replay) if replay is not None else None
        self.moves: list[tuple[int, float]] = []
        """(loop step, virtual time) of every move made while live, in order."""
        self.skipped = 0.0
        """Idle seconds jumped over so far (all measured ops together)."""
        self.active = False
        self._origin = 0.0  # virtual time minus harness time, fixed while active

    def harness_time(self) -> float:
        """Wall time plus the idle time skipped: the throughput collector's clock."""
        return self._wall() + self.skipped

    def start(self) -> None:
        self.active = self.paced
        self._origin = self.clock.now - self.harness_time()

    def stop(self) -> None:
        self.active = False

    def catch_up(self, step: int) -> None:
        """Before loop step ``step``: fire the timers due by now and move the clock to now."""
        if not self.active:
            return
        if self._replay is not None:
            while self._replay and self._replay[0][0] <= step:
                _, when = self._replay.popleft()
                self._move(when)
            return
        target = self._origin + self._wall() + self.skipped  # harness_time(), inlined: every step
        if target > self.clock.now:
            self.moves.append((step, target))
            self.clock.run(until=target)

    def skip_to(self, when: float) -> None:
        """The runner is about to jump, idle, to the timer due at ``when``: count the jump as
        time that passed."""
        if self.active and self._replay is None:
            ahead = when - (self._origin + self.harness_time())
            if ahead > 0:
                self.skipped += ahead

    def _move(self, when: float) -> None:
        if when > self.clock.now:
            self.clock.run(until=when)
