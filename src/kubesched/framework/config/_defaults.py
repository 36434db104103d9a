"""Upstream's default plugin set and how a profile's plugins are merged into it.

Mirrors pkg/scheduler/apis/config/v1/default_plugins.go (master 2026): getDefaultPlugins lists
every default plugin under ``multiPoint`` with its weight; mergePluginSet overlays a profile's
sets on the defaults. Differences from upstream's list, on purpose:

- EBSLimits, GCEPDLimits, AzureDiskLimits: removed upstream (in-tree volume limits migrated to
  NodeVolumeLimits/CSI); absent here as in the newest upstream.
- None otherwise: DynamicResources is inserted before DefaultPreemption while the
  DynamicResourceAllocation gate is on (GA, on by default since 1.34), as upstream's
  applyFeatureGates does; ``{"DynamicResourceAllocation": False}`` leaves it out.
  GangScheduling is appended while the GenericWorkload and GangScheduling gates are both on
  (both alpha, off by default), as upstream's applyGangScheduling does.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...plugins import names
from .._features import gang_scheduling_enabled
from ._types import PLUGIN_SET_FIELDS, PluginRef, Plugins, PluginSet

__all__ = ["default_plugins", "merge_plugin_set", "merge_plugins"]

_DEFAULT_MULTI_POINT: tuple[PluginRef, ...] = (
    PluginRef(names.SCHEDULING_GATES),
    PluginRef(names.PRIORITY_SORT),
    PluginRef(names.NODE_UNSCHEDULABLE),
    PluginRef(names.NODE_NAME),
    PluginRef(names.TAINT_TOLERATION, 3),
    PluginRef(names.NODE_AFFINITY, 2),
    PluginRef(names.NODE_PORTS),
    PluginRef(names.NODE_RESOURCES_FIT, 1),
    PluginRef(names.VOLUME_RESTRICTIONS),
    PluginRef(names.NODE_VOLUME_LIMITS),
    PluginRef(names.VOLUME_BINDING),
    PluginRef(names.VOLUME_ZONE),
    PluginRef(names.POD_TOPOLOGY_SPREAD, 2),
    PluginRef(names.INTER_POD_AFFINITY, 2),
    PluginRef(names.DEFAULT_PREEMPTION),
    PluginRef(names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    PluginRef(names.IMAGE_LOCALITY, 1),
    PluginRef(names.DEFAULT_BINDER),
)


def default_plugins(features: Mapping[str, bool] | None = None) -> Plugins:
    """getDefaultPlugins + applyFeatureGates."""
    enabled = list(_DEFAULT_MULTI_POINT)
    if (features or {}).get("DynamicResourceAllocation", True):
        i = next(i for i, p in enumerate(enabled) if p.name == names.DEFAULT_PREEMPTION)
        enabled.insert(i, PluginRef(names.DYNAMIC_RESOURCES))
    if gang_scheduling_enabled(features):
        enabled.append(PluginRef(names.GANG_SCHEDULING))  # applyGangScheduling: appended
    return Plugins(multi_point=PluginSet(enabled=tuple(enabled)))


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: custom disabled (and "*") removes defaults; a custom entry with a default's
    name replaces it in place (keeping the default order); other custom entries are appended
    (duplicates too: the runtime rejects them later, as upstream)."""
    disabled = [PluginRef(p.name) for p in custom.disabled] + [PluginRef(p.name) for p in default.disabled]
    disabled_names = {p.name for p in disabled}
    custom_index = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for p in default.enabled:
            if p.name in disabled_names:
                continue
            hit = custom_index.get(p.name)
            if hit is not None:
                p = hit[1]
                replaced.add(hit[0])
            enabled.append(p)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled=tuple(enabled), disabled=tuple(disabled))


def merge_plugins(default: Plugins, custom: Plugins | None) -> Plugins:
    """mergePlugins: every set, multiPoint included, merged independently."""
    if custom is None:
        return default
    merged = {f: merge_plugin_set(getattr(default, f), getattr(custom, f))
              for f in PLUGIN_SET_FIELDS.values()}
    return Plugins(**merged)
