"""The scheduler end to end on MemoryStore + VirtualClock: queue order, backoff, requeueing,
gates, failure handling, profiles, determinism (schedule_one.go, scheduler.go, eventhandlers.go)."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import pytest

from kubesched.framework import Code, Status
from kubesched.testing.wrappers import make_node, make_pod

from .env import BASIC, START, Env, Recorder, plugin, profile


def _node(name: str, cpu: str = "4", **labels: str) -> Any:
    b = make_node().name(name).capacity({"cpu": cpu, "memory": "16Gi"})
    for k, v in labels.items():
        b.label(k, v)
    return b


def _pod(name: str, cpu: str = "1", **kw: Any) -> Any:
    b = make_pod().name(name).uid(f"{name}-uid").req({"cpu": cpu})
    for k, v in kw.items():
        getattr(b, k)(v)
    return b


# -- success path ---------------------------------------------------------------------------
def test_pod_is_bound_with_scheduled_event_and_condition() -> None:
    env = Env().add(_node("n0"), _pod("p"))
    summary = env.run()
    assert env.node_of("p") == "n0"
    assert summary.scheduled == 1 and summary.attempts == 1 and summary.pending == []
    [ev] = env.events("Scheduled")
    assert ev.message == "Successfully assigned default/p to n0" and ev.type == "Normal"
    assert env.scheduled_condition("p")["status"] == "True"
    m = env.sched.metrics
    assert m.value("scheduler_schedule_attempts_total",
                   {"result": "scheduled", "profile": "default-scheduler"}) == 1
    assert m.value("scheduler_pod_scheduling_attempts_count") == 1


def test_binding_is_asynchronous_on_the_clock() -> None:
    """The next scheduling cycle starts before the previous pod's binding cycle ran: the second
    pod sees the first one only as assumed in the cache."""
    env = Env().add(_node("n0", cpu="1"), _pod("a"), _pod("b"))
    s = env.sched
    assert s.schedule_one() is True
    assert s.cycles.bindings_in_flight == 1 and env.node_of("a") == ""
    assert s.cache.is_assumed_pod(env.pod("a"))
    assert s.schedule_one() is True  # b: the assumed a takes the only cpu
    assert env.scheduled_condition("b")["reason"] == "Unschedulable"
    env.run()
    assert env.node_of("a") == "n0" and env.node_of("b") == ""
    assert not s.cache.is_assumed_pod(env.pod("a"))


def test_queue_order_priority_then_time() -> None:
    rec = Recorder()
    reg = {"Rec": plugin("Rec", filter=lambda self, st, pod, ni: rec.add("filter", pod, 0) or None)}
    env = Env(profile(plugins=(*BASIC, "Rec")), registry=reg)
    env.sched  # noqa: B018 - start watching before the pods arrive
    env.add(_node("n0", cpu="100"))
    for name, prio in (("low", 0), ("high-1", 10), ("mid", 5), ("high-2", 10)):
        env.add(_pod(name, priority=prio))
        env.clock.advance(1)
    env.run()
    assert [c[1] for c in rec.of("filter")] == ["high-1", "high-2", "mid", "low"]


# -- failure handling -------------------------------------------------------------------------
def _fixed_post_filter(msg: str) -> Any:
    return plugin("FakePreemption",
                  post_filter=lambda self, st, pod, m: (None, Status.of(Code.UNSCHEDULABLE, msg)))


def test_aggregated_failure_message_condition_and_event() -> None:
    preemption = "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling."
    env = Env(profile(plugins=(*BASIC, "FakePreemption")),
              registry={"FakePreemption": _fixed_post_filter(preemption)})
    env.add(_node("small-1", cpu="1"), _node("small-2", cpu="1"))
    for i in range(3):
        env.add(_node(f"tainted-{i}").taint("dedicated", "x"))
    env.add(_pod("p", cpu="2"))
    summary = env.run()
    want = ("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s). " + preemption)
    cond = env.scheduled_condition("p")
    assert cond["status"] == "False" and cond["reason"] == "Unschedulable" and cond["message"] == want
    [ev] = env.events("FailedScheduling")
    assert ev.type == "Warning" and ev.message == want
    assert summary.unschedulable == ["default/p"]
    assert env.sched.metrics.value("scheduler_schedule_attempts_total",
                                   {"result": "unschedulable", "profile": "default-scheduler"}) >= 1


def test_no_nodes_available() -> None:
    env = Env().add(_pod("p"))
    env.run()
    cond = env.scheduled_condition("p")
    assert cond["reason"] == "Unschedulable" and cond["message"] == "no nodes available to schedule pods"


def test_internal_error_is_scheduler_error_and_retried_with_backoff() -> None:
    calls: list[float] = []

    def boom(self: Any, st: Any, pod: Any, ni: Any) -> Status:
        calls.append(self.handle.clock.now)
        return Status.from_error(RuntimeError("kaboom"))

    env = Env(profile(plugins=(*BASIC, "Boom")), registry={"Boom": plugin("Boom", filter=boom)},
              features={"SchedulerPopFromBackoffQ": False})
    env.add(_node("n0"), _pod("p"))
    env.run(until=START + 20)
    cond = env.scheduled_condition("p")
    assert cond["reason"] == "SchedulerError"
    assert 'running "Boom" filter plugin: kaboom' in cond["message"]
    # Error backoff doubles per consecutive error (1, 2, 4, 8 s); the backoffQ flush releases
    # a pod at the first whole-second tick after its backoff ends, hence +1 s.
    assert [t - START for t in calls[:5]] == [0, 2, 5, 10, 19]


def test_an_internal_error_is_logged_with_the_pod_and_the_error(caplog: pytest.LogCaptureFixture) -> None:
    """handleSchedulingFailure: an error (not a rejection) is logged at the default level,
    "Error scheduling pod; retrying" with the pod and the error; a pod that does not fit only
    at V(2) (debug here)."""
    boom = plugin("Boom", filter=lambda self, st, pod, ni: (
        Status.from_error(RuntimeError("kaboom")) if pod.name == "p" else Status.success()))
    env = Env(profile(plugins=(*BASIC, "Boom")), registry={"Boom": boom})
    env.add(_node("n0"), _pod("p"), _pod("big", cpu="64"))
    with caplog.at_level(logging.INFO, logger="kubesched"):
        env.sched.schedule_one()
        env.sched.schedule_one()
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == ['Error scheduling pod; retrying pod="default/p" '
                      'err="running "Boom" filter plugin: kaboom"']
    assert env.scheduled_condition("big")["reason"] == "Unschedulable"
    assert not [r for r in caplog.records if "big" in r.getMessage()]  # no fit: debug only


def test_backoff_durations_per_attempt() -> None:
    """A pod rejected by a plugin and moved by an event it registered waits its backoff:
    1 s x 2^(attempts-1), capped at 10 s, released at the next whole-second flush tick
    (PopFromBackoffQ off, so that the wait is visible)."""
    tries: list[float] = []

    def reject(self: Any, st: Any, pod: Any, nodes: Any) -> tuple[None, Status]:
        tries.append(self.handle.clock.now)
        n = len(tries)
        # Each failure is followed at once by a node add, which requeues the pod via backoff.
        self.handle.clock.schedule(0, lambda: self.handle.store.create(_node(f"x{n}").obj()))
        return None, Status.of(Code.UNSCHEDULABLE, "not yet")

    env = Env(profile(plugins=(*BASIC, "Never")), registry={"Never": plugin("Never", pre_filter=reject)},
              features={"SchedulerPopFromBackoffQ": False})
    env.add(_node("n0"), _pod("p"))
    env.run(until=START + 60)
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(tries)]
    assert gaps[:6] == [2, 3, 5, 9, 11, 11]


def test_parked_pod_moves_on_node_add_not_on_unrelated_event() -> None:
    env = Env().add(_node("n0", cpu="1"), _pod("p", cpu="2"))
    env.run()
    s = env.sched
    assert [p.name for p in s.queue.unschedulable_pods()] == ["p"]
    attempts = s.cycles.stats.attempts
    # A PVC is of no interest to the plugins that rejected p (NodeResourcesFit).
    from kubesched.api import PersistentVolumeClaim

    env.store.create(PersistentVolumeClaim.from_dict({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}))
    assert [p.name for p in s.queue.unschedulable_pods()] == ["p"]
    s.schedule_pending()
    assert s.cycles.stats.attempts == attempts
    env.add(_node("big", cpu="4"))
    assert s.queue.unschedulable_pods() == []
    env.run()
    assert env.node_of("p") == "big"


def _pvc() -> Any:
    from kubesched.api import PersistentVolumeClaim

    return PersistentVolumeClaim.from_dict({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})


@pytest.mark.parametrize(("mid_cycle", "retried"), [
    pytest.param(lambda: _node("free").obj(), True, id="node added during the cycle: retried via backoffQ"),
    pytest.param(_pvc, False, id="unrelated event during the cycle: parked"),
])
def test_event_during_the_cycle_decides_the_requeue(mid_cycle: Any, retried: bool) -> None:
    """In-flight events (active_queue.go): an event that arrives while the pod is being
    scheduled, and that could help the plugin that rejected it, sends the pod to backoffQ
    instead of unschedulablePods, though the cycle's snapshot did not see it."""
    def create_once(self: Any, st: Any, pod: Any, nodes: Any) -> tuple[None, None]:
        if not getattr(self, "done", False):
            self.done = True
            self.handle.store.create(mid_cycle())
        return None, None

    from kubesched.api import Pod

    msg = "0/1 nodes are available: 1 node(s) had untolerated taint(s)."
    # The pod already carries the condition this failure writes, so that the write (an update
    # of the pod itself, which TaintToleration's hint would act on) does not happen.
    d = _pod("p").obj().to_dict()
    d.setdefault("status", {})["conditions"] = [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": msg}]
    env = Env(profile(plugins=(*BASIC, "Mid")), registry={"Mid": plugin("Mid", pre_filter=create_once)})
    env.add(_node("n0").taint("dedicated", "x"))
    env.store.create(Pod.from_dict(d))
    s = env.sched
    s.schedule_one()
    assert env.scheduled_condition("p")["message"] == msg
    assert [p.name for p in s.queue.pods_in_backoff_q()] == (["p"] if retried else [])
    assert [p.name for p in s.queue.unschedulable_pods()] == ([] if retried else ["p"])
    env.run()
    assert env.node_of("p") == ("free" if retried else "")


def test_gated_pod_waits_until_ungated() -> None:
    env = Env().add(_node("n0"), _pod("p", scheduling_gates=["example.com/gate"]))
    summary = env.run()
    assert env.node_of("p") == "" and summary.attempts == 0
    assert env.sched.queue.pending_pod_counts()["gated"] == 1
    d = env.pod("p").to_dict()
    d["spec"].pop("schedulingGates")
    from kubesched.api import Pod

    env.store.update(Pod.from_dict(d))
    env.run()
    assert env.node_of("p") == "n0"


def test_a_rejected_pod_is_not_retried_for_its_own_status_update() -> None:
    """isResourceScaleDown: the PodScheduled=False write after the failure is an update of the
    pod itself that shrinks no request, so NodeResourcesFit's hint skips it; the pod stays
    parked (it used to go to backoffQ and, activeQ empty, straight into a second attempt)."""
    env = Env().add(_node("n0", cpu="1"), _pod("p", cpu="2"))
    s = env.sched
    assert s.schedule_pending() == 1 and s.cycles.stats.attempts == 1
    assert [p.name for p in s.queue.unschedulable_pods()] == ["p"]
    assert env.scheduled_condition("p")["reason"] == "Unschedulable"


def test_deleted_pod_is_dropped() -> None:
    env = Env().add(_node("n0", cpu="1"), _pod("p", cpu="2"))
    env.run()
    env.store.delete("Pod", "default", "p", grace_period_seconds=0)
    assert env.sched.queue.pending_pods()[0] == []


def test_pods_of_unknown_scheduler_are_ignored_and_two_profiles_schedule_their_own() -> None:
    rec = Recorder()
    second = plugin("Mark", filter=lambda self, st, pod, ni: rec.add("second", pod, 0) or None)
    env = Env(profile(), profile("second-scheduler", plugins=(*BASIC, "Mark")), registry={"Mark": second})
    env.add(_node("n0"), _pod("a"), _pod("b", scheduler_name="second-scheduler"),
            _pod("c", scheduler_name="someone-else"))
    summary = env.run()
    assert env.node_of("a") == "n0" and env.node_of("b") == "n0" and env.node_of("c") == ""
    assert [c[1] for c in rec.calls] == ["b"]
    assert summary.attempts == 2 and summary.pending == []
    assert env.sched.metrics.value("scheduler_schedule_attempts_total",
                                   {"result": "scheduled", "profile": "second-scheduler"}) == 1


def test_same_seed_same_placements() -> None:
    def run(seed: int) -> dict[str, str]:
        env = Env(seed=seed)
        env.add(*[_node(f"n{i}", cpu="8") for i in range(10)])
        env.add(*[_pod(f"p{i}") for i in range(30)])
        env.run()
        return env.placements()

    first = run(42)
    assert run(42) == first
    assert all(first.values())
    assert len({n for n in first.values()}) > 1


# -- with DefaultPreemption (PostFilter) -------------------------------------------------------
def test_failure_message_with_default_preemption() -> None:
    env = Env(profile(plugins=(*BASIC, "DefaultPreemption")))
    env.add(_node("small-1", cpu="1"), _node("small-2", cpu="1"))
    for i in range(3):
        env.add(_node(f"tainted-{i}").taint("dedicated", "x"))
    env.add(_pod("p", cpu="2"))
    env.run()
    assert env.scheduled_condition("p")["message"] == (
        "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s). "
        "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")
    assert env.sched.metrics.value("scheduler_preemption_attempts_total") >= 1


def test_preemption_nominates_then_schedules_after_victim_terminates() -> None:
    env = Env(profile(plugins=(*BASIC, "DefaultPreemption")))
    env.add(_node("n0", cpu="2"), _pod("low-1", priority=1), _pod("low-2", priority=1))
    env.run()
    assert env.node_of("low-1") == "n0" and env.node_of("low-2") == "n0"
    env.add(_pod("high", priority=100).termination_grace_period(30))
    s = env.sched
    s.schedule_pending()
    env.clock.run(until=env.clock.now)  # preemption's API calls run as tasks on the clock
    # The failed attempt nominated n0 (status.nominatedNodeName) and evicted one victim.
    assert env.pod("high").nominated_node_name == "n0"
    assert env.scheduled_condition("high")["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    [pre] = env.events("Preempted")
    victim = pre.involved_name
    assert env.pod(victim).is_terminating
    env.run()
    assert env.node_of("high") == "n0"
    assert env.store.try_get("Pod", "default", victim) is None
    assert s.metrics.value("scheduler_preemption_victims_count") == 1
    [ev] = env.events("Scheduled", name="high")
    assert ev.last_timestamp == START + 30  # after the victim's graceful termination


def test_default_configuration_without_a_file() -> None:
    """No config: upstream's default profile (every default plugin) schedules and reports."""
    from kubesched.clock import VirtualClock
    from kubesched.cluster import MemoryStore
    from kubesched.scheduler import Scheduler

    clock = VirtualClock(START)
    store = MemoryStore(clock)
    for i in range(2):
        store.create(_node(f"n{i}", cpu="2").obj())
    for i in range(5):
        store.create(_pod(f"p{i}").obj())
    sched = Scheduler(store, clock, seed=3)
    assert list(sched.profiles) == ["default-scheduler"]
    summary = sched.run_until_idle()
    assert summary.scheduled == 4 and summary.unschedulable == ["default/p4"]
    cond = store.get("Pod", "default", "p4").condition("PodScheduled")
    assert cond["message"] == ("0/2 nodes are available: 2 Insufficient cpu. "
                               "no new claims to deallocate, preemption: 0/2 nodes are "
                               "available: 2 No preemption victims found for incoming pod.")


def test_failure_without_post_filter_clears_the_nomination() -> None:
    """clearNominatedNode: a failed cycle without PostFilter plugins clears nominatedNodeName."""
    env = Env().add(_node("n0", cpu="1"), _pod("p", cpu="2", nominated_node_name="n0"))
    env.run()
    assert env.pod("p").nominated_node_name == ""
    assert env.sched.queue.nominator.nominated_pods("n0") == []


def test_event_and_status_writes_that_fail_are_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """recordEvent / updatePod failures are logged upstream, never raised: the pod still binds
    (event write failing) and still goes back to the queue (status patch failing)."""
    env = Env().add(_node("n0", cpu="1"), _pod("fits"), _pod("big", cpu="2"))

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("store unavailable")

    monkeypatch.setattr(env.store, "record_event", refuse)
    monkeypatch.setattr(env.store, "patch_pod_status", refuse)
    env.run()
    assert env.pod("fits").node_name == "n0"
    assert env.pod("big").node_name == "" and env.pod("big").condition("PodScheduled") is None
