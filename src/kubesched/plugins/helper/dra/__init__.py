"""What DynamicResources shares with NodeResourcesFit and NodeResourcesBalancedAllocation: the
scheduler's DRA manager (upstream's SharedDRAManager, pkg/scheduler/framework/plugins/
dynamicresources/dra_manager.go, handed to every plugin through the framework handle), the
plugin's feature switches, and extended resources backed by DRA (KEP-5004,
DRAExtendedResource): which names a DeviceClass serves, and how the resource scorers count
the devices behind them.

It lives here, not in ``dynamicresources``, so that the plugin packages stay independent of
each other (the import-linter contract in pyproject.toml): each plugin reads this package."""

from ._allocated import apply_claim
from ._extended import (
    DEVICE_CLASS_PREFIX,
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    DeviceClassResolver,
    ExtendedRequests,
    ExtendedState,
    claim_with_changes,
    filter_extended_resources,
    generated_claim_name,
    is_dra_extended_resource_name,
    is_special_claim_name,
    pre_filter_extended_resources,
)
from ._extended_score import dra_score_state
from ._features import DEVICE_TAINT_RULES_OWN_GATE, PluginFeatures
from ._manager import ClassLister, DRAManager, JournalPosition, manager_for

__all__ = [
    "DEVICE_CLASS_PREFIX",
    "DEVICE_TAINT_RULES_OWN_GATE",
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "ClassLister",
    "DRAManager",
    "DeviceClassResolver",
    "ExtendedRequests",
    "ExtendedState",
    "JournalPosition",
    "PluginFeatures",
    "apply_claim",
    "claim_with_changes",
    "dra_score_state",
    "filter_extended_resources",
    "generated_claim_name",
    "is_dra_extended_resource_name",
    "is_special_claim_name",
    "manager_for",
    "pre_filter_extended_resources",
]
