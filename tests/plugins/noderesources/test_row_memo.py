"""The resource scorers' shortcuts against the straightforward paths they replace.

- the row scorers (LeastAllocated, BalancedAllocation) equal the numpy scorers on one node;
- ``ResourceAllocationScorer.score_batch`` with its per-row memo (scores kept across cycles,
  changed rows rescored) equals scoring the gathered batch afresh, through a random sequence
  of pods added to nodes, nodes added, new resources appearing and batches scored;
- ``NodeColumns``' change log names the rows rewritten since a mark.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.framework import NodeBatch
from kubesched.plugins.noderesources import BalancedAllocation, Fit, NodeResourcesFitArgs
from kubesched.plugins.noderesources._args import ResourceSpec
from kubesched.plugins.noderesources.balanced_allocation import (
    balanced_resource_row_scorer,
    balanced_resource_scorer,
)
from kubesched.plugins.noderesources.least_allocated import (
    least_resource_row_scorer,
    least_resource_scorer,
)
from kubesched.plugins.noderesources.resource_allocation import (
    ROW_EXACT,
    NodeUsage,
    ResourceAllocationScorer,
)
from kubesched.testing import make_node, make_pod

GPU = "example.com/gpu"

_amount = st.one_of(st.integers(0, 8), st.integers(0, 10**6), st.integers(0, ROW_EXACT - 1))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.integers(0, 4).flatmap(
        lambda k: st.tuples(
            st.lists(_amount, min_size=k, max_size=k),
            st.lists(_amount, min_size=k, max_size=k),
            st.lists(_amount, min_size=k, max_size=k),
            st.lists(st.integers(1, 5), min_size=k, max_size=k),
        )
    )
)
def test_row_scorers_equal_numpy_scorers(data: tuple[list[int], list[int], list[int], list[int]]) -> None:
    alloc, used, pod, weights = data
    k = len(alloc)
    index = list(range(k))
    usage = NodeUsage.build(
        index,
        np.array(alloc, dtype=np.int64).reshape(k, 1),
        np.array(used, dtype=np.int64).reshape(k, 1),
        NodeUsage.offsets(index, pod),
    )
    specs = [ResourceSpec(f"r{j}", w) for j, w in enumerate(weights)]
    least = int(least_resource_scorer(specs)(usage)[0])
    assert least_resource_row_scorer(specs)(index, alloc, used, pod) == least
    balanced = int(balanced_resource_scorer(usage)[0])
    assert balanced_resource_row_scorer(index, alloc, used, pod) == balanced


def _node(name: str, cpu: int, mem: int, gpu: int) -> Node:
    cap: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "110"}
    if gpu:
        cap[GPU] = str(gpu)
    return make_node().name(name).capacity(cap).obj()


def _pod(name: str, node: str, cpu: int, mem: int, gpu: int) -> Pod:
    req: dict[str, Any] = {}
    if cpu:
        req["cpu"] = f"{cpu}m"
    if mem:
        req["memory"] = str(mem)
    if gpu:
        req[GPU] = str(gpu)
    b = make_pod().name(name).uid(name)
    b.req(req) if req else b.container_image("img")
    return b.node(node).obj()


_nodes = st.lists(st.tuples(st.integers(0, 8000), st.integers(0, 10**10), st.integers(0, 4)),
                  min_size=1, max_size=12)
_round = st.tuples(
    # pods bound before the round's cycle: (node, cpu, memory, gpu)
    st.lists(st.tuples(st.integers(0, 50), st.integers(0, 3000), st.integers(0, 10**9), st.integers(0, 2)),
             max_size=3),
    st.one_of(st.none(), st.tuples(st.integers(0, 8000), st.integers(0, 10**10), st.integers(0, 4))),
    st.integers(0, 2),  # which pod requests are scored
    st.lists(st.booleans(), min_size=1, max_size=60),  # which nodes are in the batch
)
_REQUESTS = [(100, 209715200), (0, 0), (2500, 10**9)]  # cpu, memory of the scored pods


def _scorers() -> list[ResourceAllocationScorer]:
    weighted = NodeResourcesFitArgs.from_dict({"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 2}]}})
    return [Fit().scorer, Fit(weighted).scorer, BalancedAllocation().scorer]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(_nodes, st.lists(_round, min_size=2, max_size=12))
def test_memoized_batch_scores_equal_fresh_scores(
        nodes: list[tuple[int, int, int]],
        rounds: list[tuple[list[tuple[int, int, int, int]], tuple[int, int, int] | None, int, list[bool]]],
) -> None:
    cache = Cache(VirtualClock())
    names: list[str] = []
    for cpu, mem, gpu in nodes:
        names.append(f"n{len(names)}")
        cache.add_node(_node(names[-1], cpu, mem, gpu))
    snap = Snapshot()
    scorers = _scorers()
    pods = 0
    for bound, new_node, which, pick in rounds:
        for at, cpu, mem, gpu in bound:
            cache.add_pod(_pod(f"p{pods}", names[at % len(names)], cpu, mem, gpu))
            pods += 1
        if new_node is not None:
            names.append(f"n{len(names)}")
            cache.add_node(_node(names[-1], *new_node))
        cache.update_snapshot(snap)
        n = snap.num_nodes()
        rows = np.array([i for i in range(n) if pick[i % len(pick)]], dtype=np.int64)
        batch = NodeBatch(snap, rows)
        cpu, mem = _REQUESTS[which]
        for sc in scorers:
            reqs = [cpu, mem, 1][: len(sc.resources)]
            for _ in range(2):  # the second call reads the memo the first one filled
                got, status = sc.score_batch(batch, reqs)
                assert status is None
                want = sc.scorer(sc.usage_batch(NodeBatch(snap, rows.copy()), reqs))
                assert got.tolist() == want.tolist()


def test_change_log_names_rewritten_rows_until_columns_grow() -> None:
    cache = Cache(VirtualClock())
    for i in range(3):
        cache.add_node(_node(f"n{i}", 4000, 10**9, 0))
    snap = Snapshot()
    cache.update_snapshot(snap)
    cols = snap.columns
    mark = cols.log_mark()
    assert cols.changed_rows_since(mark) == []
    cache.add_pod(_pod("a", "n1", 100, 0, 0))
    cache.update_snapshot(snap)
    assert snap.columns is cols
    assert cols.changed_rows_since(mark) == [snap.node_index["n1"]]
    later = cols.log_mark()
    cache.add_pod(_pod("b", "n2", 100, 0, 1))  # a resource no column has yet: the matrices grow
    cache.update_snapshot(snap)
    assert cols.changed_rows_since(mark) is None and cols.changed_rows_since(later) is None
    assert cols.changed_rows_since(cols.log_mark()) == []


def test_memo_rescores_everything_once_the_change_log_is_trimmed(monkeypatch: Any) -> None:
    import kubesched.cache._columns as columns_module

    monkeypatch.setattr(columns_module, "_ROW_LOG_LIMIT", 2)
    cache = Cache(VirtualClock())
    for i in range(4):
        cache.add_node(_node(f"n{i}", 4000, 10**9, 0))
    snap = Snapshot()
    cache.update_snapshot(snap)
    sc = Fit().scorer
    batch = NodeBatch(snap, np.arange(4, dtype=np.int64))
    for _ in range(2):
        sc.score_batch(batch, [100, 10**6])
    mark = sc._memo._entries[(100, 10**6)].mark
    for i in range(4):  # more rows than the log keeps
        cache.add_pod(_pod(f"p{i}", f"n{i}", 1000 * (i + 1), 10**8, 0))
    cache.update_snapshot(snap)
    assert snap.columns.changed_rows_since(mark) is None
    got, _ = sc.score_batch(batch, [100, 10**6])
    assert got.tolist() == sc.scorer(sc.usage_batch(batch, [100, 10**6])).tolist()
    assert len(set(got.tolist())) == 4


def test_rows_with_amounts_past_row_exact_are_rescored_by_numpy() -> None:
    """A changed row holding an amount the row scorer cannot keep exact (or a pod asking for
    one) falls back to the numpy scorer: the memoized scores still equal fresh ones."""
    cache = Cache(VirtualClock())
    cache.add_node(_node("small", 4000, 10**9, 0))
    cache.add_node(_node("huge", 4000, 2**62, 0))  # (capacity - requested) * 100 wraps in int64
    snap = Snapshot()
    cache.update_snapshot(snap)
    batch = NodeBatch(snap, np.arange(2, dtype=np.int64))
    scorers = (Fit().scorer, BalancedAllocation().scorer)
    for sc in scorers:
        for reqs in ([100, 10**6], [100, ROW_EXACT]):
            for _ in range(2):  # the second call fills the memo the later calls read
                sc.score_batch(batch, reqs)
    for i, node in enumerate(("small", "huge", "huge")):
        cache.add_pod(_pod(f"p{i}", node, 100, ROW_EXACT + i if node == "huge" else 10**6, 0))
        cache.update_snapshot(snap)
        for sc in scorers:
            for reqs in ([100, 10**6], [100, ROW_EXACT]):
                got, _ = sc.score_batch(batch, reqs)
                assert got.tolist() == sc.scorer(sc.usage_batch(batch, reqs)).tolist()
