"""DeviceTaintRules applied to slices before allocation (resourceslice/tracker, applyPatches).

The allocator only sees ``device.taints``; upstream's scheduler reads slices through the
ResourceSlice tracker, which appends the taint of every DeviceTaintRule whose selector
(driver, pool, device; an unset field matches all) picks a device (DRADeviceTaintRules). A
slice no rule touches is passed on as is. :class:`TaintRulePatcher` remembers the patched
copies, so an unchanged slice under unchanged rules stays the same object across scheduling
cycles and the CEL verdict cache keeps working for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...api import DeviceTaintRule, ResourceSlice

__all__ = ["TaintRulePatcher", "apply_device_taint_rules"]


def apply_device_taint_rules(s: ResourceSlice, rules: Sequence[DeviceTaintRule]) -> ResourceSlice:
    """applyPatches: ``s`` with the taints of the matching rules appended, in rule order."""
    devices = list(s.devices)
    changed = False
    for rule in rules:
        if rule.driver is not None and rule.driver != s.driver:
            continue
        if rule.pool is not None and rule.pool != s.pool.name:
            continue
        for i, d in enumerate(devices):
            if rule.device is not None and rule.device != d.name:
                continue
            devices[i] = dataclasses.replace(d, taints=(*d.taints, rule.taint))
            changed = True
    return dataclasses.replace(s, devices=tuple(devices)) if changed else s


class TaintRulePatcher:
    """Patched slices, remembered per (slice, rules) object identities."""

    def __init__(self) -> None:
        self._cache: dict[
            tuple[int, tuple[int, ...]], tuple[ResourceSlice, tuple[DeviceTaintRule, ...], ResourceSlice]
        ] = {}

    def patch(self, slices: Sequence[ResourceSlice], rules: Sequence[DeviceTaintRule]) -> list[ResourceSlice]:
        """ListPatchedResourceSlices."""
        if not rules:
            return list(slices)
        rules = tuple(rules)
        rule_ids = tuple(id(r) for r in rules)
        out = []
        seen: dict[
            tuple[int, tuple[int, ...]], tuple[ResourceSlice, tuple[DeviceTaintRule, ...], ResourceSlice]
        ] = {}
        for s in slices:
            key = (id(s), rule_ids)
            entry = self._cache.get(key)
            if entry is None or entry[0] is not s:
                entry = (s, rules, apply_device_taint_rules(s, rules))
            seen[key] = entry
            out.append(entry[2])
        self._cache = seen  # only what the current slices and rules need
        return out
