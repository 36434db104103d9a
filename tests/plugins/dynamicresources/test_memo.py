"""The batch Filter path asks the allocator again only on nodes whose inputs changed since
the last cycle (the node's pools gained or lost an allocated device, a slice, a class or the
node changed); the per-node path asks it on every node, as upstream does."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import DeviceClass, ResourceClaimTemplate, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager
from kubesched.dra.structured import _allocator
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node

from ._fixtures import device_class, resource_slice
from .test_properties import _pod, _template

NODES = 12


def _schedule(pods: int, per_node: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int]:
    calls = 0
    real = _allocator.StructuredAllocator.allocate

    def counting(self: Any, node: Any, claims: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(self, node, claims)

    monkeypatch.setattr(_allocator.StructuredAllocator, "allocate", counting)
    clock = VirtualClock()
    store = MemoryStore(clock)
    objs: list[Any] = [DeviceClass.from_dict(device_class()), ResourceClaimTemplate.from_dict(_template(1))]
    for n in range(NODES):
        objs.append(make_node().name(f"n{n}").obj())
        objs.append(ResourceSlice.from_dict(resource_slice(f"n{n}", devices=["d0", "d1"])))
    store.load(objs)
    sched = Scheduler(store, clock, seed=1, options=SchedulerOptions(per_node_filters=per_node))
    mgr = ControllerManager(store, clock, seed=1)
    mgr.start()
    for i in range(pods):
        store.create(_pod(i, 1))
        sched.run_until_idle(until=clock.now + 10)
    placed = [p.node_name or "" for p in sorted(store.list("Pod"), key=lambda p: int(p.name[1:]))]
    mgr.close()
    sched.close()
    return placed, calls


def test_batch_path_allocates_again_only_where_a_device_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    placed, calls = _schedule(8, per_node=False, monkeypatch=monkeypatch)
    per_node_placed, per_node_calls = _schedule(8, per_node=True, monkeypatch=monkeypatch)
    assert placed == per_node_placed and all(placed)
    assert per_node_calls == 8 * NODES  # upstream: Allocate on every node Filter visits
    # The first pod asks every node; each later one only the node the previous pod took.
    assert calls == NODES + 7


def test_allocated_devices_follow_the_store_without_listing_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    """allocateddevices.go: the stored claims' devices are kept from the store's changes; the
    scheduler lists the claims once, not in every cycle, and always sees what a full gather
    sees (claims allocated, deallocated when their pod goes, deleted)."""
    from kubesched.plugins.helper.dra import manager_for

    lists = 0
    real_list = MemoryStore.list

    def counting_list(self: MemoryStore, kind: str, namespace: str | None = None) -> Any:
        nonlocal lists
        lists += kind == "ResourceClaim"
        return real_list(self, kind, namespace)

    clock = VirtualClock()
    store = MemoryStore(clock)
    objs: list[Any] = [DeviceClass.from_dict(device_class()), ResourceClaimTemplate.from_dict(_template(1))]
    for n in range(3):
        objs.append(make_node().name(f"n{n}").obj())
        objs.append(ResourceSlice.from_dict(resource_slice(f"n{n}", devices=["d0", "d1"])))
    store.load(objs)
    sched = Scheduler(store, clock, seed=1)
    mgr = ControllerManager(store, clock, seed=1)
    mgr.start()
    manager = manager_for(store)
    monkeypatch.setattr(MemoryStore, "list", counting_list)
    in_cycles = 0
    for i in range(5):
        store.create(_pod(i, 1))
        before = lists
        sched.run_until_idle(until=clock.now + 10)
        in_cycles += lists - before
        assert manager.allocated_state(True) == manager._gather(True)
    assert in_cycles <= 2  # the controller's owner index once, the scheduler's first sync once
    assert len(manager.allocated_state(True).allocated_devices) == 5
    monkeypatch.setattr(MemoryStore, "list", real_list)
    store.delete("Pod", "default", "p0", grace_period_seconds=0)
    sched.run_until_idle(until=clock.now + 10)
    assert manager.allocated_state(True) == manager._gather(True)
    assert len(manager.allocated_state(True).allocated_devices) == 4
    mgr.close()
    sched.close()
