"""Scheduler.cycles.attempt_hook: told of each attempt and each failed one, it can stop the run loop
just before an attempt, with the pod popped and the cluster as it was at that moment."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubesched.framework import QueuedPodInfo, Status
from kubesched.testing.wrappers import make_node, make_pod

from .env import Env


@dataclass
class _Hook:
    stop_at: str = ""
    seen: list[tuple[str, int]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def before_attempt(self, pinfo: QueuedPodInfo) -> bool:
        self.seen.append((pinfo.pod.name, pinfo.attempts))
        return pinfo.pod.name == self.stop_at

    def attempt_failed(self, pinfo: QueuedPodInfo, status: Status) -> None:
        self.failed.append((pinfo.pod.name, status.message()))


def _pod(name: str, cpu: str, priority: int) -> Any:
    return make_pod().name(name).uid(f"{name}-uid").req({"cpu": cpu}).priority(priority)


def _env() -> Env:
    # One 2-cpu node; by priority: a (1 cpu) fits, b (2 cpu) does not, c (1 cpu) fits.
    return Env().add(make_node().name("n0").capacity({"cpu": "2", "memory": "4Gi"}),
                     _pod("a", "1", 30), _pod("b", "2", 20), _pod("c", "1", 10))


def test_hook_sees_every_attempt_and_each_failure_without_changing_them() -> None:
    env = _env()
    hook = _Hook()
    env.sched.cycles.attempt_hook = hook
    summary = env.run()
    assert [name for name, _ in hook.seen][:3] == ["a", "b", "c"]
    assert [name for name, _ in hook.failed] == ["b"] * summary.unschedulable_attempts
    assert hook.failed[0][1].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert (env.node_of("a"), env.node_of("b"), env.node_of("c")) == ("n0", "", "n0")
    assert env.sched.cycles.stopped_before is None


def test_hook_stops_the_run_before_the_attempt() -> None:
    env = _env()
    hook = _Hook(stop_at="c")
    env.sched.cycles.attempt_hook = hook
    summary = env.run()
    stopped = env.sched.cycles.stopped_before
    assert stopped is not None and stopped.pod.name == "c"
    assert hook.seen == [("a", 1), ("b", 1), ("c", 1)]
    # c's cycle never ran; a's binding cycle (a task on the clock) did not run either.
    assert summary.attempts == 2 and env.node_of("c") == "" and env.node_of("a") == ""
    assert env.sched.cache.is_assumed_pod(env.pod("a"))
    # Stopped for good: no more cycles, whatever is queued.
    assert env.sched.schedule_one() is False and env.sched.run_until_idle().attempts == 2
