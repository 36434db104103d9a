"""The structured-parameters allocator (k8s.io/dynamic-resource-allocation/structured).

:func:`new_allocator` builds an allocator over a snapshot (slices, classes, what is allocated
already); its ``allocate(node, claims)`` returns one AllocationResult per claim or ``[]``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...api import Node, NodeSelector, ResourceSlice
from ._allocator import Stats, StructuredAllocator, channel_for, is_device_allocated, tolerates_taint
from ._capacity import insert_consumed, remove_consumed
from ._celcache import CELCache
from ._pools import node_matches as _node_matches
from ._taintrules import TaintRulePatcher, apply_device_taint_rules
from ._types import (
    FEATURES_ALL,
    AllocatedState,
    AllocationFailedOnNodeError,
    Allocator,
    AllocatorError,
    ConsumedCapacity,
    ConsumedCapacityCollection,
    DeviceClassLister,
    DeviceID,
    Features,
    SharedDeviceID,
)

__all__ = [
    "DEFAULT_FEATURES",
    "FEATURES_ALL",
    "AllocatedState",
    "AllocationFailedOnNodeError",
    "Allocator",
    "AllocatorError",
    "CELCache",
    "ConsumedCapacity",
    "ConsumedCapacityCollection",
    "DeviceClassLister",
    "DeviceID",
    "Features",
    "SharedDeviceID",
    "Stats",
    "StructuredAllocator",
    "TaintRulePatcher",
    "apply_device_taint_rules",
    "channel_for",
    "insert_consumed",
    "is_device_allocated",
    "new_allocator",
    "node_matches",
    "remove_consumed",
    "tolerates_taint",
]

DEFAULT_FEATURES = Features(
    admin_access=True,  # DRAAdminAccess: GA
    consumable_capacity=True,  # DRAConsumableCapacity: beta, on
    device_binding_and_status=True,  # DRADeviceBindingConditions and DRAResourceClaimDeviceStatus: on
    device_taints=True,  # DRADeviceTaints: GA
    list_type_attributes=False,  # DRAListTypeAttributes: alpha, off
    partitionable_devices=True,  # DRAPartitionableDevices: beta, on
    prioritized_list=True,  # DRAPrioritizedList: GA
    compatibility_groups=False,  # DRADeviceCompatibilityGroups: alpha, off
)
"""The allocator features of kube-scheduler's default feature gates (pkg/features, 1.37)."""


def new_allocator(
    features: Features,
    allocated_state: AllocatedState,
    class_lister: DeviceClassLister,
    slices: Sequence[ResourceSlice],
    cel_cache: CELCache | None = None,
) -> StructuredAllocator:
    """structured.NewAllocator. One implementation serves every channel (see
    :mod:`._allocator`); ``.channel`` names the one upstream would pick for ``features``.
    Pass one ``cel_cache`` to all allocators of a scheduler so selectors are compiled and
    evaluated once per device."""
    return StructuredAllocator(features, allocated_state, class_lister, slices, cel_cache)


def node_matches(
    features: Features, node: Node | None, node_name: str, all_nodes: bool, node_selector: NodeSelector | None
) -> bool:
    """structured.NodeMatches: whether a slice (or device) with this node selection is
    available on ``node``. Every channel implements it the same way."""
    return _node_matches(node, node_name, all_nodes, node_selector)
