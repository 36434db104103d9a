"""NodePorts: the pod's host ports must be free on the node.

Mirrors pkg/scheduler/framework/plugins/nodeports/node_ports.go (master 2026): PreFilter
collects the pod's host ports (schedutil.GetHostPorts) and returns Skip when there are none;
Filter rejects a node where any of them conflicts (same protocol and port, on the same host IP
or with 0.0.0.0 on either side), Unschedulable (preemption can free ports). A deleted pod that
used a conflicting port requeues the pod.

Batch path: nodes whose used-port table is empty cannot conflict, so only the others are checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kubesched.api import ContainerPort, Pod
from kubesched.cache import HostPortInfo, NodeInfo
from kubesched.framework import (
    HOST_PORTS_SIGNER_NAME,
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeBatch,
    PluginBase,
    PreFilterResult,
    QueueingHint,
    SignFragment,
    Status,
    host_ports_signer,
)
from kubesched.plugins.names import NODE_PORTS

__all__ = ["ERR_REASON", "NAME", "NodePorts", "fits_ports"]

NAME = NODE_PORTS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    ports: tuple[ContainerPort, ...]

    def clone(self) -> _PreFilterState:
        return self


def fits_ports(want: Sequence[ContainerPort], used: HostPortInfo) -> bool:
    """fitsPorts: no wanted port conflicts with a used one."""
    return not any(used.check_conflict(p.host_ip, p.protocol, p.host_port) for p in want)


class NodePorts(PluginBase):
    NAME = NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: feasibility depends on the host ports the containers ask for."""
        return [(HOST_PORTS_SIGNER_NAME, host_ports_signer(pod))], None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ports = pod.host_ports
        if not ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(ports))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = state.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        if not fits_ports(s.ports, node_info.used_ports):
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        try:
            s = state.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
        except (KeyError, TypeError) as exc:
            return BatchFilterResult.uniform(len(nodes), Status.from_error(exc))
        infos = nodes.snapshot.node_info_list
        failed = np.zeros(len(nodes), dtype=bool)
        for i, idx in enumerate(nodes.indices.tolist()):
            used = infos[idx].used_ports
            if len(used) and not fits_ports(s.ports, used):
                failed[i] = True
        return BatchFilterResult.from_mask(failed, Code.UNSCHEDULABLE, ERR_REASON)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # A deleted pod may free ports.
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE), self.is_schedulable_after_pod_deleted
            ),
            # A new node has free ports; no hint: retried with backoff as upstream.
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        deleted = old_obj if isinstance(old_obj, Pod) else None
        if deleted is None:
            return QueueingHint.QUEUE
        if not deleted.node_name and not deleted.nominated_node_name:
            return QueueingHint.QUEUE_SKIP  # an unscheduled pod held no ports
        ports = deleted.host_ports
        if not ports:
            return QueueingHint.QUEUE_SKIP
        in_use = HostPortInfo()
        for p in ports:
            in_use.add(p.host_ip, p.protocol, p.host_port)
        if fits_ports(pod.host_ports, in_use):
            return QueueingHint.QUEUE_SKIP  # no common port: deleting it cannot help
        return QueueingHint.QUEUE
