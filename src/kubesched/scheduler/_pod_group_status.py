"""A PodGroup's ``status.conditions`` after its scheduling cycle: PodGroupInitiallyScheduled.

Mirrors the end of scheduleOnePodGroup and updatePodGroupCondition in
pkg/scheduler/schedule_one_podgroup.go (master 2026; types in scheduling/v1alpha3): True with
reason ``Scheduled`` when the group was placed, False with ``Unschedulable`` (the group's
reason as message) or ``SchedulerError`` (the error) otherwise. Once True it is terminal: a
later cycle for extra pods never turns it back to False. The condition is written as
apimeta.SetStatusCondition does: ``lastTransitionTime`` moves only when the status changes,
and nothing is written when nothing changed.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from ..api import PodGroup, format_time
from ..framework import Code, Status

__all__ = ["POD_GROUP_INITIALLY_SCHEDULED", "pod_group_condition", "with_condition"]

POD_GROUP_INITIALLY_SCHEDULED: Final = "PodGroupInitiallyScheduled"
REASON_SCHEDULED: Final = "Scheduled"
REASON_UNSCHEDULABLE: Final = "Unschedulable"
REASON_SCHEDULER_ERROR: Final = "SchedulerError"


def pod_group_condition(status: Status) -> dict[str, str]:
    """The condition a cycle ending with ``status`` reports."""
    if status.is_success():
        return {"type": POD_GROUP_INITIALLY_SCHEDULED, "status": "True", "reason": REASON_SCHEDULED,
                "message": status.message()}
    if status.code != Code.ERROR and status.is_rejected():
        return {"type": POD_GROUP_INITIALLY_SCHEDULED, "status": "False", "reason": REASON_UNSCHEDULABLE,
                "message": status.message()}
    return {"type": POD_GROUP_INITIALLY_SCHEDULED, "status": "False", "reason": REASON_SCHEDULER_ERROR,
            "message": str(status.error) if status.error is not None else status.message()}


def with_condition(pg: PodGroup, condition: Mapping[str, str], now: float) -> PodGroup | None:
    """updatePodGroupCondition: ``pg`` with ``condition`` set, or None when nothing is to be
    written (unchanged, or a True condition that must not regress)."""
    raw = copy.deepcopy(dict(pg.raw))
    status = raw.setdefault("status", {})
    conditions: list[dict[str, Any]] = list(status.get("conditions") or [])
    existing = next((c for c in conditions if c.get("type") == condition["type"]), None)
    if existing is not None and existing.get("status") == "True" and condition["status"] != "True":
        return None
    new: dict[str, Any] = {**condition, "observedGeneration": pg.meta.generation}
    if existing is not None:
        if all(existing.get(k) == v for k, v in new.items()):
            return None
        same = existing.get("status") == new["status"]
        new["lastTransitionTime"] = existing.get("lastTransitionTime") if same else format_time(now)
        conditions[conditions.index(existing)] = new
    else:
        new["lastTransitionTime"] = format_time(now)
        conditions.append(new)
    status["conditions"] = conditions
    return PodGroup.from_dict(raw)
