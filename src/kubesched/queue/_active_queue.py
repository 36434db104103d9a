"""activeQ and the in-flight bookkeeping that decides how a failed pod is requeued.

Mirrors pkg/scheduler/backend/queue/active_queue.go (master 2026). activeQ is a heap ordered by
the profile's QueueSort ``less``. Popping a pod makes it *in flight* until ``done``: the pod is
appended to the in-flight list, and every cluster event that arrives while any pod is in flight
is appended after it. When an in-flight pod fails, the events recorded after its entry are the
ones that happened during its attempt; the queue asks the rejecting plugins' queueing hints
about them (this replaced the older ``moveRequestCycle`` rule, removed with the
SchedulerQueueingHints gate). ``done`` drops the pod's entry and prunes events nobody needs.

With SchedulerPopFromBackoffQ, ``pop`` takes the head of podBackoffQ when activeQ is empty.
``pop`` never blocks: it returns None when there is nothing to schedule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..api import Pod
from ..framework import ClusterEvent, QueuedPodInfo
from ._backoff_queue import BackoffQueue, LessFn, SortKeyFn
from ._heap import KeyedHeap

__all__ = ["ActiveQueue", "InFlightEvent"]


@dataclass(frozen=True, slots=True)
class InFlightEvent:
    """clusterEvent: an event recorded while pods were in flight, with its objects."""

    event: ClusterEvent
    old_obj: Any
    new_obj: Any


@dataclass(eq=False, slots=True)
class _Node:
    value: Pod | InFlightEvent
    prev: _Node | None = None
    next: _Node | None = field(default=None, repr=False)


class _LinkedList:
    """container/list: O(1) append and removal of a known element."""

    def __init__(self) -> None:
        self.head: _Node | None = None
        self.tail: _Node | None = None
        self.size = 0

    def push_back(self, value: Pod | InFlightEvent) -> _Node:
        node = _Node(value, prev=self.tail)
        if self.tail is None:
            self.head = node
        else:
            self.tail.next = node
        self.tail = node
        self.size += 1
        return node

    def remove(self, node: _Node) -> None:
        if node.prev is None:
            self.head = node.next
        else:
            node.prev.next = node.next
        if node.next is None:
            self.tail = node.prev
        else:
            node.next.prev = node.prev
        node.prev = node.next = None
        self.size -= 1

    def __iter__(self) -> Iterator[Pod | InFlightEvent]:
        node = self.head
        while node is not None:
            yield node.value
            node = node.next


def _key(p: QueuedPodInfo) -> str:
    return p.pod.key


class ActiveQueue:
    def __init__(self, less: LessFn, backoff_q: BackoffQueue | None = None,
                 sort_key: SortKeyFn | None = None) -> None:
        self._heap: KeyedHeap[QueuedPodInfo] = KeyedHeap(_key, less, sort_key)
        self._backoff_popper = backoff_q  # set only with SchedulerPopFromBackoffQ
        self._in_flight_pods: dict[str, _Node] = {}
        self._in_flight_events = _LinkedList()
        self.scheduling_cycle = 0

    # -- the heap ---------------------------------------------------------------
    def add(self, p: QueuedPodInfo) -> None:
        self._heap.add_or_update(p)

    def update(self, p: QueuedPodInfo) -> bool:
        """Re-sort ``p`` after its pod changed; False when it is not in activeQ."""
        if not self._heap.has(_key(p)):
            return False
        self._heap.add_or_update(p)
        return True

    def delete(self, key: str) -> QueuedPodInfo | None:
        return self._heap.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        return self._heap.get(key)

    def has(self, key: str) -> bool:
        return self._heap.has(key)

    def items(self) -> list[QueuedPodInfo]:
        return list(self._heap)

    def __len__(self) -> int:
        return len(self._heap)

    def pop(self) -> tuple[QueuedPodInfo, bool] | None:
        """Pop the head and make it in flight; ``(pod, from_backoff_q)`` or None when empty.

        A pod already in flight (tracked twice) is discarded and the next one popped, as
        upstream's unlockedPop does (kubernetes#127016)."""
        while True:
            p = self._heap.pop()
            from_backoff = False
            if p is None and self._backoff_popper is not None:
                p = self._backoff_popper.pop_backoff()
                from_backoff = True
            if p is None:
                return None
            if p.pod.uid in self._in_flight_pods:
                continue
            self.track_in_flight(p)
            self.scheduling_cycle += 1
            return p, from_backoff

    def track_in_flight(self, p: QueuedPodInfo) -> None:
        """A popped pod's bookkeeping: one more attempt, and in flight until ``done`` (events
        arriving meanwhile are recorded for it). Shared by pop and PopSpecificPod."""
        p.attempts += 1
        self._in_flight_pods[p.pod.uid] = self._in_flight_events.push_back(p.pod)

    # -- in flight --------------------------------------------------------------
    def has_in_flight(self) -> bool:
        """Whether any pod is in flight (events are recorded only then)."""
        return bool(self._in_flight_pods)

    def is_in_flight(self, uid: str) -> bool:
        return uid in self._in_flight_pods

    def in_flight_pods(self) -> list[Pod]:
        return [n.value for n in self._in_flight_pods.values() if isinstance(n.value, Pod)]

    def in_flight_events(self) -> list[Pod | InFlightEvent]:
        """listInFlightEvents: pods and events in arrival order (for tests and debugging)."""
        return list(self._in_flight_events)

    def cluster_events_for_pod(self, uid: str) -> list[InFlightEvent] | None:
        """clusterEventsForPod: events recorded since the pod was popped; None if not in flight."""
        node = self._in_flight_pods.get(uid)
        if node is None:
            return None
        out: list[InFlightEvent] = []
        cur = node.next
        while cur is not None:
            if isinstance(cur.value, InFlightEvent):
                out.append(cur.value)
            cur = cur.next
        return out

    def add_events_if_pod_in_flight(self, old_pod: Pod | None, new_pod: Pod,
                                    events: list[ClusterEvent]) -> bool:
        """addEventsIfPodInFlight: record updates of an in-flight pod itself."""
        if new_pod.uid not in self._in_flight_pods:
            return False
        for e in events:
            self._in_flight_events.push_back(InFlightEvent(e, old_pod, new_pod))
        return True

    def add_event_if_any_in_flight(self, old_obj: Any, new_obj: Any, event: ClusterEvent) -> bool:
        """addEventIfAnyInFlight: record an event only while some pod is in flight."""
        if not self._in_flight_pods:
            return False
        self._in_flight_events.push_back(InFlightEvent(event, old_obj, new_obj))
        return True

    def done(self, uid: str) -> None:
        """done: forget the pod's attempt and prune events older than every in-flight pod."""
        node = self._in_flight_pods.pop(uid, None)
        if node is None:
            return
        self._in_flight_events.remove(node)
        while (head := self._in_flight_events.head) is not None and isinstance(head.value, InFlightEvent):
            self._in_flight_events.remove(head)
