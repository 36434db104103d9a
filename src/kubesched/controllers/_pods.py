"""What every controller does with pods: build one from a template, own it, claim existing ones.

Mirrors pkg/controller/controller_utils.go (``GetPodFromTemplate``, ``FilterActivePods``) and
pkg/controller/controller_ref_manager.go (``PodControllerRefManager.ClaimPods``), master 2026.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..api import Pod, kind_of
from ..api.loader import ApiObject
from ..cluster import Store

__all__ = [
    "claim",
    "controller_ref",
    "is_active",
    "owner_reference",
    "pod_manifest",
    "refers_to",
]

_API_VERSION = {
    "ReplicationController": "v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "Deployment": "apps/v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
}


def owner_reference(owner: ApiObject) -> dict[str, Any]:
    """metav1.NewControllerRef: the owner as the controlling owner, blocking its deletion."""
    kind = kind_of(owner)
    return {"apiVersion": _API_VERSION[kind], "kind": kind, "name": owner.meta.name,
            "uid": owner.meta.uid, "controller": True, "blockOwnerDeletion": True}


def controller_ref(obj: ApiObject) -> Mapping[str, Any] | None:
    """metav1.GetControllerOf: the owner reference with ``controller: true``, if any."""
    for ref in obj.meta.owner_references:
        if ref.get("controller") is True:
            return ref
    return None


def refers_to(ref: Mapping[str, Any], owner: ApiObject) -> bool:
    """A controller reference names ``owner``. Upstream compares uids; an input written by hand
    (or an owner whose uid the store made up on load) may not carry the same uid, so kind and
    name decide, and differing uids only when both are given."""
    if ref.get("kind") != kind_of(owner) or ref.get("name") != owner.meta.name:
        return False
    uid = ref.get("uid")
    return not uid or not owner.meta.uid or uid == owner.meta.uid


def is_active(pod: Pod) -> bool:
    """controller.IsPodActive: not finished and not being deleted."""
    return not pod.is_terminal and not pod.is_terminating


def claim(store: Store, owner: ApiObject, kind: str, matches: Callable[[Mapping[str, str]], bool],
          candidates: Iterable[Any] | None = None) -> list[Any]:
    """ClaimPods (ClaimObject per object) without releasing: the objects of ``kind`` in the
    owner's namespace that it controls, and the orphans its selector ``matches``, adopted by
    adding its controller reference (as AdoptPod patches it). Objects controlled by another
    owner are left alone; a deleting orphan is not adopted."""
    out = []
    objs = candidates if candidates is not None else store.list(kind, owner.meta.namespace)
    for obj in objs:
        ref = controller_ref(obj)
        if ref is not None:
            if refers_to(ref, owner):
                out.append(obj)
            continue
        if obj.meta.deletion_timestamp is not None or not matches(obj.meta.labels):
            continue
        refs = [dict(r) for r in obj.meta.owner_references] + [owner_reference(owner)]
        out.append(store.update(obj.with_changes({("metadata", "ownerReferences"): refs})))
    return out


def pod_manifest(template: Mapping[str, Any], owner: ApiObject, name: str, *,
                 generate_name: str = "", labels: Mapping[str, str] | None = None,
                 annotations: Mapping[str, str] | None = None) -> dict[str, Any]:
    """GetPodFromTemplate: the template's labels, annotations, finalizers and spec, in the
    owner's namespace, controlled by it; ``labels``/``annotations`` are added on top (what each
    controller sets: pod-template-hash, controller-revision-hash, ...)."""
    md = template.get("metadata") or {}
    meta: dict[str, Any] = {"name": name}
    if generate_name:
        meta["generateName"] = generate_name
    meta["namespace"] = owner.meta.namespace
    all_labels = {**(md.get("labels") or {}), **(labels or {})}
    if all_labels:
        meta["labels"] = all_labels
    all_annotations = {**(md.get("annotations") or {}), **(annotations or {})}
    if all_annotations:
        meta["annotations"] = all_annotations
    if isinstance(md.get("finalizers"), list) and md["finalizers"]:
        meta["finalizers"] = list(md["finalizers"])
    meta["ownerReferences"] = [owner_reference(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": copy.deepcopy(dict(template.get("spec") or {}))}


def create_pod(store: Store, manifest: Mapping[str, Any]) -> Pod:
    """Create the pod (admission runs in the store, as for any pod)."""
    return store.create(Pod.from_dict(manifest))  # type: ignore[return-value]
