"""The InterPodAffinity plugin: PreFilter (+ AddPod/RemovePod), Filter, PreScore, Score,
NormalizeScore, and its cluster events.

Mirrors pkg/scheduler/framework/plugins/interpodaffinity/plugin.go (master 2026); the rules live
in :mod:`.filtering` and :mod:`.scoring`, shared by the per-node and the batch paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...cache import NodeInfo, PodInfo, Snapshot
from ...framework import (
    LABELS_SIGNER_NAME,
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeBatch,
    PluginBase,
    PreFilterResult,
    QueueingHint,
    SignFragment,
    Status,
)
from ..helper import (
    AffinityTerm,
    NodeView,
    PodIndex,
    PodTerms,
    PodTermsCache,
    ValueCodes,
    WeightedAffinityTerm,
    cycle_snapshot,
    feature_enabled,
    pod_matches_all_terms,
)
from ..names import INTER_POD_AFFINITY
from . import filtering, scoring
from ._args import InterPodAffinityArgs
from ._namespaces import NamespaceReader

__all__ = ["InterPodAffinity"]

_SKIP = Status.skip()



class InterPodAffinity(PluginBase):
    NAME = INTER_POD_AFFINITY
    Args = InterPodAffinityArgs

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: a pod with pod affinity or anti-affinity depends on where other pods are:
        not signable. Otherwise only existing pods' terms matter, which read the pod's labels
        (none with ignorePreferredTermsOfExistingPods, as upstream's TestPodAffinitySignature)."""
        aff = (pod.raw.get("spec") or {}).get("affinity") or {}
        if aff.get("podAffinity") is not None or aff.get("podAntiAffinity") is not None:
            return None, Status(Code.UNSCHEDULABLE, ("pods with inter-pod affinity are not signable",))
        if self._a.ignore_preferred_terms_of_existing_pods:
            return None, None
        return [(LABELS_SIGNER_NAME, dict(pod.labels))], None

    def __init__(self, args: InterPodAffinityArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        assert isinstance(self.args, InterPodAffinityArgs)  # checked and validated by PluginBase
        self._a: InterPodAffinityArgs = self.args
        self._terms = PodTermsCache()
        self._index = PodIndex(self._terms)
        self._values = ValueCodes()
        self._namespaces = NamespaceReader(handle)
        self._queueing_hints = feature_enabled(handle, "SchedulerQueueingHints", True)

    # -- helpers ----------------------------------------------------------------------------
    def _merged_terms(self, pod: Pod) -> PodTerms:
        """The incoming pod's terms with namespace selectors resolved once per cycle."""
        t = self._terms.get(pod)
        if all(x.namespace_selector is None for x in t.all_terms()):
            return t
        nss = self._namespaces.list()

        def m(x: AffinityTerm) -> AffinityTerm:
            return x.merge_namespaces(nss)

        def mw(w: WeightedAffinityTerm) -> WeightedAffinityTerm:
            return WeightedAffinityTerm(m(w.term), w.weight)

        return PodTerms(tuple(map(m, t.required_affinity)), tuple(map(m, t.required_anti_affinity)),
                        tuple(map(mw, t.preferred_affinity)), tuple(map(mw, t.preferred_anti_affinity)))

    def _snapshot(self) -> Snapshot | None:
        """The cycle's snapshot: PreScore reads all its nodes, not only the feasible ones."""
        snap: Snapshot | None = cycle_snapshot(self.handle)
        return snap

    # -- PreFilter ------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        terms = self._merged_terms(pod)
        snapshot = self._snapshot()
        no_terms = not terms.required_affinity and not terms.required_anti_affinity
        if no_terms and snapshot is not None and snapshot.node_info_list is nodes \
                and not snapshot.have_pods_with_required_anti_affinity_list:
            # Upstream counts existing anti-affinity over HavePodsWithRequiredAntiAffinityList:
            # with no such pod and no terms of its own the pod's state would be empty (Skip).
            return None, _SKIP
        ns_labels = self._namespaces.labels(pod.namespace)
        self._index.sync(nodes, snapshot)
        s = filtering.compute_pre_filter_state(pod, terms, ns_labels, self._index, NodeView(nodes, snapshot))
        if not s.existing_anti_affinity_counts and not terms.required_affinity \
                and not terms.required_anti_affinity:
            return None, _SKIP
        state.write(filtering.PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> InterPodAffinity:
        return self

    def _update(self, state: CycleState, pi: PodInfo, node_info: NodeInfo, multiplier: int) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except (KeyError, TypeError) as err:
            return self.error_status(err)
        s.update_with_pod(pi.pod, self._terms.get(pi.pod), node_info.node, multiplier)
        return None

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        return self._update(state, pod_info_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        return self._update(state, pod_info_to_remove, node_info, -1)

    # -- Filter ---------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except (KeyError, TypeError) as err:
            return self.error_status(err)
        st = filtering.filter_node(s, node_info)
        return None if st is None else st.with_plugin(self.NAME)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        try:
            s = filtering.get_pre_filter_state(state)
        except (KeyError, TypeError) as err:
            return BatchFilterResult.uniform(len(nodes), self.error_status(err))
        return filtering.filter_batch(s, nodes, self._values)

    # -- Score ----------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        terms = self._merged_terms(pod)
        if self._a.ignore_preferred_terms_of_existing_pods and not terms.has_preferred:
            return _SKIP
        snapshot = self._snapshot()
        if not terms.has_preferred and snapshot is not None and not snapshot.have_pods_with_affinity_list:
            # Without preferred terms of its own only existing pods' terms score, and upstream
            # reads those from HavePodsWithAffinityList: none there, an empty map (Skip).
            return _SKIP
        ns_labels = self._namespaces.labels(pod.namespace)
        all_nodes = snapshot.node_info_list if snapshot is not None else nodes
        self._index.sync(all_nodes, snapshot)
        ps = scoring.compute_topology_score(pod, terms, ns_labels, self._index, NodeView(all_nodes, snapshot),
                                            self._a.hard_pod_affinity_weight)
        if not ps.topology_keys:
            return _SKIP
        state.write(scoring.PRE_SCORE_STATE_KEY, ps)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = scoring.get_pre_score_state(state)
        except (KeyError, TypeError) as err:
            return 0, self.error_status(err)
        return scoring.score_node(s, node_info), None

    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[npt.NDArray[np.int64], Status | None]:
        try:
            s = scoring.get_pre_score_state(state)
        except (KeyError, TypeError) as err:
            return np.zeros(len(nodes), dtype=np.int64), self.error_status(err)
        return scoring.score_batch(s, nodes, self._values), None

    def score_extensions(self) -> InterPodAffinity:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64],
                        node_names: Sequence[str]) -> Status | None:
        try:
            s = scoring.get_pre_score_state(state)
        except (KeyError, TypeError) as err:
            return self.error_status(err)
        scoring.normalize_scores(s, scores)
        return None

    # -- events -----------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister. Pods: an added or relabelled pod may satisfy affinity, a deleted one
        may lift anti-affinity. Nodes: UpdateNodeTaint is registered only without queueing hints,
        because preCheck may drop a Node/Add (kubernetes issue 109437)."""
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self._queueing_hints:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD,
                             ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
                self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions),
                                 self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """isSchedulableAfterPodChange."""
        original = old_obj if isinstance(old_obj, Pod) else None
        modified = new_obj if isinstance(new_obj, Pod) else None
        if any(p is not None and not p.node_name for p in (modified, original)):
            return QueueingHint.QUEUE_SKIP
        t = PodTerms.of(pod)  # as upstream: GetAffinityTerms, namespace selectors not resolved
        terms, anti = t.required_affinity, t.required_anti_affinity
        if modified is not None and original is not None:
            if not pod_matches_all_terms(terms, original) and pod_matches_all_terms(terms, modified):
                return QueueingHint.QUEUE
            if pod_matches_all_terms(anti, original) and not pod_matches_all_terms(anti, modified):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if modified is not None:
            return QueueingHint.QUEUE if pod_matches_all_terms(terms, modified) else QueueingHint.QUEUE_SKIP
        if original is None or not pod_matches_all_terms(anti, original):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """isSchedulableAfterNodeChange: a node gaining (or changing) an affinity topology key,
        or any new node / a node losing or changing an anti-affinity topology key."""
        original = old_obj if isinstance(old_obj, Node) else None
        modified = new_obj if isinstance(new_obj, Node) else None
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        t = PodTerms.of(pod)
        for term in t.required_affinity:
            k = term.topology_key
            if original is None:
                if k in modified.labels:
                    return QueueingHint.QUEUE
                continue
            ov, mv = original.labels.get(k), modified.labels.get(k)
            if (ov is None and mv is not None) or (ov is not None and mv is not None and ov != mv):
                return QueueingHint.QUEUE
        for term in t.required_anti_affinity:
            if original is None:
                return QueueingHint.QUEUE
            k = term.topology_key
            ov, mv = original.labels.get(k), modified.labels.get(k)
            if (ov is not None and mv is None) or (ov is not None and mv is not None and ov != mv):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
