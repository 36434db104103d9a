"""Extended resources backed by DRA inside the scheduler: pods requesting ``example.com/gpu``
(served by a DeviceClass, advertised by no node) get devices through the claim the scheduler
creates; in-flight allocations keep two such pods off the same device; a node advertising the
resource keeps the device plugin's path; a class created later wakes the waiting pod."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import DeviceClass, Node, Pod, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node, make_pod

from ._fixtures import CLASS_NAME, NODE_NAME, device_class, resource_slice

GPU = "example.com/gpu"
FLUSH = 300.0


def _class() -> DeviceClass:
    c = device_class()
    c["spec"]["extendedResourceName"] = GPU
    return DeviceClass.from_dict(c)


def _pod(name: str, gpus: int) -> Pod:
    return make_pod().name(name).uid(name).req({GPU: str(gpus)}, limits={GPU: str(gpus)}).obj()


def _cluster(*objs: Any, devices: int = 2, features: dict[str, bool] | None = None,
             node: Node | None = None, per_node: bool = False) -> tuple[MemoryStore, Scheduler]:
    clock = VirtualClock()
    store = MemoryStore(clock)
    node = node or make_node().name(NODE_NAME).obj()
    slice_ = resource_slice(NODE_NAME, devices=[f"dev-{i}" for i in range(devices)])
    store.load([node, ResourceSlice.from_dict(slice_), *objs])
    options = SchedulerOptions(features=features or {}, per_node_filters=per_node)
    return store, Scheduler(store, clock, options=options)


def _claims(store: MemoryStore) -> dict[str, tuple[str, list[str]]]:
    """Pod name -> (claim name, devices) of the claims the scheduler created."""
    out = {}
    for c in store.list("ResourceClaim"):
        assert c.meta.annotations.get("resource.kubernetes.io/extended-resource-claim") == "true"
        assert c.allocation is not None
        [owner] = c.meta.owner_references
        out[str(owner["name"])] = (c.meta.name, [r.device for r in c.allocation.results])
    return out


@pytest.mark.parametrize("per_node", [False, True], ids=["batch", "per-node"])
def test_pods_get_devices_through_the_claim_the_scheduler_creates(per_node: bool) -> None:
    store, sched = _cluster(_class(), _pod("a", 1), _pod("b", 1), _pod("c", 1), per_node=per_node)
    sched.schedule_pending()  # every cycle before any binding cycle: allocations in flight
    sched.run_until_idle()
    pods = {p.name: p for p in store.list("Pod")}
    assert sorted(p.name for p in pods.values() if p.node_name) == ["a", "b"]
    claims = _claims(store)
    assert sorted(d for _, ds in claims.values() for d in ds) == ["dev-0", "dev-1"]
    for name in ("a", "b"):
        claim_name, _ = claims[name]
        assert claim_name.startswith(f"{name}-extended-resources-") and len(claim_name) == len(name) + 25
        status = pods[name].raw["status"]["extendedResourceClaimStatus"]
        assert status == {
            "resourceClaimName": claim_name,
            "requestMappings": [{"containerName": "con0", "resourceName": GPU,
                                 "requestName": "container-0-request-0"}],
        }
    message = (pods["c"].condition("PodScheduled") or {}).get("message", "")
    assert "cannot allocate all claims" in message


def test_gate_off_leaves_the_resource_to_node_resources_fit() -> None:
    store, sched = _cluster(_class(), _pod("a", 1), features={"DRAExtendedResource": False})
    sched.run_until_idle()
    pod = store.get("Pod", "default", "a")
    assert not pod.node_name
    assert f"Insufficient {GPU}" in (pod.condition("PodScheduled") or {}).get("message", "")
    assert store.list("ResourceClaim") == []


def test_node_advertising_the_resource_uses_the_device_plugin() -> None:
    node = make_node().name(NODE_NAME).capacity({GPU: "4", "cpu": "8", "memory": "8Gi"}).obj()
    store, sched = _cluster(_class(), _pod("a", 3), node=node)
    sched.run_until_idle()
    assert store.get("Pod", "default", "a").node_name == NODE_NAME
    assert store.list("ResourceClaim") == []  # no claim: the device plugin provides it


def test_class_created_later_wakes_the_pod() -> None:
    store, sched = _cluster(_pod("a", 1))
    sched.run_until_idle()
    assert not store.get("Pod", "default", "a").node_name  # Insufficient example.com/gpu
    start = sched.clock.now
    store.create(_class())
    sched.run_until_idle()
    assert store.get("Pod", "default", "a").node_name == NODE_NAME
    assert sched.clock.now - start < FLUSH
    assert CLASS_NAME in {c.meta.name for c in store.list("DeviceClass")}


def test_deleted_pod_frees_its_devices_for_the_next_one() -> None:
    """The resourceclaim controller releases the claim of a pod that is gone (the garbage
    collector deletes it, as it is owned by the pod): the waiting pod gets the device."""
    from kubesched.controllers import ControllerManager

    store, sched = _cluster(_class(), _pod("a", 1), devices=1)
    ControllerManager(store, sched.clock).start()
    sched.run_until_idle()
    assert store.get("Pod", "default", "a").node_name == NODE_NAME
    store.create(_pod("b", 1))
    sched.run_until_idle()
    assert not store.get("Pod", "default", "b").node_name
    start = sched.clock.now
    store.delete("Pod", "default", "a", grace_period_seconds=0)
    sched.run_until_idle()
    assert store.get("Pod", "default", "b").node_name == NODE_NAME
    assert sched.clock.now - start < FLUSH
    assert list(_claims(store)) == ["b"]
