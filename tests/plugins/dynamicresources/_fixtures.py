"""Objects of upstream's dynamicresources_test.go (master 2026), as manifests: the pod
``my-pod`` (uid 1234) with its claims, the class ``my-resource-class``, the slices of the
worker nodes of driver ``some-driver``. Builders mirror pkg/scheduler/testing/wrappers.go
(MakeResourceClaim().Request(class): request ``req-1``; MakeResourceSlice(node, driver): slice
``<node>-<driver>``, pool ``<node>``)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesched.api import Node, Pod, ResourceClaim
from kubesched.testing import make_node

POD_NAME = "my-pod"
POD_UID = "1234"
NAMESPACE = "default"
RESOURCE_NAME = "my-resource"
RESOURCE_NAME2 = RESOURCE_NAME + "-2"
CLAIM_NAME = f"{POD_NAME}-{RESOURCE_NAME}"
CLAIM_NAME2 = f"{POD_NAME}-{RESOURCE_NAME2}"
CLASS_NAME = "my-resource-class"
DRIVER = "some-driver"
DRIVER2 = "some-driver-2"
NODE_NAME, NODE2_NAME, NODE3_NAME = "worker", "worker-2", "worker-3"
ATTR_NAME = "healthy"
FINALIZER = "resource.kubernetes.io/delete-protection"
BROKEN_SELECTOR = f'device.attributes["{DRIVER}"].{ATTR_NAME}'

Manifest = dict[str, Any]
EXTENDED_CLAIM_PREFIX = f"{POD_NAME}-extended-resources-"


def node(name: str) -> Node:
    return make_node().name(name).label("kubernetes.io/hostname", name).obj()


WORKER, WORKER2, WORKER3 = node(NODE_NAME), node(NODE2_NAME), node(NODE3_NAME)


def pod(
    claims: Sequence[tuple[str, str, bool]] = ((RESOURCE_NAME, CLAIM_NAME, False),),
    statuses: Sequence[tuple[str, str]] = (),
    name: str = POD_NAME,
    uid: str = POD_UID,
) -> Pod:
    """A pod with ``(pod claim name, claim or template name, is_template)`` entries."""
    spec: Manifest = {
        "containers": [{"name": "c", "image": "i"}],
        "resourceClaims": [
            {"name": n, ("resourceClaimTemplateName" if tmpl else "resourceClaimName"): ref}
            for n, ref, tmpl in claims
        ],
    }
    d: Manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE, "uid": uid},
        "spec": spec,
    }
    if statuses:
        d["status"] = {"resourceClaimStatuses": [{"name": n, "resourceClaimName": c} for n, c in statuses]}
    return Pod.from_dict(d)


POD_WITH_CLAIM_NAME = pod()
POD_WITH_CLAIM_TEMPLATE = pod(((RESOURCE_NAME, CLAIM_NAME, True),))
POD_WITH_CLAIM_TEMPLATE_IN_STATUS = pod(((RESOURCE_NAME, CLAIM_NAME, True),), [(RESOURCE_NAME, CLAIM_NAME)])
POD_WITH_TWO_CLAIM_TEMPLATES = pod(((RESOURCE_NAME, CLAIM_NAME, True), (RESOURCE_NAME2, CLAIM_NAME, True)))
POD_WITH_TWO_CLAIM_NAMES = pod(((RESOURCE_NAME, CLAIM_NAME, False), (RESOURCE_NAME2, CLAIM_NAME2, False)))


def device_class(name: str = CLASS_NAME, selectors: Iterable[str] = ()) -> Manifest:
    spec: Manifest = {}
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": spec,
    }


def exact(
    name: str = "req-1",
    class_name: str = CLASS_NAME,
    count: int = 1,
    selectors: Iterable[str] = (),
    admin: bool = False,
) -> Manifest:
    e: Manifest = {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}
    if selectors:
        e["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    if admin:
        e["adminAccess"] = True
    return {"name": name, "exactly": e}


def sub(name: str, class_name: str = CLASS_NAME, count: int = 1, selector: str | None = None) -> Manifest:
    s: Manifest = {
        "name": name,
        "deviceClassName": class_name,
        "allocationMode": "ExactCount",
        "count": count,
    }
    if selector is not None:
        s["selectors"] = [{"cel": {"expression": selector}}]
    return s


def first_available(name: str, *subs: Manifest) -> Manifest:
    return {"name": name, "firstAvailable": list(subs)}


def result(
    request: str = "req-1",
    device: str = "instance-1",
    driver: str = DRIVER,
    pool: str = NODE_NAME,
    admin: bool = False,
    binding: bool = False,
) -> Manifest:
    r: Manifest = {"request": request, "driver": driver, "pool": pool, "device": device}
    if admin:
        r["adminAccess"] = True
    if binding:
        r["bindingConditions"] = ["condition"]
        r["bindingFailureConditions"] = ["failed"]
    return r


def allocation(*results: Manifest, node_name: str = NODE_NAME) -> Manifest:
    return {
        "devices": {"results": list(results) or [result()]},
        "nodeSelector": {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
            ]
        },
    }


def topology_allocation(key: str, value: str) -> Manifest:
    return {
        "devices": {"results": [result()]},
        "nodeSelector": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]
        },
    }


def claim(
    name: str = CLAIM_NAME,
    requests: Sequence[Manifest] | None = None,
    owner: str | None = POD_UID,
    allocation: Manifest | None = None,
    reserved: bool = False,
    finalizer: bool | None = None,
    device_statuses: Sequence[Manifest] = (),
) -> Manifest:
    """MakeResourceClaim().Request(class) [.OwnerReference(pod)] [.Allocation(a)] [.ReservedForPod].
    ``Allocation`` adds the finalizer, as upstream's wrapper does."""
    meta: Manifest = {"name": name, "namespace": NAMESPACE}
    if owner is not None:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": POD_NAME, "uid": owner, "controller": True}
        ]
    if finalizer or (finalizer is None and allocation is not None):
        meta["finalizers"] = [FINALIZER]
    d: Manifest = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": meta,
        "spec": {"devices": {"requests": list(requests if requests is not None else [exact()])}},
    }
    status: Manifest = {}
    if allocation is not None:
        status["allocation"] = copy.deepcopy(allocation)
    if reserved:
        status["reservedFor"] = [{"resource": "pods", "name": POD_NAME, "uid": POD_UID}]
    if device_statuses:
        status["devices"] = list(device_statuses)
    if status:
        d["status"] = status
    return d


def device_status(
    conditions: Mapping[str, str], device: str = "instance-1", driver: str = DRIVER
) -> Manifest:
    return {
        "driver": driver,
        "pool": NODE_NAME,
        "device": device,
        "conditions": [
            {
                "type": t,
                "status": s,
                "reason": "r",
                "message": "",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
            for t, s in conditions.items()
        ],
    }


def admin_access(c: Manifest) -> Manifest:
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["adminAccess"] = True
    for r in (c.get("status", {}).get("allocation") or {}).get("devices", {}).get("results", []):
        r["adminAccess"] = True
    return c


def break_cel_in_claim(c: Manifest) -> Manifest:
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["selectors"] = [{"cel": {"expression": BROKEN_SELECTOR}}]
    return c


def resource_slice(
    node_name: str,
    driver: str = DRIVER,
    devices: Sequence[str | tuple[str, Manifest]] = ("instance-1",),
    taint: bool = False,
    binding: bool = False,
) -> Manifest:
    """MakeResourceSlice(node, driver).Device(...)."""
    devs = []
    for dev in devices:
        name, attrs = (dev, {}) if isinstance(dev, str) else dev
        d: Manifest = {"name": name}
        if attrs:
            d["attributes"] = attrs
        if taint:
            d["taints"] = [{"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}]
        if binding:
            d["bindsToNode"] = True
            d["bindingConditions"] = ["condition"]
            d["bindingFailureConditions"] = ["failed"]
        devs.append(d)
    spec: Manifest = {
        "driver": driver,
        "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
        "devices": devs,
    }
    if binding:
        spec["nodeSelector"] = {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
            ]
        }
    else:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-{driver}"},
        "spec": spec,
    }


def healthy(value: bool) -> Manifest:
    return {ATTR_NAME: {"bool": value}}


def summary(c: ResourceClaim) -> tuple[Any, ...]:
    """What the ported cases compare of a stored claim: upstream's verify ignores uid,
    resourceVersion, the allocation time stamp and which device was picked."""
    raw = c.raw
    status = raw.get("status") or {}
    alloc = status.get("allocation")
    results = None
    if alloc is not None:
        results = tuple(
            (r.get("request"), r.get("driver"), r.get("pool"), bool(r.get("adminAccess")))
            for r in (alloc.get("devices") or {}).get("results") or []
        )
    name = c.meta.name
    if name.startswith(EXTENDED_CLAIM_PREFIX):
        name = EXTENDED_CLAIM_PREFIX + "0"  # generated: upstream's fake client appends "0"
    return (
        name,
        tuple(raw.get("metadata", {}).get("finalizers") or ()),
        results,
        None if alloc is None else _canonical(alloc.get("nodeSelector")),
        tuple(r.get("uid") for r in status.get("reservedFor") or ()),
        len(status.get("devices") or ()),
    )


def manifest_summary(m: Manifest) -> tuple[Any, ...]:
    special = m["metadata"]["name"] == "<extended-resources>"  # the in-memory claim: no valid name
    if special:
        m = {**m, "metadata": {**m["metadata"], "name": "in-memory"}}
    out = summary(ResourceClaim.from_dict(m))
    return ("<extended-resources>", *out[1:]) if special else out


def _canonical(v: Any) -> Any:
    if isinstance(v, Mapping):
        return tuple(sorted((k, _canonical(x)) for k, x in v.items()))
    if isinstance(v, list | tuple):
        return tuple(_canonical(x) for x in v)
    return v
