"""The in-tree registry, and the default profile expanded to upstream's per-point plugin lists."""

from __future__ import annotations

from typing import Any

from kubesched.framework import Framework, PreFilterResult
from kubesched.framework.config import default_config
from kubesched.plugins.registry import IN_TREE_PLUGINS, in_tree_names, in_tree_registry

from ._toys import toy

UPSTREAM_NAMES = {
    "PrioritySort", "SchedulingGates", "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
    "NodePorts", "NodeResourcesFit", "NodeResourcesBalancedAllocation", "ImageLocality", "InterPodAffinity",
    "PodTopologySpread", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
    "DynamicResources", "DefaultPreemption", "DefaultBinder", "GangScheduling",
}

PF: dict[str, Any] = {"pre_filter": (PreFilterResult(), None)}
F: dict[str, Any] = {"filter": None}
S: dict[str, Any] = {"pre_score": None, "score": (0, None)}
# The extension points each upstream plugin implements (its compile-time interface checks).
UPSTREAM_POINTS: dict[str, dict[str, Any]] = {
    "SchedulingGates": {"pre_enqueue": None},
    "PrioritySort": {"less": False},
    "NodeUnschedulable": F,
    "NodeName": F,
    "TaintToleration": {**F, **S},
    "NodeAffinity": {**PF, **F, **S},
    "NodePorts": {**PF, **F},
    "NodeResourcesFit": {**PF, **F, **S},
    "VolumeRestrictions": {**PF, **F},
    "NodeVolumeLimits": {**PF, **F},
    "VolumeBinding": {**PF, **F, **S, "reserve": None, "unreserve": None, "pre_bind": None},
    "VolumeZone": {**PF, **F},
    "PodTopologySpread": {**PF, **F, **S},
    "InterPodAffinity": {**PF, **F, **S},
    "DynamicResources": {"pre_enqueue": None, **PF, **F, "post_filter": (None, None), "score": (0, None),
                         "reserve": None, "unreserve": None, "pre_bind": None},
    "DefaultPreemption": {"post_filter": (None, None)},
    "NodeResourcesBalancedAllocation": S,
    "ImageLocality": {"score": (0, None)},
    "DefaultBinder": {"bind": None},
    "GangScheduling": {"pre_enqueue": None, "permit": (None, 0.0)},
}


def test_in_tree_names_are_upstreams() -> None:
    assert in_tree_names() == UPSTREAM_NAMES
    assert len(IN_TREE_PLUGINS) == len(UPSTREAM_NAMES)


def test_gang_scheduling_joins_the_default_profile_only_with_both_gates() -> None:
    """applyGangScheduling appends the plugin while GenericWorkload and GangScheduling are on
    (both alpha, off by default); it then runs at PreEnqueue and Permit."""
    registry = {name: toy(name, **points) for name, points in UPSTREAM_POINTS.items()}
    for features in ({}, {"GenericWorkload": True}, {"GangScheduling": True}):
        fw = Framework(default_config(features).profiles[0], registry)
        assert "GangScheduling" not in fw.plugins_map
    gates = {"GenericWorkload": True, "GangScheduling": True}
    fw = Framework(default_config(gates).profiles[0], registry)
    got = fw.list_plugins()
    assert got["preEnqueue"] == ["SchedulingGates", "DynamicResources", "GangScheduling"]
    assert got["permit"] == ["GangScheduling"]


def test_in_tree_registry_maps_name_to_class_with_that_name() -> None:
    for name, cls in in_tree_registry().items():
        assert name == getattr(cls, "NAME", None)


def test_default_profile_expands_like_upstream() -> None:
    registry = {name: toy(name, **points) for name, points in UPSTREAM_POINTS.items()}
    fw = Framework(default_config().profiles[0], registry)
    got = fw.list_plugins()
    assert got["preEnqueue"] == ["SchedulingGates", "DynamicResources"]
    assert got["queueSort"] == ["PrioritySort"]
    assert got["preFilter"] == ["NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
                                "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
                                "InterPodAffinity", "DynamicResources"]
    assert got["filter"] == ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                             "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                             "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"]
    # DynamicResources before DefaultPreemption: deallocating an idle claim beats evicting a pod.
    assert got["postFilter"] == ["DynamicResources", "DefaultPreemption"]
    assert got["reserve"] == ["VolumeBinding", "DynamicResources"]
    assert got["preBind"] == ["VolumeBinding", "DynamicResources"]
    assert got["bind"] == ["DefaultBinder"]
    assert [(p, fw.score_weights[p]) for p in got["score"]] == [
        ("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1), ("VolumeBinding", 1),
        ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("DynamicResources", 1),
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
    ]


def test_profiles_get_the_in_tree_registry_from_the_caller_or_the_config() -> None:
    """The framework imports no plugin: new_profile_map builds from the in-tree registry the
    config was decoded against, or from the one its caller passes (the scheduler's)."""
    from kubesched.framework import new_profile_map

    cfg = default_config()
    assert set(cfg.in_tree) == in_tree_names()
    fwk = new_profile_map(cfg)["default-scheduler"]
    assert type(fwk.plugins_map["NodeResourcesFit"]) is in_tree_registry()["NodeResourcesFit"]

    class OtherFit(in_tree_registry()["NodeResourcesFit"]):  # type: ignore[misc]
        pass

    fwk = new_profile_map(cfg, {**in_tree_registry(), "NodeResourcesFit": OtherFit})["default-scheduler"]
    assert type(fwk.plugins_map["NodeResourcesFit"]) is OtherFit
