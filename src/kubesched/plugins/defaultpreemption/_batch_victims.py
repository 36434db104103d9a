"""The resource-only dry run of :mod:`._resource_victims`, over many nodes at once.

Same model, same answers, but with array operations: the nodes the Evaluator is about to visit
are taken in chunks (in its visiting order, so that it never pays for nodes beyond the point
where upstream's DryRunPreemption stops), and for a chunk

1. the lower-priority pods of each node are summed per resource and taken off the node's
   requested row (``NodeColumns``), nominated pods of equal or higher priority added;
2. NodeResourcesFit's own ``filter_batch`` runs on those rows (through a view of the columns
   restricted to the chunk), which gives each node's status exactly as its per-node Filter;
3. the victims are reprieved one rank at a time across all nodes (most important first: higher
   priority, then earlier start), ``filter_batch`` deciding each step;
4. each node's victim list carries what pickOneNodeForPreemption reads of it (first priority,
   priority sum, count, earliest start of the highest-priority victims: a ``VictimsSummary``),
   taken from the same arrays, so that choosing among hundreds of candidates reads no pod.

Nominated pods come from the cycle state when the batch Filter pass kept them
(``framework._nominated.GENominatedPods``: summed per row, added with one array operation),
else from the queue.

Only used when there are no PodDisruptionBudgets (no violating/non-violating split) and the
plugin's IsEligiblePod / MoreImportantPod hooks are the defaults; a node the model cannot take
(status from another plugin, a nominated pod with a resource the columns do not have) is
answered per node by :class:`~._resource_victims.ResourceVictimSelector`.

Each node's pods are turned into arrays once per node generation (``NodeInfo.generation``
changes with every pod added or removed) and cached across preemptions in a
:class:`NodePodArrays` cache owned by the plugin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from kubesched.api import INT64_MAX
from kubesched.framework import NodeBatch, SnapshotView, Status, requests_row
from kubesched.framework.preemption import DecidedNodes, VictimList, VictimsSummary, importance_columns

from ._resource_victims import ResourceVictimSelector
from ._victim_rule import VictimsResult, lower_priority, no_victims_result

if TYPE_CHECKING:
    from kubesched.api import Pod
    from kubesched.cache import NodeColumns, NodeInfo, Snapshot

__all__ = ["BatchVictimSelector", "KnownAnswers", "NodePodArrays"]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
_MIN_CHUNK = 64


class _PodArrays:
    """One node's pods as arrays: priority, start time (NaN: not started), requests by column
    (the ``pods`` column is 1 per pod, as in ``NodeColumns.requested``), the Pod objects."""

    __slots__ = ("generation", "layout", "pobj", "pods", "prio", "req", "start")

    def __init__(self, ni: NodeInfo, resource_index: dict[str, int]) -> None:
        pods = ni.pods
        self.generation = ni.generation
        self.pods = pods
        self.layout = tuple(resource_index)
        width = len(self.layout)
        k = len(pods)
        self.prio: I64 = np.fromiter((pi.pod.priority_value for pi in pods), dtype=np.int64, count=k)
        self.start: F64 = np.fromiter(
            (np.nan if pi.pod.start_time is None else pi.pod.start_time for pi in pods),
            dtype=np.float64, count=k)
        req = np.zeros((k, width), dtype=np.int64)
        pods_col = resource_index["pods"]
        for row, pi in enumerate(pods):
            for name, v in pi.resource.items():
                req[row, resource_index[name]] = v
            req[row, pods_col] = 1
        self.req: I64 = req
        pobj = np.empty(k, dtype=object)
        for row, pi in enumerate(pods):
            pobj[row] = pi.pod
        self.pobj: npt.NDArray[np.object_] = pobj


class NodePodArrays:
    """Node name -> its pods as arrays, rebuilt when the node's generation, pod list or the
    column layout (resource names in column order) changes. Kept by the plugin across cycles."""

    __slots__ = ("_by_node",)

    def __init__(self) -> None:
        self._by_node: dict[str, _PodArrays] = {}

    def get(self, ni: NodeInfo, resource_index: dict[str, int]) -> _PodArrays:
        name = ni.name
        a = self._by_node.get(name)
        if (a is None or a.generation != ni.generation or a.pods is not ni.pods
                or a.layout != tuple(resource_index)):
            a = self._by_node[name] = _PodArrays(ni, resource_index)
        return a

    def cached(self, name: str) -> _PodArrays | None:
        """The arrays last built for ``name``, current or not (callers check)."""
        return self._by_node.get(name)

    def forget_missing(self, names: set[str]) -> None:
        """Drop nodes no longer in the snapshot (bounded memory under node churn)."""
        for name in [n for n in self._by_node if n not in names]:
            del self._by_node[name]

    def __len__(self) -> int:
        return len(self._by_node)


class KnownAnswers:
    """The dry run's answers per pod shape and node, kept by the plugin across preemptions.

    A node's answer depends only on the node (its ``generation``: every change to a NodeInfo
    takes a new process-wide one), its nominated pods (the row's version in
    ``framework._nominated.NominatedColumns``) and what the model reads of the pod: its
    priority and the requests Fit's PreFilter derives (``Pod.requests``); and, for a victim
    list, on the clock only when some victims have a start time and others not (unstarted
    pods count as starting now): such lists are not kept. In a wave of preemptions of one
    shape, the next preemptor re-decides only the nodes that changed. The pod's own
    nominated node is never read from or written here (its nominated pods exclude itself)."""

    __slots__ = ("_index", "_shapes")

    _MAX_SHAPES = 8

    def __init__(self) -> None:
        self._index: dict[str, int] | None = None
        self._shapes: dict[Any, _ShapeAnswers] = {}

    def for_shape(self, key: Any, snapshot: Snapshot) -> _ShapeAnswers:
        if snapshot.node_index is not self._index:
            self._index = snapshot.node_index
            self._shapes = {}
        got = self._shapes.get(key)
        if got is None:
            if len(self._shapes) >= self._MAX_SHAPES:
                self._shapes.clear()
            got = self._shapes[key] = _ShapeAnswers(len(snapshot.node_info_list))
        return got


class _ShapeAnswers:
    """One pod shape's known answers: per snapshot row, the generation and nominated-row
    version the answer holds for (-1: none), and either a status without victims (an index
    into ``table``, ``failed``) or the victims (``victims``)."""

    __slots__ = ("failed", "generation", "nominated", "status", "statuses", "victims")

    def __init__(self, n: int) -> None:
        self.generation: I64 = np.full(n, -1, dtype=np.int64)
        self.nominated: I64 = np.full(n, -1, dtype=np.int64)
        self.failed = np.zeros(n, dtype=bool)
        self.status = np.zeros(n, dtype=np.intp)
        self.statuses = _StatusTable()
        self.victims: dict[int, VictimsResult] = {}

    def keep(self, rows: I64, generations: I64, nominated: I64) -> None:
        self.generation[rows] = generations
        self.nominated[rows] = nominated


class _StatusTable:
    """Distinct statuses (by code, reasons and plugin) and their index in ``table``: the
    status table of a DecidedNodes record, kept across chunks for a pod shape."""

    __slots__ = ("_ids", "table")

    def __init__(self) -> None:
        self.table: list[Status] = []
        self._ids: dict[tuple[int, tuple[str, ...], str], int] = {}

    def id_of(self, st: Status) -> int:
        key = (int(st.code), st.reasons, st.plugin)
        k = self._ids.get(key)
        if k is None:
            k = self._ids[key] = len(self.table)
            self.table.append(st)
        return k


class BatchVictimSelector:
    """Answers SelectVictimsOnNode for the Evaluator's i-th node, computing chunks on demand;
    ``bulk(i)`` hands the Evaluator the chunk holding the i-th node
    (:class:`~kubesched.framework.preemption.DecidedNodes`)."""

    __slots__ = ("_arrays", "_chunk", "_chunks", "_done", "_known", "_names", "_nodes", "_now", "_one",
                 "_results", "_snapshot")

    def __init__(self, one: ResourceVictimSelector, nodes: Sequence[NodeInfo], snapshot: Snapshot,
                 arrays: NodePodArrays, now: float, chunk: int,
                 known: KnownAnswers | None = None) -> None:
        self._one = one
        self._nodes = nodes
        self._snapshot = snapshot
        self._arrays = arrays
        self._now = now
        self._known = known
        # Upstream stops once enough candidates are found: ask for a little more than that
        # first, then twice as many nodes each time the search goes on.
        self._chunk = max(chunk + chunk // 4, _MIN_CHUNK)
        self._done = 0
        self._results: list[VictimsResult | None] = []
        self._names: list[str | None] = []  # per visit position: the node's name where taken
        self._chunks: list[DecidedNodes] = []

    def _through(self, i: int) -> DecidedNodes:
        """The chunk holding visit position ``i``, computing chunks up to it."""
        while i >= self._done:
            end = min(len(self._nodes), self._done + self._chunk)
            results, decided = self._run(self._done, self._nodes[self._done:end])
            self._results.extend(results)
            self._names.extend(decided.names.tolist())
            self._chunks.append(decided)
            self._done = end
            self._chunk *= 2
        chunks = self._chunks
        k = len(chunks) - 1
        while chunks[k].start > i:
            k -= 1
        return chunks[k]

    def bulk(self, i: int) -> DecidedNodes:
        return self._through(i)

    def known(self, i: int) -> tuple[str, VictimsResult] | None:
        """(name, result) of visit position ``i`` when this selector answered it with victims
        or a status of its own (what ``self(i, ni)`` returns for an undecided position),
        without the node; None when the node needs ``self(i, ni)``. ``bulk(i)`` comes first."""
        res = self._results[i]
        if res is None:
            return None
        name = self._names[i]
        assert name is not None
        return name, res

    def __call__(self, i: int, ni: NodeInfo) -> VictimsResult | None:
        decided = self._through(i)
        if decided.is_failed(i):
            return [], 0, decided.status(i)
        res = self._results[i]
        if res is None:
            return self._one.select(ni)
        return res

    def _run(self, start: int, infos: Sequence[NodeInfo]) -> tuple[list[VictimsResult | None], DecidedNodes]:
        one = self._one
        snap = self._snapshot
        cols = snap.columns
        ridx = cols.resource_index
        m = len(infos)
        out: list[VictimsResult | None] = [None] * m
        failed = np.zeros(m, dtype=bool)
        keys = np.zeros(m, dtype=np.intp)
        names_at = np.empty(m, dtype=object)

        # Nodes the model takes: the Filter status came from Fit, and the node is this
        # snapshot's own row.
        take_a, rows_a, gens_a = self._taken(infos, names_at)
        if not take_a.size:
            return out, DecidedNodes(start, start + m, failed, names_at, keys, [])

        # Known answers for this pod shape (only with the Filter pass's nominated rows).
        ge = one.ge_nominated
        shape: _ShapeAnswers | None = None
        nominated_v = np.zeros(0, dtype=np.int64)
        statuses = _StatusTable()
        own = -1
        if ge is not None and self._known is not None:
            pod = one.pod
            shape = self._known.for_shape(
                (pod.priority_value, tuple(sorted(pod.requests.items())), id(one.fit), tuple(ridx)), snap)
            statuses = shape.statuses
            nominated_v = ge.row_versions(rows_a)
            known = (shape.generation[rows_a] == gens_a) & (shape.nominated[rows_a] == nominated_v)
            own = ge.own_row
            if own >= 0:
                known &= rows_a != own
            if known.any():
                krows = rows_a[known]
                kpos = take_a[known]
                kfail = shape.failed[krows]
                failed[kpos[kfail]] = True
                keys[kpos[kfail]] = shape.status[krows[kfail]]
                victims = shape.victims
                for j, r in zip(kpos[~kfail].tolist(), krows[~kfail].tolist(), strict=True):
                    out[j] = victims[r]
                unknown = np.flatnonzero(~known)
                take_a, rows_a, gens_a, nominated_v = (
                    take_a[unknown], rows_a[unknown], gens_a[unknown], nominated_v[unknown])
        if take_a.size:
            fails, unstable = self._decide(take_a, rows_a, out)
            ids: dict[int, int] = {}  # this chunk's Status objects (alive: ids are safe here)
            for j, st in fails:
                k = ids.get(id(st))
                if k is None:
                    k = ids[id(st)] = statuses.id_of(st)
                failed[j] = True
                keys[j] = k
            if shape is not None:
                self._keep(shape, take_a, rows_a, gens_a, nominated_v, out, failed, keys, unstable, own)
        return out, DecidedNodes(start, start + m, failed, names_at, keys, statuses.table)

    def _taken(self, infos: Sequence[NodeInfo], names_at: npt.NDArray[np.object_],
               ) -> tuple[npt.NDArray[np.intp], I64, I64]:
        """The positions in ``infos`` the model takes (the Filter status came from Fit, and the
        node is this snapshot's own row), their rows and node generations; fills ``names_at``
        at those positions. The snapshot's own NodeInfos are found by identity at once."""
        snap = self._snapshot
        fit = self._one.fit_rows(snap)
        row_of_id = snap.row_of_id
        try:
            all_rows = np.fromiter(map(row_of_id.__getitem__, map(id, infos)), dtype=np.int64,
                                   count=len(infos))
        except KeyError:  # some node is not the snapshot's own: read them one by one
            index_get, infos_list = snap.node_index.get, snap.node_info_list
            pairs = [(j, row) for j, ni in enumerate(infos)
                     if ni.node is not None and (row := index_get(ni.node.meta.name, -1)) >= 0
                     and infos_list[row] is ni and fit[row]]
            take_a = np.fromiter((j for j, _ in pairs), dtype=np.intp, count=len(pairs))
            rows_a = np.fromiter((r for _, r in pairs), dtype=np.int64, count=len(pairs))
        else:
            take_a = np.flatnonzero(fit[all_rows])
            rows_a = all_rows[take_a]
        names_at[take_a] = snap.names_array()[rows_a]
        return take_a, rows_a, snap.columns.generation[rows_a]

    @staticmethod
    def _keep(shape: _ShapeAnswers, take_a: npt.NDArray[np.intp], rows_a: I64, gens_a: I64,
              nominated_v: I64, out: list[VictimsResult | None], failed: npt.NDArray[np.bool_],
              keys: npt.NDArray[np.intp], unstable: set[int], own: int) -> None:
        """Remember the answers just decided (not the pod's own nominated row, not victim
        lists that depend on the clock, not nodes left to the per-node path)."""
        decided = failed[take_a] | np.fromiter((out[j] is not None for j in take_a.tolist()),
                                               dtype=bool, count=take_a.size)
        if unstable:
            decided &= ~np.isin(take_a, np.fromiter(unstable, dtype=np.intp, count=len(unstable)))
        decided &= rows_a != own
        if not decided.any():
            return
        pos, rows = take_a[decided], rows_a[decided]
        shape.keep(rows, gens_a[decided], nominated_v[decided])
        f = failed[pos]
        shape.failed[rows] = f
        shape.status[rows[f]] = keys[pos[f]]
        victims = shape.victims
        for j, r in zip(pos[~f].tolist(), rows[~f].tolist(), strict=True):
            res = out[j]
            assert res is not None
            victims[r] = res

    def _decide(self, take_a: npt.NDArray[np.intp], rows_a: I64, out: list[VictimsResult | None],
                ) -> tuple[list[tuple[int, Status]], set[int]]:
        """The model on chunk positions ``take_a`` (snapshot rows ``rows_a``): candidates go
        into ``out``; returns the positions without victims, with their statuses, and the
        candidates whose victims depend on the clock (some started, some not). Positions it
        cannot take stay None in ``out``."""
        one = self._one
        snap = self._snapshot
        cols = snap.columns
        ridx = cols.resource_index
        layout = tuple(ridx)
        width = len(layout)
        prio = one.pod.priority_value
        fails: list[tuple[int, Status]] = []
        take = take_a.tolist()
        infos_list = snap.node_info_list
        cached_get = self._arrays.cached
        arrs: list[_PodArrays] = []
        names: list[str] = []
        for row in rows_a.tolist():
            ni = infos_list[row]
            name = ni.name
            a = cached_get(name)
            if a is None or a.generation != ni.generation or a.pods is not ni.pods or a.layout != layout:
                a = self._arrays.get(ni, ridx)
            arrs.append(a)
            names.append(name)
        sizes = np.fromiter((len(a.prio) for a in arrs), dtype=np.int64, count=len(arrs))
        no_victims = no_victims_result()[2]
        if sizes.sum() == 0:
            return [(j, no_victims) for j in take], set()
        node_of = np.repeat(np.arange(len(arrs)), sizes)
        pprio = np.concatenate([a.prio for a in arrs])
        pstart = np.concatenate([a.start for a in arrs])
        preq = np.concatenate([a.req for a in arrs]).reshape(-1, width)
        victim = lower_priority(pprio, prio)  # the potential victims (IsEligiblePod: the default)
        nvict = np.bincount(node_of[victim], minlength=len(arrs))

        # 1) Requested without every lower-priority pod, with equal-or-higher nominated pods.
        csum = np.zeros((len(preq) + 1, width), dtype=np.int64)
        np.cumsum(preq * victim[:, None], axis=0, out=csum[1:])
        ends = np.cumsum(sizes)
        starts = ends - sizes
        used = cols.requested[rows_a] - (csum[ends] - csum[starts])
        ok = nvict > 0
        for k in np.flatnonzero(~ok).tolist():
            fails.append((take[k], no_victims))
        # A saturated amount (the pods' sum is beyond int64, see NodeColumns) is not the sum
        # the victims come off: such a node goes to the per-node path, which reads the
        # NodeInfo's exact sums.
        ok &= ~(cols.requested[rows_a] == INT64_MAX).any(axis=1)
        ge = one.ge_nominated
        if ge is not None:
            hit, adds, undecided = ge.additions(rows_a, ridx)
            used[hit] += adds
            ok[undecided] = False
        else:
            uid = one.pod.uid
            nominated_for = one.nominated_for
            may_have = one.nominated_nodes
            maybe = range(len(take)) if may_have is None else [
                k for k, name in enumerate(names) if name in may_have]
            for k in maybe:
                if not ok[k]:
                    continue
                ge_pods = [pi for pi in nominated_for(names[k])
                           if pi.pod.priority_value >= prio and pi.pod.uid != uid]
                if ge_pods:
                    add = requests_row(ge_pods, ridx, ridx["pods"], width)
                    if add is None:
                        ok[k] = False  # a resource without a column: the per-node path
                    else:
                        used[k] += add
        sel = np.flatnonzero(ok)
        if sel.size == 0:
            return fails, set()
        res0 = self._fit_batch(cols, rows_a[sel], used[sel])
        bad = res0.codes != 0
        failed = np.flatnonzero(bad)
        if failed.size:
            # One Status per distinct (code, reasons): with many nominated nodes thousands fail.
            # None: an error, left to the per-node path.
            memo: dict[tuple[int, int], Status | None] = {}
            sel_l = sel.tolist()
            keys = zip(res0.codes[failed].tolist(), res0.reason_ids[failed].tolist(), strict=True)
            fit_name = one.fit_name
            for s, key in zip(failed.tolist(), keys, strict=True):
                if key in memo:
                    st = memo[key]
                else:
                    st = res0.status(s, fit_name)
                    st = memo[key] = st if st.is_rejected() else None
                if st is not None:
                    fails.append((take[sel_l[s]], st))

        # 2) Reprieve, most important first, one rank per step across the nodes that fit.
        alive = sel[~bad]
        if alive.size == 0:
            return fails, set()
        unstarted = np.isnan(pstart)
        some = np.bincount(node_of[victim & unstarted], minlength=len(arrs))
        unstable = {take[k] for k in np.flatnonzero((some > 0) & (some < nvict)).tolist()}
        flat = np.flatnonzero(victim & np.isin(node_of, alive))
        # Per node, most important first (the victim rule's order; ties: the node's pod order).
        order = flat[np.lexsort((flat, *importance_columns(pprio[flat], pstart[flat], self._now),
                                 node_of[flat]))]
        owner = node_of[order]
        first = np.searchsorted(owner, alive)
        rank = np.arange(len(order)) - first[np.searchsorted(alive, owner)]
        evicted = np.zeros(len(order), dtype=bool)
        cur = used  # rows of ``used`` advance as pods are kept
        for r in range(int(nvict[alive].max())):
            step = np.flatnonzero(rank == r)
            if step.size == 0:
                break
            nodes_k = owner[step]
            trial = cur[nodes_k] + preq[order[step]]
            res = self._fit_batch(cols, rows_a[nodes_k], trial)
            keep = res.codes == 0
            cur[nodes_k[keep]] = trial[keep]
            evicted[step[~keep]] = True
        # The victims, grouped by node (``order`` is sorted by node, ``alive`` ascending).
        ev = order[evicted]
        pods_flat: list[Pod] = np.concatenate([a.pobj for a in arrs])[ev].tolist()
        counts = np.bincount(node_of[ev], minlength=len(arrs))[alive]
        summaries = iter(_summaries(pprio[ev], pstart[ev], counts))
        success = Status.success()
        lo = 0
        for k, hi in zip(alive.tolist(), np.cumsum(counts).tolist(), strict=True):
            victims = VictimList(pods_flat[lo:hi])
            victims.summary = next(summaries) if hi > lo else None
            out[take[k]] = (victims, 0, success)
            lo = hi
        return fails, unstable

    def _fit_batch(self, cols: NodeColumns, rows: I64, requested: I64) -> Any:
        one = self._one
        view = SnapshotView(cols.rows_view(rows, requested))
        batch = NodeBatch(cast("Snapshot", view), np.arange(len(rows), dtype=np.int64))
        return one.fit.filter_batch(one.state, one.pod, batch)


def _summaries(prio: I64, start: F64, counts: I64) -> list[VictimsSummary]:
    """The VictimsSummary of each non-empty group of consecutive victims (``counts`` per node,
    zeros allowed): the same numbers pickOneNodeForPreemption reads from the pods."""
    sizes = counts[counts > 0]
    if sizes.size == 0:
        return []
    first = np.cumsum(sizes) - sizes
    top = np.maximum.reduceat(prio, first)
    total = np.add.reduceat(prio, first)
    is_top = prio == np.repeat(top, sizes)
    unstarted = np.isnan(start)
    earliest = np.minimum.reduceat(np.where(is_top & ~unstarted, start, np.inf), first)
    any_unstarted = np.logical_or.reduceat(is_top & unstarted, first)
    # Plain tuples in VictimsSummary's field order: building thousands of named tuples per
    # preemption measured slower than everything else here together.
    rows = zip(prio[first].tolist(), total.tolist(), sizes.tolist(), earliest.tolist(),
               any_unstarted.tolist(), strict=True)
    return cast("list[VictimsSummary]", list(rows))
