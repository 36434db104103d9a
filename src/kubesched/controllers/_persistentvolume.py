"""The PersistentVolume controller: claims bound to volumes, or volumes provisioned for them.

Mirrors pkg/controller/volume/persistentvolume (master 2026), the part scheduling depends on:
``syncUnboundClaim`` for claims not yet bound, with the external provisioner's part done at
once (a simulation has no provisioner that could lag or fail).

- **Matching** (``findBestMatchForClaim``, index.go ``findByClaim``): the PVs grouped by their
  set of access modes; the groups that offer every mode the claim asks for, fewest modes
  first; in each, ``FindMatchingVolume`` without a node: the PV pre-bound to the claim
  (``claimRef`` naming it, its uid when set), else the smallest Available PV not bound to
  another claim whose capacity, volume mode, volume attributes class, storage class and label
  selector fit. A WaitForFirstConsumer claim only takes a PV pre-bound to it: the scheduler
  chooses the others (VolumeBinding). Bound: the PV gets ``claimRef`` (and
  ``bound-by-controller`` unless it was pre-bound) and phase Bound; the claim ``volumeName``,
  ``bind-completed``, phase Bound, the PV's access modes and capacity (volume_writes).
- **A claim naming a volume** (``spec.volumeName``): bound to it if the PV exists and is free
  (and satisfies it: ``checkVolumeSatisfyClaim``) or already pre-bound to the claim.
- **No match**: a claim without a class gets the default StorageClass, if any
  (``assignDefaultStorageClass``: the newest ``is-default-class`` class, then by name), and is
  synced again; a WaitForFirstConsumer claim waits for the scheduler (unless it has a selected
  node); a claim whose class has a provisioner (not ``kubernetes.io/no-provisioner``) is
  provisioned: the claim is annotated with the provisioner (``setClaimProvisioner``), the
  provisioner creates ``pvc-<claim uid>`` (the claim's size, the class's reclaim policy and
  mount options, node affinity from the class's ``allowedTopologies``, or from the selected
  node's CSINode topology), and the controller binds the two. Otherwise the claim stays
  Pending, with upstream's event saying why.
- **Timing**: a claim is synced when it is added or changed (informer events) and, when a
  volume the provisioner created names it, at once; a claim left Pending is looked at again
  only by the periodic resync, every 15 s (``--pvclaimbinder-sync-period``) from the
  controller's start. A resync that would change nothing is not run (it would write nothing),
  so the simulation's clock only moves to one when a PersistentVolume or StorageClass added
  or changed since lets a waiting claim be bound or provisioned.

Out of scope: bound claims and volumes (``syncBoundClaim``, ``syncVolume``: a claim whose
volume is gone does not become Lost, a volume whose claim is gone is not released or
reclaimed), in-tree provisioning plugins, CSI migration annotations, volume expansion.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, cast

from ..api import CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass, parse_time
from ..cluster import Store
from ..plugins.volumebinding import (
    ANN_SELECTED_NODE,
    ANN_STORAGE_CLASS,
    NOT_SUPPORTED_PROVISIONER,
    VolumeBinder,
    allowed_topology_terms,
    bind_volume_to_claim,
    bound_claim,
    check_access_modes,
    claim_class,
    claim_with_provisioner,
    find_matching_volume,
    is_delay_binding_mode,
    is_volume_bound_to_claim,
    node_topology_terms,
    pod_claim_refs,
    provisioned_volume,
    pv_class,
)
from ._context import Context

__all__ = ["RESYNC_PERIOD", "ClaimDecision", "PersistentVolumeController", "claims_waiting_for_binding",
           "decide"]

RESYNC_PERIOD: Final = 15.0
"""kube-controller-manager's --pvclaimbinder-sync-period default."""
ANN_DEFAULT_CLASS: Final = ("storageclass.kubernetes.io/is-default-class",
                            "storageclass.beta.kubernetes.io/is-default-class")
BIND: Final = "bind"
PROVISION: Final = "provision"
ASSIGN_CLASS: Final = "assign-default-class"
WAIT: Final = "wait"


@dataclass(frozen=True, slots=True)
class ClaimDecision:
    """What syncUnboundClaim does with a claim now: bind it to ``volume``, provision it with
    ``storage_class``, give it the default ``storage_class``, or wait; a wait carries
    upstream's event (reason, type, message) or, where upstream only logs, a message."""

    action: str
    volume: PersistentVolume | None = None
    storage_class: StorageClass | None = None
    reason: str = ""
    event_type: str = "Normal"
    message: str = ""


def _wait(message: str, reason: str = "", event_type: str = "Normal") -> ClaimDecision:
    return ClaimDecision(WAIT, reason=reason, event_type=event_type, message=message)


def needs_controller(claim: PersistentVolumeClaim) -> bool:
    """A claim the controller has work for: not fully bound yet."""
    return not VolumeBinder.is_pvc_fully_bound(claim) and claim.meta.deletion_timestamp is None


def _storage_class(store: Store, name: str) -> StorageClass | None:
    sc = store.try_get("StorageClass", "", name) if name else None
    return sc if isinstance(sc, StorageClass) else None


def _delay_binding(store: Store, claim: PersistentVolumeClaim) -> bool:
    return is_delay_binding_mode(claim, lambda name: _storage_class(store, name))


def _has_class(claim: PersistentVolumeClaim) -> bool:
    """PersistentVolumeClaimHasClass: the beta annotation or spec.storageClassName is set."""
    return ANN_STORAGE_CLASS in claim.annotations or claim.storage_class_name is not None


def default_class(store: Store) -> StorageClass | None:
    """GetDefaultClass: of the classes annotated default, the newest, then by name."""
    defaults = [sc for sc in store.list("StorageClass") if isinstance(sc, StorageClass)
                and any(sc.meta.annotations.get(a) == "true" for a in ANN_DEFAULT_CLASS)]
    if not defaults:
        return None

    def created(sc: StorageClass) -> float:
        t = parse_time((sc.raw.get("metadata") or {}).get("creationTimestamp"))
        return t if t is not None else 0.0

    return min(defaults, key=lambda sc: (-created(sc), sc.meta.name))


def find_best_match(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                    delay_binding: bool) -> PersistentVolume | None:
    """findBestMatchForClaim: the access-mode groups that hold every mode asked for, fewest
    modes first (ties by the modes' names: upstream's order among them is a map's), each
    searched by FindMatchingVolume without a node; volumes in the store's order (name)."""
    groups: dict[frozenset[str], list[PersistentVolume]] = {}
    for volume in volumes:
        groups.setdefault(frozenset(volume.access_modes), []).append(volume)
    wanted = set(claim.access_modes)
    for modes in sorted((m for m in groups if wanted <= m), key=lambda m: (len(m), sorted(m))):
        pv = find_matching_volume(claim, groups[modes], None, set(), delay_binding)
        if pv is not None:
            return pv
    return None


def _satisfy_error(pv: PersistentVolume, claim: PersistentVolumeClaim) -> str:
    """checkVolumeSatisfyClaim: why the volume the claim names cannot serve it ("" if it can)."""
    if pv.meta.deletion_timestamp is not None:
        return f'the volume is marked for deletion "{pv.name}"'
    if pv.capacity.get("storage", 0) < claim.requests.get("storage", 0):
        return "requested PV is too small"
    if pv_class(pv) != claim_class(claim):
        return "storageClassName does not match"
    if pv.volume_mode != claim.volume_mode:
        return "incompatible volumeMode"
    if not check_access_modes(claim, pv):
        return "incompatible accessMode"
    vac = (claim.raw.get("spec") or {}).get("volumeAttributesClassName") or ""
    if vac != ((pv.raw.get("spec") or {}).get("volumeAttributesClassName") or ""):
        return "volumeAttributesClassName does not match"
    return ""


def decide(store: Store, claim: PersistentVolumeClaim,
           candidates: Callable[[PersistentVolumeClaim], Iterable[PersistentVolume]] | None = None,
           ) -> ClaimDecision:
    """syncUnboundClaim's decision for ``claim`` against the store as it is (nothing written):
    the controller acts on it, and ``explain`` reports it for a claim the pod waits for.
    ``candidates``: the volumes that could match the claim (the controller's index: free ones
    and those whose claimRef names it; others never match), every volume by default."""
    if not claim.volume_name:
        delay = _delay_binding(store, claim)
        volumes = (candidates(claim) if candidates is not None else
                   [pv for pv in store.list("PersistentVolume") if isinstance(pv, PersistentVolume)])
        pv = find_best_match(claim, volumes, delay)
        if pv is not None:
            return ClaimDecision(BIND, volume=pv)
        if not _has_class(claim) and (sc := default_class(store)) is not None:
            return ClaimDecision(ASSIGN_CLASS, storage_class=sc)
        if delay and ANN_SELECTED_NODE not in claim.annotations:
            return _wait("waiting for first consumer to be created before binding", "WaitForFirstConsumer")
        name = claim_class(claim)
        if not name:
            return _wait("no persistent volumes available for this claim and no storage class is set",
                         "FailedBinding")
        sc = _storage_class(store, name)
        if sc is None:
            return _wait(f'storageclass.storage.k8s.io "{name}" not found', "ProvisioningFailed", "Warning")
        if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return _wait(f"no volume plugin matched name: {sc.provisioner}", "ProvisioningFailed", "Warning")
        return ClaimDecision(PROVISION, storage_class=sc)
    found = store.try_get("PersistentVolume", "", claim.volume_name)
    if not isinstance(found, PersistentVolume):
        return _wait(f'volume "{claim.volume_name}" requested by the claim does not exist')
    if found.claim_ref is None:
        err = _satisfy_error(found, claim)
        if err:
            return _wait(f'Cannot bind to requested volume "{found.name}": {err}', "VolumeMismatch",
                         "Warning")
        return ClaimDecision(BIND, volume=found)
    if is_volume_bound_to_claim(found, claim):
        return ClaimDecision(BIND, volume=found)
    return _wait(f'volume "{found.name}" already bound to a different claim.', "FailedBinding", "Warning")


def claims_waiting_for_binding(store: Store, pod: Pod) -> list[tuple[str, str]]:
    """The pod's claims that VolumeBinding leaves to this controller (GetPodVolumeClaims'
    unbound immediate claims: not bound, and Immediate or naming their volume), each with
    what the controller would do with it now: ``(namespace/name, sentence)``. ``explain``
    reports them beside VolumeBinding's "pod has unbound immediate PersistentVolumeClaims"."""
    out: list[tuple[str, str]] = []
    for ref in pod_claim_refs(pod):
        claim = store.try_get("PersistentVolumeClaim", pod.namespace, ref.claim_name)
        if not isinstance(claim, PersistentVolumeClaim) or not needs_controller(claim):
            continue
        if not claim.volume_name and _delay_binding(store, claim):
            continue  # WaitForFirstConsumer: the scheduler binds it
        d = decide(store, claim)
        if d.action == BIND:
            assert d.volume is not None
            what = f'to bind it to PersistentVolume "{d.volume.name}"'
        elif d.action == PROVISION:
            assert d.storage_class is not None
            what = (f'to provision a volume for it (StorageClass "{d.storage_class.meta.name}", '
                    f'provisioner "{d.storage_class.provisioner}")')
        elif d.action == ASSIGN_CLASS:
            assert d.storage_class is not None
            what = f'to give it the default StorageClass "{d.storage_class.meta.name}"'
        else:
            why = d.message if claim.volume_name else f"no PersistentVolume matches it; {d.message}"
            what = f"which cannot bind it: {why}"
            out.append((f"{claim.namespace}/{claim.name}",
                        f"waiting for the PersistentVolume controller, {what}"))
            continue
        out.append((f"{claim.namespace}/{claim.name}", f"waiting for the PersistentVolume controller {what}"))
    return out


class _VolumeIndex:
    """The volumes a claim could be bound to, kept from the store's watch (upstream's
    persistentVolumeOrderedIndex): free ones (no claimRef) and those whose claimRef names a
    claim, by claim. A volume bound to another claim never matches, so a claim's candidates
    cost the free volumes and its own, not every volume in the store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._free: dict[str, PersistentVolume] | None = None
        self._by_claim: dict[tuple[str, str], dict[str, PersistentVolume]] = {}

    def _build(self) -> dict[str, PersistentVolume]:
        if self._free is None:
            self._free = {}
            for pv in self._store.list("PersistentVolume"):
                if isinstance(pv, PersistentVolume):
                    self.observe(None, pv)
        return self._free

    def observe(self, old: PersistentVolume | None, new: PersistentVolume | None) -> None:
        if self._free is None:
            return  # nothing to keep before the index is first needed
        for pv, add in ((old, False), (new, True)):
            if pv is None:
                continue
            ref = pv.claim_ref
            if ref is None:
                bucket = self._free
            else:
                key = (str(ref.get("namespace") or ""), str(ref.get("name") or ""))
                bucket = self._by_claim.setdefault(key, {}) if add else self._by_claim.get(key, {})
            if add:
                bucket[pv.name] = pv
            else:
                bucket.pop(pv.name, None)

    def candidates(self, claim: PersistentVolumeClaim) -> list[PersistentVolume]:
        """The free volumes and those naming ``claim``, by name (the store's order)."""
        free = self._build()
        own = self._by_claim.get((claim.namespace, claim.name), {})
        return sorted([*free.values(), *own.values()], key=lambda pv: pv.name)


class PersistentVolumeController:
    """The controller's claim queue, its waiting claims and its resync, on the manager's clock."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.start = ctx.clock.now
        self._queue: dict[tuple[str, str], None] = {}  # claims to sync, in order
        # claims left Pending -> (their reason, WaitForFirstConsumer without a selected node)
        self._waiting: dict[tuple[str, str], tuple[str, bool]] = {}
        self._resync_at: float | None = None
        self._volumes = _VolumeIndex(ctx.store)
        self._check: dict[tuple[str, str], None] = {}  # waiting claims a change may help

    # -- informer events ------------------------------------------------------------------
    def observe_claim(self, claim: PersistentVolumeClaim | None, key: tuple[str, str]) -> bool:
        """A claim added, changed or deleted: queue it when it needs the controller. True when
        a sync is due now."""
        if claim is None or not needs_controller(claim):
            self._waiting.pop(key, None)
            self._queue.pop(key, None)
            return False
        self._queue[key] = None
        return True

    def observe_volume(self, old: PersistentVolume | None, new: PersistentVolume | None) -> None:
        """A PersistentVolume added, changed or deleted: the index follows; a volume that
        could now serve a waiting claim (free, or naming it) brings the next resync."""
        self._volumes.observe(old, new)
        if new is None or self._resync_at is not None or not self._waiting:
            return
        ref = new.claim_ref
        if ref is not None:
            keys = [k for k in [(str(ref.get("namespace") or ""), str(ref.get("name") or ""))]
                    if k in self._waiting]
        else:  # only claims that may take any free volume (not WaitForFirstConsumer ones)
            keys = [k for k, (_, delay) in self._waiting.items() if not delay]
        self._check_later(keys)

    def observe_class(self) -> None:
        """A StorageClass added or changed: any waiting claim may now be provisioned."""
        if self._resync_at is None:
            self._check_later(list(self._waiting))

    def _check_later(self, keys: Iterable[tuple[str, str]]) -> None:
        """Look at these waiting claims in the next sync of this instant, once the writes under
        way are done (the scheduler creates a provisioned volume, then binds its claim: that
        claim is not waiting by then)."""
        before = len(self._check)
        self._check.update(dict.fromkeys(keys))
        if len(self._check) > before:
            self.ctx.requeue(0.0)

    def _resync_if_helped(self, keys: Iterable[tuple[str, str]]) -> None:
        """Schedule the next resync (every RESYNC_PERIOD from the start) when it would bind
        or provision one of these waiting claims; a resync that changes nothing is not run."""
        store = self.ctx.store
        for ns, name in keys:
            claim = store.try_get("PersistentVolumeClaim", ns, name)
            if isinstance(claim, PersistentVolumeClaim) and \
                    decide(store, claim, self._volumes.candidates).action != WAIT:
                now = self.ctx.clock.now
                ticks = int((now - self.start) // RESYNC_PERIOD) + 1
                self._resync_at = self.start + ticks * RESYNC_PERIOD
                self.ctx.requeue(self._resync_at - now)
                return

    def queue_all(self, claims: Sequence[PersistentVolumeClaim]) -> None:
        for claim in claims:
            self.observe_claim(claim, (claim.meta.namespace, claim.meta.name))

    # -- work -----------------------------------------------------------------------------
    def sync(self) -> None:
        """The claim worker: every queued claim, then (when due) the resync of the waiting."""
        if self._check:
            keys = [k for k in self._check if k in self._waiting]
            self._check.clear()
            if self._resync_at is None:
                self._resync_if_helped(keys)
        now = self.ctx.clock.now
        if self._resync_at is not None:
            if now >= self._resync_at:
                self._resync_at = None
                for key in self._waiting:
                    self._queue[key] = None
            else:  # another reconcile came first: keep the resync's own on the clock
                self.ctx.requeue(self._resync_at - now)
        while self._queue:
            key = next(iter(self._queue))
            del self._queue[key]
            claim = self.ctx.store.try_get("PersistentVolumeClaim", *key)
            if isinstance(claim, PersistentVolumeClaim) and needs_controller(claim):
                self.sync_claim(claim)

    def sync_claim(self, claim: PersistentVolumeClaim) -> None:
        """syncUnboundClaim: act on the decision, or leave the claim waiting."""
        key = (claim.meta.namespace, claim.meta.name)
        d = decide(self.ctx.store, claim, self._volumes.candidates)
        if d.action == WAIT:
            before = self._waiting.get(key)
            if (before is None or before[0] != d.message) and d.reason:
                self.ctx.store.record_event(claim, d.reason, d.message, d.event_type)
            self._waiting[key] = (d.message, d.reason == "WaitForFirstConsumer")
            return
        self._waiting.pop(key, None)
        store = self.ctx.store
        if d.action == ASSIGN_CLASS:
            assert d.storage_class is not None
            store.update(claim.with_changes({("spec", "storageClassName"): d.storage_class.meta.name}))
            return  # the update's event syncs the claim again
        pv = d.volume
        if d.action == PROVISION:
            pv = self._provision(claim, d.storage_class)
            claim = cast(PersistentVolumeClaim, store.get("PersistentVolumeClaim", *key))
        assert pv is not None
        self._bind(pv, claim)

    def _provision(self, claim: PersistentVolumeClaim, sc: StorageClass | None) -> PersistentVolume:
        """provisionClaimOperationExternal, then the external provisioner: annotate the claim,
        create its volume (pre-bound to it, phase Pending as the API server defaults it)."""
        assert sc is not None
        store = self.ctx.store
        annotated = claim_with_provisioner(claim, sc.provisioner)
        if annotated is not claim:
            claim = cast(PersistentVolumeClaim, store.update(annotated))
        node_name = claim.annotations.get(ANN_SELECTED_NODE, "")
        if node_name:
            node = store.try_get("Node", "", node_name)
            csi_node = store.try_get("CSINode", "", node_name)
            terms = node_topology_terms(csi_node if isinstance(csi_node, CSINode) else None, sc.provisioner,
                                        dict(node.labels) if isinstance(node, Node) else {})
        else:
            terms = allowed_topology_terms(sc)
        pv = provisioned_volume(claim, sc, terms, "Pending")
        existing = store.try_get("PersistentVolume", "", pv.name)
        if isinstance(existing, PersistentVolume):
            return existing  # provisioned by an earlier sync: bind it
        created: PersistentVolume = self.ctx.create(pv)
        return created

    def _bind(self, pv: PersistentVolume, claim: PersistentVolumeClaim) -> None:
        """bind: the volume to the claim (claimRef, then phase Bound), then the claim to the
        volume (volumeName and annotations, then status Bound)."""
        store = self.ctx.store
        bound = bind_volume_to_claim(pv, claim)
        if (pv.raw.get("status") or {}).get("phase") != "Bound":
            bound = bound.with_changes({("status", "phase"): "Bound"})
        if bound is not pv:
            pv = cast(PersistentVolume, store.update(bound))
        done = bound_claim(claim, pv)
        if done is not claim:
            store.update(done)
