"""Writing a scheduling outcome to the cluster: pod condition, nominated node, events.

Mirrors handleSchedulingFailure's tail, updatePod and truncateMessage in
pkg/scheduler/schedule_one.go (master 2026), and podutil.UpdatePodCondition: the PodScheduled
condition is written only when it changes (its lastTransitionTime only when its status changes),
and ``status.nominatedNodeName`` only in ModeOverride and when it differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import Pod, format_time
from ..framework import PostFilterResult

__all__ = [
    "CLEAR_NOMINATED_NODE",
    "NOTE_LENGTH_LIMIT",
    "REASON_SCHEDULER_ERROR",
    "REASON_UNSCHEDULABLE",
    "pod_status_patch",
    "truncate_message",
]

NOTE_LENGTH_LIMIT = 1024
"""validation.NoteLengthLimit: the longest event message."""

REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
MODE_OVERRIDE = "ModeOverride"

CLEAR_NOMINATED_NODE = PostFilterResult("", MODE_OVERRIDE)
"""clearNominatedNode: ModeOverride with an empty node clears ``nominatedNodeName``."""


def truncate_message(message: str) -> str:
    """truncateMessage: cut at the note length limit with a `` ...`` suffix."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix


def _condition_changed(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    if old is None:
        return True
    return any(old.get(k) != new.get(k) for k in ("status", "reason", "message", "observedGeneration"))


def pod_status_patch(pod: Pod, condition: Mapping[str, Any] | None,
                     nominating: PostFilterResult | None, now: float) -> dict[str, Any] | None:
    """updatePod: the status fields to write, or None when nothing changes.

    Returns ``{"conditions": [...], "nominatedNodeName": ...}`` with only the changed keys; the
    conditions list is the pod's with PodScheduled replaced (UpdatePodCondition keeps the
    lastTransitionTime when the condition's status did not change)."""
    patch: dict[str, Any] = {}
    if nominating is not None and nominating.mode == MODE_OVERRIDE \
            and pod.nominated_node_name != nominating.nominated_node_name:
        patch["nominatedNodeName"] = nominating.nominated_node_name
    if condition is not None:
        old = pod.condition(str(condition["type"]))
        if _condition_changed(old, condition):
            new = {k: v for k, v in condition.items() if v is not None}
            new["lastProbeTime"] = None
            if old is not None and old.get("status") == condition.get("status") \
                    and old.get("lastTransitionTime"):
                new["lastTransitionTime"] = old["lastTransitionTime"]
            else:
                new["lastTransitionTime"] = format_time(now)
            conds = [dict(c) for c in pod.conditions if c.get("type") != condition["type"]]
            conds.append(new)
            patch["conditions"] = conds
    return patch or None


def pod_scheduled_condition(pod: Pod, reason: str, message: str) -> dict[str, Any]:
    """The PodScheduled=False condition handleSchedulingFailure writes."""
    cond: dict[str, Any] = {"type": "PodScheduled", "status": "False", "reason": reason,
                            "message": message}
    if pod.meta.generation:
        cond["observedGeneration"] = pod.meta.generation
    return cond
