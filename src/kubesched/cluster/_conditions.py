"""Pod condition upserts, as the scheduler writes PodScheduled.

Mirrors podutil.UpdatePodCondition (pkg/api/v1/pod/util.go, master 2026): a new condition is
appended; an existing one keeps its lastTransitionTime while its status is unchanged, and is
replaced only when something (status, reason, message, probe or transition time) differs.
Also the one condition the API server writes itself on create: SchedulingGated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..api import Path, Pod, format_time

__all__ = ["SCHEDULING_GATED", "apply_scheduling_gated_condition", "scheduling_gated_changes",
           "update_pod_condition", "update_pod_conditions"]

SCHEDULING_GATED = "SchedulingGated"
"""corev1.PodReasonSchedulingGated; ``kubectl get pods`` shows it as the pod's status."""
_SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"

_COMPARED = ("status", "reason", "message", "lastProbeTime", "lastTransitionTime", "observedGeneration")


def update_pod_condition(
    conditions: Sequence[Mapping[str, Any]], condition: Mapping[str, Any], now: float
) -> tuple[list[dict[str, Any]], bool]:
    """``(new conditions, changed)`` after upserting ``condition`` at time ``now``."""
    return update_pod_conditions(conditions, (condition,), now)


def update_pod_conditions(
    conditions: Sequence[Mapping[str, Any]], updates: Iterable[Mapping[str, Any]], now: float
) -> tuple[list[dict[str, Any]], bool]:
    """Upsert each of ``updates`` in turn (as repeated :func:`update_pod_condition` calls would,
    copying the list once): ``(new conditions, whether any changed)``."""
    out = [dict(c) for c in conditions]
    changed = False
    stamp = format_time(now)
    present = {c.get("type") for c in out}
    for condition in updates:
        if condition.get("type") in present:
            changed = _upsert(out, condition, stamp) or changed
        else:  # no condition of this type to compare with (a binding's first write): append
            new = dict(condition)
            new["lastTransitionTime"] = stamp
            out.append(new)
            present.add(new.get("type"))
            changed = True
    return out, changed


def _upsert(out: list[dict[str, Any]], condition: Mapping[str, Any], stamp: str) -> bool:
    new = dict(condition)
    new["lastTransitionTime"] = stamp
    typ = new.get("type")
    for i, old in enumerate(out):
        if old.get("type") != typ:
            continue
        if new.get("status") == old.get("status"):
            if "lastTransitionTime" in old:
                new["lastTransitionTime"] = old["lastTransitionTime"]
            else:
                new.pop("lastTransitionTime")
        for k in _COMPARED:
            if new.get(k) != old.get(k):
                out[i] = new
                return True
        return False
    out.append(new)
    return True


def apply_scheduling_gated_condition(pod: Pod, now: float) -> Pod:
    """applySchedulingGatedCondition (pkg/registry/core/pod/strategy.go, PrepareForCreate): a
    pod created with ``spec.schedulingGates`` and no PodScheduled condition gets
    ``PodScheduled=False``, reason SchedulingGated. The scheduler never writes it; it stays
    until the scheduler, once the gates are gone, records a failure or binds the pod."""
    changes = scheduling_gated_changes(pod, now)
    return pod.with_changes(changes) if changes else pod


def scheduling_gated_changes(pod: Pod, now: float) -> dict[Path, Any]:
    """:func:`apply_scheduling_gated_condition` as the edit it makes (empty when none), for a
    store that applies it in one derived copy with its own."""
    if not pod.scheduling_gates or pod.condition("PodScheduled") is not None:
        return {}
    conditions, _ = update_pod_condition(
        pod.conditions, {"type": "PodScheduled", "status": "False", "reason": SCHEDULING_GATED,
                         "message": _SCHEDULING_GATED_MESSAGE, "lastProbeTime": None}, now)
    return {("status", "conditions"): conditions}
