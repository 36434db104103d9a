"""DynamicResources: Dynamic Resource Allocation, not implemented yet; pods with claims refused.

Upstream's plugin (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, master
2026) allocates the devices of a pod's ResourceClaims (``spec.resourceClaims``) from the
ResourceSlices of each node. It is in the default profile since DRA went GA (1.34), before
DefaultPreemption. kubesched does not model ``resource.k8s.io`` yet, and a pod that needs
devices must not be placed as if it needed none. So this placeholder keeps upstream's name,
place in the profile and PreFilter contract:

- PreFilter returns Skip for a pod without claims, as upstream (then Filter does not run for
  it), so every other pod is scheduled exactly as before;
- for a pod with claims PreFilter answers UnschedulableAndUnresolvable with
  :data:`ERR_NOT_IMPLEMENTED`: no node is tried, preemption cannot help, and the aggregated
  FailedScheduling message says why.

Filter (never reached with claims, after that PreFilter) gives the same answer, so a profile
that runs it directly stays safe. No cluster event can help, so none is registered: such a pod
is retried only by the unschedulable-pods flush. Disabling the plugin in a profile (or the
``DynamicResourceAllocation`` feature) schedules such pods ignoring their claims, as upstream
does when the plugin is off.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    BatchFilterResult,
    ClusterEventWithHint,
    Code,
    CycleState,
    NodeBatch,
    PluginArgs,
    PluginBase,
    PreFilterResult,
    Status,
)
from kubesched.plugins.helper import feature_enabled
from kubesched.plugins.names import DYNAMIC_RESOURCES

__all__ = ["ERR_NOT_IMPLEMENTED", "NAME", "DynamicResources"]

NAME = DYNAMIC_RESOURCES
ERR_NOT_IMPLEMENTED = ("pod uses resourceClaims: Dynamic Resource Allocation is not implemented by "
                       "kubesched yet")


class DynamicResources(PluginBase):
    NAME = NAME

    def __init__(self, args: PluginArgs | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        # New: with the DynamicResourceAllocation feature off the plugin does nothing.
        self.enabled = feature_enabled(handle, "DynamicResourceAllocation", True)

    def _refusal(self, pod: Pod) -> Status | None:
        """None for a pod without claims (or when disabled), else UnschedulableAndUnresolvable."""
        if not self.enabled or not pod.resource_claims:
            return None
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NOT_IMPLEMENTED)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        refused = self._refusal(pod)
        return None, refused if refused is not None else Status.skip()

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self._refusal(pod)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        refused = self._refusal(pod)
        if refused is None:
            return BatchFilterResult.all_success(len(nodes))
        return BatchFilterResult.uniform(len(nodes), refused)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []
