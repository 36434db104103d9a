"""NodeColumns: per-node numpy arrays that batch plugins read to filter and score every
candidate node at once. There is no upstream counterpart; rows mirror the NodeInfo fields.

Column contract (all arrays have one row per node, in the snapshot's ``node_info_list`` order):

- ``resource_names`` / ``resource_index``: column order of the resource matrices. cpu, memory,
  ephemeral-storage and pods always come first; scalar resources (extended, hugepages,
  attachable volumes) follow in first-seen order. Only names upstream's ``Resource`` tracks
  appear (see :func:`~kubesched.cache.tracked_resources`).
- ``allocatable[N, R]``, ``requested[N, R]`` (int64): sum of pods' requests; the ``pods`` column
  of ``requested`` holds the pod count. A sum beyond int64 is stored as the int64 maximum (the
  NodeInfo keeps the exact sum, so removing the pod again restores the exact row).
- ``non_zero_requested[N, R]``: like ``requested`` but cpu/memory with the scoring defaults.
- ``pod_count[N]``, ``unschedulable[N]`` (bool), ``has_node[N]`` (bool: the NodeInfo has its
  Node object; false only for node-less infos, which batch filters hand to the per-node rule).
- ``taint_set_id[N]`` into ``taint_sets`` (distinct taint tuples, ``taint_sets[0]`` is always
  the empty one; the list may hold sets no node has any more; it is append-only, so an id names
  the same set for the lifetime of the list): evaluate tolerations once per distinct set, then
  gather.
- ``log_mark()`` / ``changed_rows_since(mark)``: the rows :meth:`NodeColumns.fill_row` rewrote
  since a mark (``None`` when the log no longer reaches back that far, or when the resource
  matrices were rebuilt with new columns: everything may have changed). Batch plugins that keep
  per-row answers across cycles (the resource scorers' memo) refresh only those rows.
- ``label_column(key)`` -> (codes[N] int32 with -1 for "no such label", values list): node label
  values encoded per key in first-seen row order; ``values`` holds exactly the values some node
  has. Computed lazily, cached until a node's labels or the node list change; a recomputed
  column is a new tuple and a returned one is never modified, so callers may memoize answers
  per column by identity.
- ``images()`` -> :class:`~kubesched.cache.NodeImages`: the nodes' ``image_states`` by image
  name (rows, sizes, node counts), built on first request and then kept row by row: a cluster
  whose scheduler never asks (ImageLocality disabled) never pays for it.

Between cycles the cache rewrites changed rows in place (:meth:`NodeColumns.fill_row`) and
rebuilds the arrays by gathering old rows when nodes are added or removed
(:meth:`NodeColumns.regather`); a batch plugin must not keep row arrays across cycles (answers
derived from a label column or from ``taint_sets`` may be kept, checked by identity as above).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from ..api import Node, Taint, saturate
from ._images import NodeImages

if TYPE_CHECKING:
    from ._node_info import NodeInfo

__all__ = ["BASE_RESOURCES", "NodeColumns", "RowAnswers", "RowMemo", "label_domains_of"]

BASE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")

I64 = npt.NDArray[np.int64]
_T = TypeVar("_T", bound=np.generic)
_ROW_LOG_LIMIT = 4096
"""Longest row change log kept (the older half is dropped beyond it): 1-2 rows change per
scheduling cycle, and a reader more than a few thousand rows behind refreshes everything."""


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
        # each row's NodeInfo generation when it was last filled (what kept answers check)
        self.generation: I64 = np.zeros(n, dtype=np.int64)
        self.unschedulable = np.zeros(n, dtype=bool)
        self.has_node = np.zeros(n, dtype=bool)
        self.taint_set_id = np.zeros(n, dtype=np.int32)
        self.taint_sets: list[tuple[Taint, ...]] = [()]
        self._taint_ids: dict[tuple[Taint, ...], int] = {(): 0}
        self._infos = infos
        self._row_nodes: list[Node | None] = [None] * n  # node object each row was filled from
        self._label_cache: dict[str, tuple[npt.NDArray[np.int32], list[str]]] = {}
        self._label_domains: dict[str, tuple[bool, list[int]]] = {}  # cleared with _label_cache
        self._row_log: list[int] = []  # rows rewritten in place, oldest first
        self._log_start = 0  # log position of _row_log[0]
        self._images: NodeImages | None = None
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
        try:
            self.allocatable[i] = alloc
            self.requested[i] = req
            self.non_zero_requested[i] = nz
        except OverflowError:
            # A sum beyond int64 (many pods each asking for a huge amount): the row holds the
            # int64 maximum, as every amount does (api.saturate). Rewritten whole, so a row is
            # never left half-filled.
            self.allocatable[i] = [saturate(v) for v in alloc]
            self.requested[i] = [saturate(v) for v in req]
            self.non_zero_requested[i] = [saturate(v) for v in nz]
        self.pod_count[i] = npods
        self.generation[i] = ni.generation
        log = self._row_log
        log.append(i)
        if len(log) > _ROW_LOG_LIMIT:
            drop = len(log) // 2
            del log[:drop]
            self._log_start += drop
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
                self._label_domains.clear()
        if self._images is not None:
            self._images.update(ni)

    def _add_resources(self, names: Sequence[str]) -> None:
        """Grow the resource matrices by one zero column per new resource name."""
        new = [k for k in dict.fromkeys(names) if k not in self.resource_index]
        if not new:
            return
        # Every row's matrices change shape: marks taken before now no longer say what changed.
        self._log_start += len(self._row_log) + 1
        self._row_log = []
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
        c.generation = gather(self.generation)
        c.unschedulable = gather(self.unschedulable)
        c.has_node = gather(self.has_node)
        c.taint_set_id = gather(self.taint_set_id)
        c.taint_sets = list(self.taint_sets)
        c._taint_ids = dict(self._taint_ids)
        c._infos = infos
        c._row_nodes = [self._row_nodes[s] if s >= 0 else None for s in src_rows]
        c._label_cache = {}
        c._label_domains = {}
        c._row_log = []
        c._log_start = 0
        c._images = self._images
        if c._images is not None:
            c._images.relist(infos, src)
        for i in sorted({*dirty, *np.flatnonzero(~keep).tolist()}):
            c.fill_row(i, infos[i])
        return c

    # -- images ---------------------------------------------------------------
    def images(self) -> NodeImages:
        """The rows' image states by image name (see the module docstring)."""
        if self._images is None:
            self._images = NodeImages(self._infos)
        return self._images

    # -- change log -----------------------------------------------------------
    def log_mark(self) -> int:
        """A position in the row change log, for :meth:`changed_rows_since`."""
        return self._log_start + len(self._row_log)

    def changed_rows_since(self, mark: int) -> list[int] | None:
        """Rows rewritten in place since ``mark`` (repeats possible), or ``None`` when that is
        no longer known (the log was trimmed, or new resource columns rebuilt the matrices)."""
        start = mark - self._log_start
        if start < 0:
            return None
        return self._row_log[start:]

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

    def label_domains(self, key: str) -> tuple[bool, list[int]]:
        """Whether every row holds a node labelled ``key``, and the codes of
        :meth:`label_column` present in some row, ascending: per-cycle questions of topology
        plugins (which domains exist, does any node lack the key) answered once per label state."""
        hit = self._label_domains.get(key)
        if hit is None:
            hit = self._label_domains[key] = label_domains_of(self.label_column(key)[0], self.has_node)
        return hit

    def resource_col(self, name: str) -> int | None:
        return self.resource_index.get(name)


def label_domains_of(codes: npt.NDArray[np.int32], has_node: npt.NDArray[np.bool_]) -> tuple[bool, list[int]]:
    """(every row has a node and a code, the codes present ascending) of a label column."""
    labeled = codes >= 0
    everywhere = bool(labeled.all() and has_node.all())
    present = np.flatnonzero(np.bincount(codes[labeled], minlength=0)).tolist() if labeled.any() else []
    return everywhere, present


@dataclass(slots=True)
class RowAnswers:
    """One key's per-row answers over every row of ``cols``: ``values[i]`` holds where
    ``known[i]``. ``token`` is what the answers were computed for besides the key (matched by
    identity); ``mark`` the change-log position they are current at."""

    cols: NodeColumns
    token: object
    mark: int
    values: I64
    known: npt.NDArray[np.bool_]

    def missing(self, rows: I64) -> I64:
        """The batch rows without a known answer."""
        known = self.known.take(rows)
        if np.count_nonzero(known) == len(rows):
            return rows[:0]
        return rows[~known]

    def put(self, rows: I64 | Sequence[int], values: I64 | Sequence[int]) -> None:
        """Record answers for ``rows``: a few by item, more with one fancy index each."""
        if len(rows) <= 16:
            vals, known = self.values, self.known
            for r, v in zip(rows, values, strict=True):
                vals[r] = v
                known[r] = True
        else:
            self.values[rows] = values
            self.known[rows] = True


class RowMemo:
    """Per-row answers a batch plugin keeps across scheduling cycles, for a few keys (e.g. the
    pod's requests): a row's answer depends only on its column rows, and between two cycles the
    cache rewrites one or two rows (where the last pod went), so the plugin computes only the
    rows the change log names (:meth:`NodeColumns.changed_rows_since`) instead of the batch.

    A key seen for the first time gets no memo (``entry`` returns None): one-off keys would pay
    for every-row arrays they never reuse. No upstream counterpart: kube-scheduler recomputes
    every score per cycle (resource_allocation.go score); answers equal doing so."""

    __slots__ = ("_entries", "_limit", "_seen")

    def __init__(self, limit: int = 8) -> None:
        self._entries: dict[Hashable, RowAnswers] = {}
        self._seen: set[Hashable] = set()
        self._limit = limit

    def entry(self, cols: NodeColumns, key: Hashable, token: object) -> RowAnswers | None:
        """The answers for ``key`` on ``cols`` (computed for ``token``), rows changed since they
        were current marked unknown; None on the first sight of ``key``."""
        hit = self._entries.get(key)
        if hit is None or hit.cols is not cols or hit.token is not token:
            if hit is None and key not in self._seen:
                if len(self._seen) >= 256:
                    self._seen.clear()
                self._seen.add(key)
                return None
            n = len(cols.pod_count)
            hit = RowAnswers(cols, token, cols.log_mark(), np.zeros(n, dtype=np.int64),
                             np.zeros(n, dtype=bool))
            if len(self._entries) >= self._limit:
                self._entries.clear()
            self._entries[key] = hit
            return hit
        changed = cols.changed_rows_since(hit.mark)
        if changed is None:
            hit.known[:] = False
        else:
            known = hit.known
            for r in changed:  # one or two rows per cycle: item writes beat a fancy index
                known[r] = False
        hit.mark = cols.log_mark()
        return hit
