"""NodeAffinity: nodeSelector / required node affinity (Filter) and preferred terms (Score).

Mirrors pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (master 2026):

- PreFilter returns Skip when the pod has neither nodeSelector nor required node affinity and
  no ``addedAffinity`` is configured. Otherwise, when *every* required term carries
  ``matchFields metadata.name In`` requirements, it narrows the nodes to the union over terms
  of the intersection of each term's name sets (PreFilterResult); a term without such a field
  means all nodes; an empty union is UnschedulableAndUnresolvable "pod affinity terms conflict".
- Filter: ``addedAffinity.required`` first (errReasonEnforced), then the pod's nodeSelector and
  required affinity (ErrReasonPod), both UnschedulableAndUnresolvable.
- PreScore skips when there are no preferred terms (pod's or added); Score sums the weights of
  matching preferred terms; NormalizeScore scales to 0..100 (DefaultNormalizeScore, not reversed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Node, NodeSelector, Pod, SelectorError, WeightedNodeSelectorTerm
from kubesched.cache import NodeInfo
from kubesched.framework import (
    MAX_NODE_SCORE,
    NODE_AFFINITY_SIGNER_NAME,
    NODE_SELECTOR_SIGNER_NAME,
    ActionType,
    ArgsError,
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
    PreFilterResult,
    QueueingHint,
    SignFragment,
    Status,
    node_affinity_signer,
)
from kubesched.plugins.helper import default_normalize_score
from kubesched.plugins.names import NODE_AFFINITY

from ._match import (
    BatchView,
    NodeMasks,
    RequiredNodeAffinity,
    preferred_score,
    preferred_score_batch,
    selector_mask,
)

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "NAME",
    "NodeAffinity",
    "NodeAffinityArgs",
]

NAME = NODE_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

_REQ = "requiredDuringSchedulingIgnoredDuringExecution"
_PREF = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(frozen=True, kw_only=True)
class NodeAffinityArgs(PluginArgs):
    """NodeAffinityArgs: ``addedAffinity`` is a v1.NodeAffinity applied to every pod."""

    added_affinity: dict[str, Any] | None = None

    def parsed(self) -> tuple[NodeSelector | None, tuple[WeightedNodeSelectorTerm, ...]]:
        """The added required selector and preferred terms; ArgsError names the field path
        (ValidateNodeAffinityArgs)."""
        a = self.added_affinity
        if a is None:
            return None, ()
        try:
            req = (
                NodeSelector.from_dict(a.get(_REQ), f"addedAffinity.{_REQ}")
                if a.get(_REQ) is not None
                else None
            )
            pref = tuple(
                WeightedNodeSelectorTerm(
                    int(p.get("weight") or 0),
                    NodeSelector.terms_from_list(
                        [p.get("preference") or {}], f"addedAffinity.{_PREF}[{i}].preference"
                    )[0],
                )
                for i, p in enumerate(a.get(_PREF) or [])
            )
        except (SelectorError, ValueError, AttributeError) as exc:
            raise ArgsError(str(exc)) from exc
        return req, pref

    def validate(self) -> None:
        self.parsed()


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    required: RequiredNodeAffinity

    def clone(self) -> _PreFilterState:
        return self


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    preferred: tuple[WeightedNodeSelectorTerm, ...] | None

    def clone(self) -> _PreScoreState:
        return self


def _pod_preferred(pod: Pod) -> tuple[WeightedNodeSelectorTerm, ...] | None:
    """getPodPreferredNodeAffinity (terms with weight 0 are dropped when scoring)."""
    aff = pod.affinity
    if aff is None or not aff.node_preferred:
        return None
    return aff.node_preferred


def _has_required_affinity(pod: Pod) -> bool:
    return pod.affinity is not None and pod.affinity.node_required is not None


def _labels(ni: NodeInfo) -> tuple[str, Mapping[str, str]]:
    node = ni.node
    return (node.name, node.labels) if node is not None else ("", {})


class NodeAffinity(PluginBase):
    NAME = NAME
    Args = NodeAffinityArgs
    FILTER_INPUTS = FilterInputs.NODE  # reads the node's labels and fields, and PreFilter's state

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the pod's node affinity (required and preferred terms) and nodeSelector;
        the profile's addedAffinity is the same for every pod."""
        return [(NODE_AFFINITY_SIGNER_NAME, node_affinity_signer(pod)),
                (NODE_SELECTOR_SIGNER_NAME, dict(pod.node_selector))], None

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        assert isinstance(self.args, NodeAffinityArgs)
        self.added_node_selector, added_pref = self.args.parsed()
        self.added_pref_sched_terms: tuple[WeightedNodeSelectorTerm, ...] | None = added_pref or None
        self._masks = NodeMasks()  # per-requirement node masks, shared by Filter and Score

    # -- PreFilter ---------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        has_required = _has_required_affinity(pod)
        if not has_required and self.added_node_selector is None and not pod.node_selector:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(RequiredNodeAffinity.of(pod)))
        if not has_required:
            return None, None
        assert pod.affinity is not None and pod.affinity.node_required is not None
        terms = pod.affinity.node_required.terms
        if not terms:
            return None, None
        node_names: set[str] | None = None
        for t in terms:
            term_names: set[str] | None = None
            for r in t.match_fields:
                if r.key == "metadata.name" and r.operator == "In":
                    # requirements are ANDed: intersect
                    term_names = set(r.values) if term_names is None else term_names & set(r.values)
            if term_names is None:
                return None, None  # this term does not pin node names; terms are ORed
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(frozenset(node_names)), None
        return None, None

    def _required(self, state: CycleState, pod: Pod) -> RequiredNodeAffinity:
        # Falls back to computing it when PreFilter did not run, as upstream.
        s = state.get(PRE_FILTER_STATE_KEY)
        return s.required if isinstance(s, _PreFilterState) else RequiredNodeAffinity.of(pod)

    # -- Filter ------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        name, labels = _labels(node_info)
        if self.added_node_selector is not None and not self.added_node_selector.matches(name, labels):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
        if not self._required(state, pod).match(name, labels):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        view = BatchView.of(nodes, self._masks)
        pod_ok = self._required(state, pod).mask(view)
        if self.added_node_selector is None:
            if np.count_nonzero(pod_ok) == len(view):
                return BatchFilterResult.all_success(len(view))
            return BatchFilterResult.from_mask(~pod_ok, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        enforced_ok = selector_mask(self.added_node_selector, view)
        reason_ids = np.where(~enforced_ok, 1, np.where(~pod_ok, 2, 0)).astype(np.int32)
        codes = np.where(reason_ids > 0, np.int8(int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)), np.int8(0))
        return BatchFilterResult(
            codes.astype(np.int8), reason_ids, [(), (ERR_REASON_ENFORCED,), (ERR_REASON_POD,)]
        )

    # -- Score -------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        preferred = _pod_preferred(pod)
        if preferred is None and self.added_pref_sched_terms is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def _preferred(self, state: CycleState, pod: Pod) -> tuple[WeightedNodeSelectorTerm, ...]:
        s = state.get(PRE_SCORE_STATE_KEY)
        pref = s.preferred if isinstance(s, _PreScoreState) else _pod_preferred(pod)
        return (*(self.added_pref_sched_terms or ()), *(pref or ()))

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        name, labels = _labels(node_info)
        return preferred_score(self._preferred(state, pod), name, labels), None

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        return preferred_score_batch(self._preferred(state, pod), BatchView.of(nodes, self._masks)), None

    def score_extensions(self) -> NodeAffinity:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64], node_names: Sequence[str]
    ) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    # -- Events ------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change,
            )
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when the node now matches the pod's required affinity and did not before."""
        if not isinstance(new_obj, Node):
            return QueueingHint.QUEUE
        labels = new_obj.labels
        if self.added_node_selector is not None and not self.added_node_selector.matches(
            new_obj.name, labels
        ):
            return QueueingHint.QUEUE_SKIP
        required = RequiredNodeAffinity.of(pod)
        if not required.match(new_obj.name, labels):
            return QueueingHint.QUEUE_SKIP
        if not isinstance(old_obj, Node):
            return QueueingHint.QUEUE
        if not required.match(old_obj.name, old_obj.labels):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
