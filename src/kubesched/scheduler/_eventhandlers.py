"""Cluster events -> cache and scheduling queue, as pkg/scheduler/eventhandlers.go (master 2026).

Assigned pods (``spec.nodeName`` set) go to the cache; unassigned pods whose ``schedulerName``
matches a profile go to the queue; others are ignored. An update that sets ``nodeName`` is a
binding: the pod is added to the cache and removed from the queue. Node updates are translated
into the specific ``UpdateNode*`` actions (``NodeSchedulingPropertiesChange``) so that only the
pods rejected by plugins that care are moved. Queueing hints are on (GA), so every handler uses
``MoveAllToActiveOrBackoffQueue`` (no in-tree pre-check).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from ..api import ApiObject, Node, Pod
from ..framework import ActionType, ClusterEvent, EventResource
from ..queue import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_UNSCHEDULED_POD_ADD,
    pod_scheduling_properties_change,
)

if TYPE_CHECKING:
    from ..cache import Cache
    from ..framework import Framework
    from ..queue import PriorityQueue

__all__ = [
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_NODE_ADD",
    "EVENT_NODE_DELETE",
    "EventHandlers",
    "node_scheduling_properties_change",
]

EVENT_NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
EVENT_NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)


def _conditions(node: Node) -> dict[str, object]:
    return {str(c.get("type")): c.get("status") for c in node.conditions}


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
    """NodeSchedulingPropertiesChange (framework/events.go): one event per changed property, in
    upstream's order. ``spec.unschedulable`` turning false counts as a taint change (upstream's
    TODO: no UpdateNodeSpecUnschedulable action yet); conditions compare type -> status only."""
    actions: list[ActionType] = []
    if new.unschedulable != old.unschedulable and not new.unschedulable:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if dict(new.allocatable) != dict(old.allocatable):
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if dict(new.labels) != dict(old.labels):
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if new.taints != old.taints:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if _conditions(new) != _conditions(old):
        actions.append(ActionType.UPDATE_NODE_CONDITION)
    if dict(new.meta.annotations) != dict(old.meta.annotations):
        actions.append(ActionType.UPDATE_NODE_ANNOTATION)
    return [ClusterEvent(EventResource.NODE, a) for a in actions]


class _Host(Protocol):
    """What the handlers need from the scheduler."""

    cache: Cache
    queue: PriorityQueue

    def handles_scheduler_name(self, name: str) -> bool: ...

    def framework_for_pod(self, pod: Pod) -> Framework: ...


def _le_priority(priority: int) -> Callable[[Pod], bool]:
    """getLEPriorityPreCheck: only pods of lower or equal priority."""
    return lambda p: p.priority_value <= priority


class EventHandlers:
    """The informer handlers; ``host`` is the Scheduler."""

    def __init__(self, host: _Host, gang_scheduling: bool = False) -> None:
        """``gang_scheduling``: the GangScheduling feature gate (a new unscheduled pod may
        complete a gang waiting in PreEnqueue, see :meth:`add_pod`)."""
        self.host = host
        self.gang_scheduling = gang_scheduling

    @property
    def _queue(self) -> PriorityQueue:
        return self.host.queue

    @property
    def _cache(self) -> Cache:
        return self.host.cache

    def _move(self, event: ClusterEvent, old: ApiObject | None, new: ApiObject | None,
              pre_check: Callable[[Pod], bool] | None = None) -> None:
        self._queue.move_all_to_active_or_backoff_queue(event, old, new, pre_check)

    # -- nodes ------------------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        self._cache.add_node(node)
        self._move(EVENT_NODE_ADD, None, node)

    def update_node(self, old: Node, new: Node) -> None:
        self._cache.update_node(old, new)
        for evt in node_scheduling_properties_change(new, old):
            self._move(evt, old, new)

    def delete_node(self, node: Node) -> None:
        self._move(EVENT_NODE_DELETE, node, None)
        self._cache.remove_node(node)

    # -- pods -------------------------------------------------------------------------------
    def add_pod(self, pod: Pod) -> None:
        if pod.node_name:
            self._add_assigned_pod(pod)
        elif self.host.handles_scheduler_name(pod.scheduler_name):
            self._add_pod_to_scheduling_queue(pod)

    def _add_pod_to_scheduling_queue(self, pod: Pod) -> None:
        """addPodToSchedulingQueue: the pod joins its pod group's members first (so that its
        own PreEnqueue counts it); with GangScheduling the add is also an event for the pods
        parked in PreEnqueue, since this pod may be the one completing their gang."""
        self._cache.pod_groups.add_pod(pod)
        self._queue.add(pod)
        if self.gang_scheduling:
            self._move(EVENT_UNSCHEDULED_POD_ADD, None, pod)

    def update_pod(self, old: Pod, new: Pod) -> None:
        if old.node_name:
            self._update_assigned_pod(old, new)
        elif new.node_name:
            # A binding: add to the cache (which confirms an assumed pod); a pod bound by someone
            # else must also leave the queue.
            self._add_assigned_pod(new)
            if self.host.handles_scheduler_name(old.scheduler_name):
                self._delete_pod_from_queue(old, in_binding=True)
        elif self.host.handles_scheduler_name(old.scheduler_name):
            self._update_pod_in_queue(old, new)

    def delete_pod(self, pod: Pod) -> None:
        if pod.node_name:
            self._cache.remove_pod(pod)
            self._move(EVENT_ASSIGNED_POD_DELETE, pod, None)
        elif self.host.handles_scheduler_name(pod.scheduler_name):
            self._cache.pod_groups.delete_pod(pod)
            self._delete_pod_from_queue(pod, in_binding=False)

    def _add_assigned_pod(self, pod: Pod) -> None:
        self._cache.add_pod(pod)
        self._move(EVENT_ASSIGNED_POD_ADD, None, pod)

    def _update_assigned_pod(self, old: Pod, new: Pod) -> None:
        self._cache.update_pod(old, new)
        for evt in pod_scheduling_properties_change(new, old):
            self._move(evt, old, new)

    def _update_pod_in_queue(self, old: Pod, new: Pod) -> None:
        """updatePodInSchedulingQueue."""
        if old.meta.resource_version and old.meta.resource_version == new.meta.resource_version:
            return
        if self._cache.is_assumed_pod(new):
            if new.is_terminating and not old.is_terminating:
                self._handle_assumed_pod_deletion(new)
            return
        self._queue.update(old, new)
        if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
            # The pod left its nominated node: lower-or-equal priority pods that saw it as
            # already placed there may fit now.
            self._move(EVENT_ASSIGNED_POD_DELETE, old, None, _le_priority(old.priority_value))

    def _delete_pod_from_queue(self, pod: Pod, in_binding: bool) -> None:
        """deletePodFromSchedulingQueue."""
        self._queue.delete(pod)
        if in_binding:
            return
        if self._cache.is_assumed_pod(pod):
            self._handle_assumed_pod_deletion(pod)
        elif pod.nominated_node_name:
            self._move(EVENT_ASSIGNED_POD_DELETE, pod, None, _le_priority(pod.priority_value))

    def _handle_assumed_pod_deletion(self, pod: Pod) -> None:
        """handleAssumedPodDeletion: reject it if it waits on Permit (its binding cycle then
        cleans up), else forget it now so its resources are freed."""
        assumed = self._cache.get_pod(pod) or pod
        try:
            fwk = self.host.framework_for_pod(assumed)
        except KeyError:
            return
        if not fwk.reject_waiting_pod(assumed.uid):
            with contextlib.suppress(Exception):  # already forgotten by its binding cycle
                self._cache.forget_pod(assumed)
        self._move(EVENT_ASSIGNED_POD_DELETE, assumed, None)

    # -- other kinds (PV, PVC, StorageClass, CSINode, ...) -------------------------------------
    def other(self, resource: EventResource, action: ActionType,
              old: ApiObject | None, new: ApiObject | None) -> None:
        """buildEvtResHandler: Add/Update/Delete of any other kind -> a queue move with the
        plain action (no finer update types for these kinds)."""
        self._move(ClusterEvent(resource, action), old, new)


KIND_TO_RESOURCE: Mapping[str, EventResource] = {
    "PersistentVolume": EventResource.PERSISTENT_VOLUME,
    "PersistentVolumeClaim": EventResource.PERSISTENT_VOLUME_CLAIM,
    "StorageClass": EventResource.STORAGE_CLASS,
    "CSINode": EventResource.CSI_NODE,
    "CSIDriver": EventResource.CSI_DRIVER,
    "CSIStorageCapacity": EventResource.CSI_STORAGE_CAPACITY,
    "VolumeAttachment": EventResource.VOLUME_ATTACHMENT,
    "Namespace": EventResource.NAMESPACE,
    "PodDisruptionBudget": EventResource.PDB,
    "PodGroup": EventResource.POD_GROUP,
    "ResourceClaim": EventResource.RESOURCE_CLAIM,
    "ResourceSlice": EventResource.RESOURCE_SLICE,
    "DeviceClass": EventResource.DEVICE_CLASS,
}
