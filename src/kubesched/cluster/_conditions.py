"""Pod condition upserts, as the scheduler writes PodScheduled.

Mirrors podutil.UpdatePodCondition (pkg/api/v1/pod/util.go, master 2026): a new condition is
appended; an existing one keeps its lastTransitionTime while its status is unchanged, and is
replaced only when something (status, reason, message, probe or transition time) differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..api import format_time

__all__ = ["update_pod_condition", "update_pod_conditions"]

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
    copying the list once): ``(new conditions, whether any changed)``.

    UpdatePodCondition finds the condition of the same type by a linear scan; binding upserts
    four conditions, so the first position of each type is indexed once instead (a type that
    cannot be a dict key, only possible in a malformed manifest, falls back to the scan)."""
    ups = updates if isinstance(updates, tuple | list) else tuple(updates)  # may be read twice
    out = [dict(c) for c in conditions]
    changed = False
    stamp = format_time(now)
    try:
        first: dict[Any, int] = {}
        for i, c in enumerate(out):
            first.setdefault(c.get("type"), i)
        for condition in ups:
            new = dict(condition)
            new["lastTransitionTime"] = stamp
            typ = new.get("type")
            i = first.get(typ)
            if i is None:  # no condition of that type yet: append
                first[typ] = len(out)
                out.append(new)
                changed = True
            else:
                changed = _replace(out, i, new) or changed
    except TypeError:  # an unhashable type: start over with the scan
        return _update_by_scan(conditions, ups, stamp)
    return out, changed


def _update_by_scan(conditions: Sequence[Mapping[str, Any]], updates: Iterable[Mapping[str, Any]],
                    stamp: str) -> tuple[list[dict[str, Any]], bool]:
    """update_pod_conditions by UpdatePodCondition's own linear scan for each type."""
    out = [dict(c) for c in conditions]
    changed = False
    for condition in updates:
        new = dict(condition)
        new["lastTransitionTime"] = stamp
        typ = new.get("type")
        i = next((j for j, old in enumerate(out) if old.get("type") == typ), None)
        if i is None:
            out.append(new)
            changed = True
        else:
            changed = _replace(out, i, new) or changed
    return out, changed


def _replace(out: list[dict[str, Any]], i: int, new: dict[str, Any]) -> bool:
    """UpdatePodCondition against the existing ``out[i]`` of the same type: the transition
    time is kept while the status is unchanged; replaced only when something differs."""
    old = out[i]
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
