"""Storage rules shared by the volume plugins.

Mirrors k8s.io/component-helpers/storage/volume (helpers.go, pv_helpers.go:
GetPersistentVolumeClaimClass, GetPersistentVolumeClass, CheckNodeAffinity, IsVolumeBoundToClaim,
CheckAccessModes, CheckVolumeModeMismatches, FindMatchingVolume), k8s.io/component-helpers/
storage/ephemeral (VolumeClaimName, VolumeIsForPod) and v1helper.MatchTopologySelectorTerms
(master 2026). Each rule lives here once; VolumeBinding, VolumeZone, VolumeRestrictions and
NodeVolumeLimits call it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.api import PersistentVolume, PersistentVolumeClaim, Pod, StorageClass

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_MIGRATED_PLUGINS",
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_CLASS",
    "ClaimRef",
    "check_access_modes",
    "check_node_affinity",
    "claim_class",
    "ephemeral_owner_error",
    "find_matching_volume",
    "is_delay_binding_mode",
    "is_volume_bound_to_claim",
    "match_topology_selector_terms",
    "pod_claim_refs",
    "pod_uses_claim",
    "pv_class",
]

ANN_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """A pod volume backed by a PVC: a ``persistentVolumeClaim`` volume or a generic ephemeral
    volume, whose claim is named ``<pod>-<volume>`` (ephemeral.VolumeClaimName)."""

    claim_name: str
    ephemeral: bool


def pod_claim_refs(pod: Pod) -> list[ClaimRef]:
    """The pod's PVC-backed volumes in spec order (the switch every volume plugin starts with)."""
    out: list[ClaimRef] = []
    for v in pod.volumes:
        if v.get("persistentVolumeClaim") is not None:
            out.append(ClaimRef(str((v.get("persistentVolumeClaim") or {}).get("claimName") or ""), False))
        elif v.get("ephemeral") is not None:
            out.append(ClaimRef(f"{pod.name}-{v.get('name') or ''}", True))
    return out


def pod_uses_claim(pod: Pod, pvc: PersistentVolumeClaim) -> bool:
    """The claim is one of the pod's volumes (by name, ephemeral claims included): the test of the
    PVC queueing hints of VolumeBinding (isSchedulableAfterPersistentVolumeClaimChange) and
    NodeVolumeLimits (isSchedulableAfterPVCAdded)."""
    return pvc.namespace == pod.namespace and any(r.claim_name == pvc.name for r in pod_claim_refs(pod))


def claim_class(pvc: PersistentVolumeClaim) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    ann = pvc.annotations.get(ANN_STORAGE_CLASS)
    if ann is not None:
        return ann
    return pvc.storage_class_name or ""


def is_delay_binding_mode(pvc: PersistentVolumeClaim,
                          storage_class: Callable[[str], StorageClass | None]) -> bool:
    """IsDelayBindingMode: the claim's class (looked up by ``storage_class``) exists and binds
    WaitForFirstConsumer; no class, or a class not found, binds Immediate."""
    name = claim_class(pvc)
    if not name:
        return False
    sc = storage_class(name)
    return sc is not None and sc.volume_binding_mode == "WaitForFirstConsumer"


def pv_class(pv: PersistentVolume) -> str:
    """GetPersistentVolumeClass: the beta annotation wins over spec.storageClassName."""
    ann = pv.meta.annotations.get(ANN_STORAGE_CLASS)
    return ann if ann is not None else pv.storage_class_name


def ephemeral_owner_error(pod: Pod, pvc: PersistentVolumeClaim) -> str | None:
    """ephemeral.VolumeIsForPod: the claim of a generic ephemeral volume must be controlled by
    the pod (a controller owner reference with the pod's UID)."""
    for ref in pvc.meta.owner_references:
        if ref.get("controller") and str(ref.get("uid") or "") == pod.uid:
            return None
    return (f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
            f"{pod.namespace}/{pod.name} (pod is not owner)")


def check_node_affinity(pv: PersistentVolume, node_labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity: a PV without required node affinity fits every node; otherwise one of
    its terms must match the node's labels (upstream matches a node carrying only the labels,
    so ``matchFields`` see an empty name)."""
    if pv.node_affinity is None:
        return True
    return pv.node_affinity.matches("", node_labels)


def is_volume_bound_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    """IsVolumeBoundToClaim: claimRef names the claim (and its UID, when the ref has one)."""
    ref = pv.claim_ref
    if ref is None:
        return False
    if str(ref.get("name") or "") != pvc.name or str(ref.get("namespace") or "") != pvc.namespace:
        return False
    uid = str(ref.get("uid") or "")
    return not uid or uid == pvc.meta.uid


def check_access_modes(pvc: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """CheckAccessModes: every mode the claim asks for is offered by the volume."""
    offered = set(pv.access_modes)
    return all(m in offered for m in pvc.access_modes)


def _vac(raw: Mapping[str, Any]) -> str:
    return str((raw.get("spec") or {}).get("volumeAttributesClassName") or "")


def find_matching_volume(pvc: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         node_labels: Mapping[str, str] | None, excluded: Mapping[str, Any] | set[str],
                         delay_binding: bool = True) -> PersistentVolume | None:
    """FindMatchingVolume (pv_helpers.go): the PV pre-bound to the claim if any (and only if
    its node affinity fits), else the smallest available PV that satisfies the claim.

    The checks run in upstream's order: excluded, claimRef to another claim, capacity, volume
    mode, volume attributes class (VolumeAttributesClass is GA), deletion, node affinity; the
    pre-bound shortcut; then phase Available, the claim's label selector, the class and the
    access modes. Ties on size keep the first PV listed, as upstream's strict ``>``.
    """
    requested = pvc.requests.get("storage", 0)
    requested_class = claim_class(pvc)
    smallest: PersistentVolume | None = None
    smallest_qty = 0
    claim_vac = _vac(pvc.raw)
    for pv in volumes:
        if pv.name in excluded:
            continue
        if pv.claim_ref is not None and not is_volume_bound_to_claim(pv, pvc):
            continue
        qty = pv.capacity.get("storage", 0)
        if qty < requested:
            continue
        if pvc.volume_mode != pv.volume_mode:
            continue
        if claim_vac != _vac(pv.raw):
            continue
        if pv.meta.deletion_timestamp is not None:
            continue
        affinity_ok = node_labels is None or check_node_affinity(pv, node_labels)
        if is_volume_bound_to_claim(pv, pvc):
            return pv if affinity_ok else None
        if node_labels is None and delay_binding:
            continue
        if pv.phase != "Available":
            continue
        if pvc.selector is not None and not pvc.selector.matches(pv.labels):
            continue
        if pv_class(pv) != requested_class:
            continue
        if not affinity_ok:
            continue
        if node_labels is not None and not check_access_modes(pvc, pv):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest


def match_topology_selector_terms(terms: Sequence[Mapping[str, Any]], labels: Mapping[str, str]) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; an empty term matches
    nothing; a term matches when every ``matchLabelExpressions`` key has one of its values."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if not exprs:
            continue
        if all(str(e.get("key") or "") in labels
               and labels[str(e.get("key") or "")] in {str(v) for v in (e.get("values") or [])}
               for e in exprs):
            return True
    return False
