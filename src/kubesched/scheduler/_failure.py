"""Writing a scheduling failure to the cluster: the PodScheduled condition and the event text.

Mirrors handleSchedulingFailure's tail and truncateMessage in pkg/scheduler/schedule_one.go
(master 2026). The store applies podutil.UpdatePodCondition (an unchanged condition is not
written; lastTransitionTime moves only when the status changes); the scheduler sets
``status.nominatedNodeName`` only in ModeOverride (updatePod).
"""

from __future__ import annotations

from ..api import Pod
from ..framework import PostFilterResult

__all__ = [
    "CLEAR_NOMINATED_NODE",
    "NOTE_LENGTH_LIMIT",
    "REASON_SCHEDULER_ERROR",
    "REASON_UNSCHEDULABLE",
    "PodCondition",
    "pod_scheduled_condition",
    "truncate_message",
]

NOTE_LENGTH_LIMIT = 1024
"""validation.NoteLengthLimit: the longest event message."""

REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
MODE_OVERRIDE = "ModeOverride"

PodCondition = dict[str, str | int]
"""A pod condition as written to ``status.conditions`` (strings, and ``observedGeneration``)."""

CLEAR_NOMINATED_NODE = PostFilterResult("", MODE_OVERRIDE)
"""clearNominatedNode: ModeOverride with an empty node clears ``nominatedNodeName``."""


def truncate_message(message: str) -> str:
    """truncateMessage: cut at the note length limit with a `` ...`` suffix."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix


def pod_scheduled_condition(pod: Pod, reason: str, message: str) -> PodCondition:
    """The PodScheduled=False condition handleSchedulingFailure writes."""
    cond: PodCondition = {"type": "PodScheduled", "status": "False", "reason": reason,
                            "message": message}
    if pod.meta.generation:
        cond["observedGeneration"] = pod.meta.generation
    return cond
