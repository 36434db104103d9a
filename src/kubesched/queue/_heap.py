"""A keyed binary heap: the data structure under activeQ and the backoff queues.

Mirrors pkg/scheduler/backend/heap/heap.go (master 2026): items are found by key (the pod's
``namespace/name``), ``add_or_update`` replaces an item already present, and order comes from a
caller-supplied less function. Unlike Go's heap, ties (neither item less than the other) are
broken by insertion sequence, so pops are deterministic.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

__all__ = ["KeyedHeap"]

T = TypeVar("T")


class _Entry(Generic[T]):
    """A heap slot; ``alive`` is cleared on delete/update (lazy removal keeps heapq's C sift)."""

    __slots__ = ("alive", "item", "less", "seq")

    def __init__(self, item: T, seq: int, less: Callable[[T, T], bool] | None) -> None:
        self.item = item
        self.seq = seq
        self.less = less
        self.alive = True

    def __lt__(self, other: _Entry[T]) -> bool:
        a, b = self.item, other.item
        assert self.less is not None
        if self.less(a, b):
            return True
        if self.less(b, a):
            return False
        return self.seq < other.seq


class KeyedHeap(Generic[T]):
    """Heap of items keyed by ``key_fn``; the head is the item ``less`` ranks first.

    ``sort_key``, when given, must order items exactly as ``less`` does; comparisons then run
    on tuples in C, several times faster than calling ``less``."""

    def __init__(self, key_fn: Callable[[T], str], less: Callable[[T, T], bool],
                 sort_key: Callable[[T], Any] | None = None) -> None:
        self._key = key_fn
        self._less = less
        self._sort_key = sort_key
        # (sort key, seq, slot number, entry) with a sort key; else (entry,) compared through
        # ``less``. An update keeps the item's seq while its dead slot stays in the heap: the
        # slot number keeps two such tuples from ever comparing their entries.
        self._heap: list[tuple[Any, ...]] = []
        self._live: dict[str, _Entry[T]] = {}
        self._seq = itertools.count()
        self._slots = itertools.count()

    def _push(self, entry: _Entry[T]) -> None:
        slot = ((entry,) if self._sort_key is None
                else (self._sort_key(entry.item), entry.seq, next(self._slots), entry))
        heapq.heappush(self._heap, slot)
        if len(self._heap) > 2 * len(self._live) + 64:  # too many dead slots: compact
            self._heap = [e for e in self._heap if e[-1].alive]
            heapq.heapify(self._heap)

    def add_or_update(self, item: T) -> None:
        """Insert ``item``, or replace the item with the same key (keeping its tie order)."""
        key = self._key(item)
        old = self._live.get(key)
        if old is not None:
            old.alive = False
        entry = _Entry(item, old.seq if old is not None else next(self._seq),
                       self._less if self._sort_key is None else None)
        self._live[key] = entry
        self._push(entry)

    def delete(self, key: str) -> T | None:
        """Remove and return the item with ``key``; None when absent."""
        entry = self._live.pop(key, None)
        if entry is None:
            return None
        entry.alive = False
        return entry.item

    def get(self, key: str) -> T | None:
        entry = self._live.get(key)
        return None if entry is None else entry.item

    def has(self, key: str) -> bool:
        return key in self._live

    def peek(self) -> T | None:
        heap = self._heap
        while heap and not heap[0][-1].alive:
            heapq.heappop(heap)
        return heap[0][-1].item if heap else None

    def pop(self) -> T | None:
        """Remove and return the head; None when empty."""
        item = self.peek()
        if item is None:
            return None
        entry = heapq.heappop(self._heap)[-1]
        entry.alive = False
        del self._live[self._key(item)]
        return item

    def __len__(self) -> int:
        return len(self._live)

    def __iter__(self) -> Iterator[T]:
        """Items in insertion order (not heap order): deterministic listings."""
        return (e.item for e in sorted(self._live.values(), key=lambda e: e.seq))
