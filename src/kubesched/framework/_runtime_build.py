"""Building a profile's plugin lists: instantiate, place per extension point, weigh.

Mirrors NewFramework in pkg/scheduler/framework/runtime/framework.go (master 2026):
only the plugins a profile names are built (each with its pluginConfig args and the handle);
updatePluginList places explicitly enabled plugins; expandMultiPointPlugins adds multiPoint
plugins to every point they implement, unless disabled there or overridden by the point's own
entry; the profile must end with exactly one QueueSort and at least one Bind plugin; Score
weights come from the Score set first, then multiPoint, 0 meaning 1, and their total times
MaxNodeScore must not overflow int64.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._extension_points import EXTENSION_POINT_BY_KEY, EXTENSION_POINTS
from ._interface import MAX_NODE_SCORE, MAX_TOTAL_SCORE
from ._registry import PluginFactory
from .config._types import PluginRef, Profile

if TYPE_CHECKING:
    from ._handle import Handle

__all__ = ["FrameworkBuildError", "PluginLists", "build_plugin_lists"]


class FrameworkBuildError(ValueError):
    """The profile cannot be turned into a framework (upstream's NewFramework errors)."""


@dataclass(slots=True)
class PluginLists:
    plugins: dict[str, Any] = field(default_factory=dict)  # name -> instance (pluginsMap)
    by_point: dict[str, list[Any]] = field(default_factory=dict)  # config key -> plugins in order
    score_weights: dict[str, int] = field(default_factory=dict)


def _needed(profile: Profile) -> list[str]:
    """pluginsNeeded: every enabled name, in first-seen order."""
    seen: dict[str, None] = {}
    for ep in EXTENSION_POINTS:
        for p in profile.plugins.get(ep.key).enabled:
            seen.setdefault(p.name, None)
    for p in profile.plugins.multi_point.enabled:
        seen.setdefault(p.name, None)
    return list(seen)


def build_plugin_lists(profile: Profile, registry: Mapping[str, PluginFactory],
                       handle: Handle) -> PluginLists:
    out = PluginLists()
    configs: dict[str, Any] = {}
    for pc in profile.plugin_config:
        if pc.name in configs:
            raise FrameworkBuildError(f"repeated config for plugin {pc.name}")
        configs[pc.name] = pc.args
    for name in _needed(profile):
        factory = registry.get(name)
        if factory is None:
            continue  # reported below as "<Point>Plugin %q does not exist", as upstream
        try:
            plugin = factory(configs.get(name), handle)
        except Exception as exc:
            raise FrameworkBuildError(f"initializing plugin {name!r}: {exc}") from exc
        out.plugins[name] = plugin

    for ep in EXTENSION_POINTS:  # updatePluginList
        lst: list[Any] = []
        seen: set[str] = set()
        for ref in profile.plugins.get(ep.key).enabled:
            pl = out.plugins.get(ref.name)
            if pl is None:
                raise FrameworkBuildError(f"{ep.type_name} {ref.name!r} does not exist")
            if not ep.implemented_by(pl):
                raise FrameworkBuildError(f"plugin {ref.name!r} does not extend {ep.type_name} plugin")
            if ref.name in seen:
                raise FrameworkBuildError(f"plugin {ref.name!r} already registered as {ep.type_name!r}")
            seen.add(ref.name)
            lst.append(pl)
        out.by_point[ep.key] = lst

    if profile.plugins.multi_point.enabled:
        _expand_multi_point(profile, out)

    n_qs = len(out.by_point["queueSort"])
    if n_qs != 1:
        raise FrameworkBuildError(
            f"only one queue sort plugin required for profile with scheduler name "
            f"{profile.scheduler_name!r}, but got {n_qs}")
    if not out.by_point["bind"]:
        raise FrameworkBuildError(
            f"at least one bind plugin is needed for profile with scheduler name {profile.scheduler_name!r}")
    _score_weights(out, [*profile.plugins.score.enabled, *profile.plugins.multi_point.enabled])
    for pl in out.by_point["score"]:
        if out.score_weights.get(pl.name(), 0) == 0:
            raise FrameworkBuildError(f"score plugin {pl.name()!r} is not configured with weight")
    return out


def _expand_multi_point(profile: Profile, out: PluginLists) -> None:
    """expandMultiPointPlugins. Resulting order per point: plugins the point re-configures
    explicitly (overrides, in the point's order), then multiPoint ones, then the point's other
    plugins."""
    for ep in EXTENSION_POINTS:
        pset = profile.plugins.get(ep.key)
        enabled = pset.enabled_names()
        disabled = pset.disabled_names()
        if "*" in disabled:
            continue
        multi: list[str] = []
        overrides: set[str] = set()
        for ref in profile.plugins.multi_point.enabled:
            pl = out.plugins.get(ref.name)
            if pl is None:
                raise FrameworkBuildError(f"{ep.type_name} {ref.name!r} does not exist")
            if not ep.implemented_by(pl) or ref.name in disabled:
                continue
            if ref.name in enabled:
                overrides.add(ref.name)
                continue
            if ref.name in multi:
                raise FrameworkBuildError(f"plugin {ref.name!r} already registered as {ep.type_name!r}")
            multi.append(ref.name)
        order = ([n for n in enabled if n in overrides] + multi + [n for n in enabled if n not in overrides])
        out.by_point[ep.key] = [out.plugins[n] for n in order]


def _score_weights(out: PluginLists, refs: list[PluginRef]) -> None:
    """getScoreWeights: the first weight seen wins (Score set before multiPoint)."""
    score_ep = EXTENSION_POINT_BY_KEY["score"]
    total = 0
    for ref in refs:
        pl = out.plugins.get(ref.name)
        if pl is None or not score_ep.implemented_by(pl) or ref.name in out.score_weights:
            continue
        w = ref.weight or 1
        out.score_weights[ref.name] = w
        if w * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            raise FrameworkBuildError("total score of Score plugins could overflow")
        total += w * MAX_NODE_SCORE
