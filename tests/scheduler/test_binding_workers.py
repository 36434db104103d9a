"""Live mode's binding workers (``SchedulerOptions(binding="thread")``): as many binding cycles
in flight at once as BINDING_WORKERS, upstream's one goroutine per binding. A binding POST
waits milliseconds on the API server; with too few workers the bindings queue behind each other
and the scheduler falls seconds behind a burst of pod creations."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kubesched.framework import Code, Status
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


def test_a_pod_allowed_from_the_loop_thread_binds_on_a_binding_worker() -> None:
    """Live mode: a binding cycle waiting on Permit holds no thread; when the loop's thread
    allows the pod (a Permit plugin of a later cycle, a timeout), the rest of the cycle (PreBind,
    Bind, PostBind) goes back to a binding worker, off the scheduling thread."""
    bound_on: list[str] = []
    bound = threading.Event()

    def bind(self: Any, state: Any, pod: Any, node_name: str) -> Status | None:
        bound_on.append(threading.current_thread().name)
        bound.set()
        return None

    def wait(self: Any, state: Any, pod: Any, node_name: str) -> tuple[Status, float]:
        return Status.of(Code.WAIT), 30.0

    env = Env(profile(plugins=("PrioritySort", "NodeResourcesFit", "Waiter", "Gate"), bind={
        "enabled": [{"name": "Gate"}], "disabled": [{"name": "*"}]}),
        registry={"Gate": plugin("Gate", bind=bind), "Waiter": plugin("Waiter", permit=wait)},
        options={"binding": "thread"})
    env.add(_node("n0"), _pod("p"))
    sched = env.sched
    try:
        assert sched.schedule_one()
        waiting = sched.profiles["default-scheduler"].get_waiting_pod("p-uid")
        assert waiting is not None and not bound.is_set()
        waiting.allow("Waiter")
        assert bound.wait(20)
    finally:
        sched.shutdown_binding(wait=True)
    assert bound_on[0].startswith("binding_") and bound_on[0] != threading.current_thread().name
