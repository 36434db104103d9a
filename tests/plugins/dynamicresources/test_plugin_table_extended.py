"""upstream's TestPlugin cases about extended resources backed by DRA (DRAExtendedResource;
dynamicresources_test.go, master 2026), with upstream's names, through the same loop as the
other cases (:mod:`._runner`).

Upstream's fake client names the created claim ``my-pod-extended-resources-0``; kubesched's
generated suffix is compared as that name. The ``metrics`` checks
(``scheduler_resourceclaim_creates_total``) are not ported: kubesched has no such counter.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import pytest

from kubesched.api import Pod
from kubesched.framework import Code
from kubesched.testing import make_node, make_pod

from ._fixtures import (
    CLASS_NAME,
    EXTENDED_CLAIM_PREFIX,
    FINALIZER,
    NAMESPACE,
    NODE2_NAME,
    NODE_NAME,
    POD_NAME,
    POD_UID,
    Manifest,
    allocation,
    device_class,
    pod,
    resource_slice,
    result,
)
from ._runner import Case, Run, Want

U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
GPU, GPU2 = "example.com/gpu", "example.com/gpu2"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS_NAME}"
ON = {"DRAExtendedResource": True}


def _class_with(name: str, extended: str) -> Manifest:
    c = device_class(name)
    c["spec"]["extendedResourceName"] = extended
    return c


CLASS = device_class()
CLASS_EXT = _class_with(CLASS_NAME, GPU)  # deviceClassWithExtendResourceName
CLASS_EXT2 = _class_with(CLASS_NAME + "2", GPU2)
WORKER_SLICE = resource_slice(NODE_NAME)
LARGE_SLICE = resource_slice(NODE_NAME, devices=["instance-1", "instance-2", "instance-3", "instance-4"])


def _node(gpus: str | None = None) -> object:
    b = make_node().name(NODE_NAME).label("kubernetes.io/hostname", NODE_NAME)
    if gpus is not None:
        b = b.capacity({GPU: gpus})
    return b.obj()


WORKER_WITH_GPU = _node("1")  # workerNodeWithExtendedResource
WORKER_WITH_ZERO_GPU = _node("0")  # workerNodeWithExtendedResourceZeroAllocatable


def _pod(*containers: dict[str, str]) -> Pod:
    b = make_pod().name(POD_NAME).namespace(NAMESPACE).uid(POD_UID)
    for c in containers:
        b = b.req(c)
    return b.obj()


POD_GPU = _pod({GPU: "1"})  # podWithExtendedResourceName
POD_GPU2 = _pod({GPU: "1", GPU2: "1"})  # podWithExtendedResourceName2
POD_IMPLICIT = _pod({IMPLICIT: "1", GPU: "2"})  # podWithImplicitExtendedResourceName
POD_IMPLICIT_TWO = _pod({IMPLICIT: "1"}, {GPU: "2"})  # ...TwoContainers


def extended_claim(
    requests: Sequence[tuple[str, str, int]],
    results: Sequence[tuple[str, str]],
    name: str = EXTENDED_CLAIM_PREFIX + "0",
    node_name: str = NODE_NAME,
    reserved: bool = False,
) -> Manifest:
    """extendedResourceClaim*: annotated, owned by the pod, with ``container-<i>-request-<j>``
    requests and an allocation (the wrapper's Allocation adds the finalizer)."""
    status: Manifest = {"allocation": allocation(*(result(r, d) for r, d in results), node_name=node_name)}
    if reserved:
        status["reservedFor"] = [{"resource": "pods", "name": POD_NAME, "uid": POD_UID}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": name,
            "generateName": EXTENDED_CLAIM_PREFIX,
            "namespace": NAMESPACE,
            "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Pod", "name": POD_NAME, "uid": POD_UID, "controller": True}
            ],
            "finalizers": [FINALIZER],
        },
        "spec": {
            "devices": {
                "requests": [
                    {"name": r, "exactly": {"deviceClassName": c, "allocationMode": "ExactCount", "count": n}}
                    for r, c, n in requests
                ]
            }
        },
        "status": status,
    }


def in_memory(c: Manifest) -> Manifest:
    """The in-flight claim of Reserve: the special ``<extended-resources>`` claim."""
    c = copy.deepcopy(c)
    c["metadata"]["name"] = "<extended-resources>"
    return c


def reserved(c: Manifest) -> Manifest:
    c = copy.deepcopy(c)
    c["status"]["reservedFor"] = [{"resource": "pods", "name": POD_NAME, "uid": POD_UID}]
    return c


ONE = extended_claim([("container-0-request-0", CLASS_NAME, 1)], [("container-0-request-0", "instance-1")])
ONE_GPU2 = extended_claim(
    [("container-0-request-1", CLASS_NAME + "2", 1)], [("container-0-request-1", "instance-1")]
)
IMPLICIT_CLAIM = extended_claim(
    [("container-0-request-0", CLASS_NAME, 1), ("container-0-request-1", CLASS_NAME, 2)],
    [("container-0-request-0", "instance-1"), ("container-0-request-1", "instance-2"),
     ("container-0-request-1", "instance-3")],
)
IMPLICIT_TWO_CLAIM = extended_claim(
    [("container-0-request-0", CLASS_NAME, 1), ("container-1-request-0", CLASS_NAME, 2)],
    [("container-0-request-0", "instance-1"), ("container-1-request-0", "instance-2"),
     ("container-1-request-0", "instance-3")],
)
ONE_NODE2 = extended_claim(
    [("container-0-request-0", CLASS_NAME, 1)],
    [("container-0-request-0", "instance-1")],
    node_name=NODE2_NAME,
)


def _gone(m: Manifest) -> None:
    return None


def _allocates(name: str, pod_: Pod, claim: Manifest, *, slices: Sequence[Manifest] = (WORKER_SLICE,),
               classes: Sequence[Manifest] = (CLASS_EXT,), nodes: Sequence[object] | None = None,
               gates: dict[str, bool] | None = None, **want: object) -> Case:
    """The shape of the cases that allocate: the special claim in flight after Reserve, then
    created, allocated and reserved for the pod by PreBind."""
    return Case(
        name,
        pod_,
        classes=list(classes),
        slices=list(slices),
        gates={**ON, **(gates or {})},
        store_pod=True,
        **({"nodes": list(nodes)} if nodes is not None else {}),  # type: ignore[arg-type]
        want=Want(reserve_in_flight=[in_memory(claim)], prebind_added=[reserved(claim)], **want),  # type: ignore[arg-type]
    )


BINDING = {"DRADeviceBindingConditions": True, "DRAResourceClaimDeviceStatus": True}

CASES: list[Case] = [
    Case(
        "empty-with-extended-resources-enabled",
        pod(()),
        gates=ON,
        want=Want(prefilter=(Code.SKIP, ""), postfilter=(U, ""), prebind_pre_flight=(Code.SKIP, "")),
    ),
    Case(
        "extended-resource-name-with-node-resource",
        POD_GPU,
        nodes=[WORKER_WITH_GPU],  # type: ignore[list-item]
        classes=[CLASS_EXT],
        gates={**ON, **BINDING},
    ),
    _allocates(
        "extended-resource-one-device-plugin-one-dra",
        POD_GPU2,
        ONE_GPU2,
        classes=(CLASS_EXT, CLASS_EXT2),
        nodes=[WORKER_WITH_GPU],
        gates=BINDING,
    ),
    _allocates("extended-resource-name-with-zero-allocatable", POD_GPU, ONE, nodes=[WORKER_WITH_ZERO_GPU]),
    Case(
        "non-DRA-extended-resource-name-with-zero-allocatable",
        POD_GPU,
        nodes=[WORKER_WITH_ZERO_GPU],  # type: ignore[list-item]
        classes=[CLASS],
        slices=[WORKER_SLICE],
        gates=ON,
        store_pod=True,
        want=Want(prefilter=(Code.SKIP, ""), prebind_pre_flight=(Code.SKIP, "")),
    ),
    Case(
        "extended-resource-name-no-resource",
        POD_GPU,
        classes=[CLASS_EXT],
        gates=ON,
        want=Want(
            filter={NODE_NAME: (UU, "cannot allocate all claims")}, postfilter=(U, "still not schedulable")
        ),
    ),
    _allocates("extended-resource-name-with-resources", POD_GPU, ONE),
    _allocates("implicit-extended-resource-name-with-resources", POD_IMPLICIT, IMPLICIT_CLAIM,
               slices=(LARGE_SLICE,)),
    _allocates("implicit-extended-resource-name-two-containers-with-resources", POD_IMPLICIT_TWO,
               IMPLICIT_TWO_CLAIM, slices=(LARGE_SLICE,)),
    Case(
        "extended-resource-name-with-resources-fail-patch",
        POD_GPU,
        classes=[CLASS_EXT],
        slices=[WORKER_SLICE],
        gates=ON,
        store_pod=True,
        fail_patch=True,
        want=Want(
            reserve_in_flight=[in_memory(ONE)], prebind_added=[reserved(ONE)], prebind=(U, "patch error")
        ),
    ),
    Case(
        "extended-resource-name-with-resources-has-claim",
        POD_GPU,
        claims=[ONE],
        classes=[CLASS_EXT],
        slices=[WORKER_SLICE],
        gates=ON,
        store_pod=True,
        want=Want(
            filter={NODE_NAME: (UU, "cannot schedule extended resource claim")},
            postfilter=(U, "deletion of ResourceClaim completed"),
            postfilter_claims=_gone,
        ),
    ),
    Case(
        "extended-resource-name-with-resources-delete-claim",
        POD_GPU,
        claims=[ONE_NODE2],
        classes=[CLASS_EXT],
        slices=[WORKER_SLICE],
        gates=ON,
        store_pod=True,
        want=Want(
            filter={NODE_NAME: (UU, "cannot schedule extended resource claim")},
            postfilter=(U, "deletion of ResourceClaim completed"),
            postfilter_claims=_gone,
        ),
    ),
    _allocates("extended-resource-name-bind-failure", POD_GPU, ONE, unreserve_after_bind_failure=_gone),
    Case(
        "extended-resource-name-skip-bind",
        POD_GPU,
        classes=[CLASS_EXT],
        slices=[WORKER_SLICE],
        gates=ON,
        store_pod=True,
        want=Want(reserve_in_flight=[in_memory(ONE)], unreserve_before_prebind=True),
    ),
    Case(
        "extended-resource-name-claim-creation-failure",
        POD_GPU,
        classes=[CLASS_EXT],
        slices=[WORKER_SLICE],
        gates=ON,
        store_pod=True,
        fail_create=True,
        want=Want(
            reserve_in_flight=[in_memory(ONE)],
            prebind=(U, "claim creation errors"),
            unreserve_after_bind_failure=_gone,
        ),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_plugin_extended_resources(case: Case) -> None:
    Run(case).run()
