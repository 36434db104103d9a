"""FilterOutcome's array shortcuts give what the straightforward computations give."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from kubesched.framework import BatchFilterResult, Code, NodeBatch, Status
from kubesched.framework._results import FilterOutcome, _dense_groups, normalize_filter_codes
from kubesched.testing import make_node, snapshot_of

_REJECTED = {int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING)}


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, st.integers(1, 200), elements=st.integers(0, 300)))
def test_dense_groups_equal_numpy_unique(key: np.ndarray) -> None:
    first, inv = _dense_groups(key)
    _, want_first, want_inv = np.unique(key, return_index=True, return_inverse=True)
    assert first.tolist() == want_first.tolist()
    assert inv.tolist() == want_inv.reshape(-1).tolist()


@given(hnp.arrays(np.int8, st.integers(0, 50), elements=st.integers(0, 9)))
def test_codes_other_than_success_and_rejections_count_as_errors(codes: np.ndarray) -> None:
    want = [c if c == 0 or c in _REJECTED else int(Code.ERROR) for c in codes.tolist()]
    assert normalize_filter_codes(codes).tolist() == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 2, 3]), st.integers(0, 3)), min_size=1, max_size=40),
       st.lists(st.tuples(st.sampled_from([0, 2, 3]), st.integers(0, 3)), min_size=1, max_size=40))
def test_status_keys_rebuild_every_rejected_nodes_status(
        first: list[tuple[int, int]], second: list[tuple[int, int]]) -> None:
    n = min(len(first), len(second))
    snap = snapshot_of([make_node().name(f"n{i}").obj() for i in range(n)])
    batch = NodeBatch.all(snap)
    table = [(), ("a",), ("b", "c"), ("d",)]
    out = FilterOutcome.empty(batch)
    alive = np.arange(n, dtype=np.int64)
    for plugin, pairs in (("P1", first[:n]), ("P2", second[:n])):
        pairs = [pairs[i] for i in alive.tolist()]
        codes = np.array([c for c, _ in pairs], dtype=np.int8)
        rids = np.array([r if c else 0 for c, r in pairs], dtype=np.int32)
        res = BatchFilterResult(codes, rids, list(table))
        out.record(plugin, res, alive)
        alive = alive[codes == 0]
    rejected = np.flatnonzero(out.codes)
    keys, statuses = out.status_keys(rejected)
    got = [statuses[k] for k in keys.tolist()]
    assert got == [out.status(int(r)) for r in rejected.tolist()]
    assert len(set(statuses)) == len(statuses)  # each distinct status built once
    assert all(isinstance(s, Status) and s.plugin in ("P1", "P2") for s in got)


def test_a_pass_without_failures_allocates_no_maps_and_has_no_error() -> None:
    snap = snapshot_of([make_node().name(f"n{i}").obj() for i in range(3)])
    out = FilterOutcome.empty(NodeBatch.all(snap))
    out.record("P", BatchFilterResult.all_success(3), None)
    assert out.first_error() is None and out.status(1) == Status.success()
    assert out.feasible().tolist() == [0, 1, 2]
    out.record("P", BatchFilterResult.from_mask(np.array([False, True, False]), Code.ERROR, "boom"), None)
    err = out.first_error()
    assert err is not None and err.code == Code.ERROR and out.status(0) == Status.success()


def test_record_with_every_row_equals_record_with_explicit_rows() -> None:
    snap = snapshot_of([make_node().name(f"n{i}").obj() for i in range(4)])
    res = BatchFilterResult(np.array([0, 2, 3, 2], dtype=np.int8), np.array([0, 1, 1, 2], dtype=np.int32),
                            [(), ("a",), ("b",)])
    implicit, explicit = FilterOutcome.empty(NodeBatch.all(snap)), FilterOutcome.empty(NodeBatch.all(snap))
    implicit.record("P", res, None)
    explicit.record("P", res, np.arange(4, dtype=np.int64))
    assert implicit.codes.tolist() == explicit.codes.tolist()
    assert [implicit.status(i) for i in range(4)] == [explicit.status(i) for i in range(4)]


def test_the_shared_all_success_result_is_read_only() -> None:
    res = BatchFilterResult.all_success(5)
    assert res is BatchFilterResult.all_success(5) and not res.codes.any()
    with pytest.raises(ValueError):
        res.codes[0] = 2
