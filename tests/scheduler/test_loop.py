"""The scheduler's one run loop (``kubesched.scheduler.run``): the same turns on a virtual and a
real clock; how a run on a virtual clock ends (no timer left, ``until``, the fixed point, a
``wake`` from outside the loop) and what its hooks are told."""

from __future__ import annotations

import threading

import pytest

from kubesched.clock import RealClock, VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.scheduler import FIXED_POINT_HORIZON, Scheduler, run
from kubesched.testing.wrappers import make_node, make_pod

from .env import START, Env


def _env_with_pods(n: int, fits: bool = True) -> Env:
    env = Env().add(make_node().name("n1").capacity({"cpu": "4", "pods": "110"}))
    for i in range(n):
        env.add(make_pod().name(f"p{i}").uid(f"p{i}-uid").req({"cpu": "1" if fits else "8"}))
    return env


def test_a_virtual_run_schedules_everything_and_ends_when_no_timer_is_left() -> None:
    env = _env_with_pods(3)
    steps: list[float] = []
    run(env.sched, before_step=steps.append)
    assert all(env.node_of(f"p{i}") == "n1" for i in range(3))
    assert steps and steps == sorted(steps)  # told of each move of the clock, in order


def test_the_fixed_point_ends_a_run_whose_pod_can_never_fit() -> None:
    """A pod that fits nowhere is retried by the periodic flushes forever; the run ends once
    the next timer is more than the horizon after the last change in the cluster."""
    env = _env_with_pods(1, fits=False)
    run(env.sched)
    assert not env.pod("p0").node_name
    assert env.clock.now - env.sched.last_progress <= FIXED_POINT_HORIZON
    assert env.clock.peek() - env.sched.last_progress > FIXED_POINT_HORIZON
    assert FIXED_POINT_HORIZON == 330.0  # podMaxInUnschedulablePodsDuration (5 min) + one 30 s flush


def test_until_bounds_a_run_and_leaves_the_clock_at_its_last_timer() -> None:
    env = _env_with_pods(1, fits=False)
    run(env.sched, START + 100.0, fixed_point=False)
    assert env.clock.now <= START + 100.0 < env.clock.peek()


def test_wake_moves_the_clock_to_work_outside_the_fixed_point() -> None:
    """``wake`` (the controllers, the simulated kubelet) is asked once the loop has settled;
    the clock moves there and the run goes on."""
    env = _env_with_pods(1, fits=False)
    later = START + 10_000.0
    woken: list[float] = []

    def wake() -> float:
        if woken:
            return float("inf")
        woken.append(env.clock.now)
        return later

    steps: list[float] = []
    run(env.sched, wake=wake, before_step=steps.append)
    assert woken and later in steps and env.clock.now >= later


def test_stop_and_the_hooks_are_asked_at_every_turn() -> None:
    env = _env_with_pods(3)
    turns = [0]

    def before_cycle() -> None:
        turns[0] += 1

    run(env.sched, stop=lambda: turns[0] >= 2, before_cycle=before_cycle)
    assert turns[0] == 2
    assert env.sched.cycles.stats.attempts == 2  # one scheduling cycle per turn


def test_due_after_cycle_binds_each_pod_before_the_next_cycle() -> None:
    """As the bench and the live loop run it: the binding cycle (a timer due now) runs right
    after its scheduling cycle, where a settling simulation lets them wait until activeQ is
    empty."""
    env = _env_with_pods(2)
    bound_at_second_attempt: list[bool] = []

    def before_cycle() -> None:
        if env.sched.cycles.stats.attempts == 1:
            bound_at_second_attempt.append(bool(env.pod("p0").node_name or env.pod("p1").node_name))

    run(env.sched, before_cycle=before_cycle, due_after_cycle=True)
    assert bound_at_second_attempt[:1] == [True]


def test_a_real_clock_runs_the_same_loop_until_stopped() -> None:
    clock = RealClock()
    store = MemoryStore(clock)
    store.create(make_node().name("n1").capacity({"cpu": "4", "pods": "110"}).obj())
    sched = Scheduler(store, clock)
    stop = threading.Event()
    try:
        store.create(make_pod().name("p").uid("p-uid").req({"cpu": "1"}).obj())

        def bound() -> bool:
            done = bool(store.get("Pod", "default", "p").node_name)
            if done:
                stop.set()
            return done

        clock.schedule(0.0, bound)
        ticks = threading.Timer(10.0, lambda: (stop.set(), clock.wake()))
        ticks.start()
        run(sched, stop=lambda: stop.is_set() or bound(), due_after_cycle=True)
        ticks.cancel()
        assert store.get("Pod", "default", "p").node_name == "n1"
    finally:
        sched.close()


def test_another_clock_is_refused() -> None:
    class Fixed:
        now = 0.0

        def schedule(self, delay: float, callback: object) -> None:
            raise AssertionError

    env = Env()
    env.sched.clock = Fixed()  # type: ignore[assignment]
    with pytest.raises(TypeError, match="VirtualClock or a RealClock"):
        run(env.sched)
    assert isinstance(env.clock, VirtualClock)
