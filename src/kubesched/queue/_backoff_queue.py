"""backoffQ: pods waiting out an exponential backoff before they may be retried.

Mirrors pkg/scheduler/backend/queue/backoff_queue.go (master 2026). Two heaps ordered by
backoff expiration: ``podBackoffQ`` for pods rejected by plugins and ``podErrorBackoffQ`` for
pods that failed with an Error status (no rejecting plugin). With ``SchedulerPopFromBackoffQ``
(KEP-5142, beta and on by default since 1.33) expirations are aligned to 1-second ordering
windows, pods within a window are ordered like activeQ, and the scheduler may pop the head of
``podBackoffQ`` when activeQ is empty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..framework import QueuedPodInfo
from ._heap import KeyedHeap

__all__ = ["BACKOFF_Q_ORDERING_WINDOW", "BackoffQueue", "LessFn", "SortKeyFn", "calculate_backoff_duration"]

LessFn = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
SortKeyFn = Callable[[QueuedPodInfo], Any]
"""Optional: a key ordering pods exactly as the LessFn does (e.g. (-priority, timestamp))."""

BACKOFF_Q_ORDERING_WINDOW = 1.0
"""backoffQOrderingWindowDuration: whole seconds; also the backoffQ flush interval."""

_NS = 1_000_000_000


def calculate_backoff_duration(count: int, initial: float, maximum: float) -> float:
    """Seconds of backoff after ``count`` failures: initial * 2^(count-1), capped at maximum.

    Mirrors calculateBackoffDuration (pkg/scheduler/backend/queue/backoff_queue.go, master
    2026): doubles per attempt up to the max; no attempts, no backoff. Computed on integer
    nanoseconds with upstream's shift-based overflow guard so that huge counts cap exactly.
    """
    if count <= 0:
        return 0.0
    init_ns, max_ns = round(initial * _NS), round(maximum * _NS)
    shift = count - 1
    if init_ns > (max_ns >> shift):
        return max_ns / _NS
    return (init_ns << shift) / _NS


def _key(p: QueuedPodInfo) -> str:
    return p.pod.key


class BackoffQueue:
    """podBackoffQ + podErrorBackoffQ behind one interface (backoffQueue upstream)."""

    def __init__(self, clock: Clock, initial_backoff: float, max_backoff: float,
                 active_less: LessFn, pop_from_backoff_q: bool = True,
                 active_sort_key: SortKeyFn | None = None) -> None:
        self._clock = clock
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._active_less = active_less
        self.pop_from_backoff_q = pop_from_backoff_q
        self.entries = 0  # pods added or re-sorted: the queue re-arms its flush timer only then
        less = self._less_with_priority if pop_from_backoff_q else self._less
        key: SortKeyFn | None = None
        err_key: SortKeyFn | None = None
        if active_sort_key is not None:  # the same orders as tuples, compared in C
            err_key = self._sort_time
            if pop_from_backoff_q:
                def key(p: QueuedPodInfo) -> Any:
                    return (self._sort_time(p), active_sort_key(p))
            else:
                key = self._sort_time
        self._backoff_q: KeyedHeap[QueuedPodInfo] = KeyedHeap(_key, less, key)
        self._error_backoff_q: KeyedHeap[QueuedPodInfo] = KeyedHeap(_key, self._less, err_key)

    # -- time -----------------------------------------------------------------
    def align_to_window(self, t: float) -> float:
        """alignToWindow: truncate to the ordering window (identity when the gate is off)."""
        if not self.pop_from_backoff_q:
            return t
        return math.floor(t / BACKOFF_Q_ORDERING_WINDOW) * BACKOFF_Q_ORDERING_WINDOW

    def backoff_time(self, p: QueuedPodInfo) -> float | None:
        """getBackoffTime: when the pod's backoff ends (cached on the pod); None: no backoff.

        The failure count is the consecutive Error count when the last attempt errored, else
        the count of plugin rejections (newest upstream; older releases counted attempts).
        ``max_backoff == 0`` disables backoff entirely.
        """
        if self.max_backoff == 0:
            return None
        count = p.consecutive_errors if p.consecutive_errors > 0 else p.unschedulable_count
        if count == 0:
            return None
        if p.backoff_expiration is None:
            duration = calculate_backoff_duration(count, self.initial_backoff, self.max_backoff)
            p.backoff_expiration = self.align_to_window(p.timestamp + duration)
        return p.backoff_expiration

    def is_pod_backing_off(self, p: QueuedPodInfo) -> bool:
        """isPodBackingoff: a pod whose backoff ends in the current window is still backing off."""
        t = self.backoff_time(p)
        return t is not None and not t < self.align_to_window(self._clock.now)

    def next_release(self) -> float | None:
        """When the next flush tick releases a pod; None when the queue is empty.

        Flush ticks fall on whole seconds (waitUntilAlignedWithOrderingWindow), and a pod is
        released at the first tick strictly after its backoff time. Used to arm the clock only
        when something can move.
        """
        now = self._clock.now
        releases = [math.floor(t if (t := self.backoff_time(head)) is not None else now) + 1.0
                    for q in (self._backoff_q, self._error_backoff_q)
                    if (head := q.peek()) is not None]
        return max(min(releases), now) if releases else None

    # -- ordering -------------------------------------------------------------
    def _sort_time(self, p: QueuedPodInfo) -> float:
        t = self.backoff_time(p)
        return -math.inf if t is None else t

    def _less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """lessBackoffCompleted."""
        return self._sort_time(a) < self._sort_time(b)

    def _less_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """lessBackoffCompletedWithPriority: same window, then activeQ's order."""
        ta, tb = self._sort_time(a), self._sort_time(b)
        if ta != tb:
            return ta < tb
        return self._active_less(a, b)

    # -- operations -------------------------------------------------------------
    def add(self, p: QueuedPodInfo) -> None:
        """Add to podErrorBackoffQ when no plugin rejected the pod (it errored), else podBackoffQ."""
        self.entries += 1
        if not p.unschedulable_plugins and not p.pending_plugins:
            self._error_backoff_q.add_or_update(p)
            self._backoff_q.delete(_key(p))
            return
        self._backoff_q.add_or_update(p)
        self._error_backoff_q.delete(_key(p))

    def pop_all_backoff_completed(self) -> list[QueuedPodInfo]:
        """popAllBackoffCompleted: podBackoffQ's completed pods first, then podErrorBackoffQ's."""
        out: list[QueuedPodInfo] = []
        for q in (self._backoff_q, self._error_backoff_q):
            while (head := q.peek()) is not None and not self.is_pod_backing_off(head):
                q.pop()
                out.append(head)
        return out

    def pop_backoff(self) -> QueuedPodInfo | None:
        """popBackoff: the head of podBackoffQ (never podErrorBackoffQ), backing off or not."""
        return self._backoff_q.pop()

    def update(self, p: QueuedPodInfo) -> bool:
        """Re-sort ``p`` in whichever heap holds it; False when absent."""
        self.entries += 1
        for q in (self._backoff_q, self._error_backoff_q):
            if q.has(_key(p)):
                q.add_or_update(p)
                return True
        return False

    def delete(self, key: str) -> QueuedPodInfo | None:
        return self._backoff_q.delete(key) or self._error_backoff_q.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._backoff_q.get(key) or self._error_backoff_q.get(key)

    def has(self, key: str) -> bool:
        return self._backoff_q.has(key) or self._error_backoff_q.has(key)

    def items(self) -> list[QueuedPodInfo]:
        return [*self._backoff_q, *self._error_backoff_q]

    def __len__(self) -> int:
        return len(self._backoff_q) + len(self._error_backoff_q)

    def len_backoff(self) -> int:
        """lenBackoff: podBackoffQ only (what PopFromBackoffQ may take)."""
        return len(self._backoff_q)
