"""The PodTopologySpread plugin: PreFilter (+ AddPod/RemovePod), Filter, PreScore, Score,
NormalizeScore, and its cluster events.

Mirrors pkg/scheduler/framework/plugins/podtopologyspread/plugin.go and common.go (master 2026).
Constraints come from the pod, or, when it has none, from the default constraints (System
defaulting: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway) with a selector built by
helper.DefaultSelector (the Services selecting the pod and its controlling ReplicationController,
ReplicaSet or StatefulSet, read from the store); an empty default selector means no default
spreading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...cache import NodeInfo, PodInfo, Snapshot
from ...framework import (
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
    NodeView,
    PodIndex,
    ValueCodes,
    WorkloadListers,
    cycle_snapshot,
    default_selector,
    feature_enabled,
)
from ..names import POD_TOPOLOGY_SPREAD
from . import filtering, scoring
from ._args import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    PodTopologySpreadArgs,
)
from .common import (
    HONOR,
    Constraint,
    filter_constraints,
    node_labels_match_spread_constraints,
)

__all__ = ["PodTopologySpread"]

_SKIP = Status.skip()



class PodTopologySpread(PluginBase):
    NAME = POD_TOPOLOGY_SPREAD
    Args = PodTopologySpreadArgs

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: spreading depends on where the other matching pods are, so a pod with
        constraints, its own or the profile's defaults (the system defaults included), is not
        signable."""
        if pod.topology_spread_constraints:
            return None, Status(Code.UNSCHEDULABLE, ("pods with topology constraints are not signable",))
        if self.default_constraints:
            return None, Status(Code.UNSCHEDULABLE,
                                ("pods with default topology constraints are not signable",))
        return None, None

    def __init__(self, args: PodTopologySpreadArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        assert isinstance(self.args, PodTopologySpreadArgs)  # checked and validated by PluginBase
        self._a: PodTopologySpreadArgs = self.args
        self.system_defaulted = self._a.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints = SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted \
            else self._a.default_constraints
        self.enable_node_inclusion_policy = feature_enabled(handle, "NodeInclusionPolicyInPodTopologySpread",
                                                            True)
        self.enable_match_label_keys = feature_enabled(handle, "MatchLabelKeysInPodTopologySpread", True)
        self._queueing_hints = feature_enabled(handle, "SchedulerQueueingHints", True)
        # setListers: the kinds whose selectors make the default constraints' selector.
        self._workloads = WorkloadListers(handle.store if handle is not None else None)
        self._defaults_pod_independent = not any(c.match_label_keys for c in self.default_constraints)
        self._defaults_by_action: dict[str, list[Constraint]] = {}
        self._index = PodIndex()
        self._values = ValueCodes()

    # -- constraints ------------------------------------------------------------------------------
    def _filter(self, pod: Pod, action: str) -> list[Constraint]:
        return filter_constraints(pod.topology_spread_constraints, pod.labels, action,
                                  self.enable_match_label_keys, self.enable_node_inclusion_policy)

    def _default_constraints_for(self, pod: Pod, action: str) -> list[Constraint]:
        """The default constraints for ``action``; without matchLabelKeys they do not depend on
        the pod, so they are filtered once per action (twice per cycle otherwise)."""
        if self._defaults_pod_independent:
            cons = self._defaults_by_action.get(action)
            if cons is None:
                cons = self._defaults_by_action[action] = filter_constraints(
                    self.default_constraints, {}, action, self.enable_match_label_keys,
                    self.enable_node_inclusion_policy)
            return cons
        return filter_constraints(self.default_constraints, pod.labels, action,
                                  self.enable_match_label_keys, self.enable_node_inclusion_policy)

    def build_default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """buildDefaultConstraints."""
        cons = self._default_constraints_for(pod, action)
        if not cons:
            return []
        sel = default_selector(pod, self._workloads)
        if sel.is_empty:
            return []
        return [Constraint(c.max_skew, c.topology_key, sel, c.min_domains, c.node_affinity_policy,
                           c.node_taints_policy) for c in cons]

    def get_constraints(self, pod: Pod) -> list[Constraint]:
        """getConstraints: the pod's DoNotSchedule constraints, else the defaults'."""
        if pod.topology_spread_constraints:
            return self._filter(pod, DO_NOT_SCHEDULE)
        return self.build_default_constraints(pod, DO_NOT_SCHEDULE)

    def _snapshot(self) -> Snapshot | None:
        """The cycle's snapshot: PreScore counts pods on all its nodes, not only feasible ones."""
        snap: Snapshot | None = cycle_snapshot(self.handle)
        return snap

    # -- PreFilter ------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        constraints = self.get_constraints(pod)
        if not constraints:
            return None, _SKIP
        snapshot = self._snapshot()
        self._index.sync(nodes, snapshot)
        s = filtering.compute_pre_filter_state(pod, constraints, NodeView(nodes, snapshot), self._index,
                                               self.enable_node_inclusion_policy)
        state.write(filtering.PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PodTopologySpread:
        return self

    def _update(self, state: CycleState, pod: Pod, pi: PodInfo, node_info: NodeInfo,
                delta: int) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except (KeyError, TypeError) as err:
            return self.error_status(err)
        s.update_with_pod(pi.pod, pod, node_info, delta, self.enable_node_inclusion_policy)
        return None

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        return self._update(state, pod_to_schedule, pod_info_to_add, node_info, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        return self._update(state, pod_to_schedule, pod_info_to_remove, node_info, -1)

    # -- Filter ---------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = filtering.get_pre_filter_state(state)
        except (KeyError, TypeError) as err:
            return self.error_status(err)
        st = filtering.filter_node(s, pod, node_info)
        return None if st is None else st.with_plugin(self.NAME)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        try:
            s = filtering.get_pre_filter_state(state)
        except (KeyError, TypeError) as err:
            return BatchFilterResult.uniform(len(nodes), self.error_status(err))
        return filtering.filter_batch(s, pod, nodes, self._values)

    # -- Score ----------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        snapshot = self._snapshot()
        all_nodes = snapshot.node_info_list if snapshot is not None else nodes
        if not all_nodes:
            return _SKIP
        # Only non-system-default spreading requires every topology key on a node, so that
        # nodes without a zone label still get hostname spreading.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        if pod.topology_spread_constraints:
            constraints = self._filter(pod, SCHEDULE_ANYWAY)
        else:
            constraints = self.build_default_constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return _SKIP
        self._index.sync(all_nodes, snapshot)
        view = NodeView(all_nodes, snapshot)
        s = scoring.compute_pre_score_state(pod, constraints, nodes, view, self._index, require_all,
                                            self.enable_node_inclusion_policy)
        state.write(scoring.PRE_SCORE_STATE_KEY, s)
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

    def score_extensions(self) -> PodTopologySpread:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64],
                        node_names: Sequence[str]) -> Status | None:
        try:
            s = scoring.get_pre_score_state(state)
        except (KeyError, TypeError) as err:
            return self.error_status(err)
        scoring.normalize_scores(s, scores, node_names)
        return None

    # -- events -----------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister. With queueing hints, the pod's own toleration updates matter too
        (NodeTaintsPolicy Honor, kubernetes PR 122234). UpdateNodeTaint is registered with
        Node/Add because preCheck may drop a Node/Add (kubernetes issue 109437)."""
        pod_actions = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        if self._queueing_hints:
            pod_actions |= ActionType.UPDATE_POD_TOLERATION
        node_actions = (ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL
                        | ActionType.UPDATE_NODE_TAINT)
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, pod_actions),
                                 self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions),
                                 self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """isSchedulableAfterPodChange."""
        original = old_obj if isinstance(old_obj, Pod) else None
        modified = new_obj if isinstance(new_obj, Pod) else None

        def involved(other: Pod) -> bool:  # involvedInTopologySpreading
            return other.uid == pod.uid or (bool(other.node_name) and other.namespace == pod.namespace)

        if any(p is not None and not involved(p) for p in (modified, original)):
            return QueueingHint.QUEUE_SKIP
        constraints = self.get_constraints(pod)
        if modified is not None and original is not None:
            # The target pod got a new toleration: NodeTaintsPolicy Honor may now include more nodes.
            if modified.uid == pod.uid and modified.tolerations != original.tolerations and \
                    any(c.node_taints_policy == HONOR for c in constraints):
                return QueueingHint.QUEUE
            if dict(modified.labels) == dict(original.labels):
                return QueueingHint.QUEUE_SKIP
            for c in constraints:
                if c.matches_pod(original.labels) != c.matches_pod(modified.labels):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        p = modified if modified is not None else original
        if p is not None and any(c.matches_pod(p.labels) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """isSchedulableAfterNodeChange: a node entering or leaving the constraints' domains,
        changing a topology value, or (when matching) changing taints."""
        original = old_obj if isinstance(old_obj, Node) else None
        modified = new_obj if isinstance(new_obj, Node) else None
        constraints = self.get_constraints(pod)
        def matching(node: Node | None) -> bool:
            return node is not None and node_labels_match_spread_constraints(node.labels, constraints)

        orig_match, mod_match = matching(original), matching(modified)
        if original is not None and modified is not None:
            if orig_match != mod_match:
                return QueueingHint.QUEUE
            if mod_match and (
                any(original.labels.get(c.topology_key) != modified.labels.get(c.topology_key)
                    for c in constraints)
                or original.taints != modified.taints
            ):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if mod_match if modified is not None else orig_match:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
