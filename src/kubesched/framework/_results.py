"""What the runtime's batch filter and score passes return.

:class:`FilterOutcome` holds one code per candidate node plus enough to rebuild each failing
node's Status (the plugin that rejected it and its reasons) without creating a Status per node
on the hot path. :class:`ScoreResult` keeps the per-plugin raw, normalized and weighted scores so
a decision can be explained per node and per plugin (kube-scheduler-simulator style).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ._batch import BatchFilterResult, NodeBatch
from ._status import Code, Status

__all__ = ["FilterOutcome", "ScoreResult", "filter_plugin_error"]

_REJECTED = (int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING))


def error_text(st: Status) -> str:
    """Status.AsError().Error(): the wrapped error's text, else the reasons."""
    return str(st.error) if st.error is not None else st.message()


def filter_plugin_error(plugin: str, st: Status) -> Status:
    """A filter returned neither Success nor a rejection: upstream turns it into an Error."""
    err = RuntimeError(f'running "{plugin}" filter plugin: {error_text(st)}')
    return Status.from_error(err).with_plugin(plugin)


# code -> the code a filter's answer counts as: Success and the rejections stay, anything else
# (Error, Wait, Skip, unknown) is an Error. A lookup table: np.isin costs ~100x more per call.
_FILTER_CODE = np.full(256, int(Code.ERROR), dtype=np.int8)
_FILTER_CODE[0] = 0
_FILTER_CODE[list(_REJECTED)] = _REJECTED


def normalize_filter_codes(codes: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """Codes other than Success and the rejections count as Error (see filter_plugin_error)."""
    return _FILTER_CODE[codes.astype(np.uint8, copy=False)]


_NO_ROWS16: npt.NDArray[np.int16] = np.zeros(0, dtype=np.int16)
_NO_ROWS32: npt.NDArray[np.int32] = np.zeros(0, dtype=np.int32)


def _dense_groups(key: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """np.unique(key, return_index=True, return_inverse=True)[1:] for small non-negative keys,
    without sorting: (the first position of each distinct key in key order, each entry's group)."""
    size = int(key.max()) + 1
    if size > 1 << 16:
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        return first, inv
    present = np.zeros(size, dtype=np.bool_)
    present[key] = True
    group_of = np.cumsum(present) - 1
    inv = group_of[key]
    first = np.empty(int(present.sum()), dtype=np.int64)
    first[inv[::-1]] = np.arange(key.size - 1, -1, -1, dtype=np.int64)  # the last write wins
    return first, inv


@dataclass(slots=True)
class FilterOutcome:
    """Per-node result of running all Filter plugins over a batch.

    ``codes[i]`` is the final :class:`Code` value for ``batch.indices[i]`` (0: the node fits)."""

    batch: NodeBatch
    codes: npt.NDArray[np.int8]
    _plugin_of: npt.NDArray[np.int16] = field(repr=False)
    _local_of: npt.NDArray[np.int32] = field(repr=False)
    _results: list[tuple[str, BatchFilterResult]] = field(default_factory=list, repr=False)
    _statuses: dict[int, Status] = field(default_factory=dict, repr=False)
    # (plugin result, code, reason id) -> Status: statuses are immutable, and most rejected
    # nodes share a handful of them, so each is built once per outcome.
    _memo: dict[tuple[int, int, int], Status] = field(default_factory=dict, repr=False)

    @staticmethod
    def empty(batch: NodeBatch) -> FilterOutcome:
        n = len(batch)
        # The plugin/reason maps are allocated on the first failure: most passes have none.
        return FilterOutcome(batch, np.zeros(n, dtype=np.int8), _NO_ROWS16, _NO_ROWS32)

    def _maps(self) -> None:
        if self._plugin_of is _NO_ROWS16:
            n = len(self.codes)
            self._plugin_of = np.full(n, -1, dtype=np.int16)
            self._local_of = np.zeros(n, dtype=np.int32)

    def record(self, plugin: str, result: BatchFilterResult, rows: npt.NDArray[np.int64] | None) -> None:
        """``result`` covers batch rows ``rows`` (None: every row, in order); keep its failures."""
        failed = result.codes != 0
        if not np.count_nonzero(failed):
            return
        self._maps()
        k = len(self._results)
        self._results.append((plugin, result))
        local = np.flatnonzero(failed)
        pos = local if rows is None else rows[local]
        self.codes[pos] = normalize_filter_codes(result.codes[local])
        self._plugin_of[pos] = k
        self._local_of[pos] = local

    def set_status(self, row: int, status: Status | None) -> None:
        """Record a per-node status (the per-node and nominated-pods paths)."""
        if status is None or status.is_success():
            self.codes[row] = 0
            self._statuses.pop(row, None)
        else:
            self.codes[row] = int(status.code)
            self._statuses[row] = status
        self._maps()
        self._plugin_of[row] = -1

    def passed(self) -> npt.NDArray[np.bool_]:
        return self.codes == 0

    def feasible(self) -> npt.NDArray[np.int64]:
        """Snapshot indices of the nodes that passed every filter, in batch order."""
        return self.batch.indices[self.codes == 0]

    def status(self, row: int) -> Status:
        """The Status of batch row ``row``, stamped with the plugin that decided it."""
        st = self._statuses.get(row)
        if st is not None:
            return st
        if not self._results:
            return Status.success()
        k = int(self._plugin_of[row])
        if k < 0:
            return Status.success()
        plugin, res = self._results[k]
        local = int(self._local_of[row])
        key = (k, int(res.codes[local]), int(res.reason_ids[local]))
        st = self._memo.get(key)
        if st is None:
            st = res.status(local, plugin)
            if int(st.code) not in _REJECTED:
                st = filter_plugin_error(plugin, st)
            self._memo[key] = st
        return st

    def status_keys(self, rows: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.intp], list[Status]]:
        """The statuses of (failed) batch rows ``rows`` as ``(keys, table)``: row ``rows[i]``
        has ``table[keys[i]]``. One Status per distinct (plugin, code, reason), built once, so
        thousands of rejected nodes cost a few array operations."""
        if rows.size == 0:
            return np.zeros(0, dtype=np.intp), []
        self._maps()
        k = self._plugin_of[rows].astype(np.int64)
        local = self._local_of[rows]
        rid = np.zeros(rows.size, dtype=np.int64)
        special = k < 0
        for kk in np.flatnonzero(np.bincount(k[~special])).tolist():  # the plugins involved
            m = k == kk
            rid[m] = self._results[kk][1].reason_ids[local[m]]
        if special.any():  # per-node statuses: one key each
            key = ((k * 8 + self.codes[rows]) << 32) + rid
            key[special] = -1 - rows[special]
            _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        else:
            first, inv = _dense_groups((k * 8 + self.codes[rows]) * (int(rid.max()) + 1) + rid)
        table = [self.status(int(rows[i])) for i in first.tolist()]
        return inv.reshape(-1).astype(np.intp, copy=False), table

    def failed_statuses(self) -> dict[str, Status]:
        """Node name -> Status for every node that did not pass (the diagnosis map)."""
        infos = self.batch.snapshot.node_info_list
        out: dict[str, Status] = {}
        for row in np.nonzero(self.codes)[0].tolist():
            out[infos[int(self.batch.indices[row])].name] = self.status(row)
        return out

    def first_error(self) -> Status | None:
        """The first node's Error status, if any: an error aborts the cycle upstream."""
        if not self._results and not self._statuses:
            return None
        errs = np.flatnonzero(self.codes == int(Code.ERROR))
        return self.status(int(errs[0])) if errs.size else None


@dataclass(slots=True)
class ScoreResult:
    """Scores of ``node_names`` (columns) by ``plugin_names`` (rows)."""

    node_names: Sequence[str]
    plugin_names: list[str]
    weights: list[int]
    raw: npt.NDArray[np.int64]
    normalized: npt.NDArray[np.int64]
    totals: npt.NDArray[np.int64]

    def weighted(self) -> npt.NDArray[np.int64]:
        w = np.asarray(self.weights, dtype=np.int64).reshape(-1, 1)
        return self.normalized * w

    def plugin_scores(self, node: int) -> dict[str, int]:
        """Weighted score per plugin for column ``node`` (NodePluginScores.Scores)."""
        w = self.weighted()
        return {p: int(w[k, node]) for k, p in enumerate(self.plugin_names)}
