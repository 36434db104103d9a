"""Pods waiting at Permit, and the non-blocking wait on them.

Mirrors pkg/scheduler/framework/runtime/waiting_pods_map.go (master 2026). Upstream blocks the
binding goroutine on a channel of size one; here the wait is a :class:`PermitFuture` so that it
fits both the virtual clock (no thread may block: the simulation advances time only between
tasks) and a threaded live mode (``result(timeout)`` blocks on an event):

- every plugin that returned Wait gets a timer on the injected clock; when it fires the pod is
  rejected with upstream's message ``rejected due to timeout after waiting 10s at plugin X``;
- ``allow(plugin)`` stops that plugin's timer; once no plugin is pending the future resolves
  with Success; ``reject(plugin, msg)`` stops all timers and resolves with Unschedulable;
- only the first resolution counts (upstream's non-blocking send into a one-slot channel).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ._duration import format_go_duration
from ._status import Code, Status

if TYPE_CHECKING:
    from ..api import Pod
    from ..clock import Clock, Timer

__all__ = ["MAX_PERMIT_TIMEOUT", "PermitFuture", "WaitingPod", "WaitingPodsMap"]

MAX_PERMIT_TIMEOUT = 15 * 60.0
"""maxTimeout in framework.go: a Permit plugin may not ask to wait longer."""


class PermitFuture:
    """The outcome of waiting on Permit: resolves once with a Status (Success or a rejection)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._status: Status | None = None
        self._callbacks: list[Callable[[Status], None]] = []

    def done(self) -> bool:
        return self._event.is_set()

    def status(self) -> Status:
        """The resolved status; raises if not resolved yet (call ``done()`` or use callbacks)."""
        if self._status is None:
            raise RuntimeError("permit wait not resolved yet")
        return self._status

    def result(self, timeout: float | None = None) -> Status | None:
        """Live mode only: block until resolved (or ``timeout`` seconds); None if still pending."""
        self._event.wait(timeout)
        return self._status

    def add_done_callback(self, fn: Callable[[Status], None]) -> None:
        """Call ``fn(status)`` when resolved (at once if already resolved)."""
        with self._lock:
            if self._status is None:
                self._callbacks.append(fn)
                return
            status = self._status
        fn(status)

    def set_status(self, status: Status) -> bool:
        """Resolve; False (ignored) if already resolved."""
        with self._lock:
            if self._status is not None:
                return False
            self._status = status
            callbacks, self._callbacks = self._callbacks, []
            self._event.set()
        for fn in callbacks:
            fn(status)
        return True

    @staticmethod
    def resolved(status: Status) -> PermitFuture:
        """A future already resolved with ``status``. A resolved future never changes, so every
        pod that does not wait on Permit (nearly all) shares one for Success."""
        if status.is_success() and status.plugin == "" and _RESOLVED_SUCCESS:
            return _RESOLVED_SUCCESS[0]
        f = PermitFuture()
        f.set_status(status)
        return f


_RESOLVED_SUCCESS: list[PermitFuture] = []
_RESOLVED_SUCCESS.append(PermitFuture.resolved(Status.success()))


class WaitingPod:
    """A pod some Permit plugins asked to wait (framework.WaitingPod)."""

    def __init__(self, pod: Pod, plugins_max_wait: dict[str, float], clock: Clock) -> None:
        self.pod = pod
        self.future = PermitFuture()
        self._lock = threading.Lock()
        self._pending: dict[str, Timer] = {}
        with self._lock:
            for plugin, wait in plugins_max_wait.items():
                msg = f"rejected due to timeout after waiting {format_go_duration(wait)} at plugin {plugin}"
                self._pending[plugin] = clock.schedule(wait, self._rejecter(plugin, msg))

    def _rejecter(self, plugin: str, msg: str) -> Callable[[], None]:
        return lambda: self.reject(plugin, msg)

    def get_pod(self) -> Pod:
        return self.pod

    def get_pending_plugins(self) -> list[str]:
        with self._lock:
            return list(self._pending)

    def allow(self, plugin: str) -> None:
        """Allow from ``plugin``; the pod proceeds when every waiting plugin has allowed."""
        with self._lock:
            timer = self._pending.pop(plugin, None)
            if timer is not None:
                timer.cancel()
            if self._pending:
                return
        self.future.set_status(Status.success())

    def reject(self, plugin: str, msg: str) -> None:
        """Reject: the pod becomes unschedulable, whoever else still waits."""
        with self._lock:
            for timer in self._pending.values():
                timer.cancel()
        self.future.set_status(Status(Code.UNSCHEDULABLE, (msg,), plugin))


class WaitingPodsMap:
    """uid -> WaitingPod, shared between the scheduling and binding cycles (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pods: dict[str, WaitingPod] = {}

    def add(self, wp: WaitingPod) -> None:
        with self._lock:
            self._pods[wp.pod.uid] = wp

    def remove(self, uid: str) -> None:
        with self._lock:
            self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPod | None:
        with self._lock:
            return self._pods.get(uid)

    def __iter__(self) -> Iterator[WaitingPod]:
        with self._lock:
            pods = list(self._pods.values())
        return iter(pods)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pods)
