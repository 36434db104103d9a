"""The DRA feature gates the plugin reads, with newest upstream's defaults.

pkg/features/kube_features.go (master 2026, the 1.37 line): DynamicResourceAllocation is GA;
DRAAdminAccess, DRAPrioritizedList, DRADeviceTaints, DRADeviceTaintRules,
DRAResourceClaimDeviceStatus are GA or beta and on; DRAPartitionableDevices,
DRAConsumableCapacity and DRADeviceBindingConditions are beta and on; DRAListTypeAttributes and
DRAPreemption (KEP-5690, new in 1.37) and DRADeviceCompatibilityGroups (KEP-5963, new in 1.37)
are alpha and off; DRAExtendedResource (KEP-5004) is GA and
on (upstream locks it on; here it can still be turned off, as upstream's own tests do).
``allocator_features`` is upstream's ``AllocatorFeatures``.

DeviceTaintRules: applied under the gates their informer starts under in the release
(``KINDS["DeviceTaintRule"].gates_for``), and selecting by class and CEL too where the release
still has those fields (:data:`DEVICE_TAINT_RULES_OWN_GATE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kubesched.api import KubeVersion
from kubesched.api.loader import KINDS
from kubesched.dra.structured import Features
from kubesched.framework import ReleaseSwitch

__all__ = ["DEVICE_TAINT_RULES_OWN_GATE", "DRA_GATE_DEFAULTS", "PluginFeatures"]

DEVICE_TAINT_RULES_OWN_GATE = ReleaseSwitch(
    "DeviceTaintRulesOwnGate", KubeVersion(1, 35), 134152,
    "DeviceTaintRules are applied under their own gate DRADeviceTaintRules and select by driver, "
    "pool and device only; before (1.33, 1.34, kubernetes#130447), under DRADeviceTaints, and also "
    "by deviceSelector.deviceClassName and CEL deviceSelector.selectors")
"""kubernetes PR #134152 (v1.35): the ResourceSlice tracker of 1.33/1.34 ran under
DRADeviceTaints and its applyPatches also matched a rule's DeviceClass selectors and its own
CEL selectors; 1.35 gave rules the DRADeviceTaintRules gate and removed both fields."""

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
    device_taint_rule_class_and_cel: bool = False
    """DeviceTaintRules also select by deviceClassName and CEL selectors (1.33, 1.34)."""

    @staticmethod
    def from_gates(gates: Mapping[str, bool] | None, release: KubeVersion | None = None) -> PluginFeatures:
        """The features of ``gates`` in ``release`` (None: the newest)."""
        g: dict[str, Any] = {**DRA_GATE_DEFAULTS, **(gates or {})}
        own_gate = release is None or DEVICE_TAINT_RULES_OWN_GATE.on(release)
        rule_gates = KINDS["DeviceTaintRule"].gates if release is None \
            else KINDS["DeviceTaintRule"].gates_for(release)
        return PluginFeatures(
            enabled=bool(g["DynamicResourceAllocation"]),
            admin_access=bool(g["DRAAdminAccess"]),
            prioritized_list=bool(g["DRAPrioritizedList"]),
            partitionable_devices=bool(g["DRAPartitionableDevices"]),
            device_taints=bool(g["DRADeviceTaints"]),
            device_taint_rules=all(bool(g.get(name, False)) for name in rule_gates),
            consumable_capacity=bool(g["DRAConsumableCapacity"]),
            device_binding_conditions=bool(g["DRADeviceBindingConditions"]),
            device_status=bool(g["DRAResourceClaimDeviceStatus"]),
            list_type_attributes=bool(g["DRAListTypeAttributes"]),
            preemption=bool(g["DRAPreemption"]),
            extended_resource=bool(g["DRAExtendedResource"]),
            compatibility_groups=bool(g["DRADeviceCompatibilityGroups"]),
            device_taint_rule_class_and_cel=not own_gate,
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
