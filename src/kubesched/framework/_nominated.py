"""Nodes carrying nominated pods in the batch Filter pass, without cloning them.

Upstream's ``RunFilterPluginsWithNominatedPods`` (pkg/scheduler/framework/runtime/framework.go,
master 2026) runs the filter chain twice on a node holding nominated pods of equal or higher
priority: first on a copy with those pods added (their PreFilter state updated through AddPod),
then, if that passed, on the node itself. The batch path used to do exactly that for each such
node, on cloned NodeInfos. With many pending preemptors (every one nominates a node, and on the
virtual clock none of them lands before the others have been tried) those clones dominated.

Most of those cycles have a simple shape: every Filter plugin that is not skipped states that
its verdict reads only the node's resources (``FilterInputs.RESOURCES``: NodeResourcesFit, at
most one such plugin, called Fit below) or only the node object and the cycle state written
in PreFilter, never the pods on the node (``FilterInputs.NODE``: NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity), and no PreFilter plugin that runs has AddPod/RemovePod
extensions. The plugins state this about themselves; the framework never names them. Then for
such a node, with ``f`` the position of Fit in the filter order:

- a node rejected by a plugin before Fit is rejected by it in the first pass too (that plugin
  reads nothing the nominated pods change, the earlier ones passed on the same inputs);
- otherwise the first pass reaches Fit, now on the node's requests plus the nominated pods'.
  If Fit rejects, that is the answer; if it passes, the first pass continues exactly as the
  plain pass (the later plugins are static) and, if it passed, the second pass *is* the plain
  pass. Either way the plain pass's status is the answer.

So only Fit needs re-running, on the nodes' ``requested`` rows plus the nominated pods'
requests, which :func:`refilter_with_nominated` does with Fit's own ``filter_batch`` over a view
of the columns. A nominated pod with a resource the columns lack (or any other shape) leaves
its node to the per-node two-pass path.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeGuard

import numpy as np
import numpy.typing as npt

from ._batch import NodeBatch
from ._interface import (
    BatchFilterPlugin,
    FilterInputs,
    LoggingNominator,
    NodeNamesNominator,
    PodNominator,
    filter_inputs,
)
from ._results import FilterOutcome

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeColumns, PodInfo, Snapshot
    from ._cycle_state import CycleState
    from ._runtime import Framework

__all__ = ["GE_NOMINATED_KEY", "GENominatedPods", "NominatedColumns", "SnapshotView",
           "ge_nominated_pods", "ge_nominated_rows", "refilter_with_nominated",
           "requests_row", "resource_only_filters"]

I64 = npt.NDArray[np.int64]


class SnapshotView:
    """What a batch filter reads of a Snapshot: its columns."""

    __slots__ = ("columns",)

    def __init__(self, columns: NodeColumns) -> None:
        self.columns = columns


def resource_only_filters(fwk: Framework, state: CycleState) -> tuple[bool, BatchFilterPlugin | None, int]:
    """Whether this cycle's active filters have the shape of the module docstring, as the
    plugins state it (:class:`FilterInputs`): ``(ok, the one RESOURCES plugin or None, its
    position among the active filter plugins)``. Also the shape preemption's resource-only dry
    run needs."""
    if fwk.per_node:
        return False, None, -1  # the reference mode keeps upstream's two passes
    skip = state.skip_filter_plugins
    fit: BatchFilterPlugin | None = None
    pos = -1
    k = 0
    for pl in fwk.filter_plugins:
        if skip and pl.name() in skip:
            continue
        inputs = filter_inputs(pl)
        if inputs is FilterInputs.RESOURCES and fit is None and isinstance(pl, BatchFilterPlugin):
            fit, pos = pl, k
        elif inputs is not FilterInputs.NODE:
            return False, None, -1
        k += 1
    for pf in fwk.pre_filter_plugins:
        if pf.pre_filter_extensions() is not None and not (skip and pf.name() in skip):
            return False, None, -1
    return True, fit, pos


GE_NOMINATED_KEY = "kubesched.io/GENominatedPods"
"""CycleState key of the :class:`GENominatedPods` the batch Filter pass used."""

_row_versions = itertools.count(1)
_NO_PRIO_LOW = np.iinfo(np.int64).min
_NO_PRIO_HIGH = np.iinfo(np.int64).max


class NominatedColumns:
    """Every node's nominated pods, summed per snapshot row and kept across cycles.

    Each Filter pass (and preemption's dry run) needs, for every node, the nominated pods of
    priority >= the cycle's pod (addGENominatedPods). With thousands of pending preemptors,
    each holding a nomination, asking the queue node by node made every cycle linear in the
    number of nominations. Here the nominator's change log (``nominated_changes_since``) says
    which nodes to re-read since the last cycle, and per snapshot row we keep the nominated
    pods (queue order, the queue's own versions), their summed requests (as
    ``NodeColumns.requested`` counts them, ``pods`` included), their lowest and highest
    priority, and whether one has a resource without a column. A pod's question is then a
    few array operations (:class:`GENominatedPods`)."""

    __slots__ = ("_index", "_layout", "count", "exotic", "max_prio", "min_prio", "pods", "requests",
                 "row_version", "uid_row", "version")

    def __init__(self) -> None:
        self.version = -1
        self._index: dict[str, int] | None = None
        self._layout: tuple[str, ...] = ()
        self.count = 0  # rows with nominated pods
        self.pods: dict[int, list[PodInfo]] = {}
        self.uid_row: dict[str, int] = {}
        self.requests: I64 = np.zeros((0, 0), dtype=np.int64)
        self.min_prio: I64 = np.zeros(0, dtype=np.int64)
        self.max_prio: I64 = np.zeros(0, dtype=np.int64)
        self.exotic: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        # Per row, a process-wide number that changes whenever the row is re-read: lets a
        # reader keep per-row answers that depend on the nominated pods (preemption's dry run).
        self.row_version: I64 = np.zeros(0, dtype=np.int64)

    @staticmethod
    def supported(nom: object) -> TypeGuard[LoggingNominator]:
        """Whether the nominator keeps the change log this needs (the scheduler's queue does)."""
        return isinstance(nom, LoggingNominator)

    def sync(self, nom: LoggingNominator, snapshot: Snapshot) -> None:
        """Bring the rows up to date with the nominator and the snapshot's row layout."""
        cols = snapshot.columns
        layout = tuple(cols.resource_index)
        version, changed = nom.nominated_changes_since(self.version)
        if changed is None or snapshot.node_index is not self._index or layout != self._layout:
            self._reset(snapshot, layout)
            changed = list(nom.nominated_node_names())
        elif not changed:
            self.version = version
            return
        index = snapshot.node_index
        ridx = cols.resource_index
        pods_col = ridx["pods"]
        width = len(layout)
        for name in set(changed):
            row = index.get(name)
            if row is not None:
                self._read(row, nom.nominated_pods_for_node(name), ridx, pods_col, width)
        self.version = version

    def _reset(self, snapshot: Snapshot, layout: tuple[str, ...]) -> None:
        n = len(snapshot.node_info_list)
        self._index = snapshot.node_index
        self._layout = layout
        self.count = 0
        self.pods = {}
        self.uid_row = {}
        self.requests = np.zeros((n, len(layout)), dtype=np.int64)
        self.min_prio = np.full(n, _NO_PRIO_HIGH, dtype=np.int64)
        self.max_prio = np.full(n, _NO_PRIO_LOW, dtype=np.int64)
        self.exotic = np.zeros(n, dtype=bool)
        self.row_version = np.full(n, next(_row_versions), dtype=np.int64)

    def _read(self, row: int, infos: list[PodInfo], ridx: dict[str, int], pods_col: int, width: int) -> None:
        self.row_version[row] = next(_row_versions)
        old = self.pods.pop(row, None)
        if old is not None:
            self.count -= 1
            for pi in old:
                if self.uid_row.get(pi.pod.uid) == row:
                    del self.uid_row[pi.pod.uid]
        if not infos:
            self.requests[row] = 0
            self.min_prio[row] = _NO_PRIO_HIGH
            self.max_prio[row] = _NO_PRIO_LOW
            self.exotic[row] = False
            return
        self.pods[row] = infos
        self.count += 1
        for pi in infos:
            self.uid_row[pi.pod.uid] = row
        add = requests_row(infos, ridx, pods_col, width)
        self.exotic[row] = add is None
        self.requests[row] = 0 if add is None else add
        prios = [pi.pod.priority_value for pi in infos]
        self.min_prio[row] = min(prios)
        self.max_prio[row] = max(prios)


class GENominatedPods:
    """addGENominatedPods' pods for one pod in one cycle, over every snapshot row: the
    nominated pods of priority >= the pod's, other than the pod itself.

    Rows where every nominated pod qualifies (the usual case) read the kept sums as they are;
    the others (mixed priorities, the pod's own nomination, a resource without a column) are
    worked out per node. The batch Filter pass keeps this in the cycle state, and preemption's
    dry run of the same cycle reads it when the nominator has not changed since (``version``).
    """

    __slots__ = ("_cols", "_ge", "_nom", "_simple", "priority", "uid", "version")

    def __init__(self, pod: Pod, cols: NominatedColumns, nom: LoggingNominator) -> None:
        self.uid = pod.uid
        self.priority = prio = pod.priority_value
        self.version = cols.version
        self._cols = cols
        self._nom = nom
        if cols.count:
            self._ge: npt.NDArray[np.bool_] | None = cols.max_prio >= prio
            simple = self._ge & (cols.min_prio >= prio) & ~cols.exotic
            own = cols.uid_row.get(self.uid)
            if own is not None:
                simple[own] = False
            self._simple: npt.NDArray[np.bool_] | None = simple
        else:
            self._ge = None
            self._simple = None

    def clone(self) -> GENominatedPods:
        return self  # never modified once built

    def matches(self, pod: Pod) -> bool:
        return self.uid == pod.uid and self.priority == pod.priority_value

    @property
    def own_row(self) -> int:
        """The snapshot row of the pod's own nomination (-1: none)."""
        return self._cols.uid_row.get(self.uid, -1)

    def row_versions(self, snap_rows: I64) -> I64:
        """The nominated rows' versions (see ``NominatedColumns.row_version``)."""
        return self._cols.row_version[snap_rows]

    def is_current(self) -> bool:
        """Whether the nominator is unchanged since this was built (the kept rows are shared
        with later cycles, so a stale answer must not be read)."""
        version, _ = self._nom.nominated_changes_since(self.version)
        return bool(version == self.version == self._cols.version)

    def _row_pods(self, row: int) -> list[PodInfo]:
        infos = self._cols.pods.get(row, [])
        assert self._simple is not None
        if self._simple[row]:
            return infos
        prio, uid = self.priority, self.uid
        return [pi for pi in infos if pi.pod.priority_value >= prio and pi.pod.uid != uid]

    def pods(self, node_name: str) -> list[PodInfo]:
        """The equal-or-higher-priority nominated pods of ``node_name``, in queue order."""
        row = self._cols._index.get(node_name) if self._cols._index is not None else None
        if row is None:  # not in the snapshot: ask the queue
            prio, uid = self.priority, self.uid
            return [pi for pi in self._nom.nominated_pods_for_node(node_name)
                    if pi.pod.priority_value >= prio and pi.pod.uid != uid]
        if self._ge is None or not self._ge[row]:
            return []
        return self._row_pods(row)

    def additions(self, snap_rows: I64, ridx: dict[str, int]) -> tuple[I64, I64, list[int]]:
        """For the snapshot rows ``snap_rows``: ``(positions, requests, undecided)``: the
        positions (into ``snap_rows``) of nodes with such pods, those pods' summed requests
        (rows aligned with ``positions``), and the positions whose pods have a resource
        without a column (left out of the first two: the caller takes the per-node path)."""
        empty = np.zeros(0, dtype=np.int64)
        if self._ge is None or self._simple is None:
            return empty, np.zeros((0, len(ridx)), dtype=np.int64), []
        hit = np.flatnonzero(self._ge[snap_rows])
        if hit.size == 0:
            return empty, np.zeros((0, len(ridx)), dtype=np.int64), []
        rows = snap_rows[hit]
        req = self._cols.requests[rows]
        simple = self._simple[rows]
        if simple.all():
            return hit, req, []
        keep = np.ones(len(hit), dtype=bool)
        undecided: list[int] = []
        pods_col = ridx["pods"]
        width = req.shape[1]
        for k in np.flatnonzero(~simple).tolist():
            ge = self._row_pods(int(rows[k]))
            add = requests_row(ge, ridx, pods_col, width) if ge else None
            if add is None:
                keep[k] = False
                if ge:
                    undecided.append(int(hit[k]))
            else:
                req[k] = add
        return hit[keep], req[keep], undecided


def ge_nominated_pods(nom: LoggingNominator, cols: NominatedColumns, snapshot: Snapshot, pod: Pod,
                      state: CycleState | None = None) -> GENominatedPods:
    """This cycle's :class:`GENominatedPods` for ``pod`` (kept in ``state`` when given):
    the nominated columns are synced with the queue first."""
    cols.sync(nom, snapshot)
    if state is not None:
        seen = state.get(GE_NOMINATED_KEY)
        if isinstance(seen, GENominatedPods) and seen.matches(pod) and seen.version == cols.version \
                and seen._cols is cols:
            return seen
    ge = GENominatedPods(pod, cols, nom)
    if state is not None:
        state.write(GE_NOMINATED_KEY, ge)
    return ge


def ge_nominated_rows(nom: PodNominator, batch: NodeBatch, pod: Pod) -> list[int]:
    """The batch rows whose node holds nominated pods of priority >= the pod's other than
    itself, in batch order: the nodes addGENominatedPods would add pods to. The node-by-node
    form, for nominators without a change log."""
    infos = batch.snapshot.node_info_list
    prio, uid = pod.priority_value, pod.uid
    rows: Iterable[tuple[int, int]] = enumerate(batch.indices.tolist())
    if isinstance(nom, NodeNamesNominator):
        # Most cycles see no nominated pod at all: ask once instead of once per node.
        nominated = nom.nominated_node_names()
        if not nominated:
            return []
        index = batch.snapshot.node_index
        marked = np.zeros(len(infos), dtype=bool)
        marked[[i for i in map(index.get, nominated) if i is not None]] = True
        hit = np.flatnonzero(marked[batch.indices])
        rows = zip(hit.tolist(), batch.indices[hit].tolist(), strict=True)
    return [row for row, idx in rows
            if any(pi.pod.priority_value >= prio and pi.pod.uid != uid
                   for pi in nom.nominated_pods_for_node(infos[idx].name))]


def requests_row(pods: Sequence[PodInfo], ridx: dict[str, int], pods_col: int,
                 width: int) -> list[int] | None:
    """The pods' requests (and their count) as a requested row, as NodeInfo.AddPodInfo adds
    them to ``requested``; None when a resource has no column."""
    row = [0] * width
    get = ridx.get
    for pi in pods:
        for name, v in pi.resource.items():
            c = get(name)
            if c is None:
                return None
            row[c] += v
    row[pods_col] += len(pods)
    return row


def refilter_with_nominated(out: FilterOutcome, state: CycleState, pod: Pod, fit: BatchFilterPlugin | None,
                            fit_pos: int,
                            active_names: Sequence[str], rows: I64, additions: I64) -> None:
    """Turn the plain batch outcome ``out`` into RunFilterPluginsWithNominatedPods' answer for
    batch rows ``rows``, whose nodes hold nominated pods requesting ``additions`` (one row
    each, as ``NodeColumns.requested``): see the module docstring."""
    if fit is None or rows.size == 0:
        return  # no pod-dependent filter runs: both passes are the plain pass
    failed = np.flatnonzero(out.codes[rows])
    if failed.size:
        # Rows rejected before Fit keep that answer: the first pass stops there too.
        position = {name: k for k, name in enumerate(active_names)}
        keys, table = out.status_keys(rows[failed])
        before = np.array([position.get(st.plugin, fit_pos) < fit_pos for st in table], dtype=bool)
        if before.any():
            keep = np.ones(rows.size, dtype=bool)
            keep[failed[before[keys]]] = False
            rows, additions = rows[keep], additions[keep]
            if rows.size == 0:
                return
    batch = out.batch
    cols = batch.snapshot.columns
    snap_rows = batch.indices[rows]
    view = SnapshotView(cols.rows_view(snap_rows, cols.requested[snap_rows] + additions))
    sub = NodeBatch(view, np.arange(len(rows), dtype=np.int64))  # type: ignore[arg-type]
    out.record(fit.name(), fit.filter_batch(state, pod, sub), rows)
