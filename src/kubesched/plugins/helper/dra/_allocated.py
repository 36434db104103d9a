"""The devices allocated to the claims in the store, kept up to date from the store's changes
instead of gathered from every claim in every scheduling cycle.

Mirrors pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go (master 2026):
upstream's ``allocatedDevices`` follows the claim informer's add/update/delete events and keeps
a set of allocated device IDs, so ``GatherAllocatedState`` costs nothing per claim. Here the
store's change log (:class:`~kubesched.cluster.ChangeLog`) plays the informer; a store without
change log or kind versions, an expired log, or a claim with shared (consumable capacity)
results falls back to gathering from every claim (the caller's job:
:meth:`StoredAllocations.devices` returns None).
"""

from __future__ import annotations

from typing import Any, Final

from kubesched.api import ResourceClaim
from kubesched.cluster import ChangeLog, KindVersioned
from kubesched.dra.structured import (
    AllocatedState,
    DeviceID,
    SharedDeviceID,
    insert_consumed,
    remove_consumed,
)

__all__ = ["MAX_JOURNAL", "StoredAllocations", "apply_claim", "devices_of"]

_Key = tuple[str, str]
MAX_JOURNAL: Final = 1 << 16


def devices_of(claim: ResourceClaim | None) -> tuple[DeviceID, ...] | None:
    """foreachAllocatedDevice for one claim: its allocated devices (admin access excluded);
    None when a result is a share of a device (consumable capacity) or records compatibility
    groups (DRADeviceCompatibilityGroups): not tracked here, gathered from every claim."""
    if claim is None or claim.allocation is None:
        return ()
    out = []
    for r in claim.allocation.results:
        if r.admin_access:
            continue  # not considered as allocated
        if r.share_id is not None or r.compatibility_groups:
            return None
        out.append(DeviceID(r.driver, r.pool, r.device))
    return tuple(out)


class StoredAllocations:
    """Per store: the claims seen (by namespace and name) with their devices, and how many
    claims hold each device."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._kind_versions = store.kind_version if isinstance(store, KindVersioned) else None
        self._events_since = store.events_since if isinstance(store, ChangeLog) else None
        self._rv = -1  # the store's resourceVersion the state reflects; -1: never synced
        self.claims: dict[_Key, tuple[ResourceClaim, tuple[DeviceID, ...] | None]] = {}
        self.counts: dict[DeviceID, int] = {}
        self._allocated: set[DeviceID] = set()  # the keys of counts
        self.by_uid: dict[str, tuple[DeviceID, ...]] = {}  # the claims that hold devices
        self._untracked = 0  # claims with shared results: devices() answers None while any
        # Every device whose count changed, in order; a new epoch (and an empty journal) after
        # a rebuild or when the journal grows long. Readers keep (epoch, length) as a cursor.
        self.journal: list[DeviceID] = []
        self.epoch = 0

    def devices(self) -> set[DeviceID] | None:
        """A new set of the devices allocated to stored claims, or None when the caller must
        gather them itself (see the module's docstring)."""
        if not self._sync():
            return None
        return self._allocated.copy()  # a set's copy reuses its hashes: cheaper than set(counts)

    # -- following the store ---------------------------------------------------------------------
    def _sync(self) -> bool:
        from kubesched.cluster import Expired

        kind_version = self._kind_versions
        events_since = self._events_since
        if kind_version is None or events_since is None:
            return False
        if self._rv < 0 or kind_version("ResourceClaim") > self._rv:
            try:
                events = events_since(self._rv) if self._rv >= 0 else None
            except Expired:
                events = None
            if events is None:
                self._rebuild()
            else:
                for ev in events:
                    if ev.kind == "ResourceClaim":
                        self._apply(ev.obj, ev.new)
                    self._rv = max(self._rv, ev.resource_version)
        return not self._untracked

    def _rebuild(self) -> None:
        self.epoch += 1
        self.journal.clear()
        self.claims.clear()
        self.counts.clear()
        self._allocated.clear()
        self.by_uid.clear()
        self._untracked = 0
        self._rv = int(self.store.resource_version)
        for claim in self.store.list("ResourceClaim"):
            self._apply(claim, claim)

    def _apply(self, obj: Any, new: Any) -> None:
        """The claim ``obj`` names is now ``new`` (None: deleted)."""
        key = (obj.meta.namespace, obj.meta.name)
        old = self.claims.pop(key, None)
        if old is not None:
            self.by_uid.pop(old[0].meta.uid, None)
            if old[1] is None:
                self._untracked -= 1
            else:
                self._count(old[1], -1)
        if not isinstance(new, ResourceClaim):
            return
        devices = devices_of(new)
        self.claims[key] = (new, devices)
        if devices is None:
            self._untracked += 1
        else:
            self._count(devices, 1)
            if devices:
                self.by_uid[new.meta.uid] = devices

    def _count(self, devices: tuple[DeviceID, ...], delta: int) -> None:
        if len(self.journal) >= MAX_JOURNAL:
            self.epoch += 1
            self.journal.clear()
        self.journal.extend(devices)
        counts = self.counts
        allocated = self._allocated
        for d in devices:
            n = counts.get(d, 0) + delta
            if n > 0:
                counts[d] = n
                allocated.add(d)
            else:
                counts.pop(d, None)
                allocated.discard(d)


def apply_claim(state: AllocatedState, claim: ResourceClaim, consumable_capacity: bool, add: bool) -> None:
    """foreachAllocatedDevice into ``state``: add (addClaimToAllocatedState) or remove
    (removeClaimFromAllocatedState) the claim's devices; admin-access results are not
    allocated; with consumable capacity a share is counted by its id plus its consumed
    capacity."""
    if claim.allocation is None:
        return
    for r in claim.allocation.results:
        if r.admin_access:
            continue
        device = DeviceID(r.driver, r.pool, r.device)
        if r.compatibility_groups:
            # AllocatedCompatibilityGroups: the snapshot recorded in the claim's status.
            if add:
                state.allocated_compatibility_groups[device] = dict(r.compatibility_groups)
            else:
                state.allocated_compatibility_groups.pop(device, None)
        if consumable_capacity and r.share_id is not None:
            shared = SharedDeviceID(r.driver, r.pool, r.device, r.share_id)
            if add:
                state.allocated_shared_device_ids.add(shared)
            else:
                state.allocated_shared_device_ids.discard(shared)
            if r.consumed_capacity is not None:
                (insert_consumed if add else remove_consumed)(state.aggregated_capacity, device,
                                                               dict(r.consumed_capacity))
            continue
        if add:
            state.allocated_devices.add(device)
        else:
            state.allocated_devices.discard(device)
