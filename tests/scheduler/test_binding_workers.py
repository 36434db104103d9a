"""Live mode's binding workers (``SchedulerOptions(binding="thread")``): as many binding cycles
in flight at once as BINDING_WORKERS, upstream's one goroutine per binding. A binding POST
waits milliseconds on the API server; with too few workers the bindings queue behind each other
and the scheduler falls seconds behind a burst of pod creations."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kubesched.framework import Status
from kubesched.scheduler import BindingMode, SchedulerOptions

from .env import Env, plugin, profile
from .test_schedule_one import _node, _pod

IN_FLIGHT = 64
"""The binding cycles the live benchmark needs in flight to keep up with 700 pod creations a
second on a loaded API server (see docs/performance.md's live figures)."""


def test_binding_cycles_run_concurrently_up_to_the_worker_count() -> None:
    gate = threading.Barrier(IN_FLIGHT, timeout=20)
    bound: list[str] = []
    lock = threading.Lock()

    def bind(self: Any, state: Any, pod: Any, node_name: str) -> Status | None:
        gate.wait()  # returns only once IN_FLIGHT binding cycles are waiting here together
        with lock:
            bound.append(pod.name)
        return None

    env = Env(profile(plugins=("PrioritySort", "NodeResourcesFit", "Gate"), bind={
        "enabled": [{"name": "Gate"}], "disabled": [{"name": "*"}]}),
        registry={"Gate": plugin("Gate", bind=bind)}, options={"binding": "thread"})
    big = _node("n0").capacity({"cpu": "1000", "memory": "16Gi", "pods": "110"})
    env.add(big, *(_pod(f"p{i}") for i in range(IN_FLIGHT)))
    sched = env.sched
    try:
        for _ in range(IN_FLIGHT):
            assert sched.schedule_one()
    finally:
        sched.shutdown_binding(wait=True)
    assert not gate.broken
    assert sorted(bound) == sorted(f"p{i}" for i in range(IN_FLIGHT))


def test_binding_mode_is_a_type() -> None:
    """The binding mode is a BindingMode; its string value is accepted and a bad one refused
    when the options are made, not when the first binding cycle runs."""
    assert SchedulerOptions().binding is BindingMode.CLOCK
    assert SchedulerOptions(binding="thread").binding is BindingMode.THREAD  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'threads' is not a valid BindingMode"):
        SchedulerOptions(binding="threads")  # type: ignore[arg-type]
