"""The DRA ops of upstream's scheduler_perf: ``createResourceDriver`` and ``allocResourceClaims``.

Mirrors test/integration/scheduler_perf/dra.go (master 2026):

- ``createResourceDriver`` publishes, for each node whose name matches the glob ``nodes``, one
  ResourceSlice of ``driverName`` named after the node, a pool of its own (one slice), with
  ``maxClaimsPerNode`` devices ``instance-<i>`` carrying the attributes and capacity upstream's
  ``resourceSlice`` gives them (model A100, family GPU, driverVersion 1.2.3, numa ``i``, 1Gi of
  memory).
- ``allocResourceClaims`` allocates every unallocated claim of a namespace with the structured
  allocator, trying the nodes in turn and writing the first node's result to the claim's status,
  as the scheduler would have done for pods that ran earlier (upstream's way of starting a
  workload with some devices already in use).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from typing import Any

from ..api import Node, ResourceClaim, ResourceSlice
from ..cluster import status_update
from ..dra.structured import DEFAULT_FEATURES, AllocatorError, CELCache, DeviceID, new_allocator
from ..plugins.dynamicresources import ClassLister, allocation_to_dict, manager_for
from ._config import ConfigError, Op

__all__ = ["alloc_resource_claims", "driver_slices"]


def driver_slices(op: Op, node_names: Sequence[str], binding_conditions: bool = False) -> list[ResourceSlice]:
    """createResourceDriverOp.run: the slices of ``driverName`` for the nodes matching ``nodes``
    (``filepath.Match``; fnmatch's ``*`` also crosses ``/``, which node names never contain).
    With ``binding_conditions`` each device binds to its node and has upstream's binding
    condition ``DeviceAttached`` and failure condition ``AttachmentFailed``."""
    driver = op.get("driverName")
    pattern = op.get("nodes")
    per_node = op.get("maxClaimsPerNode", 0)
    where = f"op {op.index} (createResourceDriver)"
    if not isinstance(driver, str) or not driver:
        raise ConfigError(f"{where}: driverName is required")
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"{where}: nodes (a glob of node names) is required")
    if not isinstance(per_node, int) or isinstance(per_node, bool) or per_node < 0:
        raise ConfigError(f"{where}: maxClaimsPerNode must be a non-negative integer")
    return [ResourceSlice.from_dict(_slice(driver, name, per_node, binding_conditions))
            for name in node_names if fnmatch.fnmatchcase(name, pattern)]


def _slice(driver: str, node: str, capacity: int, binding_conditions: bool = False) -> dict[str, Any]:
    """upstream's resourceSlice(driverName, nodeName, capacity)."""
    binding: dict[str, Any] = {}
    if binding_conditions:
        binding = {"bindsToNode": True, "bindingConditions": ["DeviceAttached"],
                   "bindingFailureConditions": ["AttachmentFailed"]}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": node},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "resourceSliceCount": 1},
            "devices": [{
                "name": f"instance-{i}",
                "attributes": {
                    "model": {"string": "A100"},
                    "family": {"string": "GPU"},
                    "driverVersion": {"version": "1.2.3"},
                    "dra.example.com/numa": {"int": i},
                },
                "capacity": {"memory": {"value": "1Gi"}},
                **binding,
            } for i in range(capacity)],
        },
    }


def alloc_resource_claims(store: Any, namespace: str) -> int:
    """allocResourceClaimsOp.run: allocate each unallocated claim of ``namespace`` on the first
    node (by name) where the allocator finds devices, and write the allocation to its status.
    Returns how many claims were allocated; a claim that fits nowhere is a ConfigError, as
    upstream fails the test.

    Upstream tries the nodes afresh for every claim. Claims with the same spec only ever find
    fewer free devices as claims get allocated, so a node that had no room for one has none
    for the next such claim: the search for the next one resumes where the last one ended (the
    same nodes win, in O(nodes + claims) allocator calls instead of O(nodes x claims))."""
    manager = manager_for(store)
    nodes: list[Node] = sorted(store.list("Node"), key=lambda n: n.name)
    claims: list[ResourceClaim] = sorted(store.list("ResourceClaim", namespace), key=lambda c: c.meta.name)
    state = manager.allocated_state(DEFAULT_FEATURES.consumable_capacity)
    slices = manager.list_slices(DEFAULT_FEATURES.device_taints)
    classes, cel = ClassLister(manager), CELCache()
    allocator = new_allocator(DEFAULT_FEATURES, state, classes, slices, cel)
    resume: dict[str, int] = {}
    done = 0
    for claim in claims:
        if claim.allocation is not None:
            continue
        shape = json.dumps(claim.raw.get("spec"), sort_keys=True)
        start = resume.get(shape, 0)
        for i in range(start, len(nodes)):
            try:
                results = allocator.allocate(nodes[i], [claim])
            except AllocatorError as exc:
                raise ConfigError(f"allocResourceClaims: claim {namespace}/{claim.meta.name}: {exc}") from exc
            if results:
                resume[shape] = i
                allocation = results[0]
                update = status_update(store)
                update(claim.with_changes({("status", "allocation"): allocation_to_dict(allocation)}))
                state.allocated_devices.update(
                    DeviceID(r.driver, r.pool, r.device) for r in allocation.results)
                # A fresh allocator sees the devices just taken (it caches per-pool counters).
                allocator = new_allocator(DEFAULT_FEATURES, state, classes, slices, cel)
                done += 1
                break
        else:
            raise ConfigError(f"allocResourceClaims: could not allocate claim {namespace}/{claim.meta.name} "
                              f"({done + 1} of {len(claims)}) on any node")
    return done
