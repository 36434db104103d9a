"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score.

Mirrors pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (master 2026):

- Filter: the first NoSchedule/NoExecute taint no toleration tolerates rejects the node,
  UnschedulableAndUnresolvable (preemption cannot remove a taint). Current upstream reports
  the generic "node(s) had untolerated taint(s)" (kubernetes PR #134740: taint keys and values
  may be sensitive; older releases named the taint).
- Score: the number of PreferNoSchedule taints not tolerated by the pod's tolerations whose
  effect is PreferNoSchedule or empty; NormalizeScore reverses it (fewer is better).

The batch path evaluates each distinct taint set once (``columns.taint_sets``) and gathers the
answer through ``columns.taint_set_id``: clusters have few distinct taint sets. The per-set
answers are memoized per tolerations across cycles (:class:`_PerTaintSet`), and when no set
fails (no set scores) the batch answer is all-success (all zero) without reading any row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from kubesched.api import Node, Pod, Taint, Toleration, find_untolerated_taint, tolerations_tolerate_taint
from kubesched.cache import NodeInfo
from kubesched.framework import (
    MAX_NODE_SCORE,
    TOLERATIONS_SIGNER_NAME,
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterInputs,
    Handle,
    NodeBatch,
    PluginArgs,
    PluginBase,
    QueueingHint,
    SignFragment,
    Status,
    tolerations_signer,
)
from kubesched.plugins.helper import default_normalize_score
from kubesched.plugins.names import TAINT_TOLERATION

__all__ = ["ERR_REASON_NOT_MATCH", "ERR_REASON_UNTOLERATED", "NAME", "TaintToleration"]

NAME = TAINT_TOLERATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"

DO_NOT_SCHEDULE_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


def untolerated_do_not_schedule_taint(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]
) -> Taint | None:
    """FindMatchingUntoleratedTaint with helper.DoNotScheduleTaintsFilterFunc."""
    return find_untolerated_taint(taints, tolerations, DO_NOT_SCHEDULE_EFFECTS)


def prefer_no_schedule_tolerations(tolerations: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
    """getAllTolerationPreferNoSchedule: empty effect means all effects, so it counts too."""
    return tuple(t for t in tolerations if not t.effect or t.effect == "PreferNoSchedule")


def count_intolerable_prefer_no_schedule(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]
) -> int:
    """countIntolerableTaintsPreferNoSchedule."""
    return sum(
        1 for t in taints if t.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(tolerations, t)
    )


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    tolerations_prefer_no_schedule: tuple[Toleration, ...]

    def clone(self) -> _PreScoreState:
        return self


_T = TypeVar("_T", bound=np.generic)


class _PerTaintSet(Generic[_T]):
    """``rule(taint_set, tolerations)`` for every distinct taint set of the columns, memoized
    per tolerations tuple. ``columns.taint_sets`` only ever grows (a new set is appended), so the
    answers stay valid while the same list object has the same length; a new list (new columns)
    or a longer one starts afresh. Holding the list keeps its identity from being reused."""

    _LIMIT = 256  # distinct tolerations remembered at once

    def __init__(self, rule: Callable[[tuple[Taint, ...], tuple[Toleration, ...]], Any], dtype: type[_T]):
        self._rule = rule
        self._dtype = dtype
        self._sets: list[tuple[Taint, ...]] | None = None
        self._len = 0
        self._memo: dict[tuple[Toleration, ...], tuple[npt.NDArray[_T], bool]] = {}

    def get(
        self, sets: list[tuple[Taint, ...]], tolerations: tuple[Toleration, ...]
    ) -> tuple[npt.NDArray[_T], bool]:
        """(answer per set, whether any answer is non-zero)."""
        if sets is not self._sets or len(sets) != self._len:
            self._sets, self._len, self._memo = sets, len(sets), {}
        hit = self._memo.get(tolerations)
        if hit is None:
            if len(self._memo) >= self._LIMIT:
                self._memo.clear()
            arr = np.array([self._rule(ts, tolerations) for ts in sets], dtype=self._dtype)
            hit = self._memo[tolerations] = (arr, bool(np.count_nonzero(arr)))
        return hit


def _untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> bool:
    return untolerated_do_not_schedule_taint(taints, tolerations) is not None


def _node_taints(node_info: NodeInfo) -> tuple[Taint, ...]:
    return node_info.node.taints if node_info.node is not None else ()


class TaintToleration(PluginBase):
    NAME = NAME
    FILTER_INPUTS = FilterInputs.NODE  # reads only the node's taints and the pod's tolerations

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: feasibility and scoring read the pod's tolerations only."""
        return [(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod))], None

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self._untolerated = _PerTaintSet(_untolerated, np.bool_)
        self._intolerable = _PerTaintSet(count_intolerable_prefer_no_schedule, np.int64)

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if untolerated_do_not_schedule_taint(_node_taints(node_info), pod.tolerations) is None:
            return None
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        cols = nodes.snapshot.columns
        per_set, any_failed = self._untolerated.get(cols.taint_sets, pod.tolerations)
        if not any_failed:
            return BatchFilterResult.all_success(len(nodes))
        failed = per_set[cols.taint_set_id[nodes.indices]]
        return BatchFilterResult.from_mask(
            failed, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED
        )

    # -- Score ------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(prefer_no_schedule_tolerations(pod.tolerations)))
        return None

    def _state(self, state: CycleState) -> _PreScoreState:
        return state.read_as(PRE_SCORE_STATE_KEY, _PreScoreState)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = self._state(state)
        except (KeyError, TypeError) as exc:
            return 0, Status.from_error(exc)
        return count_intolerable_prefer_no_schedule(
            _node_taints(node_info), s.tolerations_prefer_no_schedule
        ), None

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        try:
            s = self._state(state)
        except (KeyError, TypeError) as exc:
            return np.zeros(len(nodes), dtype=np.int64), self.error_status(exc)
        cols = nodes.snapshot.columns
        per_set, any_counted = self._intolerable.get(cols.taint_sets, s.tolerations_prefer_no_schedule)
        if not any_counted:
            return np.zeros(len(nodes), dtype=np.int64), None
        return per_set[cols.taint_set_id[nodes.indices]], None

    def score_extensions(self) -> TaintToleration:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64], node_names: Sequence[str]
    ) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return None

    # -- Events -----------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when the node went from having an untolerated taint (or not existing) to none."""
        if not isinstance(new_obj, Node):
            return QueueingHint.QUEUE
        was_untolerated = True
        if isinstance(old_obj, Node):
            was_untolerated = untolerated_do_not_schedule_taint(old_obj.taints, pod.tolerations) is not None
        is_untolerated = untolerated_do_not_schedule_taint(new_obj.taints, pod.tolerations) is not None
        if was_untolerated and not is_untolerated:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """A toleration added to the pod itself may make it fit (tolerations can only be added)."""
        if isinstance(new_obj, Pod) and new_obj.uid == pod.uid:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
