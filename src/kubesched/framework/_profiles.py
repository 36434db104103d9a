"""One Framework per profile (pkg/scheduler/profile/profile.go NewMap).

The registry a config runs with is the in-tree one, plus the out-of-tree plugins the config
named by import path or entry point, plus any the caller adds (upstream's app.WithPlugin).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._registry import Registry
from ._runtime import Framework
from .config._types import SchedulerConfig

__all__ = ["new_profile_map", "registry_for"]


def registry_for(cfg: SchedulerConfig, extra: Mapping[str, Callable[[Any, Any], Any]] | None = None,
                 features: Mapping[str, bool] | None = None) -> Registry:
    from ..plugins.registry import in_tree_registry

    reg = in_tree_registry(features)
    for name, factory in {**cfg.out_of_tree, **(extra or {})}.items():
        reg[name] = factory
    return reg


def new_profile_map(cfg: SchedulerConfig, *, registry: Mapping[str, Callable[[Any, Any], Any]] | None = None,
                    **deps: Any) -> dict[str, Framework]:
    """schedulerName -> Framework. ``deps`` are Framework's keyword arguments (clock, rng,
    store, features, nominator, extenders, snapshot, per_node, observer, ...)."""
    reg = registry_for(cfg, registry, deps.get("features"))
    deps.setdefault("percentage_of_nodes_to_score", cfg.percentage_of_nodes_to_score)
    return {p.scheduler_name: Framework(p, reg, **deps) for p in cfg.profiles}
