"""Opportunistic batching (KEP-5598, feature gate ``OpportunisticBatching``, beta and on in 1.35).

Mirrors pkg/scheduler/framework/runtime/batch.go (master; v1.35's behind the release switches
below): after a cycle that scored several nodes, the framework keeps the other nodes, best
first, with the pod's signature and the score plugins' raw scores. The next pod with the same
signature gets the best remaining node as a hint, and the cycle tries only that node (as a
nominated node): the previous cycle's filtering and scoring are reused.

The reuse is exact when the other nodes did not change, so the same signature gives them the
same verdicts and raw scores. The node the previous pod took did change: if it now rejects this
pod, the next best kept node is the answer; if it still fits, master re-scores it
(:data:`BATCH_RESCORES_LAST_CHOSEN_NODE`: PreScore over it and the kept nodes, its raw scores,
then every score plugin's NormalizeScore over them all) and puts it back among the kept nodes,
where v1.35 flushed the batch (``node_not_full``). ``_state_compatible`` checks the rest before
each hint; any doubt flushes the kept nodes, counted in ``scheduler_batch_cache_flushed_total``
by reason:

- ``pod_skipped``: another cycle ran in between (another profile's pod, or a failed attempt),
  or (before :data:`BATCH_REUSED_WITHIN_POD_GROUP_CYCLE`, or with ``GenericWorkload`` off) this
  pod shares the last pod's cycle, as the pods of one pod-group cycle do;
- ``pod_failed``: the last cycle stored no result;
- ``pod_nominated``: the pod has a ``nominatedNodeName`` (master: :data:`BATCH_SKIPS_NOMINATED_PODS`;
  v1.35 gives it the hint too, and its nominated node is tried first);
- ``pod_incompatible``: the signatures differ, or this pod cannot be signed;
- ``expired``: the kept nodes are older than 500 ms (``maxBatchAge``; the scheduler's clock, so
  virtual time in simulations);
- ``node_missing``: the last chosen node is gone (master: or a kept node it re-scores against);
- ``node_not_full`` (v1.35): the last chosen node still passes Filter for this pod;
- ``filter_error``, ``prescore_error``, ``rescore_error``, ``normalize_error`` (master): that
  step of the re-scoring failed;
- ``empty_list`` / ``pod_not_batchable`` (when storing): nothing left to keep, or the pod has no
  signature.

Each attempt is counted in ``scheduler_batch_attempts_total`` as ``no_hint``, ``hint_used`` or
``hint_not_used`` (a hint whose node failed Filter after all, so the cycle ran in full); each
re-scoring in ``scheduler_batch_rescore_attempts_total`` and timed in
``scheduler_batch_rescore_duration_seconds``.

The state is the scheduler's own (one per profile): the scheduling loop is its only user.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np
import numpy.typing as npt

from ..api import NEWEST_KUBE_VERSION, KubeVersion
from ._release_switch import ReleaseSwitch

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeInfo
    from ._cycle_state import CycleState
    from ._results import ScoreResult
    from ._status import Status

__all__ = [
    "BATCH_ATTEMPT_HINT_NOT_USED",
    "BATCH_ATTEMPT_HINT_USED",
    "BATCH_ATTEMPT_NO_HINT",
    "BATCH_FLUSH_REASONS",
    "BATCH_RESCORES_LAST_CHOSEN_NODE",
    "BATCH_REUSED_WITHIN_POD_GROUP_CYCLE",
    "BATCH_SKIPS_NOMINATED_PODS",
    "MAX_BATCH_AGE",
    "OPPORTUNISTIC_BATCHING",
    "BatchMetrics",
    "OpportunisticBatch",
    "SortedScoredNodes",
]

log = logging.getLogger(__name__)

OPPORTUNISTIC_BATCHING = "OpportunisticBatching"

MAX_BATCH_AGE = 0.5
"""maxBatchAge: kept nodes older than this (seconds) are flushed."""

BATCH_ATTEMPT_NO_HINT = "no_hint"
BATCH_ATTEMPT_HINT_USED = "hint_used"
BATCH_ATTEMPT_HINT_NOT_USED = "hint_not_used"

FLUSH_POD_FAILED = "pod_failed"
FLUSH_POD_SKIPPED = "pod_skipped"
FLUSH_POD_NOMINATED = "pod_nominated"
FLUSH_NODE_MISSING = "node_missing"
FLUSH_NODE_NOT_FULL = "node_not_full"
FLUSH_EMPTY_LIST = "empty_list"
FLUSH_EXPIRED = "expired"
FLUSH_POD_INCOMPATIBLE = "pod_incompatible"
FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable"
FLUSH_FILTER_ERROR = "filter_error"
FLUSH_PRESCORE_ERROR = "prescore_error"
FLUSH_RESCORE_ERROR = "rescore_error"
FLUSH_NORMALIZE_ERROR = "normalize_error"
BATCH_FLUSH_REASONS = (FLUSH_POD_FAILED, FLUSH_POD_SKIPPED, FLUSH_POD_NOMINATED, FLUSH_NODE_MISSING,
                       FLUSH_NODE_NOT_FULL, FLUSH_EMPTY_LIST, FLUSH_EXPIRED, FLUSH_POD_INCOMPATIBLE,
                       FLUSH_POD_NOT_BATCHABLE, FLUSH_FILTER_ERROR, FLUSH_PRESCORE_ERROR,
                       FLUSH_RESCORE_ERROR, FLUSH_NORMALIZE_ERROR)

BATCH_SKIPS_NOMINATED_PODS = ReleaseSwitch(
    "BatchSkipsNominatedPods", KubeVersion(1, 37), 138212,
    "a pod with a nominatedNodeName gets no hint and flushes the batch (pod_nominated); before, "
    "it got the hint too, and its nominated node was tried first")
"""kubernetes PR #138212: batchStateCompatible flushes for a nominated pod."""

BATCH_RESCORES_LAST_CHOSEN_NODE = ReleaseSwitch(
    "BatchRescoresLastChosenNode", KubeVersion(1, 37), 140289,
    "the last chosen node that still fits is re-scored and competes with the kept nodes for the "
    "hint (filter_error, prescore_error, rescore_error, normalize_error flushes); before, the "
    "batch was flushed (node_not_full)")
"""kubernetes PR #140289 (on #138788's RunRawScorePlugins/NormalizeScores): refreshHintCandidates
and rescoreHintedNode."""

BATCH_REUSED_WITHIN_POD_GROUP_CYCLE = ReleaseSwitch(
    "BatchReusedWithinPodGroupCycle", KubeVersion(1, 37), 138754,
    "with GenericWorkload on, the pods of one pod-group cycle (one cycle number) reuse each "
    "other's batch; before, every pod after the group's first flushed it (pod_skipped)")
"""kubernetes PR #138754: batchStateCompatible accepts the same cycle count under GenericWorkload."""


class BatchMetrics(Protocol):
    """Where the batch reports (the scheduler's SchedulerMetrics): scheduler_batch_attempts_total,
    scheduler_batch_cache_flushed_total, scheduler_batch_rescore_attempts_total,
    scheduler_get_node_hint_duration_seconds, scheduler_store_schedule_results_duration_seconds
    and scheduler_batch_rescore_duration_seconds."""

    def batch_attempt(self, profile: str, result: str) -> None: ...

    def batch_flushed(self, profile: str, reason: str) -> None: ...

    def batch_rescore_attempt(self, profile: str) -> None: ...

    def observe_get_node_hint(self, hinted: str, profile: str, seconds: float) -> None: ...

    def observe_store_schedule_results(self, profile: str, seconds: float) -> None: ...

    def observe_batch_rescore(self, profile: str, seconds: float) -> None: ...


class _BatchHandle(Protocol):
    """What the batch needs from its framework (upstream's batchHandle)."""

    profile_name: str

    def sign_pod(self, pod: Pod, record_plugin_metrics: bool = False) -> bytes | None: ...

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...

    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status: ...

    def run_raw_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                              ) -> tuple[tuple[Sequence[str], list[str], npt.NDArray[np.int64]] | None,
                                         Status]: ...

    def normalize_scores(self, state: CycleState, pod: Pod, names: Sequence[str],
                         plugin_names: Sequence[str], raw: npt.NDArray[np.int64]
                         ) -> tuple[ScoreResult | None, Status]: ...


class SortedScoredNodes:
    """framework.SortedScoredNodes: the scored nodes other than the chosen one, best first;
    equal totals keep the order they were scored in (upstream's heap breaks ties by its
    ``Randomizer``, which it draws only for nodes an extender scored). Sorted on first use: a
    cycle whose pod cannot be batched only asks the length.

    ``raw`` (plugins x nodes, rows named by ``plugin_names``) are the score plugins' scores
    before NormalizeScore (NodePluginScores.RawScores): what re-scoring one node normalizes
    against."""

    __slots__ = ("_chosen", "_names", "_order", "_plugins", "_pos", "_raw", "_totals")

    def __init__(self, names: Sequence[str], totals: npt.NDArray[np.int64], chosen: str,
                 raw: npt.NDArray[np.int64] | None = None, plugin_names: Sequence[str] = ()) -> None:
        self._names = names
        self._totals = totals
        self._chosen = chosen
        self._raw = raw
        self._plugins = list(plugin_names)
        self._order: list[int] | None = None
        self._pos = 0

    @classmethod
    def of(cls, names: Sequence[str], raw: npt.NDArray[np.int64] | None = None,
           plugin_names: Sequence[str] = (), totals: Sequence[int] | None = None) -> SortedScoredNodes:
        """Nodes in the order of ``totals`` (default: as given) (tests)."""
        t = np.asarray(totals if totals is not None else [0] * len(names), dtype=np.int64)
        return cls(list(names), t, "", raw, plugin_names)

    def _sorted(self) -> list[int]:
        if self._order is None:
            order = np.argsort(-np.asarray(self._totals, dtype=np.int64), kind="stable").tolist()
            if self._chosen:
                for k, i in enumerate(order):
                    if self._names[i] == self._chosen:
                        del order[k]
                        break
            self._order = order
        return self._order

    def pop(self) -> str:
        name = self._names[self._sorted()[self._pos]]
        self._pos += 1
        return str(name)

    def __len__(self) -> int:
        if self._order is None:
            return len(self._names) - (1 if self._chosen else 0) - self._pos
        return len(self._order) - self._pos

    def keep(self) -> None:
        """Copy the names out: the scoring pass may hand a view that reads the snapshot's rows,
        which the next cycle's snapshot update can move."""
        if not isinstance(self._names, list):
            self._names = [str(n) for n in self._names]

    def remaining(self) -> list[str]:
        return [str(self._names[i]) for i in self._sorted()[self._pos:]]

    def unordered_list(self) -> tuple[list[str], list[str], npt.NDArray[np.int64]]:
        """UnorderedList: the nodes not popped yet with their raw scores -> (names, plugin
        names, plugins x nodes); no raw scores kept reads as no plugin."""
        cols = self._sorted()[self._pos:]
        src = self._names
        names = [src[i] for i in cols] if isinstance(src, list) else [str(src[i]) for i in cols]
        if self._raw is None:
            return names, [], np.zeros((0, len(cols)), dtype=np.int64)
        return names, list(self._plugins), np.asarray(self._raw, dtype=np.int64)[:, cols]


@dataclass(slots=True)
class _BatchState:
    signature: bytes
    sorted_nodes: SortedScoredNodes
    creation_time: float


@dataclass(slots=True)
class _LastCycle:
    cycle_count: int = 0
    chosen_node: str = ""
    succeeded: bool = False


class OpportunisticBatch:
    """OpportunisticBatch: one per profile (framework); see the module docstring.
    ``kube_version`` is the release whose batching it mirrors (its release switches);
    ``generic_workload``: the GenericWorkload gate (pod-group cycles)."""

    def __init__(self, handle: _BatchHandle, now: Callable[[], float],
                 node_infos: Callable[[Sequence[str]], list[NodeInfo | None]],
                 metrics: BatchMetrics | None = None,
                 kube_version: KubeVersion = NEWEST_KUBE_VERSION,
                 generic_workload: bool = False) -> None:
        self._handle = handle
        self._now = now
        self._node_infos = node_infos  # the snapshot's NodeInfos of names, None for a missing one
        self.metrics = metrics
        self.state: _BatchState | None = None
        self.last_cycle = _LastCycle()
        self.batched_pods = 0  # pods placed on a hint (upstream keeps it for its tests)
        self._skip_nominated = BATCH_SKIPS_NOMINATED_PODS.on(kube_version)
        self._rescore = BATCH_RESCORES_LAST_CHOSEN_NODE.on(kube_version)
        self._same_cycle_ok = generic_workload and BATCH_REUSED_WITHIN_POD_GROUP_CYCLE.on(kube_version)

    @property
    def _profile(self) -> str:
        return self._handle.profile_name

    def get_node_hint(self, state: CycleState, pod: Pod, cycle_count: int) -> tuple[str, bytes | None]:
        """GetNodeHint: ``(hint, signature)``; the hint is "" when the kept nodes cannot serve
        this pod (the reason is counted), else the best kept node, taken off the list."""
        t0 = time.perf_counter()
        hint = ""
        signature = self._handle.sign_pod(pod, state.record_plugin_metrics)
        try:
            if (not self._state_compatible(state, pod, signature, cycle_count)
                    or not self._refresh_hint_candidates(state, pod)):
                self._attempt(BATCH_ATTEMPT_NO_HINT)
                log.debug('OpportunisticBatch no node hint available for pod profile="%s" pod="%s/%s" '
                          'cycleCount=%d', self._profile, pod.namespace, pod.name, cycle_count)
                return "", signature
            assert self.state is not None
            hint = self.state.sorted_nodes.pop()
            log.debug('OpportunisticBatch provided node hint profile="%s" pod="%s/%s" hint="%s" '
                      'remainingNodes=%d', self._profile, pod.namespace, pod.name, hint,
                      len(self.state.sorted_nodes))
            return hint, signature
        finally:
            if self.metrics is not None:
                self.metrics.observe_get_node_hint("hint" if hint else "no_hint", self._profile,
                                                   time.perf_counter() - t0)

    def store_schedule_results(self, signature: bytes | None, hinted_node: str, chosen_node: str,
                               other_nodes: SortedScoredNodes | None, cycle_count: int) -> None:
        """StoreScheduleResults: remember this cycle; keep ``other_nodes`` for the next pod
        unless the hint was used (the kept list is still current then) or the pod cannot be
        batched."""
        t0 = time.perf_counter()
        try:
            self.last_cycle = _LastCycle(cycle_count, chosen_node, True)
            if hinted_node and hinted_node == chosen_node:
                self._attempt(BATCH_ATTEMPT_HINT_USED)
                self.batched_pods += 1
                return
            if hinted_node:
                self._attempt(BATCH_ATTEMPT_HINT_NOT_USED)
            if signature is not None and other_nodes is not None and len(other_nodes) > 0:
                other_nodes.keep()
                self.state = _BatchState(signature, other_nodes, self._now())
                return
            reason = FLUSH_POD_NOT_BATCHABLE
            if other_nodes is None or len(other_nodes) == 0:
                reason = FLUSH_EMPTY_LIST
            self._flush(reason)
            self.state = None
        finally:
            if self.metrics is not None:
                self.metrics.observe_store_schedule_results(self._profile, time.perf_counter() - t0)

    # -- internals ------------------------------------------------------------------------
    def _attempt(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.batch_attempt(self._profile, result)

    def _flush(self, reason: str) -> None:
        """logUnusableState: counted by reason. The kept nodes are not dropped here: as
        upstream, a flush on a hint check leaves them until the next store replaces them."""
        if self.metrics is not None:
            self.metrics.batch_flushed(self._profile, reason)

    def _empty(self) -> bool:
        return self.state is None or len(self.state.sorted_nodes) == 0

    def _state_compatible(self, state: CycleState, pod: Pod, signature: bytes | None,
                          cycle_count: int) -> bool:
        """batchStateCompatible (v1.35 also checks the last chosen node here: see
        :meth:`_refresh_hint_candidates`)."""
        if self._empty():
            return False
        assert self.state is not None
        if cycle_count != self.last_cycle.cycle_count + 1 and not (
                self._same_cycle_ok and cycle_count == self.last_cycle.cycle_count):
            self._flush(FLUSH_POD_SKIPPED)
            return False
        if not self.last_cycle.succeeded:
            self._flush(FLUSH_POD_FAILED)
            return False
        if self._skip_nominated and pod.nominated_node_name:
            self._flush(FLUSH_POD_NOMINATED)
            return False
        if signature is None or signature != self.state.signature:
            self._flush(FLUSH_POD_INCOMPATIBLE)
            return False
        if self._now() > self.state.creation_time + MAX_BATCH_AGE:
            self._flush(FLUSH_EXPIRED)
            return False
        return True

    def _refresh_hint_candidates(self, state: CycleState, pod: Pod) -> bool:
        """refreshHintCandidates: when the last chosen node now rejects this pod, the next best
        kept node is the answer. When it still fits, master re-scores it among the kept nodes
        (:data:`BATCH_RESCORES_LAST_CHOSEN_NODE`); v1.35 flushed (``node_not_full``): its new
        score was unknown."""
        last = self._node_infos([self.last_cycle.chosen_node])[0]
        if last is None:
            self._flush(FLUSH_NODE_MISSING)
            return False
        st = self._handle.run_filter_plugins(state, pod, last)
        if st.is_rejected():
            return True
        if not self._rescore:
            self._flush(FLUSH_NODE_NOT_FULL)
            return False
        if not st.is_success():
            self._flush(FLUSH_FILTER_ERROR)
            return False
        return self._rescore_hinted_node(state, pod, last)

    def _rescore_hinted_node(self, state: CycleState, pod: Pod, last: NodeInfo) -> bool:
        """rescoreHintedNode: PreScore over the kept nodes and the last chosen one (what a full
        cycle's PreScore would see: the same feasible nodes), that node's raw scores, then
        every plugin's NormalizeScore over them all; the kept list is rebuilt from the totals."""
        assert self.state is not None
        t0 = time.perf_counter()
        if self.metrics is not None:
            self.metrics.batch_rescore_attempt(self._profile)
        try:
            names, plugins, raw = self.state.sorted_nodes.unordered_list()
            found = self._node_infos(names)
            if None in found:
                self._flush(FLUSH_NODE_MISSING)
                return False
            infos = cast("list[NodeInfo]", found)
            infos.append(last)
            if not self._handle.run_pre_score_plugins(state, pod, infos).is_success():
                self._flush(FLUSH_PRESCORE_ERROR)
                return False
            fresh, st = self._handle.run_raw_score_plugins(state, pod, [last])
            if fresh is None or not st.is_success():
                self._flush(FLUSH_RESCORE_ERROR)
                return False
            _, fresh_plugins, fresh_raw = fresh
            all_plugins = list(fresh_plugins)
            merged = np.zeros((len(all_plugins), len(names) + 1), dtype=np.int64)
            row = {n: k for k, n in enumerate(plugins)}
            for k, n in enumerate(all_plugins):
                if n in row:
                    merged[k, :len(names)] = raw[row[n]]
                merged[k, len(names)] = fresh_raw[k, 0]
            all_names = [*names, last.name]
            res, st = self._handle.normalize_scores(state, pod, all_names, all_plugins, merged)
            if res is None or not st.is_success():
                self._flush(FLUSH_NORMALIZE_ERROR)
                return False
            self.state.sorted_nodes = SortedScoredNodes(all_names, np.asarray(res.totals, dtype=np.int64),
                                                        "", np.asarray(res.raw), res.plugin_names)
            return True
        finally:
            if self.metrics is not None:
                self.metrics.observe_batch_rescore(self._profile, time.perf_counter() - t0)
