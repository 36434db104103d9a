"""Python's cyclic garbage collector around large, long-lived heaps: the process's one policy.

``gc_paused``: loading a dump allocates millions of dicts, lists and strings and frees almost
none of them. Each allocation burst triggers a collection, and every third-generation collection
walks everything allocated so far, so the collector's work grows with the square of the input: on
a 20,000-pod dump it took two thirds of the loading time. Nothing built while loading is garbage
in a cycle worth finding then; the collector resumes when the block ends.

``HeapFreezer``: a process that holds a whole cluster (``kubesched run``, ``kubesched
extender``, a ``kubesched bench`` measured op) keeps every node and pod, and keeps adding pods
as they are created. CPython's full collections walk every tracked object: at 1000 nodes and
6000 pods each took about a quarter of a second (about 100 ms at 5000 nodes and tens of
thousands of pods in a bench, hundreds of milliseconds inside an extender's request at 5000
nodes), and they recurred as the heap grew, so that the collector cost about a third of the
live scheduler's CPU. Go's collector runs concurrently with kube-scheduler (tuned with GOGC).
The freezer keeps what has survived a while out of the collector's walks (``gc.freeze``), so
that each object is walked by a full collection about once, not once per collection; and it
collects the young generation every 10,000 allocations instead of 700 (each request, watch
event or scheduling cycle allocates hundreds of containers, so CPython's default ran a young
collection several times per pod). It changes no decision: the collector frees only cyclic
garbage, and nothing the scheduler decides reads it.

Who calls what: ``kubesched run`` settles once its informers have synced and ticks every few
seconds; the extender settles once its engine is ready to serve; the bench runner settles before
each measured op (each a full collection, outside the measured window). Each releases when it
closes. The young threshold is ``max(10_000, the process's)`` with the older generations'
thresholds kept: CPython's defaults (700, 10, 10) give (10_000, 10, 10), which the extender and
the bench runner used to set outright.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["HeapFreezer", "gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (nested uses are fine); restore it after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


YOUNG_THRESHOLD = 10_000
"""Allocations between young-generation collections (CPython's default, 700, runs one every few
scheduling cycles)."""


class HeapFreezer:
    """Generational freezing for a process whose heap is mostly long-lived.

    ``settle()`` once the long-lived state is built (the informers synced): a full collection,
    then everything alive is frozen. ``tick()`` now and then (every few seconds): a collection
    of the young generations (their cyclic garbage is freed), then everything not frozen yet is
    frozen too. Frozen objects that die are freed by their reference counts as usual; only
    cyclic garbage among them (a cycle that became garbage after surviving two young
    collections) would stay, so whenever the heap has doubled since the last full collection
    (Go's default pacing, GOGC=100), ``tick`` unfreezes everything and collects it all once.
    Each object is walked by a full collection a few times over its life, however long it
    lives: amortized linear, where CPython's own rule (a full collection once the old
    generation has grown by a quarter) walks the whole heap each time, so that a heap growing
    by a few thousand pods was walked ten times over.
    """

    _active = 0
    """Freezers settled and not released in this process (the thresholds are the process's:
    saved by the first, restored by the last)."""
    _saved: tuple[int, ...] = ()

    def __init__(self, young_threshold: int = YOUNG_THRESHOLD,
                 heap_size: Callable[[], int] = sys.getallocatedblocks) -> None:
        self.young_threshold = young_threshold
        self.heap_size = heap_size
        """The heap's size, as blocks of Python's small-object allocator: counted in well
        under a millisecond where ``gc.get_freeze_count()`` walks every frozen object (tens of
        milliseconds at a thousand nodes)."""
        self._full_at = 0
        self._settled = False
        self.full_collections = 0

    def settle(self) -> None:
        """The first freeze (a full collection before it), and the young generation's
        threshold raised; ``release`` undoes both."""
        if not self._settled:
            self._settled = True
            cls = HeapFreezer
            if cls._active == 0:
                cls._saved = gc.get_threshold()
                gc.set_threshold(max(self.young_threshold, cls._saved[0]), *cls._saved[1:])
            cls._active += 1
        self._full()

    def tick(self) -> None:
        """Collect the young generations and freeze what survived since the last tick (see
        the class doc)."""
        if self.heap_size() >= 2 * self._full_at:
            self._full()
            return
        gc.collect(1)
        gc.freeze()

    def _full(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._full_at = max(self.heap_size(), 1)
        self.full_collections += 1

    def release(self) -> None:
        """Back to CPython's defaults once no freezer is left: nothing frozen, the thresholds
        as they were."""
        if not self._settled:
            return
        self._settled = False
        cls = HeapFreezer
        cls._active -= 1
        if cls._active == 0:
            gc.unfreeze()
            gc.set_threshold(*cls._saved)
