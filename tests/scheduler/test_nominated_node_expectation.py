"""NominatedNodeNameForExpectation (KEP-5278, beta, on by default): the binding cycle sets
``status.nominatedNodeName`` to the chosen node before WaitOnPermit / PreBind when either will
take a while (schedule_one.go bindingCycle), and a binding failure clears it again
(clearNominatedNode, kubernetes#135007) as upstream's updatePod does: against the pod as
popped, so only from the second failure in a row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kubesched.framework import Code, Status

from .env import BASIC, START, Env, plugin, profile
from .test_schedule_one import _node, _pod


def _watch_nominations(env: Env, pod: str) -> list[str]:
    """Every nominatedNodeName value ``pod`` is written with, in order."""
    seen: list[str] = []

    def on_event(ev: Any) -> None:
        if (ev.kind == "Pod" and ev.type == "MODIFIED" and ev.new.name == pod
                and ev.new.nominated_node_name != ev.old.nominated_node_name):
            seen.append(ev.new.nominated_node_name)

    env.store.subscribe(on_event)
    return seen


def _condition(env: Env) -> Mapping[str, Any]:
    cond = env.scheduled_condition("p")
    assert cond is not None
    return cond


def _waiter_env(features: dict[str, bool] | None = None) -> Env:
    waiter = plugin("Waiter", permit=lambda self, st, pod, node: (Status.of(Code.WAIT), 10.0))
    env = Env(profile(plugins=(*BASIC, "Waiter")), registry={"Waiter": waiter}, features=features)
    return env.add(_node("n0"), _pod("p"))


@pytest.mark.parametrize(("features", "want"), [
    pytest.param(None, "n0", id="enabled by default: nominated while waiting on permit"),
    pytest.param({"NominatedNodeNameForExpectation": False}, "", id="feature disabled"),
])
def test_waiting_on_permit_sets_the_nominated_node(features: dict[str, bool] | None, want: str) -> None:
    env = _waiter_env(features)
    s = env.sched
    s.schedule_one()
    env.clock.run(until=START + 1)  # the binding cycle starts and waits on Permit
    assert env.pod("p").nominated_node_name == want
    s.profiles["default-scheduler"].get_waiting_pod("p-uid").allow("Waiter")
    env.run()
    assert env.node_of("p") == "n0"
    assert env.pod("p").nominated_node_name == ""  # binding clears it (KEP-5278)


def test_a_failed_binding_cycle_leaves_its_nomination_to_the_next_failure() -> None:
    """clearNominatedNode after a binding failure goes through updatePod with the pod as popped,
    which lacks the nomination this binding cycle wrote: the first failure leaves it (the real
    v1.35.4 does, live; kubernetes/enhancements#5771 describes it), the next failure in a row,
    whose popped pod carries it, clears it."""
    env = _waiter_env()
    seen = _watch_nominations(env, "p")
    s = env.sched
    fwk = s.profiles["default-scheduler"]
    env.clock.schedule(2, lambda: fwk.get_waiting_pod("p-uid").reject("Waiter", "no"))
    s.schedule_one()
    env.clock.run(until=START + 2)
    assert seen == ["n0"]
    assert _condition(env)["reason"] == "Unschedulable"
    # the pod's update (its nominatedNodeName kept) nominates it again in the queue
    assert [p.name for p in s.queue.nominator.nominated_pods("n0")] == ["p"]
    # the retry (nominated already: nothing written) waits on Permit and times out: cleared;
    # the next retry nominates again
    env.run(until=START + 20)
    assert seen == ["n0", "", "n0"]


def _pre_bind_env(pre_flight: Status | None, calls: list[str]) -> Env:
    def pre_bind(self: Any, st: Any, pod: Any, node: str) -> None:
        live = self.handle.store.get("Pod", pod.namespace, pod.name)
        calls.append(f"pre_bind nnn={live.nominated_node_name}")

    pb = plugin("PB", pre_bind_pre_flight=lambda self, st, pod, node: pre_flight, pre_bind=pre_bind)
    env = Env(profile(plugins=(*BASIC, "PB")), registry={"PB": pb})
    return env.add(_node("n0"), _pod("p"))


@pytest.mark.parametrize(("pre_flight", "want_calls", "want_seen"), [
    pytest.param(None, ["pre_bind nnn=n0"], ["n0", ""], id="PreBind has work: nominated before it runs"),
    pytest.param(Status.of(Code.SKIP), [], [], id="pre-flight skip: PreBind skipped, no nomination"),
])
def test_pre_bind_pre_flight(pre_flight: Status | None, want_calls: list[str], want_seen: list[str]) -> None:
    calls: list[str] = []
    env = _pre_bind_env(pre_flight, calls)
    seen = _watch_nominations(env, "p")
    env.run()
    assert env.node_of("p") == "n0"
    assert calls == want_calls
    assert seen == want_seen


def test_unsupported_pre_flight_status_is_a_binding_error() -> None:
    env = _pre_bind_env(Status.of(Code.UNSCHEDULABLE, "nope"), [])
    s = env.sched
    s.schedule_one()
    env.clock.step()  # the binding cycle
    cond = _condition(env)
    assert cond["reason"] == "SchedulerError"
    assert "PreBindPreFlight PB returned" in cond["message"]
    assert not s.cache.is_assumed_pod(env.pod("p"))
    assert [p.name for p in s.queue.pods_in_backoff_q()] == ["p"]


def test_no_nomination_when_binding_is_immediate() -> None:
    """Default plugins, a pod without volumes: VolumeBinding's pre-flight says Skip and nothing
    waits, so nominatedNodeName is never written."""
    env = Env(profile(plugins=(*BASIC, "VolumeBinding"))).add(_node("n0"), _pod("p"))
    seen = _watch_nominations(env, "p")
    env.run()
    assert env.node_of("p") == "n0" and seen == []
