"""unschedulablePods: pods that failed and wait for a cluster event (or a timeout) to retry.

Mirrors pkg/scheduler/backend/queue/unschedulable_pods.go (master 2026): a map keyed by the
pod's ``namespace/name``. Gated pods (rejected by a PreEnqueue plugin) live here too and are
counted apart, for the ``scheduler_pending_pods{queue="gated"}`` metric. Iteration follows
insertion order (a Go map's is random) so that moves are deterministic.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator

from ..framework import QueuedPodInfo

__all__ = ["UnschedulablePods"]


class UnschedulablePods:
    def __init__(self) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}
        # (timestamp, seq, key, pod info), pruned lazily: finds the oldest parked pod quickly.
        self._by_time: list[tuple[float, int, str, QueuedPodInfo]] = []
        self._seq = itertools.count()
        self.entries = 0  # pods added or re-added: the queue re-arms its flush timer only then

    def add_or_update(self, p: QueuedPodInfo) -> None:
        self.entries += 1
        key = p.pod.key
        if self._pods.get(key) is not p:
            heapq.heappush(self._by_time, (p.timestamp, next(self._seq), key, p))
        self._pods[key] = p

    def oldest_timestamp(self, eligible: Callable[[QueuedPodInfo], bool]) -> float | None:
        """The earliest timestamp among parked pods passing ``eligible``.

        Entries of pods that left, or that are not eligible, are dropped: a parked pod's
        timestamp and eligibility (its gating) do not change until it leaves and re-enters."""
        heap = self._by_time
        while heap:
            ts, _, key, p = heap[0]
            if self._pods.get(key) is p and p.timestamp == ts and eligible(p):
                return ts
            heapq.heappop(heap)
        return None

    def delete(self, key: str) -> QueuedPodInfo | None:
        p = self._pods.pop(key, None)
        if not self._pods:
            self._by_time.clear()  # every entry is stale now
        return p

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._pods.get(key)

    def has(self, key: str) -> bool:
        return key in self._pods

    def items(self) -> list[QueuedPodInfo]:
        return list(self._pods.values())

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        return iter(list(self._pods.values()))

    def __len__(self) -> int:
        return len(self._pods)

    def count_gated(self) -> int:
        return sum(1 for p in self._pods.values() if p.gated)
