"""NodeColumns: per-node numpy arrays that batch plugins read to filter and score every
candidate node at once. There is no upstream counterpart; rows mirror the NodeInfo fields.

Column contract (all arrays have one row per node, in the snapshot's ``node_info_list`` order):

- ``resource_names`` / ``resource_index``: column order of the resource matrices. cpu, memory,
  ephemeral-storage and pods always come first; scalar resources (extended, hugepages,
  attachable volumes) follow in first-seen order. Only names upstream's ``Resource`` tracks
  appear (see :func:`~kubesched.cache.tracked_resources`).
- ``allocatable[N, R]``, ``requested[N, R]`` (int64): sum of pods' requests; the ``pods`` column
  of ``requested`` holds the pod count.
- ``non_zero_requested[N, R]``: like ``requested`` but cpu/memory with the scoring defaults.
- ``pod_count[N]``, ``unschedulable[N]`` (bool), ``has_node[N]`` (bool: the NodeInfo has its
  Node object; false only for node-less infos, which batch filters hand to the per-node rule).
- ``taint_set_id[N]`` into ``taint_sets`` (distinct taint tuples, ``taint_sets[0]`` is always
  the empty one; the list may hold sets no node has any more; it is append-only, so an id names
  the same set for the lifetime of the list): evaluate tolerations once per distinct set, then
  gather.
- ``label_column(key)`` -> (codes[N] int32 with -1 for "no such label", values list): node label
  values encoded per key in first-seen row order; ``values`` holds exactly the values some node
  has. Computed lazily, cached until a node's labels or the node list change; a recomputed
  column is a new tuple and a returned one is never modified, so callers may memoize answers
  per column by identity.

Between cycles the cache rewrites changed rows in place (:meth:`NodeColumns.fill_row`) and
rebuilds the arrays by gathering old rows when nodes are added or removed
(:meth:`NodeColumns.regather`); a batch plugin must not keep row arrays across cycles (answers
derived from a label column or from ``taint_sets`` may be kept, checked by identity as above).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from ..api import Node, Taint

if TYPE_CHECKING:
    from ._node_info import NodeInfo

__all__ = ["BASE_RESOURCES", "NodeColumns"]

BASE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")

I64 = npt.NDArray[np.int64]
_T = TypeVar("_T", bound=np.generic)


class NodeColumns:
    def __init__(self, infos: Sequence[NodeInfo]) -> None:
        names = list(BASE_RESOURCES)
        seen = set(names)
        for ni in infos:
            for k in (*ni.allocatable, *ni.requested):
                if k not in seen:
                    seen.add(k)
                    names.append(k)
        self.resource_names: list[str] = names
        self.resource_index: dict[str, int] = {n: i for i, n in enumerate(names)}
        n, r = len(infos), len(names)
        self.allocatable: I64 = np.zeros((n, r), dtype=np.int64)
        self.requested: I64 = np.zeros((n, r), dtype=np.int64)
        self.non_zero_requested: I64 = np.zeros((n, r), dtype=np.int64)
        self.pod_count: I64 = np.zeros(n, dtype=np.int64)
        self.unschedulable = np.zeros(n, dtype=bool)
        self.has_node = np.zeros(n, dtype=bool)
        self.taint_set_id = np.zeros(n, dtype=np.int32)
        self.taint_sets: list[tuple[Taint, ...]] = [()]
        self._taint_ids: dict[tuple[Taint, ...], int] = {(): 0}
        self._infos = infos
        self._row_nodes: list[Node | None] = [None] * n  # node object each row was filled from
        self._label_cache: dict[str, tuple[npt.NDArray[np.int32], list[str]]] = {}
        for i, ni in enumerate(infos):
            self.fill_row(i, ni)

    # -- rows -----------------------------------------------------------------
    def fill_row(self, i: int, ni: NodeInfo, taint_ids: dict[tuple[Taint, ...], int] | None = None) -> None:
        """Rewrite row ``i`` from ``ni``: O(R) numpy plus O(resources on the node) Python.

        ``taint_ids`` is accepted for backward compatibility and ignored (the columns keep their
        own taint-set index)."""
        idx = self.resource_index
        r = len(idx)
        alloc = [0] * r
        req = [0] * r
        try:
            for k, v in ni.allocatable.items():
                alloc[idx[k]] = v
            for k, v in ni.requested.items():
                req[idx[k]] = v
        except KeyError:
            self._add_resources([*ni.allocatable, *ni.requested])
            self.fill_row(i, ni)
            return
        npods = len(ni.pods)
        req[3] = npods
        nz = list(req)
        nzr = ni.non_zero_requested
        nz[0] = nzr.get("cpu", 0)
        nz[1] = nzr.get("memory", 0)
        self.allocatable[i] = alloc
        self.requested[i] = req
        self.non_zero_requested[i] = nz
        self.pod_count[i] = npods
        node = ni.node
        prev = self._row_nodes[i]
        if node is not prev:
            self._row_nodes[i] = node
            self.unschedulable[i] = bool(node and node.unschedulable)
            self.has_node[i] = node is not None
            taints = node.taints if node else ()
            tid = self._taint_ids.get(taints)
            if tid is None:
                tid = self._taint_ids[taints] = len(self.taint_sets)
                self.taint_sets.append(taints)
            self.taint_set_id[i] = tid
            if self._label_cache and (prev is None or node is None or prev.labels != node.labels):
                self._label_cache.clear()

    def _add_resources(self, names: Sequence[str]) -> None:
        """Grow the resource matrices by one zero column per new resource name."""
        new = [k for k in dict.fromkeys(names) if k not in self.resource_index]
        if not new:
            return
        for k in new:
            self.resource_index[k] = len(self.resource_names)
            self.resource_names.append(k)
        pad = ((0, 0), (0, len(new)))
        self.allocatable = np.pad(self.allocatable, pad)
        self.requested = np.pad(self.requested, pad)
        self.non_zero_requested = np.pad(self.non_zero_requested, pad)

    def regather(self, infos: Sequence[NodeInfo], src_rows: Sequence[int],
                 dirty: Sequence[int]) -> NodeColumns:
        """New columns for a new node list: row ``i`` is copied from old row ``src_rows[i]``
        (-1 for a node that was not there) and rows in ``dirty`` (plus new nodes) are refilled.

        Used when nodes are added or removed: O(N·R) numpy and O(changed) Python instead of
        refilling every row."""
        c = NodeColumns.__new__(NodeColumns)
        c.resource_names = list(self.resource_names)
        c.resource_index = dict(self.resource_index)
        n = len(infos)
        src = np.asarray(src_rows, dtype=np.int64).reshape(n)
        keep = src >= 0
        take = np.where(keep, src, 0)

        def gather(a: npt.NDArray[_T]) -> npt.NDArray[_T]:
            if len(a) == 0:
                return np.zeros((n, *a.shape[1:]), dtype=a.dtype)
            out = a[take]
            out[~keep] = 0
            return out

        c.allocatable = gather(self.allocatable)
        c.requested = gather(self.requested)
        c.non_zero_requested = gather(self.non_zero_requested)
        c.pod_count = gather(self.pod_count)
        c.unschedulable = gather(self.unschedulable)
        c.has_node = gather(self.has_node)
        c.taint_set_id = gather(self.taint_set_id)
        c.taint_sets = list(self.taint_sets)
        c._taint_ids = dict(self._taint_ids)
        c._infos = infos
        c._row_nodes = [self._row_nodes[s] if s >= 0 else None for s in src_rows]
        c._label_cache = {}
        for i in sorted({*dirty, *np.flatnonzero(~keep).tolist()}):
            c.fill_row(i, infos[i])
        return c

    # -- labels ---------------------------------------------------------------
    def label_column(self, key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
        """Node label ``key`` encoded: codes[i] indexes ``values``, -1 where the node lacks it."""
        hit = self._label_cache.get(key)
        if hit is not None:
            return hit
        values: list[str] = []
        ids: dict[str, int] = {}
        codes = np.full(len(self._infos), -1, dtype=np.int32)
        for i, ni in enumerate(self._infos):
            if ni.node is None:
                continue
            v = ni.node.labels.get(key)
            if v is None:
                continue
            c = ids.get(v)
            if c is None:
                c = ids[v] = len(values)
                values.append(v)
            codes[i] = c
        hit = self._label_cache[key] = (codes, values)
        return hit

    def resource_col(self, name: str) -> int | None:
        return self.resource_index.get(name)
