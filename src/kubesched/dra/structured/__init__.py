"""The structured-parameters allocator (k8s.io/dynamic-resource-allocation/structured)."""

from ._types import (
    FEATURES_ALL,
    AllocatedState,
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
    "FEATURES_ALL",
    "AllocatedState",
    "Allocator",
    "AllocatorError",
    "ConsumedCapacity",
    "ConsumedCapacityCollection",
    "DeviceClassLister",
    "DeviceID",
    "Features",
    "SharedDeviceID",
]
