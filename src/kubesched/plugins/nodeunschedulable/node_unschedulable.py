"""NodeUnschedulable: nodes with ``spec.unschedulable`` reject pods that do not tolerate
``node.kubernetes.io/unschedulable:NoSchedule``.

Mirrors pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (master 2026).
Newest upstream never hands Filter a NodeInfo without a node; we keep the historical answer
for that case (UnschedulableAndUnresolvable, "node(s) had unknown conditions") instead of
failing, since our snapshot can in principle hold a node-less NodeInfo.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kubesched.api import Node, Pod, Taint, tolerations_tolerate_taint
from kubesched.cache import NodeInfo
from kubesched.framework import (
    TOLERATIONS_SIGNER_NAME,
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterInputs,
    NodeBatch,
    PluginBase,
    QueueingHint,
    SignFragment,
    Status,
    tolerations_signer,
)
from kubesched.plugins.names import NODE_UNSCHEDULABLE

__all__ = ["ERR_REASON_UNKNOWN_CONDITION", "ERR_REASON_UNSCHEDULABLE", "NAME", "NodeUnschedulable"]

NAME = NODE_UNSCHEDULABLE
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

TAINT_NODE_UNSCHEDULABLE = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


def tolerates_unschedulable(pod: Pod) -> bool:
    return tolerations_tolerate_taint(pod.tolerations, TAINT_NODE_UNSCHEDULABLE)


class NodeUnschedulable(PluginBase):
    NAME = NAME
    FILTER_INPUTS = FilterInputs.NODE  # reads the node's spec.unschedulable, the pod's tolerations

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the verdict reads the pod's tolerations only."""
        return [(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod))], None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNKNOWN_CONDITION)
        if node.unschedulable and not tolerates_unschedulable(pod):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """Filter over the ``unschedulable`` column; node-less rows (``has_node`` false) take the
        per-node answer. Most snapshots hold neither: two whole-column counts, then all-success."""
        cols = nodes.snapshot.columns
        idx = nodes.indices
        n = len(idx)
        if not np.count_nonzero(cols.unschedulable) and np.count_nonzero(cols.has_node) == len(cols.has_node):
            # The whole snapshot is clean (the usual case): no gather, no toleration check.
            return BatchFilterResult.all_success(n)
        tolerates = tolerates_unschedulable(pod)
        failed = np.zeros(n, dtype=bool) if tolerates else cols.unschedulable.take(idx)
        has_node = cols.has_node.take(idx)
        if np.count_nonzero(has_node) == n:
            if not np.count_nonzero(failed):
                return BatchFilterResult.all_success(n)
            return BatchFilterResult.from_mask(
                failed, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE
            )
        res = BatchFilterResult.from_mask(
            failed & has_node, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE
        )
        missing = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNKNOWN_CONDITION)
        rows = np.flatnonzero(~has_node)
        res.codes[rows] = int(missing.code)
        res.reason_ids[rows] = len(res.reason_table)
        res.reason_table.append(missing.reasons)
        return res

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
        """Queue when the node became schedulable (or a schedulable node was added)."""
        if not isinstance(new_obj, Node):
            return QueueingHint.QUEUE
        was_schedulable = isinstance(old_obj, Node) and not old_obj.unschedulable
        if not was_schedulable and not new_obj.unschedulable:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the pod itself gained a toleration of the unschedulable taint."""
        if (
            isinstance(new_obj, Pod)
            and new_obj.uid == pod.uid
            and tolerates_unschedulable(new_obj)
            and not (isinstance(old_obj, Pod) and tolerates_unschedulable(old_obj))
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
