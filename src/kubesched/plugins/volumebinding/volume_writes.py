"""What the PersistentVolume controller and a provisioner write when they bind or create a volume.

One place for the objects both the scheduler's simulated PreBind (WaitForFirstConsumer claims, see
binder.py) and the PersistentVolume controller of simulations (kubesched.controllers, Immediate
claims) write, so that a volume bound either way looks the same. Mirrors, master 2026:

- ``GetBindVolumeToClaim`` (k8s.io/component-helpers/storage/volume, pv_helpers.go): the PV's
  ``claimRef`` names the claim with its uid; ``pv.kubernetes.io/bound-by-controller: "yes"``
  when the PV was not already bound to the claim (a user's pre-binding keeps its absence);
- ``bindClaimToVolume`` and ``updateClaimStatus(Bound)`` (pkg/controller/volume/persistentvolume
  pv_controller.go): ``spec.volumeName``, ``bound-by-controller`` when the controller chose the
  volume (not when the user named it), ``pv.kubernetes.io/bind-completed``; status ``Bound``,
  the volume's access modes, and its capacity when the claim becomes Bound;
- ``setClaimProvisioner``: ``volume.kubernetes.io/storage-provisioner`` and its beta twin;
- the external provisioner's new volume (sig-storage-lib-external-provisioner
  ``provisionClaimOperation`` with csi-provisioner's ``Provision``): ``pvc-<claim uid>``,
  ``pv.kubernetes.io/provisioned-by``, the claim's access modes, volume mode and requested size,
  the class's reclaim policy (default Delete) and mount options, a ``csi`` source for a CSI
  driver (a provisioner outside ``kubernetes.io/``), ``claimRef`` to the claim, and the node
  affinity the caller chose (the selected node's CSINode topology for a WaitForFirstConsumer
  claim, the class's ``allowedTopologies`` for an Immediate one).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ...api import CSINode, PersistentVolume, PersistentVolumeClaim, StorageClass
from ..helper.volume.storage_helpers import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    claim_class,
    is_volume_bound_to_claim,
)

__all__ = [
    "ANN_BETA_STORAGE_PROVISIONER",
    "ANN_DYNAMICALLY_PROVISIONED",
    "ANN_STORAGE_PROVISIONER",
    "allowed_topology_terms",
    "bind_volume_to_claim",
    "bound_claim",
    "claim_ref",
    "claim_with_provisioner",
    "node_topology_terms",
    "provisioned_volume",
]

ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"


def claim_ref(pvc: PersistentVolumeClaim) -> dict[str, Any]:
    """reference.GetReference of the claim (without its resourceVersion)."""
    ref = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": pvc.namespace, "name": pvc.name}
    if pvc.meta.uid:
        ref["uid"] = pvc.meta.uid
    return ref


def bind_volume_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> PersistentVolume:
    """GetBindVolumeToClaim: ``claimRef`` to the claim (with its uid), and
    ``bound-by-controller`` unless the volume was already bound to it."""
    ref = pv.claim_ref or {}
    changes: dict[tuple[str, ...], Any] = {}
    if (str(ref.get("name") or ""), str(ref.get("namespace") or ""), str(ref.get("uid") or "")) != \
            (pvc.name, pvc.namespace, pvc.meta.uid or ""):
        changes[("spec", "claimRef")] = claim_ref(pvc)
    if not is_volume_bound_to_claim(pv, pvc) and ANN_BOUND_BY_CONTROLLER not in pv.meta.annotations:
        changes[("metadata", "annotations", ANN_BOUND_BY_CONTROLLER)] = "yes"
    return pv.with_changes(changes) if changes else pv


def bound_claim(pvc: PersistentVolumeClaim, pv: PersistentVolume) -> PersistentVolumeClaim:
    """bindClaimToVolume then updateClaimStatus(Bound, volume), as one object."""
    changes: dict[tuple[str, ...], Any] = {}
    if pvc.volume_name != pv.name:
        changes[("spec", "volumeName")] = pv.name
        if ANN_BOUND_BY_CONTROLLER not in pvc.annotations:
            changes[("metadata", "annotations", ANN_BOUND_BY_CONTROLLER)] = "yes"
    if ANN_BIND_COMPLETED not in pvc.annotations:
        changes[("metadata", "annotations", ANN_BIND_COMPLETED)] = "yes"
    status = pvc.raw.get("status") or {}
    if status.get("phase") != "Bound":
        changes[("status", "phase")] = "Bound"
        capacity = (pv.raw.get("spec") or {}).get("capacity") or {}
        if (status.get("capacity") or {}).get("storage") != capacity.get("storage"):
            changes[("status", "capacity")] = copy.deepcopy(dict(capacity))
    if list(status.get("accessModes") or []) != list(pv.access_modes):
        changes[("status", "accessModes")] = list(pv.access_modes)
    return pvc.with_changes(changes) if changes else pvc


def claim_with_provisioner(pvc: PersistentVolumeClaim, provisioner: str) -> PersistentVolumeClaim:
    """setClaimProvisioner: both storage-provisioner annotations name the class's provisioner."""
    if pvc.annotations.get(ANN_STORAGE_PROVISIONER) == provisioner:
        return pvc
    return pvc.with_changes({("metadata", "annotations", ANN_BETA_STORAGE_PROVISIONER): provisioner,
                             ("metadata", "annotations", ANN_STORAGE_PROVISIONER): provisioner})


def node_topology_terms(csi_node: CSINode | None, driver: str,
                        labels: Mapping[str, str]) -> list[dict[str, Any]]:
    """The node affinity of a volume provisioned for the selected node: one term with the
    node's value of each topology key its CSINode reports for the driver (csi-provisioner's
    accessible topology for that node); none when it reports none."""
    keys = csi_node.driver_topology_keys.get(driver, ()) if csi_node is not None else ()
    exprs = [{"key": k, "operator": "In", "values": [labels[k]]} for k in keys if k in labels]
    return [{"matchExpressions": exprs}] if exprs else []


def allowed_topology_terms(sc: StorageClass | None) -> list[dict[str, Any]]:
    """The node affinity of a volume provisioned without a selected node: one term per
    ``allowedTopologies`` term of the class, each label expression as ``In`` its values (the
    volume may then serve a pod anywhere the class allows); none without allowedTopologies."""
    terms: list[dict[str, Any]] = []
    for term in sc.allowed_topologies if sc is not None else ():
        exprs = [{"key": str(e.get("key") or ""), "operator": "In",
                  "values": [str(v) for v in e.get("values") or []]}
                 for e in term.get("matchLabelExpressions") or []]
        if exprs:
            terms.append({"matchExpressions": exprs})
    return terms


def provisioned_volume(pvc: PersistentVolumeClaim, sc: StorageClass | None,
                       node_terms: Sequence[Mapping[str, Any]], phase: str) -> PersistentVolume:
    """The volume a provisioner creates for ``pvc`` of class ``sc``, pre-bound to the claim,
    with ``node_terms`` as its required node affinity and status ``phase``."""
    provisioner = sc.provisioner if sc is not None else ""
    raw_class = sc.raw if sc is not None else {}
    spec_req = ((pvc.raw.get("spec") or {}).get("resources") or {}).get("requests") or {}
    name = f"pvc-{pvc.meta.uid or pvc.namespace + '-' + pvc.name}"
    spec: dict[str, Any] = {
        "capacity": {"storage": copy.deepcopy(spec_req.get("storage", 0))},
        "accessModes": list(pvc.access_modes),
        "storageClassName": claim_class(pvc),
        "volumeMode": pvc.volume_mode,
        "persistentVolumeReclaimPolicy": str(raw_class.get("reclaimPolicy") or "Delete"),
        "claimRef": claim_ref(pvc),
    }
    if raw_class.get("mountOptions"):
        spec["mountOptions"] = [str(o) for o in raw_class["mountOptions"]]
    if provisioner and not provisioner.startswith("kubernetes.io/"):
        spec["csi"] = {"driver": provisioner, "volumeHandle": name}
    if node_terms:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [dict(t) for t in node_terms]}}
    return PersistentVolume.from_dict({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {ANN_DYNAMICALLY_PROVISIONED: provisioner}},
        "spec": spec, "status": {"phase": phase},
    })
