"""Device compatibility groups (KEP-5963, DRADeviceCompatibilityGroups) in the allocator.

Devices sharing a counter set may be allocated together only when their declared groups
intersect (or when none declares any); allocated devices count by the groups their claims
recorded; with the gate off, devices declaring groups are not used. Also the slice reader's
validation of ``consumesCounters[].compatibilityGroups`` and the claim status round trip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api import DeviceClass, Node, ResourceClaim, ResourceSlice
from kubesched.cli import app
from kubesched.dra.structured import (
    DEFAULT_FEATURES,
    FEATURES_ALL,
    AllocatedState,
    DeviceID,
    Features,
    new_allocator,
)
from kubesched.plugins.dynamicresources._claims import allocation_to_dict
from kubesched.plugins.helper.dra import PluginFeatures, apply_claim

DRIVER = "gpu.example.com"
MIG_0 = DeviceID(DRIVER, "pool", "mig-0")
NODE = Node.from_dict({"metadata": {"name": "node-1"}})
GPU_CLASS = DeviceClass.from_dict(
    {"metadata": {"name": "gpu"},
     "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})


class _Classes:
    def list(self) -> list[DeviceClass]:
        return [GPU_CLASS]

    def get(self, name: str) -> DeviceClass | None:
        return GPU_CLASS if name == "gpu" else None


def _device(name: str, groups: list[str] | None, counter_set: str = "gpu-0") -> dict[str, Any]:
    consumption: dict[str, Any] = {"counterSet": counter_set, "counters": {"mem": {"value": "1"}}}
    if groups is not None:
        consumption["compatibilityGroups"] = groups
    return {"name": name, "consumesCounters": [consumption]}


def _slices(devices: list[dict[str, Any]]) -> list[ResourceSlice]:
    pool = {"name": "pool", "generation": 1, "resourceSliceCount": 2}
    return [
        ResourceSlice.from_dict({"metadata": {"name": "counters"}, "spec": {
            "driver": DRIVER, "nodeName": "node-1", "pool": pool,
            "sharedCounters": [{"name": cs, "counters": {"mem": {"value": "8"}}}
                               for cs in ("gpu-0", "gpu-1")]}}),
        ResourceSlice.from_dict({"metadata": {"name": "devices"}, "spec": {
            "driver": DRIVER, "nodeName": "node-1", "pool": pool, "devices": devices}}),
    ]


def _claim(name: str, count: int) -> ResourceClaim:
    return ResourceClaim.from_dict({"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": {
        "devices": {"requests": [{"name": "req", "exactly": {"deviceClassName": "gpu", "count": count}}]}}})


def _allocate(devices: list[dict[str, Any]], count: int, features: Features = FEATURES_ALL,
              state: AllocatedState | None = None) -> list[tuple[str, Any]]:
    alloc = new_allocator(features, state or AllocatedState(), _Classes(), _slices(devices))
    out = alloc.allocate(NODE, [_claim("c", count)])
    if not out:
        return []
    return [(r.device, r.compatibility_groups) for r in out[0].results]


def test_gate_is_alpha_and_off_by_default() -> None:
    assert not PluginFeatures.from_gates(None).compatibility_groups
    assert not DEFAULT_FEATURES.compatibility_groups
    on = PluginFeatures.from_gates({"DRADeviceCompatibilityGroups": True})
    assert on.allocator_features().compatibility_groups


def test_devices_with_disjoint_groups_are_not_allocated_together() -> None:
    devices = [_device("mig-0", ["mig"]), _device("vgpu-0", ["vgpu"]), _device("mig-1", ["mig"])]
    # The search backtracks over vgpu-0 (no group in common with mig-0) to mig-1.
    assert _allocate(devices, 2) == [("mig-0", {"gpu-0": ("mig",)}), ("mig-1", {"gpu-0": ("mig",)})]
    assert _allocate(devices[:2], 2) == []


def test_intersection_narrows_with_each_device() -> None:
    devices = [_device("a", ["x", "y"]), _device("b", ["y", "z"]), _device("c", ["x"]), _device("d", ["y"])]
    # a and b leave {y}: c (only x) no longer fits, d does.
    assert [d for d, _ in _allocate(devices, 3)] == ["a", "b", "d"]


def test_devices_without_groups_only_go_with_devices_without_groups() -> None:
    devices = [_device("plain-0", None), _device("mig-0", ["mig"]), _device("plain-1", [])]
    assert [d for d, _ in _allocate(devices, 2)] == ["plain-0", "plain-1"]
    assert _allocate(devices[:2], 2) == []


def test_different_counter_sets_are_never_compared() -> None:
    devices = [_device("mig-0", ["mig"], "gpu-0"), _device("vgpu-1", ["vgpu"], "gpu-1")]
    assert [d for d, _ in _allocate(devices, 2)] == ["mig-0", "vgpu-1"]


def test_allocated_devices_count_by_the_groups_their_claims_recorded() -> None:
    # mig-0 is allocated and its claim recorded "mig"; the slice now says "vgpu" for it.
    devices = [_device("mig-0", ["vgpu"]), _device("vgpu-1", ["vgpu"]), _device("mig-1", ["mig"])]
    state = AllocatedState(allocated_devices={MIG_0},
                           allocated_compatibility_groups={MIG_0: {"gpu-0": ("mig",)}})
    assert [d for d, _ in _allocate(devices, 1, state=state)] == ["mig-1"]
    # Without a recorded entry the allocated device counts as declaring no groups.
    state = AllocatedState(allocated_devices={MIG_0})
    assert _allocate(devices, 1, state=state) == []


def test_gate_off_skips_devices_declaring_groups() -> None:
    off = Features(partitionable_devices=True)
    devices = [_device("mig-0", ["mig"]), _device("plain-0", None)]
    assert _allocate(devices, 1, off) == [("plain-0", None)]
    # ... and devices joining a counter set on which an allocated device recorded groups.
    state = AllocatedState(allocated_devices={MIG_0},
                           allocated_compatibility_groups={MIG_0: {"gpu-0": ("mig",)}})
    assert _allocate(devices, 1, off, state) == []


def test_the_record_round_trips_through_the_claim_status() -> None:
    devices = [_device("mig-0", ["mig", "all"])]
    alloc = new_allocator(FEATURES_ALL, AllocatedState(), _Classes(), _slices(devices))
    result = alloc.allocate(NODE, [_claim("c", 1)])[0]
    status = allocation_to_dict(result)
    assert status["devices"]["results"][0]["compatibilityGroups"] == {"gpu-0": {"groups": ["mig", "all"]}}
    raw = {"metadata": {"name": "c", "namespace": "default", "uid": "c"},
           "spec": {"devices": {"requests": [{"name": "req", "exactly": {"deviceClassName": "gpu"}}]}},
           "status": {"allocation": status}}
    claim = ResourceClaim.from_dict(raw)
    assert claim.allocation is not None
    assert claim.allocation.results[0].compatibility_groups == {"gpu-0": ("mig", "all")}
    state = AllocatedState()
    apply_claim(state, claim, consumable_capacity=True, add=True)
    assert state.allocated_compatibility_groups == {MIG_0: {"gpu-0": ("mig", "all")}}
    apply_claim(state, claim, consumable_capacity=True, add=False)
    assert state.allocated_compatibility_groups == {}


@pytest.mark.parametrize(("groups", "message"), [
    (["a", "b", "c"], "Too many: 3: must have at most 2 items"),
    (["a", "a"], "Duplicate value"),
])
def test_slice_validation(groups: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _slices([_device("d", groups)])


def _docs() -> list[dict[str, Any]]:
    """A node whose GPU exposes a MIG and a vGPU partition (incompatible) and two pods with a
    claim for any partition each."""
    pool = {"name": "pool", "generation": 1, "resourceSliceCount": 2}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
         "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
         "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": pool,
                  "sharedCounters": [{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "devices"},
         "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": pool,
                  "devices": [_device("mig-0", ["mig"]), _device("vgpu-0", ["vgpu"])]}},
    ]
    for name in ("a", "b"):
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": name, "namespace": "default"},
                     "spec": {"devices": {"requests": [
                         {"name": "req", "exactly": {"deviceClassName": "gpu"}}]}}})
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                     "spec": {"containers": [{"name": "c", "image": "i"}],
                              "resourceClaims": [{"name": "gpu", "resourceClaimName": name}]}})
    return docs


@pytest.mark.parametrize(("gates", "scheduled"), [
    (["--feature-gates", "DRADeviceCompatibilityGroups=true"], 1),  # the second pod would mix them
    ([], 0),  # gate off: devices declaring groups are not used
])
def test_simulate_keeps_incompatible_partitions_apart(tmp_path: Path, gates: list[str],
                                                      scheduled: int) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(_docs()))
    result = CliRunner().invoke(app, ["simulate", str(path), "-o", "json", *gates])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["scheduled"] == scheduled
