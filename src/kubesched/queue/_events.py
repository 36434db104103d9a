"""The cluster events the queue itself raises, and how a pod update is classified.

Mirrors pkg/scheduler/framework/events.go (master 2026): the event constants the queue uses
(``EventUnscheduledPodAdd``, ``EventUnschedulableTimeout``, ``EventForceActivate``, ...), the
labels used when a pod moves between sub-queues, and ``PodSchedulingPropertiesChange``, which
turns a pod update into the specific ``UpdatePod*`` actions so that only the plugins that
registered them are asked whether the pod may now be schedulable.
"""

from __future__ import annotations

from ..api import Pod
from ..framework import ActionType, ClusterEvent, EventResource

__all__ = [
    "BACKOFF_COMPLETE",
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "FORCE_ACTIVATE",
    "POP_FROM_BACKOFF_Q",
    "SCHEDULE_ATTEMPT_FAILURE",
    "UNSCHEDULABLE_TIMEOUT",
    "is_wildcard",
    "match_any",
    "pod_scheduling_properties_change",
]

# Labels of queue moves that are not cluster events (framework/events.go).
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"

_A = EventResource.ASSIGNED_POD
_U = EventResource.UNSCHEDULED_POD
EVENT_ASSIGNED_POD_ADD = ClusterEvent(_A, ActionType.ADD, "AssignedPodAdd")
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(_A, ActionType.UPDATE, "AssignedPodUpdate")
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(_A, ActionType.DELETE, "AssignedPodDelete")
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(_U, ActionType.ADD, "UnscheduledPodAdd")
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(_U, ActionType.UPDATE, "UnscheduledPodUpdate")
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(_U, ActionType.DELETE, "UnscheduledPodDelete")
# Wildcard events: they move every parked pod (ForceActivate only the pod given as new object).
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, UNSCHEDULABLE_TIMEOUT)
EVENT_FORCE_ACTIVATE = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)


def is_wildcard(event: ClusterEvent) -> bool:
    """ClusterEventIsWildCard: resource ``*`` and every action, whatever the label."""
    return event.resource == EventResource.WILDCARD and event.action == ActionType.ALL


def matches(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """MatchClusterEvents: a wildcard registration matches everything (ClusterEvent.Match)."""
    return is_wildcard(registered) or registered.match(incoming)


def match_any(incoming: ClusterEvent, registered: tuple[ClusterEvent, ...]) -> bool:
    """MatchAnyClusterEvent."""
    return any(matches(r, incoming) for r in registered)


def pod_scheduling_properties_change(new_pod: Pod, old_pod: Pod) -> list[ClusterEvent]:
    """PodSchedulingPropertiesChange: the UpdatePod* events one pod update stands for.

    Newest upstream falls back to the general ``Update`` action when nothing specific changed
    (older releases used an ``updatePodOther`` action). The DRA extractor comes last, as
    upstream appends it while DynamicResourceAllocation is on (GA, locked on).
    """
    resource = EventResource.ASSIGNED_POD if new_pod.node_name else EventResource.UNSCHEDULED_POD
    actions = [a for a in (_labels_change(new_pod, old_pod), _scale_down(new_pod, old_pod),
                           _gates_eliminated(new_pod, old_pod), _toleration_change(new_pod, old_pod),
                           _generated_resource_claim_change(new_pod, old_pod))
               if a is not None]
    if not actions:
        actions = [ActionType.UPDATE]
    return [ClusterEvent(resource, a) for a in actions]


def _labels_change(new_pod: Pod, old_pod: Pod) -> ActionType | None:
    """extractPodLabelsChange."""
    return ActionType.UPDATE_POD_LABEL if dict(new_pod.labels) != dict(old_pod.labels) else None


def _scale_down(new_pod: Pod, old_pod: Pod) -> ActionType | None:
    """extractPodScaleDown: a request disappeared or shrank (milli values compared)."""
    new_req = new_pod.requests
    for name, old_val in old_pod.requests.items():
        if name not in new_req or old_val > new_req[name]:
            return ActionType.UPDATE_POD_SCALE_DOWN
    return None


def _gates_eliminated(new_pod: Pod, old_pod: Pod) -> ActionType | None:
    """extractPodSchedulingGateEliminatedChange: the last gate went away."""
    if not new_pod.scheduling_gates and old_pod.scheduling_gates:
        return ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return None


def _toleration_change(new_pod: Pod, old_pod: Pod) -> ActionType | None:
    """extractPodTolerationChange: tolerations can only be added, so a length change suffices."""
    if len(new_pod.tolerations) != len(old_pod.tolerations):
        return ActionType.UPDATE_POD_TOLERATION
    return None


def _generated_resource_claim_change(new_pod: Pod, old_pod: Pod) -> ActionType | None:
    """extractPodGeneratedResourceClaimChange: ``status.resourceClaimStatuses`` changed (the
    resourceclaim controller recorded the claim it generated from a template)."""
    if new_pod.resource_claim_statuses != old_pod.resource_claim_statuses:
        return ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM
    return None
