"""PostFilter deallocates one of the unavailable claims at random, as upstream (Go's map order),
drawn from the scheduler's seeded generator: the same seed picks the same claim."""

from __future__ import annotations

from typing import Any

from kubesched.api import DeviceClass, Node, Pod, ResourceClaim, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.scheduler import Scheduler
from kubesched.testing import make_node

from ._fixtures import allocation, claim, device_class, resource_slice, result


def _pod() -> Pod:
    return Pod.from_dict({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "p-uid"},
        "spec": {"containers": [{"name": "c", "image": "i"}],
                 "resourceClaims": [{"name": "a", "resourceClaimName": "claim-a"},
                                    {"name": "b", "resourceClaimName": "claim-b"}]},
    })


def _first_deallocated(seed: int) -> str:
    """Claims a and b are allocated on different nodes, so no node has both: each is
    unavailable somewhere and reserved for nobody; PostFilter deallocates one of them."""
    clock = VirtualClock()
    store = MemoryStore(clock)
    objs: list[Any] = [DeviceClass.from_dict(device_class())]
    for name, node in (("claim-a", "node-a"), ("claim-b", "node-b")):
        n: Node = make_node().name(node).obj()
        objs += [n, ResourceSlice.from_dict(resource_slice(node)),
                 ResourceClaim.from_dict(claim(name, owner=None,
                                               allocation=allocation(result(pool=node), node_name=node)))]
    store.load([*objs, _pod()])
    sched = Scheduler(store, clock, seed=seed)
    sched.run_until_idle(max_cycles=1)
    freed = [c.meta.name for c in store.list("ResourceClaim") if c.allocation is None]
    assert len(freed) == 1, freed
    return freed[0]


def test_the_deallocated_claim_is_drawn_from_the_seeded_generator() -> None:
    picks = {seed: _first_deallocated(seed) for seed in range(12)}
    assert set(picks.values()) == {"claim-a", "claim-b"}  # not always the first
    assert all(_first_deallocated(seed) == pick for seed, pick in list(picks.items())[:4])
