"""The structured allocator's public types (k8s.io/dynamic-resource-allocation/structured).

Mirrors ``structured/allocator.go``'s aliases, ``structured/internal/types.go`` and
``structured/schedulerapi/types.go`` (master 2026): the scheduler's DynamicResources plugin
builds an :class:`AllocatedState` from the claims it knows (allocated and in flight), a
:class:`DeviceClassLister` over the store, and asks an :class:`Allocator` per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from ...api import AllocationResult, DeviceClass, Node, ResourceClaim

__all__ = [
    "FEATURES_ALL",
    "AllocatedState",
    "AllocationFailedOnNodeError",
    "Allocator",
    "AllocatorError",
    "ConsumedCapacity",
    "ConsumedCapacityCollection",
    "DeviceClassLister",
    "DeviceID",
    "Features",
    "SharedDeviceID",
]


@dataclass(frozen=True, slots=True, order=True)
class DeviceID:
    """One device of one pool of one driver (schedulerapi.DeviceID)."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True, slots=True, order=True)
class SharedDeviceID:
    """A device plus the share of it a claim got (schedulerapi.SharedDeviceID); ``share_id``
    is "" for a device that is not shared (DRAConsumableCapacity)."""

    driver: str
    pool: str
    device: str
    share_id: str = ""

    @property
    def device_id(self) -> DeviceID:
        return DeviceID(self.driver, self.pool, self.device)

    def __str__(self) -> str:
        base = f"{self.driver}/{self.pool}/{self.device}"
        return f"{base}/{self.share_id}" if self.share_id else base


ConsumedCapacity = dict[str, Fraction]
"""Capacity name -> amount consumed (schedulerapi.ConsumedCapacity)."""

ConsumedCapacityCollection = dict[DeviceID, ConsumedCapacity]
"""Per device, the capacity consumed by the claims allocated so far."""


@dataclass(slots=True)
class AllocatedState:
    """What is in use already (schedulerapi.AllocatedState): devices allocated to other claims
    (allocated in the store or in flight in the scheduler), their shares, and the aggregated
    capacity consumed on shareable devices."""

    allocated_devices: set[DeviceID] = field(default_factory=set)
    allocated_shared_device_ids: set[SharedDeviceID] = field(default_factory=set)
    aggregated_capacity: ConsumedCapacityCollection = field(default_factory=dict)
    # DRADeviceCompatibilityGroups: per allocated device, the groups its claim's allocation
    # result recorded per counter set (AllocatedCompatibilityGroups).
    allocated_compatibility_groups: dict[DeviceID, dict[str, tuple[str, ...]]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Features:
    """The allocator's feature switches (internal.Features); the scheduler sets them from its
    feature gates (DRAAdminAccess, DRAConsumableCapacity, DRADeviceBindingConditions +
    DRAResourceClaimDeviceStatus, DRADeviceTaints, DRAListTypeAttributes,
    DRAPartitionableDevices, DRAPrioritizedList, DRADeviceCompatibilityGroups)."""

    admin_access: bool = False
    consumable_capacity: bool = False
    device_binding_and_status: bool = False
    device_taints: bool = False
    list_type_attributes: bool = False
    partitionable_devices: bool = False
    prioritized_list: bool = False
    compatibility_groups: bool = False


FEATURES_ALL = Features(True, True, True, True, True, True, True, True)


class DeviceClassLister(Protocol):
    """internal.DeviceClassLister: the classes the claims' requests name."""

    def list(self) -> list[DeviceClass]: ...

    def get(self, name: str) -> DeviceClass | None: ...


class AllocatorError(Exception):
    """A fatal problem with the input (e.g. a CEL selector that fails at runtime, an unknown
    class): upstream's Allocate returns an error and the scheduler reports it instead of trying
    other nodes."""


class AllocationFailedOnNodeError(AllocatorError):
    """Allocation failed on this node only because of invalid pools (upstream's error wrapping
    ErrFailedAllocationOnNode): not fatal, other nodes may still fit; it matters only when
    no node fits."""


class Allocator(Protocol):
    """structured.Allocator: allocation for one node at a time; thread-safe, reusable."""

    def allocate(self, node: Node, claims: Sequence[ResourceClaim]) -> list[AllocationResult]:
        """One AllocationResult per claim (all claims unallocated), or ``[]`` when they
        cannot all be allocated on ``node`` (upstream: nil, nil); raises AllocatorError."""
        ...
