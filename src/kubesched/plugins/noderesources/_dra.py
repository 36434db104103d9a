"""The resource scorers' view of extended resources backed by DRA (DRAExtendedResource):
getDRAPreScoredParams of pkg/scheduler/framework/plugins/noderesources/resource_allocation.go
(master 2026), shared by NodeResourcesFit and NodeResourcesBalancedAllocation."""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.dra.cel import Features as CELFeatures
from kubesched.dra.structured import CELCache
from kubesched.framework import Handle
from kubesched.plugins.helper import feature_enabled
from kubesched.plugins.helper.dra import (
    PluginFeatures,
    dra_score_state,
    is_dra_extended_resource_name,
    manager_for,
)

from ._args import ResourceSpec
from .resource_allocation import DRATotals

__all__ = ["DRAScoring"]


class DRAScoring:
    """One plugin's scoring of DRA-backed resources: nothing to do unless the gate is on and
    ``scoringStrategy.resources`` names an extended resource a class serves; then, per
    cycle, the devices of each node counted over the slices and the allocated devices."""

    def __init__(self, handle: Handle | None, resources: Sequence[ResourceSpec]) -> None:
        self.enabled = feature_enabled(handle, "DRAExtendedResource", True)
        self.store = handle.store if handle is not None else None
        self.names = [r.name for r in resources]
        self.candidate = self.enabled and any(is_dra_extended_resource_name(n) for n in self.names)
        self.fts = PluginFeatures.from_gates(handle.features if handle is not None else None,
                                            handle.kube_version if handle is not None else None)
        self._cel: CELCache | None = None

    def pre_score(self) -> DRATotals | None:
        """getDRAPreScoredParams, as the per-node ``(allocatable, allocated)`` answer."""
        if not self.candidate:
            return None
        if self._cel is None:  # upstream: cel.NewCache(10) per scorer
            self._cel = CELCache(CELFeatures(consumable_capacity=self.fts.consumable_capacity))
        mgr = manager_for(self.store)
        state = dra_score_state(self.names, mgr.device_class_resolver(),
                                lambda: mgr.allocated_state(self.fts.consumable_capacity),
                                lambda: mgr.list_slices(self.fts.device_taint_rules,
                                                        self.fts.device_taint_rule_class_and_cel),
                                self._cel)
        return state.totals if state is not None else None
