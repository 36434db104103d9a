"""The API writes of extended resources backed by DRA: creating the special claim in PreBind,
recording it in the pod's status, deleting it (Unreserve, PostFilter).

Mirrors createExtendedResourceClaimInAPI, patchPodExtendedResourceClaimStatus and deleteClaim
of pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go (master 2026),
through the store (the embedded one or the live API server).
"""

from __future__ import annotations

import contextlib
from typing import Any, Final

from kubesched.api import DELETE, Pod, ResourceClaim
from kubesched.cluster import status_update
from kubesched.plugins.helper.dra import ExtendedRequests, generated_claim_name

from ._claims import FINALIZER

__all__ = ["create_extended_claim", "delete_claim", "patch_pod_extended_resource_claim_status"]

CONFLICT_RETRIES: Final = 5  # retry.DefaultRetry.Steps


def _klog(claim: ResourceClaim) -> str:
    return f"{claim.meta.namespace}/{claim.meta.name}"


def create_extended_claim(store: Any, node_extended: ExtendedRequests | None,
                          node_name: str) -> ResourceClaim:
    """createExtendedResourceClaimInAPI: the node's claim (from Filter) created without
    allocation or uid, under a generated name."""
    if node_extended is None:
        raise RuntimeError(f"extended resource claim not found for node {node_name}")
    claim = node_extended.claim
    name = generated_claim_name(
        claim, lambda n: store.try_get("ResourceClaim", claim.meta.namespace, n) is not None)
    metadata = {k: v for k, v in claim.raw["metadata"].items() if k != "uid"}
    manifest = {**{k: v for k, v in claim.raw.items() if k != "status"},
                "metadata": {**metadata, "name": name}}
    try:
        created: ResourceClaim = store.create(ResourceClaim.from_dict(manifest))
    except Exception as exc:
        raise RuntimeError(f"create claim for extended resources {_klog(claim)}: {exc}") from exc
    return created


def patch_pod_extended_resource_claim_status(store: Any, pod: Pod, claim: ResourceClaim,
                                             node_extended: ExtendedRequests | None) -> None:
    """patchPodExtendedResourceClaimStatus: the claim's name and the request serving each
    container's extended resource, in the pod's ``status.extendedResourceClaimStatus``."""
    if node_extended is None or not node_extended.mappings:
        raise RuntimeError(f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} "
                           "ExtendedResourceClaimStatus")
    from kubesched.cluster import Conflict

    status = {"requestMappings": [m.to_dict() for m in node_extended.mappings],
              "resourceClaimName": claim.meta.name}
    update = status_update(store)
    try:
        # Upstream patches (no resourceVersion precondition); an update of the current pod,
        # read again on a conflict, writes the same.
        for attempt in range(CONFLICT_RETRIES):
            current = store.try_get("Pod", pod.namespace, pod.name) or pod
            try:
                update(current.with_changes({("status", "extendedResourceClaimStatus"): status}))
                return
            except Conflict:
                if attempt == CONFLICT_RETRIES - 1:
                    raise
    except Exception as exc:
        raise RuntimeError(
            f"update pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus: {exc}") from exc


def delete_claim(store: Any, claim: ResourceClaim) -> None:
    """deleteClaim: drop the finalizer (an update, retried on conflicts with the current
    claim), then delete; a claim already gone is fine."""
    from kubesched.cluster import Conflict, NotFound

    for attempt in range(CONFLICT_RETRIES):
        current = store.try_get("ResourceClaim", claim.meta.namespace, claim.meta.name)
        if current is None:
            return
        had = list(current.raw.get("metadata", {}).get("finalizers") or [])
        finalizers = [x for x in had if x != FINALIZER]
        if finalizers == had:
            break
        try:
            store.update(current.with_changes({("metadata", "finalizers"): finalizers or DELETE}))
            break
        except Conflict:
            if attempt == CONFLICT_RETRIES - 1:
                raise
    with contextlib.suppress(NotFound):
        store.delete("ResourceClaim", claim.meta.namespace, claim.meta.name)
