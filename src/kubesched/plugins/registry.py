"""The in-tree plugin registry: plugin name -> plugin class.

Mirrors pkg/scheduler/framework/plugins/registry.go (NewInTreeRegistry). Plugin packages are
imported lazily, when a registry is built, and defensively: a package that is missing or does
not import leaves its plugin out of the registry (a profile naming it then fails with upstream's
``... does not exist``) instead of breaking ``import kubesched``. Feature flags are an argument,
never a global. DynamicResources (DRA, on by default upstream since 1.34) is registered like
every other plugin.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ..framework import Registry
from . import names

__all__ = ["IN_TREE_PLUGINS", "in_tree_names", "in_tree_registry", "missing_in_tree"]

IN_TREE_PLUGINS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # (plugin name, candidate modules under kubesched.plugins, upstream package name first)
    (names.PRIORITY_SORT, ("queuesort", "prioritysort")),
    (names.SCHEDULING_GATES, ("schedulinggates",)),
    (names.NODE_UNSCHEDULABLE, ("nodeunschedulable",)),
    (names.NODE_NAME, ("nodename",)),
    (names.TAINT_TOLERATION, ("tainttoleration",)),
    (names.NODE_AFFINITY, ("nodeaffinity",)),
    (names.NODE_PORTS, ("nodeports",)),
    (names.NODE_RESOURCES_FIT, ("noderesources",)),
    (names.NODE_RESOURCES_BALANCED_ALLOCATION, ("noderesources",)),
    (names.IMAGE_LOCALITY, ("imagelocality",)),
    (names.INTER_POD_AFFINITY, ("interpodaffinity",)),
    (names.POD_TOPOLOGY_SPREAD, ("podtopologyspread",)),
    (names.VOLUME_RESTRICTIONS, ("volumerestrictions",)),
    (names.NODE_VOLUME_LIMITS, ("nodevolumelimits",)),
    (names.VOLUME_BINDING, ("volumebinding",)),
    (names.VOLUME_ZONE, ("volumezone",)),
    (names.DYNAMIC_RESOURCES, ("dynamicresources",)),
    (names.DEFAULT_PREEMPTION, ("defaultpreemption",)),
    (names.DEFAULT_BINDER, ("defaultbinder",)),
    (names.GANG_SCHEDULING, ("gangscheduling",)),
)


def in_tree_names() -> frozenset[str]:
    return frozenset(n for n, _ in IN_TREE_PLUGINS)


def _find_class(plugin: str, modules: tuple[str, ...]) -> Any | None:
    for mod_name in modules:
        try:
            mod = importlib.import_module(f"{__package__}.{mod_name}")
        except ImportError:
            continue
        exported = getattr(mod, "__all__", None) or dir(mod)
        for attr in exported:
            obj = getattr(mod, attr, None)
            if isinstance(obj, type) and getattr(obj, "NAME", None) == plugin:
                return obj
    return None


def in_tree_registry(features: Mapping[str, bool] | None = None) -> Registry:
    """A fresh registry of every in-tree plugin whose package imports.

    ``features`` is accepted for parity with upstream's NewInTreeRegistry (which passes feature
    flags to factories); factories here receive them through the handle."""
    del features
    reg = Registry()
    for plugin, modules in IN_TREE_PLUGINS:
        cls = _find_class(plugin, modules)
        if cls is not None:
            reg.register(plugin, cls)
    return reg


def missing_in_tree() -> list[str]:
    """In-tree plugin names with no importable implementation (for ``validate`` diagnostics)."""
    reg = in_tree_registry()
    return [n for n, _ in IN_TREE_PLUGINS if n not in reg]
