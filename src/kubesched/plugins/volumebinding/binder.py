"""The scheduler's volume binder: classify a pod's claims, check them per node, assume and bind.

Mirrors binder.go (SchedulerVolumeBinder / volumeBinder, master 2026): GetPodVolumeClaims,
FindPodVolumes (checkBoundClaims, the selected-node fast path,
findMatchingVolumes, checkVolumeProvisions), AssumePodVolumes, RevertAssumedPodVolumes and
BindPodVolumes, with upstream's conflict reasons.

Differences, all because a simulation has no PV controller, external provisioner or
CSIStorageCapacity objects:

- ``BindPodVolumes`` writes the API updates upstream makes (PV ``claimRef``; PVC
  ``volume.kubernetes.io/selected-node``) *and* what the PV controller and the external
  provisioner would then do: the claim is bound (``spec.volumeName``, ``Bound`` phases,
  ``pv.kubernetes.io/bind-completed``), and a dynamically provisioned claim gets a new PV named
  ``pvc-<claim uid>`` of the requested size, with node affinity on the CSINode topology keys
  of the provisioner when the node reports them. Upstream instead polls up to
  ``bindTimeoutSeconds`` for the controllers; here the result is immediate. Against a real
  cluster (a store whose ``simulates_controllers`` is False: ``kubesched run``) the binder does
  as upstream: the updates only, then ``checkBindings`` every second until the controllers
  have bound the claims.
- A claim whose ``status.phase`` is ``Bound`` counts as fully bound even without the
  ``bind-completed`` annotation (hand-written manifests rarely carry it, and nothing here would
  ever add it).
- CSIStorageCapacity is not modelled: hasEnoughCapacity behaves as for a driver that does not
  opt into capacity tracking (always enough), so ErrReasonNotEnoughSpace never occurs.
- In-tree PVs are not translated to CSI before the node-affinity check (tryTranslatePVToCSI).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ...api import Node, PersistentVolume, PersistentVolumeClaim, Pod
from ..helper.volume.listers import VolumeListers, not_found
from ..helper.volume.storage_helpers import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    check_node_affinity,
    claim_class,
    ephemeral_owner_error,
    find_matching_volume,
    is_delay_binding_mode,
    is_volume_bound_to_claim,
    match_topology_selector_terms,
    pod_claim_refs,
)
from .assume_cache import PVAssumeCache, PVCAssumeCache
from .volume_writes import bind_volume_to_claim, bound_claim, node_topology_terms, provisioned_volume

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "NOT_SUPPORTED_PROVISIONER",
    "BindingInfo",
    "PodVolumeClaims",
    "PodVolumes",
    "VolumeBinder",
    "VolumeBindingError",
]

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


class VolumeBindingError(Exception):
    """An internal error of the binder (upstream returns ``err``): an Error status."""


@dataclass(frozen=True, slots=True)
class BindingInfo:
    """A static binding decision: ``pvc`` to the pre-provisioned ``pv``."""

    pvc: PersistentVolumeClaim
    pv: PersistentVolume

    def storage_class_name(self) -> str:
        return self.pv.storage_class_name

    def storage_resource(self) -> tuple[int, int]:
        """(requested, capacity) in bytes."""
        return self.pvc.requests.get("storage", 0), self.pv.capacity.get("storage", 0)


@dataclass(slots=True)
class PodVolumes:
    static_bindings: list[BindingInfo] = field(default_factory=list)
    dynamic_provisions: list[PersistentVolumeClaim] = field(default_factory=list)


@dataclass(slots=True)
class PodVolumeClaims:
    bound_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(default_factory=dict)


class VolumeBinder:
    def __init__(self, listers: VolumeListers) -> None:
        self.listers = listers
        self.pv_cache = PVAssumeCache(listers)
        self.pvc_cache = PVCAssumeCache(listers)

    # -- claims ---------------------------------------------------------------------------
    @staticmethod
    def is_pvc_fully_bound(pvc: PersistentVolumeClaim) -> bool:
        """isPVCFullyBound (plus a ``Bound`` phase, see the module docstring)."""
        return bool(pvc.volume_name) and (ANN_BIND_COMPLETED in pvc.annotations or pvc.phase == "Bound")

    def is_delay_binding_mode(self, pvc: PersistentVolumeClaim) -> bool:
        """IsDelayBindingMode: the claim's class exists and is WaitForFirstConsumer."""
        return is_delay_binding_mode(pvc, self.listers.storage_class)

    def _claim(self, pod: Pod, claim_name: str, ephemeral: bool) -> PersistentVolumeClaim:
        pvc = self.pvc_cache.get_pvc(pod.namespace, claim_name)
        if pvc is None:
            raise VolumeBindingError(f'error getting PVC "{pod.namespace}/{claim_name}": '
                                     + not_found("PersistentVolumeClaim", claim_name))
        if ephemeral:
            err = ephemeral_owner_error(pod, pvc)
            if err:
                raise VolumeBindingError(err)
        return pvc

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        """GetPodVolumeClaims: bound, unbound delayed (WaitForFirstConsumer, not pre-bound) and
        unbound immediate (including pre-bound) claims, plus the PVs of the delayed classes."""
        out = PodVolumeClaims()
        for ref in pod_claim_refs(pod):
            pvc = self._claim(pod, ref.claim_name, ref.ephemeral)
            if self.is_pvc_fully_bound(pvc):
                out.bound_claims.append(pvc)
            elif self.is_delay_binding_mode(pvc) and not pvc.volume_name:
                out.unbound_claims_delay_binding.append(pvc)
            else:
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            cls = claim_class(pvc)
            out.unbound_volumes_delay_binding[cls] = self.pv_cache.list_pvs(cls)
        return out

    # -- per node -------------------------------------------------------------------------
    def find_pod_volumes(self, pod: Pod, claims: PodVolumeClaims, node: Node) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes: the decisions for this node and the conflict reasons (in upstream's
        order: node conflict, bind conflict, not enough space, PV not exist)."""
        pv_out = PodVolumes()
        bound_ok = unbound_ok = storage_ok = pvs_found = True
        if claims.bound_claims:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound_claims, node)
        if claims.unbound_claims_delay_binding:
            to_match: list[PersistentVolumeClaim] = []
            to_provision: list[PersistentVolumeClaim] = []
            fast_fail = False
            for pvc in claims.unbound_claims_delay_binding:
                selected = pvc.annotations.get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node.name:
                        fast_fail = True
                        break
                    to_provision.append(pvc)
                else:
                    to_match.append(pvc)
            if fast_fail:
                unbound_ok = False
            else:
                if to_match:
                    unbound_ok, pv_out.static_bindings, rest = self._find_matching_volumes(
                        to_match, claims.unbound_volumes_delay_binding, node)
                    to_provision.extend(rest)
                if to_provision:
                    unbound_ok, storage_ok, pv_out.dynamic_provisions = self._check_volume_provisions(
                        to_provision, node)
        reasons: list[str] = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not storage_ok:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return pv_out, reasons

    def _check_bound_claims(self, claims: list[PersistentVolumeClaim], node: Node) -> tuple[bool, bool]:
        """checkBoundClaims -> (node affinity satisfied, PVs found)."""
        for pvc in claims:
            pv = self.pv_cache.get_pv(pvc.volume_name)
            if pv is None:
                return True, False
            if not check_node_affinity(pv, node.labels):
                return False, True
        return True, True

    def _find_matching_volumes(self, claims: list[PersistentVolumeClaim],
                               pvs_by_class: dict[str, list[PersistentVolume]],
                               node: Node) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """findMatchingVolumes: claims by increasing request (a stable sort, as sort.Sort on
        few elements is insertion sort), each taking the smallest fitting PV not yet chosen."""
        chosen: dict[str, PersistentVolume] = {}
        bindings: list[BindingInfo] = []
        unbound: list[PersistentVolumeClaim] = []
        found = True
        for pvc in sorted(claims, key=lambda c: c.requests.get("storage", 0)):
            pv = find_matching_volume(pvc, pvs_by_class.get(claim_class(pvc), []), node.labels, chosen)
            if pv is None:
                unbound.append(pvc)
                found = False
                continue
            chosen[pv.name] = pv
            bindings.append(BindingInfo(pvc, pv))
        return found, bindings, unbound

    def _check_volume_provisions(self, claims: list[PersistentVolumeClaim],
                                 node: Node) -> tuple[bool, bool, list[PersistentVolumeClaim]]:
        """checkVolumeProvisions -> (provisioning satisfied, sufficient storage, claims)."""
        out: list[PersistentVolumeClaim] = []
        for pvc in claims:
            cls = claim_class(pvc)
            if not cls:
                raise VolumeBindingError(f'no class for claim "{pvc.key}"')
            sc = self.listers.storage_class(cls)
            if sc is None:
                raise VolumeBindingError(f'failed to find storage class "{cls}"')
            if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(sc.allowed_topologies, node.labels):
                return False, True, []
            out.append(pvc)
        return True, True, out

    # -- reserve / unreserve --------------------------------------------------------------
    def are_pod_volumes_bound(self, pod: Pod) -> bool:
        for ref in pod_claim_refs(pod):
            pvc = self.pvc_cache.get_pvc(pod.namespace, ref.claim_name)
            if pvc is None or not self.is_pvc_fully_bound(pvc):
                return False
        return True

    def assume_pod_volumes(self, pod: Pod, node_name: str, pod_volumes: PodVolumes) -> bool:
        """AssumePodVolumes: PVs pre-bound to their claims and claims annotated with the node,
        in the assume caches; True when every claim is already fully bound."""
        if self.are_pod_volumes_bound(pod):
            return True
        new_bindings: list[BindingInfo] = []
        for b in pod_volumes.static_bindings:
            pv = b.pv
            if not is_volume_bound_to_claim(pv, b.pvc):
                pv = bind_volume_to_claim(pv, b.pvc)
                self.pv_cache.assume(pv)
            new_bindings.append(BindingInfo(b.pvc, pv))
        new_claims: list[PersistentVolumeClaim] = []
        for pvc in pod_volumes.dynamic_provisions:
            clone = pvc.with_changes({("metadata", "annotations", ANN_SELECTED_NODE): node_name})
            self.pvc_cache.assume(clone)
            new_claims.append(clone)
        pod_volumes.static_bindings = new_bindings
        pod_volumes.dynamic_provisions = new_claims
        return False

    def revert_assumed_pod_volumes(self, pod_volumes: PodVolumes) -> None:
        for b in pod_volumes.static_bindings:
            self.pv_cache.restore(b.pv.name)
        for pvc in pod_volumes.dynamic_provisions:
            self.pvc_cache.restore(pvc.key)

    # -- binding --------------------------------------------------------------------------
    def bind_pod_volumes(self, pod: Pod, pod_volumes: PodVolumes, node_name: str = "",
                         timeout: float = 600.0, poll: float = 1.0) -> None:
        """BindPodVolumes. In a simulation the PV controller and provisioner are simulated
        (module docstring); against a real cluster, upstream's way: the API updates
        (bindAPIUpdate), then poll ``checkBindings`` every ``poll`` seconds until the
        controllers have bound every claim, for at most ``timeout`` seconds."""
        if not self.listers.simulates_controllers:
            self._bind_api_update(pod_volumes)
            self._wait_for_bindings(pod, pod_volumes, node_name, timeout, poll)
            return
        self._bind_simulated(pod_volumes)

    def _bind_api_update(self, pod_volumes: PodVolumes) -> None:
        """bindAPIUpdate: the PVs with their claimRef, the claims with the selected node; the
        updated objects stay assumed until the informers bring newer ones."""
        for i, b in enumerate(pod_volumes.static_bindings):
            current = self.listers.pv(b.pv.name)
            if current is not None and is_volume_bound_to_claim(current, b.pvc):
                continue
            updated = self.listers.update(b.pv)
            self.pv_cache.assume(updated)
            pod_volumes.static_bindings[i] = BindingInfo(b.pvc, updated)
        for i, pvc in enumerate(pod_volumes.dynamic_provisions):
            updated = self.listers.update(pvc)
            self.pvc_cache.assume(updated)
            pod_volumes.dynamic_provisions[i] = updated

    def _wait_for_bindings(self, pod: Pod, pod_volumes: PodVolumes, node_name: str, timeout: float,
                           poll: float) -> None:
        deadline = time.monotonic() + timeout
        try:
            while not self._check_bindings(pod, pod_volumes, node_name):
                if time.monotonic() + poll > deadline:
                    raise VolumeBindingError("binding volumes: context deadline exceeded")
                threading.Event().wait(poll)
        finally:
            self.revert_assumed_pod_volumes(pod_volumes)

    def _check_bindings(self, pod: Pod, pod_volumes: PodVolumes, node_name: str) -> bool:
        """checkBindings: True once every claim is fully bound; an error when a controller
        undid the scheduler's decision (then the pod is retried)."""
        if self._pod_gone(pod):
            raise VolumeBindingError(f"pod {pod.namespace}/{pod.name} does not exist any more")
        for b in pod_volumes.static_bindings:
            pv = self.listers.pv(b.pv.name)
            if pv is None:
                raise VolumeBindingError(
                    f"failed to check binding: {not_found('PersistentVolume', b.pv.name)}")
            if _older(pv, b.pv):
                return False  # our update has not come back through the informer yet
            if pv.claim_ref is None or not pv.claim_ref.get("uid"):
                raise VolumeBindingError(f'ClaimRef got reset for pv "{pv.name}"')
            pvc = self.listers.pvc(b.pvc.namespace, b.pvc.name)
            if pvc is None or not self.is_pvc_fully_bound(pvc):
                return False
        for claim in pod_volumes.dynamic_provisions:
            pvc = self.listers.pvc(claim.namespace, claim.name)
            if pvc is None:
                raise VolumeBindingError(
                    f"failed to check binding: {not_found('PersistentVolumeClaim', claim.name)}")
            if _older(pvc, claim):
                return False
            selected = pvc.annotations.get(ANN_SELECTED_NODE)
            if selected is None:
                raise VolumeBindingError(f'selectedNode annotation reset for PVC "{pvc.name}"')
            if node_name and selected != node_name:
                raise VolumeBindingError(
                    f'selectedNode annotation value "{selected}" not set to scheduled node "{node_name}"')
            if not self.is_pvc_fully_bound(pvc):
                return False
            pv = self.listers.pv(pvc.volume_name)
            if pv is None:
                return False
            node = self.listers.node(node_name) if node_name else None
            if node is not None and not check_node_affinity(pv, node.labels):
                raise VolumeBindingError(f'pv "{pv.name}" node affinity doesn\'t match node "{node_name}"')
        return True

    def _pod_gone(self, pod: Pod) -> bool:
        store = self.listers.store
        if store is None:
            return False
        current = store.try_get("Pod", pod.namespace, pod.name)
        return current is None or current.uid != pod.uid

    def _bind_simulated(self, pod_volumes: PodVolumes) -> None:
        """BindPodVolumes with the PV controller and provisioner simulated (module docstring):
        what they would write, from volume_writes (the simulations' PV controller writes the
        same for Immediate claims)."""
        for b in pod_volumes.static_bindings:
            pv = b.pv.with_changes({("status", "phase"): "Bound"})
            self.listers.update(pv)
            self.listers.update(bound_claim(b.pvc, pv))
            self.pv_cache.restore(pv.name)
        for pvc in pod_volumes.dynamic_provisions:
            pv = self._provision(pvc)
            self.listers.create(pv)
            self.listers.update(bound_claim(pvc, pv))
            self.pvc_cache.restore(pvc.key)

    def _provision(self, pvc: PersistentVolumeClaim) -> PersistentVolume:
        """The provisioner's volume for the selected node: its CSINode topology."""
        sc = self.listers.storage_class(claim_class(pvc))
        provisioner = sc.provisioner if sc is not None else ""
        node_name = pvc.annotations.get(ANN_SELECTED_NODE, "")
        node = self.listers.node(node_name)
        terms = node_topology_terms(self.listers.csi_node(node_name), provisioner,
                                    dict(node.labels) if node is not None else {})
        return provisioned_volume(pvc, sc, terms, "Bound")


def _older(api: Any, ours: Any) -> bool:
    """The informer's object is older than the one the update returned (resourceVersions)."""
    try:
        return int(api.meta.resource_version or 0) < int(ours.meta.resource_version or 0)
    except ValueError:
        return False
