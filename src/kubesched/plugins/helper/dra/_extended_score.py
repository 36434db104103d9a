"""How much of an extended resource backed by DRA a node has, for the resource scorers
(NodeResourcesFit's strategies, NodeResourcesBalancedAllocation) when ``scoringStrategy``
names such a resource.

Mirrors getDRAPreScoredParams, calculateDRAExtendedResourceAllocatableRequest and
calculateDRAResourceTotals of pkg/scheduler/framework/plugins/noderesources/
resource_allocation.go (master 2026): on a node whose allocatable has none of the resource,
its allocatable is the number of devices of the node matching the serving class, and its
requested amount the number of those already allocated (plus the pod's request, added by the
scorer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kubesched.api import Device, DeviceClass, Node, ResourceSlice
from kubesched.dra.cel import SelectorEvalError
from kubesched.dra.structured import (
    FEATURES_ALL,
    AllocatedState,
    CELCache,
    DeviceID,
    is_device_allocated,
    node_matches,
)

from ._extended import DeviceClassResolver, is_dra_extended_resource_name

__all__ = ["DRAScoreState", "dra_score_state"]


@dataclass(eq=False)
class DRAScoreState:
    """draPreScoreState: the allocated devices and the slices of the cycle, with the resolver;
    ``totals`` answers per node and resource (memoized for the cycle)."""

    resolver: DeviceClassResolver
    allocated: AllocatedState
    slices: Sequence[ResourceSlice]
    cel: CELCache
    _memo: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    def totals(self, node: Node, resource: str) -> tuple[int, int]:
        """calculateDRAExtendedResourceAllocatableRequest without the pod: (devices of the
        class on the node, those allocated); (0, 0) when no class serves the resource or a
        selector fails."""
        key = (node.name, resource)
        hit = self._memo.get(key)
        if hit is None:
            cls = self.resolver.get_device_class(resource)
            hit = (0, 0) if cls is None else self._class_totals(node, cls)
            self._memo[key] = hit
        return hit

    def _class_totals(self, node: Node, cls: DeviceClass) -> tuple[int, int]:
        """calculateDRAResourceTotals."""
        total = allocated = 0
        try:
            compiled = [self.cel.compile(e) for e in cls.selectors]
            if any(c.error is not None for c in compiled):
                return 0, 0
            for s in self.slices:
                if s.per_device_node_selection:
                    devices = [d for d in s.devices if _device_on(d, node)]
                else:
                    if not s.all_nodes and s.node_name != node.name and s.node_selector is not None:
                        if not node_matches(FEATURES_ALL, node, s.node_name or "", s.all_nodes,
                                            s.node_selector):
                            continue
                    elif not s.all_nodes and s.node_name and s.node_name != node.name:
                        continue
                    devices = list(s.devices)
                for d in devices:
                    if not all(self.cel.matches(c, s.driver, d) for c in compiled):
                        continue
                    total += 1
                    if is_device_allocated(DeviceID(s.driver, s.pool.name, d.name), self.allocated):
                        allocated += 1
        except SelectorEvalError:
            return 0, 0  # upstream logs it and leaves the resource out
        return total, allocated


def _device_on(d: Device, node: Node) -> bool:
    """A device of a slice with perDeviceNodeSelection is on ``node``."""
    if d.all_nodes or (d.node_name and d.node_name == node.name):
        return True
    return d.node_selector is not None and node_matches(
        FEATURES_ALL, node, d.node_name or "", bool(d.all_nodes), d.node_selector)


def dra_score_state(resource_names: Sequence[str], resolver: DeviceClassResolver,
                    allocated_of: Callable[[], AllocatedState],
                    slices_of: Callable[[], Sequence[ResourceSlice]], cel: CELCache) -> DRAScoreState | None:
    """getDRAPreScoredParams: None unless some scored resource is served by a class."""
    if not any(is_dra_extended_resource_name(n) and resolver.get_device_class(n) is not None
               for n in resource_names):
        return None
    return DRAScoreState(resolver, allocated_of(), slices_of(), cel)
