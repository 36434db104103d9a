"""The scheduler's shared view of DRA objects: claims (with the allocations in flight and the
claims the plugin wrote but the watch has not delivered yet), device classes, and slices with
their DeviceTaintRules applied.

Mirrors pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go and
allocateddevices.go (master 2026): ``DefaultDRAManager`` over the informers plus the claim
assume cache. Upstream shares one manager between all profiles of a scheduler; here there is
one per store (:func:`manager_for`), so that the profiles of one scheduler (which share the
store) see each other's in-flight allocations, and two schedulers over two stores never mix.

- ``signal_claim_pending_allocation`` (Reserve) records an allocation in flight: the claim
  counts as allocated for everybody else, and a second pod sharing it waits
  (``claim_has_pending_allocation``) until PreBind has written it;
- ``assume_claim_after_api_call`` (PreBind) keeps the claim as written until the store shows
  that version or a newer one (the live store's watch lags behind its writes);
- ``allocated_state`` gathers every device allocated in the store, in flight or assumed,
  skipping admin-access results, splitting shared (consumable capacity) results off.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.api import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice
from kubesched.cluster import KindVersioned
from kubesched.dra.structured import AllocatedState, CELCache, DeviceID, apply_device_taint_rules

from ._allocated import MAX_JOURNAL, StoredAllocations, apply_claim, devices_of
from ._extended import DeviceClassResolver

__all__ = ["ClassLister", "DRAManager", "JournalPosition", "manager_for"]

_MANAGERS: weakref.WeakKeyDictionary[Any, DRAManager] = weakref.WeakKeyDictionary()
_MANAGERS_LOCK = threading.Lock()


def manager_for(store: Any) -> DRAManager:
    """The DRA manager of ``store`` (one per store, created on first use; it goes with the
    store). A store that cannot be weakly referenced gets its own manager per call site."""
    with _MANAGERS_LOCK:
        try:
            mgr = _MANAGERS.get(store)
        except TypeError:
            return DRAManager(store)
        if mgr is None:
            mgr = DRAManager(store)
            _MANAGERS[store] = mgr
        return mgr


class ClassLister:
    """The DeviceClassLister the structured allocator reads, over a manager's classes
    (draManager.DeviceClasses()): the plugin's allocators and scheduler_perf's
    allocResourceClaims share it."""

    def __init__(self, manager: DRAManager) -> None:
        self._manager = manager

    def list(self) -> list[DeviceClass]:
        return self._manager.list_classes()

    def get(self, name: str) -> DeviceClass | None:
        return self._manager.get_class(name)


def _rv(claim: ResourceClaim) -> int:
    try:
        return int(claim.meta.resource_version or 0)
    except ValueError:
        return 0


@dataclass(frozen=True, slots=True)
class JournalPosition:
    """Where :meth:`DRAManager.allocated_state` left the journals of allocated devices (the
    stored claims' and the in-flight claims'), and the devices it counted differently from
    the store because of claims assumed after a write (they may change without a journal
    entry when the store catches up)."""

    stored_epoch: int
    stored: int
    in_flight_epoch: int
    in_flight: int
    assumed: frozenset[DeviceID]


class DRAManager:
    def __init__(self, store: Any) -> None:
        self.store = store
        # The store's per-kind versions (MemoryStore), None when it keeps none (LiveStore).
        self._kind_versions = store.kind_version if isinstance(store, KindVersioned) else None
        self._lock = threading.RLock()
        self._in_flight: dict[str, ResourceClaim] = {}  # claim uid -> claim with its allocation
        self._assumed: dict[tuple[str, str], ResourceClaim] = {}  # (ns, name) -> claim as written
        # The in-flight claims' devices, counted as they come and go (None: a shared result).
        self._in_flight_devices: dict[str, tuple[DeviceID, ...] | None] = {}
        self._in_flight_counts: dict[DeviceID, int] = {}
        self._in_flight_untracked = 0
        # The devices of in-flight claims signalled or removed, in order (see JournalPosition).
        self._in_flight_journal: list[DeviceID] = []
        self._in_flight_epoch = 0
        self.position: JournalPosition | None = None  # where allocated_state left the journals
        # The last slice list per taint-rule switch, with the kind versions it was listed at.
        self._stored = StoredAllocations(store)
        self._slices: dict[tuple[bool, bool], tuple[tuple[int, ...], tuple[ResourceSlice, ...]]] = {}
        self._rule_cel: CELCache | None = None  # the tracker's own cel.NewCache (1.33/1.34 rules)
        self._resolver: tuple[int, DeviceClassResolver] | None = None

    # -- claims -------------------------------------------------------------------------------
    def get_claim(self, namespace: str, name: str) -> ResourceClaim | None:
        """ResourceClaims().Get: the assumed version while the store's is older."""
        stored = self.store.try_get("ResourceClaim", namespace, name) if self.store is not None else None
        with self._lock:
            assumed = self._assumed.get((namespace, name))
            if assumed is None:
                return stored
            if stored is None or stored.meta.uid != assumed.meta.uid or _rv(stored) >= _rv(assumed):
                del self._assumed[(namespace, name)]  # the watch caught up (or the claim was replaced)
                return stored
            return assumed

    def list_claims(self) -> list[ResourceClaim]:
        """ResourceClaims().List, assumed versions included."""
        stored: list[ResourceClaim] = self.store.list("ResourceClaim") if self.store is not None else []
        with self._lock:
            if not self._assumed:
                return stored
            return [self.get_claim(c.meta.namespace, c.meta.name) or c for c in stored]

    def signal_claim_pending_allocation(self, claim: ResourceClaim) -> None:
        with self._lock:
            self.remove_claim_pending_allocation(claim.meta.uid)
            self._in_flight[claim.meta.uid] = claim
            devices = devices_of(claim)
            self._in_flight_devices[claim.meta.uid] = devices
            self._journal_in_flight(devices)
            if devices is None:
                self._in_flight_untracked += 1
            for d in devices or ():
                self._in_flight_counts[d] = self._in_flight_counts.get(d, 0) + 1

    def claim_has_pending_allocation(self, uid: str) -> bool:
        with self._lock:
            return uid in self._in_flight

    def remove_claim_pending_allocation(self, uid: str) -> bool:
        with self._lock:
            if self._in_flight.pop(uid, None) is None:
                return False
            devices = self._in_flight_devices.pop(uid, None)
            self._journal_in_flight(devices)
            if devices is None:
                self._in_flight_untracked -= 1
            for d in devices or ():
                n = self._in_flight_counts[d] - 1
                if n:
                    self._in_flight_counts[d] = n
                else:
                    del self._in_flight_counts[d]
            return True

    def _journal_in_flight(self, devices: tuple[DeviceID, ...] | None) -> None:
        if devices is None or len(self._in_flight_journal) >= MAX_JOURNAL:
            self._in_flight_epoch += 1  # untracked devices: nobody can tell what changed
            self._in_flight_journal.clear()
        if devices:
            self._in_flight_journal.extend(devices)

    def changed_devices(self, since: JournalPosition | None,
                        until: JournalPosition | None) -> set[DeviceID] | None:
        """The devices whose allocation may differ between two results of
        :meth:`allocated_state` (their :attr:`position` right after): a superset of what
        changed, or None when that is unknown (a journal restarted, or either state was
        gathered from every claim)."""
        if since is None or until is None or since.stored_epoch != until.stored_epoch \
                or since.in_flight_epoch != until.in_flight_epoch:
            return None
        with self._lock:
            changed = set(self._stored.journal[since.stored:until.stored])
            changed.update(self._in_flight_journal[since.in_flight:until.in_flight])
        changed |= since.assumed
        changed |= until.assumed
        return changed

    def assume_claim_after_api_call(self, claim: ResourceClaim) -> None:
        with self._lock:
            self._assumed[(claim.meta.namespace, claim.meta.name)] = claim

    def assumed_claim_restore(self, namespace: str, name: str) -> None:
        with self._lock:
            self._assumed.pop((namespace, name), None)

    def allocated_state(self, consumable_capacity: bool) -> AllocatedState:
        """GatherAllocatedState / ListAllAllocatedDevices: every device allocated to a claim
        (stored, assumed or in flight), admin-access results excluded; with consumable
        capacity, shared results counted by share and their consumed capacity summed.

        The stored claims' devices come from :class:`StoredAllocations` (upstream's
        allocatedDevices tracker); the few in-flight and assumed claims replace their stored
        version on top. Anything it does not track: gathered from every claim."""
        stored = self._stored.devices()
        tracked_claims, by_uid = self._stored.claims, self._stored.by_uid
        removed: dict[DeviceID, int] = {}
        with self._lock:
            if stored is None or self._in_flight_untracked:
                self.position = None
                return self._gather(consumable_capacity)
            position = (self._stored.epoch, len(self._stored.journal), self._in_flight_epoch,
                        len(self._in_flight_journal))
            # In-flight claims replace their stored version (by uid): only those holding
            # devices matter, found by a set intersection rather than a scan.
            for uid in self._in_flight.keys() & by_uid.keys():
                for d in by_uid[uid]:
                    removed[d] = removed.get(d, 0) + 1
            in_flight_devices = set(self._in_flight_counts)
            assumed_keys = list(self._assumed)
        added: list[DeviceID] = []
        for key in assumed_keys:
            claim = self.get_claim(*key)
            if claim is None or self.claim_has_pending_allocation(claim.meta.uid):
                continue  # the in-flight version counts
            tracked = tracked_claims.get(key)
            if tracked is not None and tracked[0] is claim:
                continue
            devices = devices_of(claim)
            if devices is None:
                self.position = None
                return self._gather(consumable_capacity)
            if tracked is not None and tracked[0].meta.uid == claim.meta.uid:
                for d in tracked[1] or ():
                    removed[d] = removed.get(d, 0) + 1
            added.extend(devices)
        counts = self._stored.counts
        for d, n in removed.items():
            if counts.get(d, 0) <= n:
                stored.discard(d)
        stored |= in_flight_devices
        stored.update(added)
        self.position = JournalPosition(*position, frozenset((*removed, *added)))
        return AllocatedState(allocated_devices=stored)

    def _gather(self, consumable_capacity: bool) -> AllocatedState:
        """allocated_state from every claim."""
        state = AllocatedState()
        with self._lock:
            in_flight = list(self._in_flight.values())
        seen: set[str] = set()
        for claim in in_flight:
            seen.add(claim.meta.uid)
            _add_devices(state, claim, consumable_capacity)
        for claim in self.list_claims():
            if claim.meta.uid not in seen:
                _add_devices(state, claim, consumable_capacity)
        return state

    # -- classes and slices ----------------------------------------------------------------------
    def get_class(self, name: str) -> DeviceClass | None:
        return self.store.try_get("DeviceClass", "", name) if self.store is not None else None

    def list_classes(self) -> list[DeviceClass]:
        return self.store.list("DeviceClass") if self.store is not None else []

    def device_class_resolver(self) -> DeviceClassResolver:
        """DeviceClassResolver (DRAExtendedResource): which class serves an extended resource
        name; built again only when a class changed (by the store's DeviceClass version)."""
        version = self._kind_version("DeviceClass")
        with self._lock:
            cached = self._resolver
            if version is not None and cached is not None and cached[0] == version:
                return cached[1]
        resolver = DeviceClassResolver(self.list_classes())
        if version is not None:
            with self._lock:
                self._resolver = (version, resolver)
        return resolver

    def _kind_version(self, kind: str) -> int | None:
        """The store's version of ``kind`` (:class:`~kubesched.cluster.KindVersioned`), None
        when it has none."""
        return self._kind_versions(kind) if self._kind_versions is not None else None

    def list_slices(self, taint_rules: bool, class_and_cel: bool = False) -> Sequence[ResourceSlice]:
        """ResourceSlices().ListWithDeviceTaintRules: the slices, with the taint of each
        DeviceTaintRule added to the devices it selects (``taint_rules``: the rules' gate on;
        ``class_and_cel``: rules select by class and CEL too, as 1.33 and 1.34 did). The same
        tuple while no slice, rule (or, with ``class_and_cel``, class) changed (upstream's
        informer cache), so that :meth:`world` and the allocator's slice index can tell an
        unchanged one by identity."""
        key = (taint_rules, class_and_cel)
        kinds = ("ResourceSlice", "DeviceTaintRule") + (("DeviceClass",) if class_and_cel else ())
        found = [self._kind_version(k) for k in kinds]
        if any(v is None for v in found):
            return self._list_slices(taint_rules, class_and_cel)
        versions = tuple(v for v in found if v is not None)
        with self._lock:
            cached = self._slices.get(key)
            if cached is not None and cached[0] == versions:
                return cached[1]
        slices = tuple(self._list_slices(taint_rules, class_and_cel))
        with self._lock:
            self._slices[key] = (versions, slices)
        return slices

    def patch_slices(self, slices: Sequence[ResourceSlice], rules: Sequence[DeviceTaintRule],
                     class_and_cel: bool) -> list[ResourceSlice]:
        """applyPatches of ``rules`` to each slice (the one implementation,
        :func:`~kubesched.dra.structured.apply_device_taint_rules`), with the store's classes and
        this manager's CEL cache where rules select by them (``class_and_cel``, 1.33/1.34)."""
        if not class_and_cel:
            return [apply_device_taint_rules(s, rules) for s in slices]
        if self._rule_cel is None:
            self._rule_cel = CELCache()
        classes = {c.meta.name: c for c in self.list_classes()}
        return [apply_device_taint_rules(s, rules, classes, self._rule_cel) for s in slices]

    def world(self, slices: Sequence[ResourceSlice]) -> tuple[object, ...]:
        """What an allocation depends on besides the claims, the node and the allocated
        devices: ``slices`` (from :meth:`list_slices`, compared by identity) and the device
        classes (by version; a store without versions gets a token equal to no other)."""
        class_version = self._kind_version("DeviceClass")
        return (slices, class_version if class_version is not None else object())

    def _list_slices(self, taint_rules: bool, class_and_cel: bool) -> list[ResourceSlice]:
        slices: list[ResourceSlice] = self.store.list("ResourceSlice") if self.store is not None else []
        rules: list[DeviceTaintRule] = self.store.list("DeviceTaintRule") if taint_rules and slices else []
        if not rules:
            return slices
        return self.patch_slices(slices, rules, class_and_cel)


def _add_devices(state: AllocatedState, claim: ResourceClaim, consumable_capacity: bool) -> None:
    """foreachAllocatedDevice into ``state``."""
    apply_claim(state, claim, consumable_capacity, add=True)
