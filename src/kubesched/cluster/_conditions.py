"""Pod condition upserts, as the scheduler writes PodScheduled.

Mirrors podutil.UpdatePodCondition (pkg/api/v1/pod/util.go, master 2026): a new condition is
appended; an existing one keeps its lastTransitionTime while its status is unchanged, and is
replaced only when something (status, reason, message, probe or transition time) differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..api import format_time

__all__ = ["update_pod_condition"]

_COMPARED = ("status", "reason", "message", "lastProbeTime", "lastTransitionTime", "observedGeneration")


def update_pod_condition(
    conditions: Sequence[Mapping[str, Any]], condition: Mapping[str, Any], now: float
) -> tuple[list[dict[str, Any]], bool]:
    """``(new conditions, changed)`` after upserting ``condition`` at time ``now``."""
    new = dict(condition)
    new["lastTransitionTime"] = format_time(now)
    out = [dict(c) for c in conditions]
    for i, old in enumerate(out):
        if old.get("type") != new.get("type"):
            continue
        if new.get("status") == old.get("status"):
            if "lastTransitionTime" in old:
                new["lastTransitionTime"] = old["lastTransitionTime"]
            else:
                new.pop("lastTransitionTime")
        if all(new.get(k) == old.get(k) for k in _COMPARED):
            return out, False
        out[i] = new
        return out, True
    out.append(new)
    return out, True
