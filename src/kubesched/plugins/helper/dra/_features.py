"""The DRA feature gates the plugin reads, with newest upstream's defaults.

pkg/features/kube_features.go (master 2026, the 1.37 line): DynamicResourceAllocation is GA;
DRAAdminAccess, DRAPrioritizedList, DRADeviceTaints, DRADeviceTaintRules,
DRAResourceClaimDeviceStatus are GA or beta and on; DRAPartitionableDevices,
DRAConsumableCapacity and DRADeviceBindingConditions are beta and on; DRAListTypeAttributes and
DRAPreemption (KEP-5690, new in 1.37) and DRADeviceCompatibilityGroups (KEP-5963, new in 1.37)
are alpha and off; DRAExtendedResource (KEP-5004) is GA and
on (upstream locks it on; here it can still be turned off, as upstream's own tests do).
``allocator_features`` is upstream's ``AllocatorFeatures``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kubesched.dra.structured import Features

__all__ = ["DRA_GATE_DEFAULTS", "PluginFeatures"]

DRA_GATE_DEFAULTS: Final[Mapping[str, bool]] = {
    "DynamicResourceAllocation": True,
    "DRAAdminAccess": True,
    "DRAPrioritizedList": True,
    "DRAPartitionableDevices": True,
    "DRADeviceTaints": True,
    "DRADeviceTaintRules": True,
    "DRAConsumableCapacity": True,
    "DRADeviceBindingConditions": True,
    "DRAResourceClaimDeviceStatus": True,
    "DRAListTypeAttributes": False,
    "DRAPreemption": False,
    "DRAExtendedResource": True,
    "DRADeviceCompatibilityGroups": False,
}


@dataclass(frozen=True, slots=True)
class PluginFeatures:
    """feature.Features, the DRA part."""

    enabled: bool = True
    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    device_taint_rules: bool = True
    consumable_capacity: bool = True
    device_binding_conditions: bool = True
    device_status: bool = True
    list_type_attributes: bool = False
    preemption: bool = False
    extended_resource: bool = True
    compatibility_groups: bool = False

    @staticmethod
    def from_gates(gates: Mapping[str, bool] | None) -> PluginFeatures:
        g: dict[str, Any] = {**DRA_GATE_DEFAULTS, **(gates or {})}
        return PluginFeatures(
            enabled=bool(g["DynamicResourceAllocation"]),
            admin_access=bool(g["DRAAdminAccess"]),
            prioritized_list=bool(g["DRAPrioritizedList"]),
            partitionable_devices=bool(g["DRAPartitionableDevices"]),
            device_taints=bool(g["DRADeviceTaints"]),
            device_taint_rules=bool(g["DRADeviceTaintRules"]),
            consumable_capacity=bool(g["DRAConsumableCapacity"]),
            device_binding_conditions=bool(g["DRADeviceBindingConditions"]),
            device_status=bool(g["DRAResourceClaimDeviceStatus"]),
            list_type_attributes=bool(g["DRAListTypeAttributes"]),
            preemption=bool(g["DRAPreemption"]),
            extended_resource=bool(g["DRAExtendedResource"]),
            compatibility_groups=bool(g["DRADeviceCompatibilityGroups"]),
        )

    @property
    def binding_and_status(self) -> bool:
        return self.device_binding_conditions and self.device_status

    def allocator_features(self) -> Features:
        """AllocatorFeatures."""
        return Features(
            admin_access=self.admin_access,
            consumable_capacity=self.consumable_capacity,
            device_binding_and_status=self.binding_and_status,
            device_taints=self.device_taints,
            list_type_attributes=self.list_type_attributes,
            partitionable_devices=self.partitionable_devices,
            prioritized_list=self.prioritized_list,
            compatibility_groups=self.compatibility_groups,
        )
