"""The bench's paced clock: virtual time keeps up with (fake) wall time during measured ops, idle
jumps count as time passed, and a recorded run replays at the same loop steps."""

from __future__ import annotations

from kubesched.clock import VirtualClock
from kubesched.perf._pacer import WallPacer


class FakeWall:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_inactive_pacer_leaves_the_clock_alone() -> None:
    clock, wall = VirtualClock(5.0), FakeWall()
    pacer = WallPacer(clock, wall=wall)
    wall.t += 3.0
    pacer.catch_up(1)
    assert clock.now == 5.0 and pacer.moves == []


def test_clock_catches_up_with_wall_time_and_fires_due_timers() -> None:
    clock, wall = VirtualClock(5.0), FakeWall()
    fired: list[float] = []
    clock.schedule(1.0, lambda: fired.append(clock.now))  # a backoff expiring at 6.0
    pacer = WallPacer(clock, wall=wall)
    pacer.start()
    wall.t += 0.5
    pacer.catch_up(1)
    assert clock.now == 5.5 and fired == []
    wall.t += 0.75  # the backoff came due while the burst went on
    pacer.catch_up(2)
    assert fired == [6.0] and clock.now == 6.25
    assert pacer.moves == [(1, 5.5), (2, 6.25)]
    pacer.stop()
    wall.t += 10.0
    pacer.catch_up(3)
    assert clock.now == 6.25  # outside measured ops the clock is virtual again


def test_idle_jump_counts_as_harness_time() -> None:
    clock, wall = VirtualClock(0.0), FakeWall()
    pacer = WallPacer(clock, wall=wall)
    pacer.start()
    start = pacer.harness_time()
    wall.t += 0.5
    pacer.catch_up(1)
    pacer.skip_to(2.0)  # nothing to schedule: the runner jumps to the timer due at 2.0
    clock.run(until=2.0)
    assert pacer.harness_time() - start == 2.0  # 0.5 s of work, then 1.5 s idle
    wall.t += 0.25
    pacer.catch_up(2)
    assert clock.now == 2.25  # virtual time stays level with harness time after the jump
    pacer.skip_to(1.0)  # a timer already due is no jump
    assert pacer.skipped == 1.5


def test_replay_moves_the_clock_at_the_recorded_steps_whatever_the_wall_says() -> None:
    clock, wall = VirtualClock(0.0), FakeWall()
    fired: list[float] = []
    clock.schedule(1.0, lambda: fired.append(clock.now))
    pacer = WallPacer(clock, replay=[(2, 0.5), (4, 1.5)], wall=wall)
    pacer.start()
    wall.t += 50.0  # a slower second run: its own wall time must not matter
    pacer.catch_up(1)
    assert clock.now == 0.0
    pacer.catch_up(2)
    assert clock.now == 0.5 and fired == []
    pacer.catch_up(3)
    pacer.catch_up(4)
    assert clock.now == 1.5 and fired == [1.0]
    assert pacer.moves == []  # a replay records nothing of its own


def test_unpaced_pacer_never_moves_the_clock() -> None:
    clock, wall = VirtualClock(0.0), FakeWall()
    pacer = WallPacer(clock, wall=wall, paced=False)
    pacer.start()
    wall.t += 2.0
    pacer.catch_up(1)
    pacer.skip_to(5.0)
    assert clock.now == 0.0 and pacer.moves == [] and pacer.skipped == 0.0
