"""A pod's ResourceClaims: which claim each ``spec.resourceClaims`` entry names, whether it is
the pod's, and the claim status writes the plugin makes.

Mirrors k8s.io/dynamic-resource-allocation/resourceclaim (resourceclaim.go: ``Name``,
``IsForPod``, ``IsReservedForPod``, ``CanBeReserved``; master 2026) and the serialization of an
``AllocationResult`` into ``status.allocation`` (the JSON of k8s.io/api/resource/v1).
PodGroup claims (DRAWorkloadResourceClaims, beta and off by default) are not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from kubesched.api import (
    AllocationResult,
    DeviceRequestAllocationResult,
    DeviceToleration,
    NodeSelector,
    Pod,
    PodResourceClaim,
    ResourceClaim,
    format_time,
)

__all__ = [
    "FINALIZER",
    "POD_CLAIM_NAME_ANNOTATION",
    "ClaimLookupError",
    "allocation_to_dict",
    "claim_name",
    "is_for_pod",
    "is_reserved_for_pod",
    "pod_reference",
]

FINALIZER: Final = "resource.kubernetes.io/delete-protection"
"""resourceapi.Finalizer: set by whoever allocates a claim, so it is not deleted while in use."""

POD_CLAIM_NAME_ANNOTATION: Final = "resource.kubernetes.io/pod-claim-name"
"""The annotation the resourceclaim controller puts on a claim generated from a template."""

ERR_CLAIM_NOT_FOUND: Final = "ResourceClaim not created yet"
ERR_API_UNSUPPORTED: Final = "none of the supported fields are set"


class ClaimLookupError(Exception):
    """A reason the pod cannot be scheduled now (foreachPodResourceClaim's errors): the
    message is upstream's and becomes the status reason."""


def claim_name(pod: Pod, pod_claim: PodResourceClaim) -> tuple[str | None, bool]:
    """resourceclaim.Name: the claim's name and whether the claim must be checked to be the
    pod's own (generated from a template). None: the template needed no claim (the status says
    so). Raises ClaimLookupError when the claim was not generated yet."""
    if pod_claim.resource_claim_name is not None:
        return pod_claim.resource_claim_name, False
    if pod_claim.resource_claim_template_name is not None:
        for status in pod.resource_claim_statuses:
            if status.name == pod_claim.name:
                return status.resource_claim_name, True
        raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}": {ERR_CLAIM_NOT_FOUND}')
    raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pod_claim.name}": '
                           f"{ERR_API_UNSUPPORTED}")


def _controlled_by(claim: ResourceClaim, pod: Pod) -> bool:
    """metav1.IsControlledBy: the controller reference has the pod's uid."""
    for ref in claim.meta.owner_references:
        if ref.get("controller") is True:
            return bool(ref.get("uid")) and ref.get("uid") == pod.uid
    return False


def is_for_pod(pod: Pod, claim: ResourceClaim) -> None:
    """resourceclaim.IsForPod: raises ClaimLookupError unless the pod owns the claim."""
    if claim.meta.namespace != pod.namespace:
        raise ClaimLookupError(f"ResourceClaim {claim.meta.namespace}/{claim.meta.name} is not in the same "
                               f"namespace as Pod {pod.namespace}/{pod.name}")
    if not _controlled_by(claim, pod):
        raise ClaimLookupError(f"ResourceClaim {claim.meta.namespace}/{claim.meta.name} was not created for "
                               f"Pod {pod.namespace}/{pod.name} (Pod is not owner)")


def is_reserved_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    """resourceclaim.IsReservedForPod: the pod's uid is in ``status.reservedFor``."""
    return any(r.uid == pod.uid for r in claim.reserved_for)


def pod_reference(pod: Pod) -> dict[str, Any]:
    """resourceclaim.BindTo for a pod: the ``reservedFor`` entry PreBind adds."""
    return {"resource": "pods", "name": pod.name, "uid": pod.uid}


# -- AllocationResult -> status.allocation ------------------------------------------------------
def _node_selector(sel: NodeSelector) -> dict[str, Any]:
    def reqs(rs: Any) -> list[dict[str, Any]]:
        out = []
        for r in rs:
            d: dict[str, Any] = {"key": r.key, "operator": r.operator}
            if r.values:
                d["values"] = list(r.values)
            out.append(d)
        return out

    terms = []
    for t in sel.terms:
        term: dict[str, Any] = {}
        if t.match_expressions:
            term["matchExpressions"] = reqs(t.match_expressions)
        if t.match_fields:
            term["matchFields"] = reqs(t.match_fields)
        terms.append(term)
    return {"nodeSelectorTerms": terms}


def _toleration(t: DeviceToleration) -> dict[str, Any]:
    d: dict[str, Any] = {"operator": t.operator}
    for key, value in (("key", t.key), ("value", t.value), ("effect", t.effect)):
        if value:
            d[key] = value
    if t.toleration_seconds is not None:
        d["tolerationSeconds"] = t.toleration_seconds
    return d


def _quantity(v: Fraction) -> str:
    """A quantity in decimal SI form: the largest of 1, m, u, n that writes it as an integer
    (the API server's canonical form of a decimal quantity, without the k/M/G suffixes)."""
    for suffix, scale in (("", 1), ("m", 10**3), ("u", 10**6), ("n", 10**9)):
        scaled = v * scale
        if scaled.denominator == 1:
            return f"{scaled.numerator}{suffix}"
    return f"{math.ceil(v * 10**9)}n"


def _result(r: DeviceRequestAllocationResult) -> dict[str, Any]:
    d: dict[str, Any] = {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
    if r.admin_access is not None:
        d["adminAccess"] = r.admin_access
    if r.tolerations:
        d["tolerations"] = [_toleration(t) for t in r.tolerations]
    if r.share_id is not None:
        d["shareID"] = r.share_id
    if r.consumed_capacity is not None:
        d["consumedCapacity"] = {k: _quantity(v) for k, v in r.consumed_capacity.items()}
    if r.binding_conditions:
        d["bindingConditions"] = list(r.binding_conditions)
    if r.binding_failure_conditions:
        d["bindingFailureConditions"] = list(r.binding_failure_conditions)
    if r.compatibility_groups is not None:
        d["compatibilityGroups"] = {k: {"groups": list(v)} for k, v in r.compatibility_groups.items()}
    return d


def allocation_to_dict(a: AllocationResult) -> dict[str, Any]:
    """``status.allocation`` as the API server stores it."""
    devices: dict[str, Any] = {"results": [_result(r) for r in a.results]}
    if a.config:
        devices["config"] = [dict(c) for c in a.config]
    out: dict[str, Any] = {"devices": devices}
    if a.node_selector is not None:
        out["nodeSelector"] = _node_selector(a.node_selector)
    if a.allocation_timestamp is not None:
        out["allocationTimestamp"] = format_time(a.allocation_timestamp)
    return out


def status_of(claim: ResourceClaim) -> Mapping[str, Any]:
    """The claim's ``status`` as written (what the queueing hint compares)."""
    status = claim.raw.get("status")
    return status if isinstance(status, Mapping) else {}
