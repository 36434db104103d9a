"""HeapFreezer: what a long-running scheduler keeps out of the cyclic collector's walks, and
that cyclic garbage is still collected (young at once, frozen at the next full collection)."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator

import pytest

from kubesched.process import YOUNG_THRESHOLD, HeapFreezer


class _Node:
    """A container object the collector tracks, weak-referenceable, put in a cycle below."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def freezer() -> Iterator[HeapFreezer]:
    before = gc.get_threshold()
    f = HeapFreezer()
    yield f
    f.release()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_settle_freezes_what_is_alive_and_raises_the_young_threshold(freezer: HeapFreezer) -> None:
    keep = [_Node() for _ in range(100)]
    freezer.settle()
    assert gc.get_freeze_count() >= len(keep)
    assert gc.get_threshold()[0] == max(YOUNG_THRESHOLD, 700)


def test_tick_collects_young_cycles_and_freezes_the_survivors(freezer: HeapFreezer) -> None:
    freezer.settle()
    frozen = gc.get_freeze_count()
    garbage = _cycle()
    keep = [_Node() for _ in range(50)]
    freezer.tick()
    assert garbage() is None  # a young cycle is freed by the tick's collection
    assert gc.get_freeze_count() >= frozen + len(keep)
    assert freezer.full_collections == 1  # settle's only: the heap has not doubled


def test_a_frozen_cycle_is_collected_once_the_heap_has_doubled() -> None:
    size = [1000]
    freezer = HeapFreezer(heap_size=lambda: size[0])
    try:
        freezer.settle()
        a = _Node()
        a.other = _Node()
        a.other.other = a
        freezer.tick()  # a survives the young collection: frozen
        ref = weakref.ref(a)
        del a
        size[0] = 1999
        freezer.tick()
        assert ref() is not None and freezer.full_collections == 1  # frozen: waits
        size[0] = 2000  # the heap has doubled since settle's full collection
        freezer.tick()
        assert ref() is None and freezer.full_collections == 2
        size[0] = 3999
        freezer.tick()
        assert freezer.full_collections == 2  # the next one at twice the size after it
    finally:
        freezer.release()


def test_the_heap_size_is_python_s_allocated_blocks() -> None:
    assert HeapFreezer().heap_size is sys.getallocatedblocks


def test_nested_freezers_restore_the_thresholds_after_the_last() -> None:
    before = gc.get_threshold()
    a, b = HeapFreezer(), HeapFreezer()
    a.settle()
    b.settle()
    a.release()
    assert gc.get_threshold()[0] == max(YOUNG_THRESHOLD, before[0])
    b.release()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_the_extender_and_the_bench_use_the_policy_and_restore_the_process() -> None:
    """The extender freezes its heap and raises the young threshold once it serves, until it is
    closed; a bench run does the same around its measured ops, until it ends."""
    from kubesched.extender import ExtenderEngine
    from kubesched.perf import load_config, run_workload, select_workloads

    before = gc.get_threshold()
    engine = ExtenderEngine()
    try:
        engine.settle()
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] == max(YOUNG_THRESHOLD, before[0])
    finally:
        engine.close()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before

    wl = next(w for w in select_workloads(load_config(), labels=["integration-test"])
              if w.full_name == "SchedulingBasic/5Nodes")
    result = run_workload(wl, seed=1, pace=False)
    assert result.scheduled == result.measured_pods > 0
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
