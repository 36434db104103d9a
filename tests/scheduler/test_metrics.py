"""Metrics through the public scheduler: upstream's names and labels (pkg/scheduler/metrics/
metrics.go), updated by the cycles (schedule_one.go), and per-plugin durations recorded only in
the sampled cycles (pluginMetricsSamplePercent = 10)."""

from __future__ import annotations

from typing import Any

from kubesched.framework import CycleState
from kubesched.testing.wrappers import make_node

from .env import BASIC, Env, plugin, profile
from .test_schedule_one import _node, _pod

PROFILE = {"profile": "default-scheduler"}


def test_cycle_metrics_are_updated_with_upstream_names_and_labels() -> None:
    env = Env().add(_node("n0", cpu="2"), _pod("fits"), _pod("too-big", cpu="3"))
    env.run()
    m = env.sched.metrics
    assert m.value("scheduler_schedule_attempts_total", {"result": "scheduled", **PROFILE}) == 1
    unsched = m.value("scheduler_schedule_attempts_total", {"result": "unschedulable", **PROFILE})
    assert unsched >= 1
    assert m.value("scheduler_schedule_attempts_total", {"result": "error", **PROFILE}) == 0
    assert m.value("scheduler_scheduling_attempt_duration_seconds_count",
                   {"result": "scheduled", **PROFILE}) == 1
    assert m.value("scheduler_scheduling_attempt_duration_seconds_count",
                   {"result": "unschedulable", **PROFILE}) == unsched
    assert m.value("scheduler_pod_scheduling_attempts_count") == 1
    assert m.value("scheduler_pending_pods", {"queue": "unschedulable"}) == 1
    assert m.value("scheduler_pending_pods", {"queue": "active"}) == 0
    for point in ("PreFilter", "Filter", "Reserve", "Permit", "PreBind", "Bind", "PostBind"):
        assert m.value("scheduler_framework_extension_point_duration_seconds_count",
                       {"extension_point": point, "status": "Success", **PROFILE}) >= 1, point


def test_pending_gated_pods_are_counted_under_gated() -> None:
    env = Env().add(_node("n0"), _pod("gated", scheduling_gates=["example.com/wait"]))
    env.run()
    assert env.sched.metrics.value("scheduler_pending_pods", {"queue": "gated"}) == 1


def _probe_env(seed: int, pods: int) -> tuple[Env, list[bool]]:
    sampled: list[bool] = []

    def filter_(self: Any, state: CycleState, pod: Any, node_info: Any) -> None:
        sampled.append(state.record_plugin_metrics)

    env = Env(profile(plugins=(*BASIC, "Probe")), registry={"Probe": plugin("Probe", filter=filter_)},
              seed=seed)
    big = make_node().name("n0").capacity({"cpu": "1000", "memory": "1Ti", "pods": "1000"})
    env.add(big, *(_pod(f"p{i}") for i in range(pods)))
    return env, sampled


def test_plugin_execution_duration_is_recorded_in_sampled_cycles_only() -> None:
    env, sampled = _probe_env(seed=4, pods=300)
    env.run()
    assert len(sampled) == 300  # one node, one Filter call per cycle
    # About pluginMetricsSamplePercent = 10% of the cycles are sampled.
    assert 15 <= sum(sampled) <= 45
    m = env.sched.metrics
    labels = {"plugin": "Probe", "extension_point": "Filter", "status": "Success"}
    assert m.value("scheduler_plugin_execution_duration_seconds_count", labels) == sum(sampled)
    binder = {"plugin": "DefaultBinder", "extension_point": "Bind", "status": "Success"}
    assert m.value("scheduler_plugin_execution_duration_seconds_count", binder) == sum(sampled)


def test_plugin_metrics_sampling_is_seeded_and_leaves_decisions_alone() -> None:
    a, sampled_a = _probe_env(seed=9, pods=50)
    b, sampled_b = _probe_env(seed=9, pods=50)
    a.run()
    b.run()
    assert sampled_a == sampled_b
    assert a.placements() == b.placements()


def test_pre_bind_pre_flight_duration_is_recorded() -> None:
    """RunPreBindPreFlights records its own extension point (Skip: no PreBind work here)."""
    env = Env(profile(plugins=(*BASIC, "VolumeBinding"))).add(_node("n0"), _pod("p"))
    env.run()
    assert env.sched.metrics.value("scheduler_framework_extension_point_duration_seconds_count",
                                   {"extension_point": "PreBindPreFlight", "status": "Skip", **PROFILE}) == 1
