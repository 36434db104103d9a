"""The scheduling algorithm: which node for this pod (schedulePod and its helpers).

Mirrors pkg/scheduler/schedule_one.go (master 2026): ``schedulePod`` -> ``findNodesThatFitPod``
(PreFilter, the nominated-node fast path, ``findNodesThatPassFilters`` with
``numFeasibleNodesToFind`` and the ``nextStartNodeIndex`` rotation, extender filters) ->
``prioritizeNodes`` (PreScore, Score, extender priorities) -> the highest total score, ties broken
by one draw from the scheduler's seeded RNG among the tied nodes (uniform, as upstream's
``nodeScoreHeap`` with ``Randomizer`` and older releases' reservoir sampling intend).

The batch path keeps node sets as snapshot rows (numpy) from filtering to host selection: the
feasible rows go to scoring as a :class:`NodeBatch`, rejected nodes go to the diagnosis as one
status table per filter pass (``NodeToStatus.set_many``), and the totals stay an array.

Filtering is sequential in rotation order and stops at the ``numNodesToFind``-th feasible node,
as upstream's parallel search does with one worker; nodes where a nominated pod of equal or
higher priority matters go through the framework's two-pass per-node check, all others through
the batch path, which gives identical statuses.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

import numpy as np
import numpy.typing as npt

from ..framework import (
    EXTENDER_NAME,
    MAX_NODE_SCORE,
    Code,
    CycleState,
    Diagnosis,
    FitError,
    NodeBatch,
    NodeToStatus,
    ScoreResult,
    SortedScoredNodes,
    Status,
)
from ._diagnosis import NoNodesAvailableError, excluded_by_pre_filter, go_set_list
from ._extender import MAX_EXTENDER_PRIORITY

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeInfo, Snapshot
    from ..framework import Framework, OpportunisticBatch
    from ._extender import HTTPExtender

__all__ = [
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "FeasibleNodes",
    "ScheduleAlgorithm",
    "ScheduleResult",
    "go_set_list",
    "num_feasible_nodes_to_find",
]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """numFeasibleNodesToFind: all nodes below 100; else ``percentage`` of them (adaptive
    ``50 - nodes/125`` with a 5% floor when 0/unset), never fewer than 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct == 0:
        pct = 50 - num_all_nodes // 125
        pct = max(pct, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    n = num_all_nodes * pct // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


def _next_chunk(chunk: int, pos: int, found: int, to_find: int) -> int:
    """How many nodes the batch filter search checks next, after ``pos`` nodes gave ``found``
    feasible ones of the ``to_find`` wanted.

    Upstream's findNodesThatPassFilters checks nodes in parallel and cancels once it has found
    enough, so it filters about as many nodes as it needs. A chunk here is filtered whole and
    its part past the cut is wasted: doubling the chunk blindly, a search whose nodes pass at
    rate 2/3 (TopologySpreading with one zone at maxSkew) filtered three times ``to_find`` nodes
    where one and a half were needed. The next chunk is sized by the pass rate seen so far,
    with an eighth and 16 nodes to spare so that a second guess is rarely needed; with nothing
    found yet it doubles. Which nodes are checked first, and so every verdict, cut and
    decision, does not depend on the chunk size: only how many nodes past the cut are filtered
    for nothing."""
    if found == 0:
        return chunk * 2
    expected = -(-(to_find - found) * pos // found)  # ceil(still needed / pass rate)
    return max(64, expected + expected // 8 + 16)


@dataclass(slots=True)
class ScheduleResult:
    """ScheduleResult: the chosen node and how many nodes were looked at."""

    suggested_host: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    scored_nodes: Sequence[str] = ()  # the nodes scored, aligned with ``totals``
    totals: npt.NDArray[np.int64] | None = None


class ScheduleAlgorithm:
    """schedulePod and its state (``nextStartNodeIndex``); one per scheduler, shared by profiles.

    ``framework_of``'s result must offer the framework runtime's ``run_*`` methods; ``nominator``
    (optional) offers ``nominated_pods_for_node(node_name)``."""

    def __init__(self, extenders: Sequence[HTTPExtender], rng: random.Random,
                 per_node: bool = False) -> None:
        self.extenders = list(extenders)
        self.rng = rng
        self.per_node = per_node
        self.next_start_node_index = 0
        self._snapshot: Snapshot | None = None
        self._last_feasible = 0
        # Snapshot rows of the last batch filter pass's feasible nodes (aligned with the list it
        # returned), so that scoring reuses them instead of looking every node up again.
        self._feasible_rows: npt.NDArray[np.int64] | None = None

    # -- schedulePod ------------------------------------------------------------------------
    def schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot,
                     cycle: int | None = None) -> ScheduleResult:
        """schedulePod: raises NoNodesAvailableError, FitError, or another error.

        ``cycle``: the scheduling cycle's number (the queue's), for the profile's opportunistic
        batch (OpportunisticBatching); None runs without it (callers outside the scheduling
        loop: capacity counting)."""
        self._snapshot = snapshot
        if snapshot.num_nodes() == 0:
            raise NoNodesAvailableError()
        batch = fwk.batch if cycle is not None else None
        feasible, diagnosis, hint, signature = self._find_nodes_that_fit_pod(fwk, state, pod, snapshot,
                                                                             batch, cycle or 0)
        if not feasible:
            raise FitError(pod, snapshot.num_nodes(), diagnosis)
        if len(feasible) == 1:
            host = feasible[0].name
            if batch is not None:
                batch.store_schedule_results(signature, hint, host, None, cycle or 0)
            return ScheduleResult(host, 1 + len(diagnosis.node_to_status), 1)
        names, totals, scores = self._prioritize_nodes(fwk, state, pod, feasible)
        host = self.select_host_of(names, totals)
        if batch is not None:
            kept = SortedScoredNodes(names, totals, host, *((scores.raw, scores.plugin_names)
                                                            if scores is not None else ()))
            batch.store_schedule_results(signature, hint, host, kept, cycle or 0)
        return ScheduleResult(host, len(feasible) + len(diagnosis.node_to_status), len(feasible),
                              names, totals)

    def find_nodes_that_fit_pod(self, fwk: Framework, state: CycleState, pod: Pod,
                                snapshot: Snapshot) -> tuple[Sequence[NodeInfo], Diagnosis]:
        """findNodesThatFitPod (without the batch)."""
        feasible, diagnosis, _, _ = self._find_nodes_that_fit_pod(fwk, state, pod, snapshot, None, 0)
        return feasible, diagnosis

    def _find_nodes_that_fit_pod(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot,
                                 batch: OpportunisticBatch | None, cycle: int
                                 ) -> tuple[Sequence[NodeInfo], Diagnosis, str, bytes | None]:
        """findNodesThatFitPod -> (feasible nodes, diagnosis, the batch's hint, the signature)."""
        diagnosis = Diagnosis()
        all_nodes = snapshot.node_info_list
        pre_res, s, unsched_plugins = fwk.run_pre_filter_plugins(state, pod)
        diagnosis.unschedulable_plugins = set(unsched_plugins or ())
        if s is not None and not s.is_success():
            if not s.is_rejected():
                raise s.as_error() or RuntimeError(s.message())
            # Every node gets PreFilter's status, so that preemption sees the same reason.
            diagnosis.node_to_status.set_absent_nodes_status(s)
            diagnosis.pre_filter_msg = s.message()
            diagnosis.add_plugin_status(s)
            return [], diagnosis, "", None

        hint, signature = "", None
        if batch is not None:
            # asked even when the pod has a nominated node, as upstream (which tries that first)
            hint, signature = batch.get_node_hint(state, pod, cycle)

        # The nominated node (set by an earlier preemption) is likely the only one that fits:
        # try it first; likewise the batch's hint.
        if pod.nominated_node_name or hint:
            try:
                feasible = self._evaluate_nominated_node(fwk, state, pod, snapshot, diagnosis, hint)
            except Exception:  # upstream logs the error and carries on with all nodes
                feasible = []
            if feasible:
                return feasible, diagnosis, hint, signature

        nodes = all_nodes
        if pre_res is not None and not pre_res.all_nodes():
            # Nodes named by PreFilter that do not exist are dropped; snapshot order is kept
            # (upstream iterates a Go set, in random order).
            names = pre_res.node_names or frozenset()
            index = snapshot.node_index
            nodes = [all_nodes[i] for i in sorted(index[n] for n in names if n in index)]
            diagnosis.node_to_status.set_absent_nodes_status(
                excluded_by_pre_filter(diagnosis.unschedulable_plugins))
        try:
            feasible = self.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes)
        finally:
            processed = len(diagnosis.node_to_status) + self._last_feasible
            if all_nodes:
                self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        after = self.find_nodes_that_pass_extenders(pod, feasible, diagnosis.node_to_status)
        if len(after) != len(feasible):
            diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return after, diagnosis, hint, signature

    def _evaluate_nominated_node(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot,
                                 diagnosis: Diagnosis, hint: str = "") -> Sequence[NodeInfo]:
        """evaluateNominatedNode: the pod's nominated node, else the batch's hint (the
        nominated node wins: kubernetes#135163 would try the hint after it)."""
        name = pod.nominated_node_name or hint
        ni = snapshot.get(name)
        if ni is None:
            raise KeyError(f"nodeinfo not found for node name {name!r}")
        feasible = self.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [ni],
                                                     rotate=False)
        return self.find_nodes_that_pass_extenders(pod, feasible, diagnosis.node_to_status)

    def _has_scoring(self, fwk: Framework) -> bool:
        return bool(fwk.has_score_plugins()) or any(e.is_prioritizer() for e in self.extenders)

    def find_nodes_that_pass_filters(self, fwk: Framework, state: CycleState, pod: Pod,
                                     diagnosis: Diagnosis, nodes: Sequence[NodeInfo],
                                     rotate: bool = True, all_nodes: bool = False,
                                     snapshot: Snapshot | None = None) -> Sequence[NodeInfo]:
        """findNodesThatPassFilters: check nodes from ``nextStartNodeIndex`` on, stop once
        ``numNodesToFind`` fit; rejected nodes' statuses go to the diagnosis.

        (The nominated-node check passes a single node; upstream rotates it too, a no-op.)
        ``all_nodes``: every node gets a verdict (the extender server answers for each).
        ``snapshot``: the one ``nodes`` come from, for a caller outside a scheduling cycle
        (the extender server), so that the batch path serves it too."""
        n = len(nodes)
        self._last_feasible = 0
        self._feasible_rows = None
        if n == 0:
            return []
        # The framework's percentage is the profile's, else the global one (0: adaptive).
        to_find = num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score, n)
        if not any(e.is_filter() for e in self.extenders) and not self._has_scoring(fwk):
            to_find = 1
        if all_nodes:
            to_find = n
        start = self.next_start_node_index if rotate else 0
        if not fwk.has_filter_plugins():
            self._last_feasible = to_find
            return [nodes[(start + i) % n] for i in range(to_find)]
        snap = snapshot if snapshot is not None else self._snapshot
        if self.per_node or snap is None:
            return self._filter_per_node(fwk, state, pod, diagnosis, nodes, start, to_find)
        return self._filter_batch(fwk, state, pod, diagnosis, nodes, snap, start, to_find)

    def _filter_per_node(self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                         nodes: Sequence[NodeInfo], start: int, to_find: int) -> list[NodeInfo]:
        """One node at a time, in rotation order, through RunFilterPluginsWithNominatedPods."""
        n = len(nodes)
        feasible: list[NodeInfo] = []
        try:
            for i in range(n):
                ni = nodes[(start + i) % n]
                st = _ok(fwk.run_filter_plugins_with_nominated_pods(state, pod, ni))
                if st.code == Code.ERROR:
                    raise st.as_error() or RuntimeError(st.message())
                if st.is_success():
                    feasible.append(ni)
                    if len(feasible) >= to_find:
                        break
                else:
                    diagnosis.node_to_status.set(ni.name, st)
                    diagnosis.add_plugin_status(st)
        finally:
            self._last_feasible = len(feasible)
        return feasible

    def _filter_batch(self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                      nodes: Sequence[NodeInfo], snap: Snapshot, start: int,
                      to_find: int) -> Sequence[NodeInfo]:
        """The same search over snapshot rows, a chunk of nodes at a time through the framework's
        batch filter (nodes holding nominated pods of equal or higher priority take the per-node
        two-pass check inside it); the statuses equal the per-node path's."""
        n = len(nodes)
        infos = snap.node_info_list
        rows: npt.NDArray[np.int64] | None = None  # None: the whole snapshot, row i is node i
        if isinstance(nodes, FeasibleNodes) and nodes.infos is snap.infos_array():
            rows = nodes.rows  # already rows of this snapshot (the extender server's request)
        elif nodes is not infos:
            index = snap.node_index
            rows = np.fromiter((index[ni.name] for ni in nodes), dtype=np.int64, count=n)
        feasible_rows: list[npt.NDArray[np.int64]] = []
        found, pos, chunk = 0, 0, max(to_find, 64)
        try:
            while pos < n and found < to_find:
                lo, hi = start + pos, start + min(pos + chunk, n)
                part = (np.arange(lo, hi, dtype=np.int64) if hi <= n
                        else np.arange(lo, hi, dtype=np.int64) % n)
                if rows is not None:
                    part = rows[part]
                outcome = fwk.run_filter_plugins_batch_with_nominated_pods(state, pod, NodeBatch(snap, part))
                codes = outcome.codes
                need = to_find - found
                first_error = -1
                if not np.count_nonzero(codes):  # every node fits: take the first ``need``
                    ok = part[:need]
                else:
                    ok_rows = np.flatnonzero(codes == 0)
                    cut = int(ok_rows[need - 1]) + 1 if ok_rows.size >= need else len(part)
                    err_rows = np.flatnonzero(codes[:cut] == int(Code.ERROR))
                    if err_rows.size:
                        first_error = cut = int(err_rows[0])
                    rejected = np.flatnonzero(codes[:cut])
                    if rejected.size:
                        names_array = snap.names_array()
                        diagnosis.add_rejected_later(names_array[part[rejected]],
                                                     functools.partial(outcome.status_keys, rejected),
                                                     part[rejected], names_array)
                    ok = part[ok_rows[ok_rows < cut]]
                feasible_rows.append(ok)
                found += ok.size
                if first_error >= 0:
                    st = outcome.status(first_error)
                    raise st.as_error() or RuntimeError(st.message())
                pos += len(part)
                chunk = _next_chunk(chunk, pos, found, to_find)
        finally:
            self._last_feasible = found
        rows_found = feasible_rows[0] if len(feasible_rows) == 1 else np.concatenate(feasible_rows)
        self._feasible_rows = rows_found
        return FeasibleNodes(snap.infos_array(), rows_found)

    def find_nodes_that_pass_extenders(self, pod: Pod, feasible: Sequence[NodeInfo],
                                       statuses: NodeToStatus) -> Sequence[NodeInfo]:
        """findNodesThatPassExtenders: extenders in order, each narrowing the list; ignorable
        extenders' errors are skipped; unresolvable failures win over plain ones."""
        for ext in self.extenders:
            if not feasible:
                break
            if not ext.is_interested(pod):
                continue
            try:
                feasible_list, failed, unresolvable = ext.filter(pod, feasible)
            except Exception as err:
                if ext.is_ignorable():
                    ext.log_skipped_error("filter", err)
                    continue
                raise
            for name, msg in unresolvable.items():
                statuses.set(name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)))
            for name, msg in failed.items():
                if name in unresolvable:
                    continue
                statuses.set(name, Status(Code.UNSCHEDULABLE, (msg,)))
            feasible = feasible_list
        return feasible

    # -- scoring ---------------------------------------------------------------------------
    def prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Pod,
                         nodes: Sequence[NodeInfo]) -> tuple[Sequence[str], npt.NDArray[np.int64]]:
        """prioritizeNodes as (node names, total scores) aligned with ``nodes``.

        No score plugins and no extenders: every node scores 1."""
        names, totals, _ = self._prioritize_nodes(fwk, state, pod, nodes)
        return names, totals

    def _prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                          ) -> tuple[Sequence[str], npt.NDArray[np.int64], ScoreResult | None]:
        """prioritizeNodes, with the score plugins' result (its raw scores are what the
        opportunistic batch keeps to rescore a node later)."""
        if not self.extenders and not fwk.has_score_plugins():
            return [ni.name for ni in nodes], np.ones(len(nodes), dtype=np.int64), None
        st = fwk.run_pre_score_plugins(state, pod, nodes)
        if st is not None and not st.is_success():
            raise st.as_error() or RuntimeError(st.message())
        rows, snap = self._feasible_rows, self._snapshot
        target: NodeBatch | Sequence[NodeInfo] = nodes
        if rows is not None and snap is not None and rows.size == len(nodes) and not self.per_node:
            target = NodeBatch(snap, rows)  # the filter pass's rows: no lookup per node
        result, st = fwk.run_score_plugins(state, pod, target)
        if st is not None and not st.is_success():
            raise st.as_error() or RuntimeError(st.message())
        names = result.node_names if result is not None else None
        if names is None or len(names) != len(nodes):
            names = [ni.name for ni in nodes]
        totals = (result.totals.astype(np.int64, copy=False) if result is not None
                  else np.zeros(len(nodes), dtype=np.int64))
        if self.extenders:
            ext_totals: dict[str, int] = {}
            for ext in self.extenders:
                if not ext.is_interested(pod):
                    continue
                try:
                    prioritized, weight = ext.prioritize(pod, nodes)
                except Exception as err:
                    # Prioritization errors are ignored: no score from this extender.
                    ext.log_skipped_error("prioritize", err)
                    continue
                for host, score in prioritized:
                    final = score * weight * (MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY)
                    ext_totals[host] = ext_totals.get(host, 0) + final
            totals = totals + np.fromiter((ext_totals.get(n, 0) for n in names), dtype=np.int64,
                                          count=len(names))
        return names, totals, result if isinstance(result, ScoreResult) else None

    def select_host(self, scores: Sequence[tuple[str, int]]) -> str:
        """selectHost over ``[(node, total)]``; see :meth:`select_host_of`."""
        if not scores:
            raise ValueError("empty priorityList")
        names = [n for n, _ in scores]
        return self.select_host_of(names, np.fromiter((t for _, t in scores), dtype=np.int64,
                                                      count=len(scores)))

    def select_host_of(self, names: Sequence[str], totals: npt.NDArray[np.int64]) -> str:
        """The highest total; among equal totals one node chosen uniformly by one draw from the
        scheduler's seeded RNG (none when the top is unique).

        Older upstream selectHost sampled ties uniformly (reservoir sampling); newest upstream
        pops a heap ordered by (TotalScore, Randomizer) (sortedNodeScores in schedule_one.go)
        but draws ``Randomizer`` only for nodes an extender scored, so without extenders ties
        fall to heap order over the (parallel, unordered) filter results. Both intend a uniform
        choice among the best; we make it seed-reproducible."""
        if len(names) == 0:
            raise ValueError("empty priorityList")
        tied = np.flatnonzero(totals == np.maximum.reduce(totals))
        if tied.size == 1:
            return names[int(tied[0])]
        return names[int(tied[self.rng.randrange(tied.size)])]


def _ok(st: Status | None) -> Status:
    return st if st is not None else Status.success()


class FeasibleNodes(Sequence["NodeInfo"]):
    """The batch filter pass's feasible nodes: the snapshot rows, with the NodeInfo list built
    only if someone reads the nodes one by one. Scoring reads the rows (a NodeBatch) and most
    PreScore plugins never look at the list, so building it was a few percent of a cycle."""

    __slots__ = ("_list", "infos", "rows")

    def __init__(self, infos: npt.NDArray[np.object_], rows: npt.NDArray[np.int64]) -> None:
        self.infos = infos  # the snapshot's NodeInfos by row
        self.rows = rows
        self._list: list[NodeInfo] | None = None

    def _nodes(self) -> list[NodeInfo]:
        if self._list is None:
            self._list = self.infos[self.rows].tolist()
        return self._list

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> NodeInfo: ...
    @overload
    def __getitem__(self, i: slice) -> list[NodeInfo]: ...
    def __getitem__(self, i: int | slice) -> NodeInfo | list[NodeInfo]:
        return self._nodes()[i]

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self._nodes())

    def __eq__(self, other: object) -> bool:
        return list(self) == (list(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]
