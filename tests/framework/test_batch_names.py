"""BatchNames: a batch's node names read lazily from the snapshot, equal to the eager list."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from kubesched.framework import BatchNames, NodeBatch
from kubesched.testing import make_node, snapshot_of

_SNAP = snapshot_of([make_node().name(f"node-{i}").obj() for i in range(12)])


@given(st.lists(st.integers(0, 11), max_size=12, unique=True))
def test_lazy_names_equal_the_eager_list(rows: list[int]) -> None:
    batch = NodeBatch(_SNAP, np.asarray(rows, dtype=np.int64))
    lazy, eager = batch.lazy_names(), batch.names()
    assert isinstance(lazy, BatchNames) and len(lazy) == len(eager)
    assert [lazy[i] for i in range(len(rows))] == eager  # single reads, before materializing
    assert [lazy[-i] for i in range(1, len(rows) + 1)] == [eager[-i] for i in range(1, len(rows) + 1)]
    assert list(lazy) == eager and lazy[1:3] == eager[1:3] and lazy == eager


def test_single_reads_do_not_build_the_list() -> None:
    lazy = NodeBatch(_SNAP, np.asarray([3, 1], dtype=np.int64)).lazy_names()
    assert lazy[0] == "node-3" and lazy._list is None
    assert "node-1" in lazy and lazy._list == ["node-3", "node-1"]
