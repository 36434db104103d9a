"""Where binding cycles run: a task on the clock (offline) or a binding worker (live).

Upstream's ScheduleOne hands each binding cycle to a goroutine (``go func() { ...
sched.bindingCycle(...) }()``, pkg/scheduler/schedule_one.go), so that the next scheduling
cycle does not wait for the API server. Here the choice is a :class:`BindingMode`, made once
when the scheduler is built (:func:`new_binding_executor`); the cycles only see a
:class:`BindingExecutor` and never ask which mode runs them:

- ``BindingMode.CLOCK`` (simulations, replays, benchmarks): a binding cycle is a timer due now on
  the clock, run by the loop's own thread in timer order, so a run is deterministic;
- ``BindingMode.THREAD`` (live mode): binding workers run them beside the loop, as upstream's
  goroutines; a cycle resumed by the loop thread (a waiting pod allowed by a Permit plugin, or
  timed out) goes back to a worker, and failure handling, which changes the queue and the
  cache, goes back to the loop.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol

from ._workers import WorkerPool

if TYPE_CHECKING:
    from ..clock import Clock

__all__ = ["BINDING_WORKERS", "BindingExecutor", "BindingMode", "ClockBinding", "WorkerBinding",
           "new_binding_executor"]

log = logging.getLogger(__name__)

BINDING_WORKERS = 64
"""Binding cycles in flight at once in live mode (goroutines upstream: unbounded; here
threads, bounded so that a slow API server does not grow them without limit). A binding POST
waits milliseconds on a busy API server; with 16 workers the bindings queued behind each other
and kubesched ended 4 s behind a burst of 5000 pod creations where kube-scheduler ended under
1 s behind (benchmarks/live_side_by_side.py, 1000 nodes); with 64, 1-2 s."""

Task = Callable[[], None]


class BindingMode(enum.StrEnum):
    """How binding cycles run (:attr:`SchedulerOptions.binding`)."""

    CLOCK = "clock"
    """A task at the current time on the clock: deterministic, the default."""
    THREAD = "thread"
    """Live mode: binding workers run them beside the loop, as upstream's goroutines; their
    failure handling comes back to the loop."""


class BindingExecutor(Protocol):
    """What the binding cycle needs to run asynchronously from the scheduling cycles."""

    @property
    def run_async(self) -> Callable[[Task], None] | None:
        """Where the framework runs its other asynchronous work (preemption's API calls,
        upstream's goroutines too): None leaves the framework's own default."""
        ...

    def start(self, task: Task) -> None:
        """Start a binding cycle: upstream's ``go sched.bindingCycle(...)``."""
        ...

    def resume(self, task: Task) -> None:
        """Continue a binding cycle after a wait (WaitOnPermit, a PreBind that waits): ``task``
        runs where binding cycles run, whichever thread ended the wait."""
        ...

    def to_loop(self, task: Task) -> None:
        """Run ``task`` where the scheduler's state may change: a binding cycle's failure
        handling (the queue, the cache)."""
        ...

    def shutdown(self, wait: bool = True) -> None:
        """Stop (after the cycles in flight when ``wait``)."""
        ...


class ClockBinding:
    """``BindingMode.CLOCK``: a binding cycle is a timer due now; everything after a wait runs
    at once on the thread that ended it (the loop's: the clock's timers and the Permit
    plugins of later scheduling cycles)."""

    run_async: Callable[[Task], None] | None = None

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def start(self, task: Task) -> None:
        self._clock.schedule(0.0, task)

    def resume(self, task: Task) -> None:
        task()

    def to_loop(self, task: Task) -> None:
        task()

    def shutdown(self, wait: bool = True) -> None:
        return


class WorkerBinding:
    """``BindingMode.THREAD``: binding cycles on up to :data:`BINDING_WORKERS` threads; their
    failure handling is a timer due now on the (real) clock, which the loop runs."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._pool: WorkerPool | None = None
        self._worker = threading.local()

    @property
    def run_async(self) -> Callable[[Task], None] | None:
        return self.start

    def start(self, task: Task) -> None:
        self._binding_pool().submit(partial(self._on_worker, task))

    def resume(self, task: Task) -> None:
        """A pod allowed from the loop thread (a Permit plugin, a timeout) goes back to a
        binding worker; one that did not wait continues where it is."""
        if getattr(self._worker, "active", False):
            task()
        else:
            self.start(task)

    def to_loop(self, task: Task) -> None:
        self._clock.schedule(0.0, task)

    def shutdown(self, wait: bool = True) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait)
            self._pool = None

    def _binding_pool(self) -> WorkerPool:
        if self._pool is None:
            self._pool = WorkerPool(BINDING_WORKERS, "binding")
        return self._pool

    def _on_worker(self, task: Task) -> None:
        self._worker.active = True
        try:
            task()
        except Exception:
            log.exception("binding cycle failed")


def new_binding_executor(mode: BindingMode, clock: Clock) -> BindingExecutor:
    """The executor for ``mode``: the one place the binding mode is looked at."""
    if mode is BindingMode.THREAD:
        return WorkerBinding(clock)
    return ClockBinding(clock)
