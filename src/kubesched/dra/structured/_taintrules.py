"""DeviceTaintRules applied to slices before allocation (resourceslice/tracker, applyPatches).

The allocator only sees ``device.taints``; upstream's scheduler reads slices through the
ResourceSlice tracker, which appends the taint of every DeviceTaintRule whose selector picks a
device. The one implementation of that patching: the DRA manager's slice listing and the
scheduler's rule events both use :func:`apply_device_taint_rules`.

The selector: driver, pool, device (an unset field matches all; no selector at all matches
every device, as applyPatches does for a nil ``deviceSelector``). In 1.33 and 1.34 (v1alpha3
before kubernetes#134152) also ``deviceClassName`` (the class must exist and each of its CEL
selectors must hold) and ``selectors`` (each CEL selector must hold); a runtime error in an
expression is no match. Those two apply only when the caller passes ``classes`` (the
release still has them); otherwise a rule using them is left out, as a newer release's API
server no longer has them and would not serve such a rule as written.

A slice no rule touches is passed on as is. :class:`TaintRulePatcher` remembers the patched
copies, so an unchanged slice under unchanged rules stays the same object across scheduling
cycles and the CEL verdict cache keeps working for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from ...api import Device, DeviceClass, DeviceTaintRule, ResourceSlice
from ..cel import SelectorEvalError
from ._celcache import CELCache

__all__ = ["TaintRulePatcher", "apply_device_taint_rules"]


def _cel_holds(cel: CELCache, expressions: Sequence[str], driver: str, device: Device) -> bool:
    for expr in expressions:
        compiled = cel.compile(expr)
        if compiled.error is not None:
            return False
        try:
            if not cel.matches(compiled, driver, device):
                return False
        except SelectorEvalError:
            return False
    return True


def _device_filter(rule: DeviceTaintRule, classes: Mapping[str, DeviceClass] | None,
                   cel: CELCache | None) -> tuple[str, ...] | None:
    """The CEL expressions a device must satisfy for ``rule`` (class's first, then the
    rule's), or None when the rule applies to no device here."""
    if not rule.selects_by_class_or_cel:
        return ()
    if classes is None or cel is None:
        return None
    exprs: tuple[str, ...] = ()
    if rule.device_class_name is not None:
        cls = classes.get(rule.device_class_name)
        if cls is None:  # "DeviceTaintRule does not apply, DeviceClass does not exist"
            return None
        exprs = cls.selectors
    return exprs + rule.selectors


def apply_device_taint_rules(s: ResourceSlice, rules: Sequence[DeviceTaintRule],
                             classes: Mapping[str, DeviceClass] | None = None,
                             cel: CELCache | None = None) -> ResourceSlice:
    """applyPatches: ``s`` with the taints of the matching rules appended, in rule order.
    ``classes`` and ``cel``: the 1.33/1.34 class and CEL selection (see the module doc)."""
    devices = list(s.devices)
    changed = False
    for rule in rules:
        if rule.driver is not None and rule.driver != s.driver:
            continue
        if rule.pool is not None and rule.pool != s.pool.name:
            continue
        exprs = _device_filter(rule, classes, cel)
        if exprs is None:
            continue
        for i, d in enumerate(s.devices):
            if rule.device is not None and rule.device != d.name:
                continue
            if exprs and (cel is None or not _cel_holds(cel, exprs, s.driver, d)):
                continue
            devices[i] = dataclasses.replace(devices[i], taints=(*devices[i].taints, rule.taint))
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
