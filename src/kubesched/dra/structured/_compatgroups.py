"""Device compatibility groups (KEP-5963, gate DRADeviceCompatibilityGroups, alpha, off).

Mirrors ``structured/internal/experimental/compatibility_groups.go`` (master 2026). Devices
that consume counters from the same counter set may be allocated together only when the
compatibility groups they declare for it (``consumesCounters[].compatibilityGroups``) have a
group in common; a device that declares none goes only with devices that declare none
either. Devices already allocated count by the groups their claims recorded at allocation
time (``status.allocation.devices.results[].compatibilityGroups``), not by the slice as it
is now, so that a slice changed later cannot make an allocation retroactively invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...api import Device
from ._pools import Pool
from ._types import AllocatedState, DeviceID

__all__ = [
    "Intersection",
    "baseline_for_pool",
    "declares_groups",
    "skip_when_disabled",
    "snapshot",
]


@dataclass(frozen=True, slots=True)
class Intersection:
    """compatibilityGroupIntersection: the devices placed so far on one counter set.
    ``has_members`` is False until the first one; ``all_empty`` while none declared groups;
    ``groups`` the intersection of the declared groups otherwise. Immutable, so the value
    held before :meth:`add` is the state to restore when the search backtracks."""

    has_members: bool = False
    all_empty: bool = False
    groups: frozenset[str] = frozenset()

    def admits(self, groups: frozenset[str]) -> bool:
        """admits: whether a device declaring ``groups`` may join."""
        if not self.has_members:
            return True
        if not groups:
            return self.all_empty
        if self.all_empty:
            return False
        return bool(self.groups & groups)

    def add(self, groups: frozenset[str]) -> Intersection:
        """add: fold a device's groups in (the caller checked :meth:`admits`)."""
        if not self.has_members:
            return Intersection(True, not groups, groups)
        if self.all_empty or not groups:
            return self
        return Intersection(True, False, self.groups & groups)


def baseline_for_pool(
    pool: Pool, state: AllocatedState, is_allocated: Callable[[DeviceID], bool]
) -> dict[str, Intersection]:
    """compatibilityGroupsBaselineForPool: per counter set, the intersection of what the
    pool's allocated devices (on any node) recorded; an allocated device without a recorded
    entry for a counter set it consumes counts as declaring no groups."""
    out: dict[str, Intersection] = {}
    recorded = state.allocated_compatibility_groups
    for s in (*pool.slices_targeting_node, *pool.slices_not_targeting_node):
        for d in s.devices:
            if not d.consumes_counters:
                continue
            device_id = DeviceID(s.driver, s.pool.name, d.name)
            if not is_allocated(device_id):
                continue
            snap = recorded.get(device_id, {})
            for c in d.consumes_counters:
                out[c.counter_set] = out.get(c.counter_set, Intersection()).add(
                    frozenset(snap.get(c.counter_set, ())))
    return out


def declares_groups(d: Device) -> bool:
    return any(c.compatibility_groups for c in d.consumes_counters)


def skip_when_disabled(
    d: Device, state: AllocatedState, baseline: Callable[[], dict[str, Intersection]]
) -> bool:
    """skipForDisabledCompatibilityGroups: with the gate off, a device that declares groups,
    or that would join a counter set on which an allocated device recorded groups, is not
    used (the scheduler cannot check what it would allocate)."""
    if declares_groups(d):
        return True
    if not state.allocated_compatibility_groups:
        return False
    base = baseline()
    for c in d.consumes_counters:
        cur = base.get(c.counter_set)
        if cur is not None and cur.has_members and not cur.all_empty:
            return True
    return False


def snapshot(d: Device) -> dict[str, tuple[str, ...]] | None:
    """snapshotCompatibilityGroups: what the allocation result records, per counter set for
    which the device declares groups; None when it declares none."""
    out = {c.counter_set: tuple(c.compatibility_groups)
           for c in d.consumes_counters if c.compatibility_groups}
    return out or None

