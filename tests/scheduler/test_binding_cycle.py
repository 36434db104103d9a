"""The binding cycle and what surrounds it: Permit wait/allow/reject/timeout, Unreserve and
forget on bind failure, assumed-pod expiry, Reserve rejection (schedule_one.go bindingCycle,
handleBindingCycleError)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from kubesched.framework import Code, Status

from .env import BASIC, START, Env, Recorder, plugin, profile
from .test_schedule_one import _node, _pod


def _waiter(timeout: float = 10.0) -> Any:
    return plugin("Waiter", permit=lambda self, st, pod, node: (Status.of(Code.WAIT), timeout))


def _permit_env(**kw: Any) -> Env:
    env = Env(profile(plugins=(*BASIC, "Waiter")), registry={"Waiter": _waiter(**kw)})
    env.add(_node("n0"), _pod("p"))
    return env


def test_permit_wait_then_allow() -> None:
    env = _permit_env()
    s = env.sched
    s.clock.schedule(3, lambda: s.profiles["default-scheduler"].get_waiting_pod("p-uid").allow("Waiter"))
    env.run()
    assert env.node_of("p") == "n0"
    [ev] = env.events("Scheduled")
    assert ev.last_timestamp == START + 3


def test_permit_wait_does_not_block_the_next_cycle() -> None:
    env = _permit_env()
    env.add(_pod("q", scheduler_name="default-scheduler"))
    s = env.sched
    assert s.schedule_one() and s.schedule_one()
    assert s.cycles.stats.attempts == 2  # q's cycle ran while p waits on Permit
    assert s.cycles.bindings_in_flight == 2


def test_permit_wait_then_reject() -> None:
    env = _permit_env()
    s = env.sched
    fwk = s.profiles["default-scheduler"]
    s.clock.schedule(2, lambda: fwk.get_waiting_pod("p-uid").reject("Waiter", "no way"))
    s.schedule_one()
    s.clock.run(until=START + 2)  # the binding cycle waits, then the rejection arrives
    assert env.node_of("p") == ""
    cond = env.scheduled_condition("p")
    assert cond["reason"] == "Unschedulable" and cond["message"] == "0/1 nodes are available: 1 no way."
    assert not s.cache.is_assumed_pod(env.pod("p"))
    assert s.queue.get_pod("p", "default").unschedulable_plugins == {"Waiter"}


def test_permit_timeout() -> None:
    env = _permit_env(timeout=10)
    env.sched.schedule_one()
    env.clock.run(until=START + 10)
    cond = env.scheduled_condition("p")
    assert cond["message"] == ("0/1 nodes are available: 1 rejected due to timeout after waiting 10s "
                               "at plugin Waiter.")
    [ev] = env.events("FailedScheduling")
    assert ev.last_timestamp == START + 10


def test_permit_rejection_in_the_scheduling_cycle_unreserves() -> None:
    rec = Recorder()
    reg = {"Res": plugin("Res", reserve=lambda self, st, pod, node: rec.add("reserve", pod, 0),
                         unreserve=lambda self, st, pod, node: rec.add("unreserve", pod, 0)),
           "Deny": plugin("Deny", permit=lambda self, st, pod, node: (
               Status.of(Code.UNSCHEDULABLE, "denied"), 0))}
    env = Env(profile(plugins=(*BASIC, "Res", "Deny")), registry=reg)
    env.add(_node("n0"), _pod("p"))
    env.sched.schedule_one()
    assert [c[0] for c in rec.calls] == ["reserve", "unreserve"]
    assert env.scheduled_condition("p")["message"] == "0/1 nodes are available: 1 denied."
    assert not env.sched.cache.is_assumed_pod(env.pod("p"))


@pytest.mark.parametrize(("code", "reason"), [
    pytest.param(Code.UNSCHEDULABLE, "Unschedulable", id="reserve rejects"),
    pytest.param(Code.ERROR, "SchedulerError", id="reserve errors"),
])
def test_reserve_failure(code: Code, reason: str) -> None:
    rec = Recorder()
    reg = {"Res": plugin("Res", reserve=lambda self, st, pod, node: Status.of(code, "no room"),
                         unreserve=lambda self, st, pod, node: rec.add("unreserve", pod, 0))}
    env = Env(profile(plugins=(*BASIC, "Res")), registry=reg)
    env.add(_node("n0"), _pod("p"))
    env.sched.schedule_one()
    assert rec.of("unreserve") == [("unreserve", "p", 0)]
    assert env.scheduled_condition("p")["reason"] == reason
    assert env.sched.cache.get_pod(env.pod("p")) is None


def test_bind_failure_unreserves_forgets_and_requeues(caplog: pytest.LogCaptureFixture) -> None:
    rec = Recorder()
    attempts: list[float] = []

    def bind(self: Any, st: Any, pod: Any, node: str) -> Status:
        attempts.append(self.handle.clock.now)
        if len(attempts) == 1:
            return Status.from_error(RuntimeError("apiserver unavailable"))
        self.handle.store.bind(pod.namespace, pod.name, node)
        return Status.success()

    reg = {"Res": plugin("Res", reserve=lambda self, st, pod, node: None,
                         unreserve=lambda self, st, pod, node: rec.add("unreserve", pod, 0)),
           "FlakyBinder": plugin("FlakyBinder", bind=bind)}
    plugins = (*(p for p in BASIC if p != "DefaultBinder"), "Res", "FlakyBinder")
    env = Env(profile(plugins=plugins), registry=reg)
    env.add(_node("n0"), _pod("p"))
    s = env.sched
    s.schedule_one()
    assert s.cache.is_assumed_pod(env.pod("p"))
    with caplog.at_level(logging.INFO, logger="kubesched"):
        s.clock.step()  # the binding cycle
    # finishBinding's line, then the failure handler's error with the pod and the error
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("INFO", 'Failed to bind pod pod="default/p" node="n0"'),
        ("ERROR", 'Error scheduling pod; retrying pod="default/p" '
                  'err="running Bind plugin "FlakyBinder": apiserver unavailable"')]
    assert rec.of("unreserve") == [("unreserve", "p", 0)]
    assert s.cache.get_pod(env.pod("p")) is None  # forgotten
    cond = env.scheduled_condition("p")
    assert cond["reason"] == "SchedulerError"
    assert cond["message"] == 'running Bind plugin "FlakyBinder": apiserver unavailable'
    assert [p.name for p in s.queue.pods_in_backoff_q()] == ["p"]
    env.run()
    assert env.node_of("p") == "n0" and len(attempts) == 2


def test_assumed_pod_expires_when_binding_never_lands() -> None:
    """With a positive assumed-pod TTL (older upstream behaviour), a pod whose Bind returned
    success but never showed up bound is removed from the cache after the TTL."""
    reg = {"LostBinder": plugin("LostBinder", bind=lambda self, st, pod, node: Status.success())}
    plugins = (*(p for p in BASIC if p != "DefaultBinder"), "LostBinder")
    env = Env(profile(plugins=plugins), registry=reg, options={"assumed_pod_ttl": 30.0})
    env.add(_node("n0", cpu="1"), _pod("p"))
    s = env.sched
    s.schedule_one()
    s.clock.step()  # binding cycle: "bound", FinishBinding starts the TTL
    assert s.cache.is_assumed_pod(env.pod("p"))
    s.clock.advance(29)
    assert s.cache.is_assumed_pod(env.pod("p"))
    s.clock.advance(1)
    assert not s.cache.is_assumed_pod(env.pod("p"))
    assert s.cache.get_node_info("n0").requested.get("cpu", 0) == 0


def test_deleting_a_pod_waiting_on_permit_rejects_it_and_frees_the_node() -> None:
    env = _permit_env(timeout=100)
    s = env.sched
    s.schedule_one()
    s.clock.step()  # the binding cycle now waits on Permit
    assert s.profiles["default-scheduler"].get_waiting_pod("p-uid") is not None
    pod = env.pod("p")
    env.store.delete("Pod", "default", "p")  # not bound yet: deleted at once
    assert s.profiles["default-scheduler"].get_waiting_pod("p-uid") is None
    assert s.cache.get_pod(pod) is None
    assert s.cache.get_node_info("n0").requested.get("cpu", 0) == 0
    env.run()
    assert env.store.try_get("Pod", "default", "p") is None
    assert env.events("Scheduled") == []


def test_pod_deleted_during_its_cycle_is_dropped() -> None:
    def delete_me(self: Any, st: Any, pod: Any, nodes: Any) -> tuple[None, Status]:
        self.handle.store.delete("Pod", pod.namespace, pod.name, grace_period_seconds=0)
        return None, Status.of(Code.UNSCHEDULABLE, "gone")

    env = Env(profile(plugins=(*BASIC, "Del")), registry={"Del": plugin("Del", pre_filter=delete_me)})
    env.add(_node("n0"), _pod("p"))
    summary = env.run()
    assert summary.attempts == 1 and summary.pending == []
    assert env.events("FailedScheduling") == []
