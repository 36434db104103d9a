"""Cluster events and queueing hints: how the queue knows which parked pods to retry.

Mirrors staging/src/k8s.io/kube-scheduler/framework/events.go and types.go (master 2026).
Each plugin's ``events_to_register()`` returns :class:`ClusterEventWithHint` items; when an event
arrives, a pod parked in unschedulablePods moves only if one of the plugins that rejected it
registered a matching event and that plugin's hint (if any) says ``QUEUE``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import Enum, IntFlag, StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api import Pod

__all__ = [
    "ActionType",
    "CandidatePodsFn",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EventResource",
    "QueueingHint",
    "QueueingHintFn",
]


class EventResource(StrEnum):
    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULED_POD = "UnscheduledPod"
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
    NAMESPACE = "Namespace"
    PDB = "policy/PodDisruptionBudget"
    POD_GROUP = "scheduling.k8s.io/PodGroup"
    RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
    RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
    DEVICE_CLASS = "resource.k8s.io/DeviceClass"
    WILDCARD = "*"


class ActionType(IntFlag):
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_TOLERATION = 1 << 9
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
    UPDATE_POD_OTHER = 1 << 12  # any other pod update (not upstream: ours, so UPDATE stays complete)
    UPDATE_OTHER = 1 << 13  # updates of kinds without finer action types
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATION
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_GENERATED_RESOURCE_CLAIM
        | UPDATE_POD_OTHER | UPDATE_OTHER
    )
    ALL = ADD | DELETE | UPDATE


class QueueingHint(Enum):
    QUEUE_SKIP = 0
    QUEUE = 1


QueueingHintFn = Callable[["Pod", Any, Any], QueueingHint]
"""(pod, old_obj, new_obj) -> hint; the objects are of the event's resource, any kind. An
exception counts as QUEUE, as upstream."""

CandidatePodsFn = Callable[[Any, Any], Collection[str] | None]
"""(old_obj, new_obj) -> the uids of the only pods the hint can answer QUEUE for on this event
(every other pod gets QUEUE_SKIP), or None when any pod may. Not upstream: it lets the queue
skip asking the hint for pods it would skip anyway (an index instead of a scan); the hint
stays the judge for the pods named."""


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    resource: EventResource
    action: ActionType
    label: str = ""

    def match(self, incoming: ClusterEvent) -> bool:
        """Whether this registered event covers ``incoming`` (ClusterEvent.Match).

        Pod resources nest: a registration for ``Pod`` covers assigned and unscheduled pods."""
        if self.resource == EventResource.WILDCARD:
            return bool(self.action & incoming.action)
        res_ok = self.resource == incoming.resource or (
            self.resource == EventResource.POD
            and incoming.resource in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD)
        )
        return res_ok and bool(self.action & incoming.action)

    def __str__(self) -> str:
        return self.label or f"{self.resource.value}{self.action.name}"


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    event: ClusterEvent
    hint: QueueingHintFn | None = None
    candidates: CandidatePodsFn | None = None
