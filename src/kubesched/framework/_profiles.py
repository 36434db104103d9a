"""One Framework per profile (pkg/scheduler/profile/profile.go NewMap).

As upstream, the caller hands over the in-tree registry (the scheduler passes
``kubesched.plugins.registry.in_tree_registry``, upstream's NewInTreeRegistry; by default the
one the config was decoded against) and the plugins its own caller adds (upstream's
WithFrameworkOutOfTreeRegistry); the out-of-tree plugins the config named by import path or
entry point are added here. The framework never names a plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._registry import PluginFactory, Registry
from ._runtime import Framework
from .config._types import SchedulerConfig

__all__ = ["new_profile_map", "registry_for"]

Factories = Mapping[str, PluginFactory]


def registry_for(cfg: SchedulerConfig, in_tree: Factories, extra: Factories | None = None) -> Registry:
    """A new Registry: ``in_tree``, then the out-of-tree plugins ``cfg`` named, then ``extra``
    (each replacing an earlier one of the same name)."""
    reg = Registry()
    for name, factory in {**in_tree, **cfg.out_of_tree, **(extra or {})}.items():
        reg[name] = factory
    return reg


def new_profile_map(cfg: SchedulerConfig, in_tree: Factories | None = None, *,
                    registry: Factories | None = None, **deps: Any) -> dict[str, Framework]:
    """schedulerName -> Framework. ``in_tree``: the in-tree registry (None: ``cfg.in_tree``,
    the one ``cfg`` was decoded against); ``registry``: the caller's plugins (see
    :func:`registry_for`); ``deps`` are Framework's keyword arguments (clock, rng, store,
    features, nominator, extenders, snapshot, per_node, observer, ...)."""
    reg = registry_for(cfg, cfg.in_tree if in_tree is None else in_tree, registry)
    deps.setdefault("percentage_of_nodes_to_score", cfg.percentage_of_nodes_to_score)
    return {p.scheduler_name: Framework(p, reg, **deps) for p in cfg.profiles}
