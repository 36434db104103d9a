"""NodeName: a pod with ``spec.nodeName`` fits only that node.

Mirrors pkg/scheduler/framework/plugins/nodename/node_name.go (master 2026): Filter,
UnschedulableAndUnresolvable; requeued when a node is added whose name matches (queueing hint
isSchedulableAfterNodeAdd). PreFilter (kubernetes PR #140000, v1.37, alpha feature
``InPlacePodVerticalScalingSchedulerPreemption``, off by default) narrows the candidate nodes to
the named one; with the feature off it does nothing, as upstream.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kubesched.api import Node, Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    NODE_NAME_SIGNER_NAME,
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
    PreFilterResult,
    QueueingHint,
    SignFragment,
    Status,
)
from kubesched.plugins.helper import feature_enabled
from kubesched.plugins.names import NODE_NAME

__all__ = ["ERR_REASON", "NAME", "NodeName", "fits"]

NAME = NODE_NAME
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_name: str) -> bool:
    """Fits: no requested node name, or the node's own name."""
    return not pod.node_name or pod.node_name == node_name


class NodeName(PluginBase):
    NAME = NAME
    FILTER_INPUTS = FilterInputs.NODE  # reads only the node's name and the pod's spec.nodeName

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: feasibility depends on ``spec.nodeName`` only."""
        return [(NODE_NAME_SIGNER_NAME, pod.node_name)], None

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.enable_resize_preemption = feature_enabled(
            handle, "InPlacePodVerticalScalingSchedulerPreemption", False
        )

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """PreFilter: only the named node is a candidate (behind the alpha feature)."""
        if self.enable_resize_preemption and pod.node_name:
            return PreFilterResult(frozenset({pod.node_name})), None
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not fits(pod, node_info.name):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        if not pod.node_name:
            return BatchFilterResult.all_success(len(nodes))
        want = nodes.snapshot.node_index.get(pod.node_name, -1)
        failed = np.asarray(nodes.indices) != want
        return BatchFilterResult.from_mask(failed, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD), self.is_schedulable_after_node_add
            )
        ]

    def is_schedulable_after_node_add(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        if isinstance(new_obj, Node) and fits(pod, new_obj.name):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
