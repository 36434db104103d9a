"""Extended resources backed by DRA (KEP-5004, feature gate DRAExtendedResource): which device
class serves an extended resource name, and the special ResourceClaim the scheduler allocates
for a pod's requests of such resources.

Mirrors k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache (cache.go: the
winner among classes naming the same ``extendedResourceName``), schedutil's
IsDRAExtendedResourceName and pkg/scheduler/framework/plugins/dynamicresources/
extendeddynamicresources.go (master 2026): ``preFilterExtendedResources``' in-memory claim,
``findExtendedResourceClaim``, ``filterExtendedResources`` and
``createRequestsAndMappings``. The plugin (:mod:`.dynamic_resources`) calls these at its
extension points; NodeResourcesFit asks the resolver whether to leave a resource to DRA.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from kubesched.api import Container, DeviceClass, Pod, ResourceClaim, is_extended_resource_name, with_paths
from kubesched.cache import NodeInfo, is_scalar_resource_name

__all__ = [
    "DEVICE_CLASS_PREFIX",
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "SPECIAL_CLAIM_NAME",
    "DeviceClassResolver",
    "ExtendedRequests",
    "ExtendedState",
    "RequestMapping",
    "claim_with_changes",
    "create_requests_and_mappings",
    "filter_extended_resources",
    "find_extended_resource_claim",
    "generated_claim_name",
    "has_device_class_mapped_extended_resource",
    "is_dra_extended_resource_name",
    "is_special_claim_name",
    "node_claim",
    "pre_filter_extended_resources",
    "special_claim",
]

DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"
"""resourceapi.ResourceDeviceClassPrefix: every class serves ``<prefix><class name>``."""

EXTENDED_RESOURCE_CLAIM_ANNOTATION: Final = "resource.kubernetes.io/extended-resource-claim"
"""resourceapi.ExtendedResourceClaimAnnotation: marks the claim the scheduler created."""

SPECIAL_CLAIM_NAME: Final = "<extended-resources>"
"""specialClaimInMemName: the in-memory claim's name, deliberately not a valid object name."""

_MAX_GENERATED_NAME_LENGTH: Final = 58  # names.maxGeneratedNameLength (63 - 5 random characters)
_ALPHANUMS: Final = "bcdfghjklmnpqrstvwxz2456789"  # utilrand.String's alphabet


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource name, or a class's implicit
    ``deviceclass.resource.kubernetes.io/<class>`` name."""
    return is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)


def is_special_claim_name(name: str) -> bool:
    return name == SPECIAL_CLAIM_NAME


class DeviceClassResolver:
    """fwk.DeviceClassResolver over the classes (ExtendedResourceCache's mapping): each class
    serves its implicit name; an explicit ``extendedResourceName`` named by several classes
    (while migrating from one class to another) goes to the newest class, the alphabetically
    lower name breaking ties (betterDeviceClass). Built from the class list, so that it is
    always what the informer-fed cache would hold once it caught up."""

    def __init__(self, classes: Sequence[DeviceClass]) -> None:
        mapping: dict[str, DeviceClass] = {}
        winners: dict[str, DeviceClass] = {}
        for c in classes:
            mapping[DEVICE_CLASS_PREFIX + c.meta.name] = c
            ern = c.extended_resource_name
            if ern is not None:
                best = winners.get(ern)
                if best is None or _better(c, best):
                    winners[ern] = c
        self._mapping = {**mapping, **winners}

    def get_device_class(self, resource_name: str) -> DeviceClass | None:
        return self._mapping.get(resource_name)


def _better(a: DeviceClass, b: DeviceClass) -> bool:
    """betterDeviceClass: the newer class wins, then the lower name."""
    ta, tb = a.meta.creation_timestamp or 0.0, b.meta.creation_timestamp or 0.0
    if ta != tb:
        return ta > tb
    return a.meta.name < b.meta.name


def has_device_class_mapped_extended_resource(requests: Mapping[str, int],
                                              resolver: DeviceClassResolver) -> bool:
    """hasDeviceClassMappedExtendedResource: some non-zero request has a class serving it."""
    return any(v and is_dra_extended_resource_name(k) and resolver.get_device_class(k) is not None
               for k, v in requests.items())


def _is_controlled_by_pod(claim: ResourceClaim, pod: Pod) -> bool:
    return any(ref.get("name") == pod.name and ref.get("controller") is True and ref.get("uid") == pod.uid
               for ref in claim.meta.owner_references)


def find_extended_resource_claim(pod: Pod, claims: Sequence[ResourceClaim]) -> ResourceClaim | None:
    """findExtendedResourceClaim: the claim marked by the annotation and controlled by the pod
    (created in an earlier cycle whose binding failed)."""
    for c in claims:
        marked = c.meta.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) == "true"
        if marked and _is_controlled_by_pod(c, pod):
            return c
    return None


def special_claim(pod: Pod, requests: Sequence[Mapping[str, Any]] = ()) -> ResourceClaim:
    """The in-memory claim preFilterExtendedResources makes: named ``<extended-resources>``
    with a temporary uid (for the in-flight bookkeeping), ``generateName``
    ``<pod>-extended-resources-``, owned by the pod, annotated; ``requests`` are set per node
    by Filter."""
    return _parse_special(_special_manifest(pod, requests))


def _special_manifest(pod: Pod, requests: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": SPECIAL_CLAIM_NAME,
            "namespace": pod.namespace,
            "uid": f"{pod.uid}-extended-resources",
            "generateName": f"{pod.name}-extended-resources-",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                                 "controller": True}],
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
        },
        "spec": {"devices": {"requests": [dict(r) for r in requests]}} if requests else {},
    }


def _parse_special(manifest: Mapping[str, Any]) -> ResourceClaim:
    """The special claim (or its node's variant). Its name is not a valid object name, so it
    is parsed under a valid one and renamed (upstream keeps it in memory, never validated)."""
    valid = {**manifest, "metadata": {**manifest["metadata"], "name": "extended-resources"}}
    claim = ResourceClaim.from_dict(valid)
    meta = dataclasses.replace(claim.meta, name=SPECIAL_CLAIM_NAME)
    return dataclasses.replace(claim, raw=manifest, meta=meta)


def generated_claim_name(claim: ResourceClaim, exists: Callable[[str], bool]) -> str:
    """The API server's generateName (SimpleNameGenerator): the base cut to 58 characters plus
    5 characters; drawn from the claim's uid so that a simulation is deterministic, and drawn
    again (as the scheduler would retry the create) while the name is taken."""
    base = str(claim.raw.get("metadata", {}).get("generateName") or "")[:_MAX_GENERATED_NAME_LENGTH]
    attempt = 0
    while True:
        digest = hashlib.sha256(f"{claim.meta.uid}/{attempt}".encode()).digest()
        name = base + "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:5])
        if not exists(name):
            return name
        attempt += 1


@dataclass(frozen=True, slots=True)
class RequestMapping:
    """v1.ContainerExtendedResourceRequest: which device request serves a container's resource."""

    container_name: str
    resource_name: str
    request_name: str

    def to_dict(self) -> dict[str, str]:
        return {"containerName": self.container_name, "resourceName": self.resource_name,
                "requestName": self.request_name}


@dataclass(frozen=True, slots=True)
class ExtendedRequests:
    """What filterExtendedResources found for a node: the node's claim (the special claim with
    the device requests of the resources DRA serves there) and the request mappings PreBind
    writes to the pod's ``status.extendedResourceClaimStatus``."""

    claim: ResourceClaim
    mappings: tuple[RequestMapping, ...]


@dataclass(eq=False, slots=True)
class ExtendedState:
    """draExtendedResource and the per-node part of nodeAllocation: the pod (its scalar
    requests), the resolver of the cycle, the special claim's uid at PreFilter (its in-flight
    key, even once PreBind created the real claim) and what Filter found per node."""

    pod: Pod
    resolver: DeviceClassResolver
    pod_scalars: Mapping[str, int]
    initial_uid: str
    nodes: dict[str, ExtendedRequests] = field(default_factory=dict)


def pre_filter_extended_resources(
    pod: Pod,
    resolver_of: Callable[[], DeviceClassResolver],
    list_claims: Callable[[], Sequence[ResourceClaim]],
) -> tuple[ResourceClaim, ExtendedState] | None:
    """preFilterExtendedResources: for a pod requesting an extended resource some class
    serves, its claim from an earlier cycle (found by annotation and owner) or the in-memory
    special claim; None when nothing it requests is served by DRA."""
    requests = pod.requests
    if not any(v and is_dra_extended_resource_name(k) for k, v in requests.items()):
        return None  # the resolver would answer no for each of them
    resolver = resolver_of()
    if not has_device_class_mapped_extended_resource(requests, resolver):
        return None
    scalars = {k: v for k, v in requests.items() if is_scalar_resource_name(k)}
    claim = find_extended_resource_claim(pod, [c for c in list_claims() if c.meta.namespace == pod.namespace])
    if claim is None:
        claim = special_claim(pod)
    return claim, ExtendedState(pod, resolver, scalars, claim.meta.uid)


def filter_extended_resources(claim: ResourceClaim, state: ExtendedState, no_user_claim: bool,
                              node_info: NodeInfo) -> tuple[ExtendedRequests | None, str | None]:
    """filterExtendedResources: the node's variant of the special claim, with a device request
    for each extended resource the node's allocatable lacks (a class serving it); None when the
    device plugins provide them all and the pod has no claim of its own. The reason the pod
    cannot use the node: a claim of an earlier cycle (PostFilter deletes it), or a request
    neither the node nor a class provides."""
    if claim.devices.requests:
        return None, "cannot schedule extended resource claim"
    wanted: dict[str, int] = {}
    allocatable = node_info.allocatable
    for name in sorted(state.pod_scalars):
        want = state.pod_scalars[name]
        if not is_dra_extended_resource_name(name) or want == 0:
            continue
        if state.resolver.get_device_class(name) is not None and allocatable.get(name, 0) == 0:
            wanted[name] = want  # the node needs to provide it through DRA
        elif name not in allocatable:
            return None, "cannot fit resource"
    if (no_user_claim and not wanted) or claim.allocation is not None:
        return None, None
    requests, mappings = create_requests_and_mappings(state.pod, wanted, state.resolver)
    return ExtendedRequests(node_claim(claim, requests), tuple(mappings)), None


def claim_with_changes(claim: ResourceClaim, changes: Mapping[tuple[str, ...], Any]) -> ResourceClaim:
    """``claim.with_changes``, also for the special claim (whose name does not validate)."""
    if not is_special_claim_name(claim.meta.name):
        return claim.with_changes(changes)
    return _parse_special(with_paths(claim.raw, changes))


def node_claim(special: ResourceClaim, requests: Sequence[Mapping[str, Any]]) -> ResourceClaim:
    """The special claim with this node's device requests."""
    manifest = dict(special.raw)
    manifest["spec"] = {"devices": {"requests": [dict(r) for r in requests]}}
    return _parse_special(manifest)


# -- createRequestsAndMappings ---------------------------------------------------------------------
def _container_request(index: int, container: Container, resource: str, class_name: str,
                       reusable: Sequence[Mapping[str, Any] | None]
                       ) -> tuple[dict[str, Any] | None, list[RequestMapping]]:
    """createResourceRequestAndMappings: the container's request of ``resource`` (named
    ``container-<i>-request-<j>``, j the resource's index among the container's sorted request
    names), after what ``reusable`` requests (of long-lived containers started later) already
    cover; None when nothing more is needed."""
    mappings: list[RequestMapping] = []
    want = container.requests.get(resource, 0)
    if not want:
        return None, []
    covered = 0
    for r in reusable:
        if r is None:
            continue
        covered += int(r["exactly"]["count"])
        mappings.append(RequestMapping(container.name, resource, str(r["name"])))
        if covered >= want:
            return None, mappings
    keys = sorted(container.requests)
    name = f"container-{index}-request-{keys.index(resource)}"
    request = {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount",
                                         "count": want - covered}}
    mappings.append(RequestMapping(container.name, resource, name))
    return request, mappings


def create_requests_and_mappings(pod: Pod, resources: Mapping[str, int], resolver: DeviceClassResolver
                                 ) -> tuple[list[dict[str, Any]], list[RequestMapping]]:
    """createRequestsAndMappings: one device request per container and resource DRA serves
    (init containers first, as in the pod's container index), regular init containers sharing
    the largest of their requests and reusing those of the long-lived containers started after
    them; requests sorted by name."""
    containers = [*pod.init_containers, *pod.containers]
    n_init = len(pod.init_containers)
    long_lived = [i for i, c in enumerate(containers) if i >= n_init or c.is_restartable_init]
    short_lived = [i for i, c in enumerate(containers) if i < n_init and not c.is_restartable_init]
    requests: list[dict[str, Any]] = []
    mappings: list[RequestMapping] = []
    for resource in sorted(resources):
        cls = resolver.get_device_class(resource)
        if cls is None:
            continue
        long_requests: list[dict[str, Any] | None] = [None] * len(containers)
        long_mappings: list[RequestMapping] = []
        for i in long_lived:
            req, ms = _container_request(i, containers[i], resource, cls.meta.name, ())
            long_requests[i] = req
            long_mappings += ms
        largest: dict[str, Any] | None = None
        short_names: set[str] = set()
        short_mappings: list[RequestMapping] = []
        for i in short_lived:
            req, ms = _container_request(i, containers[i], resource, cls.meta.name, long_requests[i:])
            if req is not None:
                short_names.add(req["name"])
                if largest is None or largest["exactly"]["count"] < req["exactly"]["count"]:
                    largest = req
            short_mappings += ms
        if largest is not None and len(short_names) > 1:
            short_names.discard(largest["name"])
            short_mappings = [RequestMapping(m.container_name, m.resource_name, largest["name"])
                              if m.request_name in short_names else m for m in short_mappings]
        if largest is not None:
            requests.append(largest)
        requests += [r for r in long_requests if r is not None]
        mappings += long_mappings + short_mappings
    requests.sort(key=lambda r: r["name"])
    return requests, mappings
