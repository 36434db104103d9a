"""Scoring extended resources backed by DRA (DRAExtendedResource): upstream's
TestCalculateResourceAllocatableRequest cases about them (resource_allocation_test.go, master
2026, with upstream's names) through NodeResourcesFit's scorer, and a scored resource changing
the node picked."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import DeviceClass, Node, ResourceClaim, ResourceSlice
from kubesched.cache import NodeInfo
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.plugins.noderesources import Fit, NodeResourcesFitArgs
from kubesched.testing import make_node

from .._harness import FakeHandle

NODE = "node-1"
DRIVER = "test-driver"
CLASS = "device-class-name"
EXPLICIT = "extended.resource.dra.io/something"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"


def _class(extended: str | None = EXPLICIT, selectors: tuple[str, ...] = ()) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if extended is not None:
        spec["extendedResourceName"] = extended
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": CLASS},
            "spec": spec}


def _slice(*devices: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{NODE}-{DRIVER}"},
        "spec": {"driver": DRIVER, "nodeName": NODE,
                 "pool": {"name": NODE, "generation": 0, "resourceSliceCount": 1},
                 "devices": [{"name": d} for d in devices]},
    }


def _claim(name: str, device: str, pool: str = NODE, share: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"request": "req-1", "driver": DRIVER, "pool": pool, "device": device}
    if share is not None:
        result["shareID"] = share
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": CLASS}}]}},
        "status": {"allocation": {"devices": {"results": [result]}}},
    }


PER_DEVICE_SLICE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "per-device-slice"},
    "spec": {
        "driver": DRIVER, "perDeviceNodeSelection": True,
        "pool": {"name": "per-device-pool", "generation": 0, "resourceSliceCount": 1},
        "devices": [
            {"name": "device-1", "nodeName": NODE, "attributes": {"model": {"string": "SOME-XYZ"}},
             "capacity": {"memory": {"value": "16Gi"}}},
            {"name": "device-2", "nodeName": "other-node", "attributes": {"model": {"string": "SOME-ZYX"}},
             "capacity": {"memory": {"value": "12Gi"}}},
            {"name": "device-3", "allNodes": True, "attributes": {"model": {"string": "SOME-XZY"}},
             "capacity": {"memory": {"value": "24Gi"}}},
        ],
    },
}
GPU_SELECTOR = (f'device.driver == "{DRIVER}" && '
                f'device.capacity["{DRIVER}"].memory.compareTo(quantity("8Gi")) >= 0 && '
                f'device.attributes["{DRIVER}"].model.startsWith("SOME-")')

ONE = _slice("device-1")
TWO = _slice("device-1", "device-2")
THREE = _slice("device-1", "device-2", "device-3")
CASES = [
    pytest.param(False, {EXPLICIT: "4"}, EXPLICIT, [], (4, 1), id="device-plugin-resource-feature-disabled"),
    pytest.param(True, {EXPLICIT: "4"}, EXPLICIT, [], (4, 1), id="device-plugin-resource-feature-enabled"),
    pytest.param(True, None, EXPLICIT, [_class(), ONE], (1, 1), id="DRA-backed-resource-explicit"),
    pytest.param(True, None, IMPLICIT, [_class(None), ONE], (1, 1), id="DRA-backed-resource-implicit"),
    pytest.param(True, None, EXPLICIT, [_class()], (0, 0), id="DRA-backed-resource-no-slices"),
    pytest.param(True, None, EXPLICIT, [_class(), TWO, _claim("test-claim", "device-1")],
                 (2, 2), id="DRA-backed-resource-with-allocated-device"),
    pytest.param(True, None, EXPLICIT, [_class(), TWO, _claim("test-claim", "device-1", share="share-123")],
                 (2, 2), id="DRA-backed-resource-with-shared-device-allocation"),
    pytest.param(True, None, EXPLICIT,
                 [_class(), THREE, _claim("test-claim-1", "device-1"),
                  _claim("test-claim-2", "device-2", share="share-456")],
                 (3, 3), id="DRA-backed-resource-multiple-devices-mixed-allocation"),
    pytest.param(True, None, EXPLICIT,
                 [_class(selectors=(GPU_SELECTOR,)), PER_DEVICE_SLICE,
                  _claim("test-claim", "device-1", pool="per-device-pool")],
                 (2, 2), id="DRA-backed-resource-with-per-device-node-selection"),
]

_KINDS = {"DeviceClass": DeviceClass, "ResourceSlice": ResourceSlice, "ResourceClaim": ResourceClaim}


def _fit(enabled: bool, resource: str, objects: list[dict[str, Any]]) -> Fit:
    store = MemoryStore(VirtualClock())
    store.load([_KINDS[o["kind"]].from_dict(o) for o in objects])  # type: ignore[attr-defined]
    args = NodeResourcesFitArgs.from_dict({"scoringStrategy": {
        "type": "LeastAllocated", "resources": [{"name": resource, "weight": 1}]}})
    return Fit(args, FakeHandle(store=store, features={"DRAExtendedResource": enabled}))


@pytest.mark.parametrize(("enabled", "capacity", "resource", "objects", "want"), CASES)
def test_calculate_resource_allocatable_request(enabled: bool, capacity: dict[str, str] | None, resource: str,
                                                objects: list[dict[str, Any]], want: tuple[int, int]) -> None:
    """calculateResourceAllocatableRequest: (allocatable, requested with the pod's 1)."""
    b = make_node().name(NODE)
    node: Node = (b.capacity(capacity) if capacity else b).obj()
    fit = _fit(enabled, resource, objects)
    usage = fit.scorer.usage_of(NodeInfo.of(node), (1,), fit.dra_scoring.pre_score())
    allocatable = int(usage.allocatable[0, 0])
    got = (allocatable, int(usage.usage[0, 0, 0]) if allocatable else 0)
    assert got == want


def test_scored_dra_resource_prefers_the_emptier_node() -> None:
    """LeastAllocated over example.com/gpu: the node with more free devices scores higher, on
    the per-node and the batch path alike."""
    from kubesched.framework import CycleState, NodeBatch
    from kubesched.testing import make_pod, snapshot_of

    slices = [dict(_slice("d0", "d1", "d2", "d3"))]
    other = _slice("d0", "d1", "d2", "d3")
    other["metadata"]["name"] = "node-2-slice"
    other["spec"].update({"nodeName": "node-2", "pool": {"name": "node-2", "generation": 0,
                                                          "resourceSliceCount": 1}})
    objects = [_class(), *slices, other, _claim("c1", "d0"), _claim("c2", "d1"), _claim("c3", "d2")]
    fit = _fit(True, EXPLICIT, objects)
    pod = make_pod().name("p").req({EXPLICIT: "1"}, limits={EXPLICIT: "1"}).obj()
    snap = snapshot_of([make_node().name(NODE).obj(), make_node().name("node-2").obj()])
    state = CycleState()
    fit.pre_score(state, pod, snap.node_info_list)
    per_node = [fit.score(state, pod, ni)[0] for ni in snap.node_info_list]
    batch, _ = fit.score_batch(state, pod, NodeBatch.all(snap))
    # node-1: 3 of 4 used, with the pod 4 -> 0; node-2: 1 of 4 -> (4-1)*100/4 = 75
    assert per_node == batch.tolist() == [0, 75]
