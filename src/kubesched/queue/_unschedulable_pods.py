"""unschedulablePods: pods that failed and wait for a cluster event (or a timeout) to retry.

Mirrors pkg/scheduler/backend/queue/unschedulable_pods.go (master 2026): a map keyed by the
pod's ``namespace/name``. Gated pods (rejected by a PreEnqueue plugin) live here too and are
counted apart, for the ``scheduler_pending_pods{queue="gated"}`` metric. Iteration follows
insertion order (a Go map's is random) so that moves are deterministic.

The leftover flush moves a pod parked longer than the maximum since its *last schedule time*:
the later of its timestamp and the last flush that offered it the timeout (upstream's
``max(Timestamp, FlushTimestamp)``, kubernetes PR 139331), so that a pod kept gated by the
flush waits a full period again.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Collection, Iterator

from ..framework import QueuedPodInfo

__all__ = ["UnschedulablePods", "last_schedule_time"]


def last_schedule_time(p: QueuedPodInfo) -> float:
    """flushUnschedulablePodsLeftover's lastScheduleTime: max(Timestamp, FlushTimestamp)."""
    flushed = p.flush_timestamp
    return p.timestamp if flushed is None or flushed < p.timestamp else flushed


class UnschedulablePods:
    """``moves_on_any_event`` tells the pods a cluster event may move whoever it names (no
    rejecting plugin, or a profile without queueing hints): with it, :meth:`named` finds the
    few pods an event names without a scan of every parked pod."""

    def __init__(self, moves_on_any_event: Callable[[QueuedPodInfo], bool] | None = None) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}
        self._moves_on_any_event = moves_on_any_event
        self._seq_of: dict[str, int] = {}  # key -> insertion sequence (the order of _pods)
        self._key_of_uid: dict[str, str] = {}
        self._any_event: set[str] = set()  # keys of pods moves_on_any_event held for when added
        # (last schedule time, seq, key, pod info), pruned lazily: finds the pod the leftover
        # flush reaches first quickly.
        self._by_time: list[tuple[float, int, str, QueuedPodInfo]] = []
        self._live: dict[str, int] = {}  # key -> seq of its one current heap entry
        self._seq = itertools.count()
        self.entries = 0  # pods added or re-added: the queue re-arms its flush timer only then

    def add_or_update(self, p: QueuedPodInfo) -> None:
        self.entries += 1
        key = p.pod.key
        if self._pods.get(key) is not p:
            self._push(key, p)
        if key not in self._pods:
            self._seq_of[key] = next(self._seq)
        self._pods[key] = p
        self._key_of_uid[p.pod.uid] = key
        if self._moves_on_any_event is None or self._moves_on_any_event(p):
            self._any_event.add(key)
        else:
            self._any_event.discard(key)

    def _push(self, key: str, p: QueuedPodInfo) -> None:
        seq = self._live[key] = next(self._seq)
        heapq.heappush(self._by_time, (last_schedule_time(p), seq, key, p))

    def oldest_timestamp(self) -> float | None:
        """The earliest last schedule time among parked pods (gated ones included: the flush
        re-runs their PreEnqueue plugins).

        Superseded entries (of pods that left or re-entered) are dropped; a pod's current entry
        whose last schedule time moved on (a flush that left it here) is put back under the
        new time."""
        heap = self._by_time
        while heap:
            ts, seq, key, p = heap[0]
            if self._live.get(key) == seq and self._pods.get(key) is p:
                if last_schedule_time(p) == ts:
                    return ts
                heapq.heappop(heap)
                self._push(key, p)
                continue
            heapq.heappop(heap)
        return None

    def delete(self, key: str) -> QueuedPodInfo | None:
        p = self._pods.pop(key, None)
        self._live.pop(key, None)
        if p is not None:
            del self._seq_of[key]
            self._any_event.discard(key)
            if self._key_of_uid.get(p.pod.uid) == key:
                del self._key_of_uid[p.pod.uid]
        if not self._pods:
            self._by_time.clear()  # every entry is stale now
        return p

    def named(self, uids: Collection[str]) -> list[QueuedPodInfo]:
        """The parked pods with one of ``uids``, and those ``moves_on_any_event`` held for when
        they were parked, in insertion order (as iteration gives them). A superset of the pods
        an event naming ``uids`` may move, provided a parked pod only ever gains rejecting
        plugins (the queue clears them when it pops the pod, not while parked)."""
        if 4 * (len(uids) + len(self._any_event)) >= len(self._pods):
            return list(self._pods.values())  # a scan costs no more
        get = self._key_of_uid.get
        keys = {k for k in map(get, uids) if k is not None}
        keys.update(self._any_event)
        seq = self._seq_of
        return [self._pods[k] for k in sorted(keys, key=seq.__getitem__)]

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
