"""``KubeVersion`` and the feature-gate defaults per release (upstream's versioned feature
specs): the release a configuration is decoded for reaches the plugins' handle, with every
known gate at that release's default."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import kubesched
from kubesched.api import NEWEST_KUBE_VERSION, OLDEST_KUBE_VERSION, KubeVersion
from kubesched.cluster import MemoryStore
from kubesched.framework import VERSIONED_FEATURE_GATES, ReleaseSwitch, feature_gates_for, gate_default
from kubesched.framework.config import default_config
from kubesched.plugins.names import DYNAMIC_RESOURCES
from kubesched.scheduler import Scheduler

V = KubeVersion.parse


@pytest.mark.parametrize(("text", "want"), [
    ("1.35", KubeVersion(1, 35)), ("v1.35.4", KubeVersion(1, 35)), ("1.36.0-alpha.1", KubeVersion(1, 36)),
    (" 1.32 ", KubeVersion(1, 32)),
])
def test_parse(text: str, want: KubeVersion) -> None:
    assert KubeVersion.parse(text) == want


@pytest.mark.parametrize("text", ["", "1", "abc", "1.x", "v", "1.35.4.5"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid Kubernetes version"):
        KubeVersion.parse(text)


def test_order_and_range() -> None:
    assert V("1.32") < V("1.35") < V("1.36") and V("1.9") < V("1.10")
    assert str(V("v1.35.4")) == "1.35"
    assert (V("1.32"), V("1.37")) == (OLDEST_KUBE_VERSION, NEWEST_KUBE_VERSION)
    assert V("1.32").supported() and V("1.37").supported()
    assert not V("1.31").supported() and not V("1.38").supported()


@pytest.mark.parametrize(("gate", "release", "default"), [
    # The entry with the highest release <= the one asked for (component-base's VersionedSpecs).
    ("SchedulerQueueingHints", "1.32", True),
    ("SchedulerAsyncPreemption", "1.32", False),
    ("SchedulerAsyncPreemption", "1.33", True),
    ("SchedulerPopFromBackoffQ", "1.32", False),  # not in 1.32 at all
    ("SchedulerPopFromBackoffQ", "1.33", True),
    ("DynamicResourceAllocation", "1.33", False),
    ("DynamicResourceAllocation", "1.34", True),
    ("NominatedNodeNameForExpectation", "1.34", False),
    ("NominatedNodeNameForExpectation", "1.35", True),
    ("ClearingNominatedNodeNameAfterBinding", "1.34", False),
    ("ClearingNominatedNodeNameAfterBinding", "1.35", True),
    ("InPlacePodVerticalScaling", "1.32", False),
    ("InPlacePodVerticalScaling", "1.33", True),
    ("DRAExtendedResource", "1.35", False),
    ("DRAExtendedResource", "1.36", True),
])
def test_gate_default_per_release(gate: str, release: str, default: bool) -> None:
    assert gate_default(gate, V(release)) is default
    assert feature_gates_for(V(release))[gate] is default


def test_every_gate_is_known_at_the_newest_release_with_the_code_defaults() -> None:
    """The newest release's defaults are what kubesched ran with before releases existed."""
    gates = feature_gates_for(NEWEST_KUBE_VERSION)
    assert set(gates) == set(VERSIONED_FEATURE_GATES)
    assert gates["GenericWorkload"] is False and gates["SchedulerAsyncPreemption"] is True


def test_overrides_win_and_a_missing_gate_cannot_be_enabled() -> None:
    assert feature_gates_for(V("1.32"), {"SchedulerAsyncPreemption": True})["SchedulerAsyncPreemption"]
    assert not feature_gates_for(V("1.32"), {"GenericWorkload": False})["GenericWorkload"]
    with pytest.raises(ValueError, match=r"GenericWorkload is not available in Kubernetes 1\.32"):
        feature_gates_for(V("1.32"), {"GenericWorkload": True})


def test_the_default_plugin_set_follows_the_release() -> None:
    """DynamicResources joins the default profile with the DynamicResourceAllocation gate,
    GA and on by default since 1.34 (applyFeatureGates)."""
    def enabled(release: str) -> set[str]:
        cfg = default_config(kube_version=V(release))
        return {p.name for p in cfg.profiles[0].plugins.multi_point.enabled}

    assert DYNAMIC_RESOURCES not in enabled("1.33")
    assert DYNAMIC_RESOURCES in enabled("1.34")


def test_the_release_and_its_gates_reach_the_handle() -> None:
    store = MemoryStore()
    sched = Scheduler(store, config=default_config(kube_version=V("1.34")))
    try:
        fwk = sched.profiles["default-scheduler"]
        assert fwk.kube_version == V("1.34")
        assert fwk.features["NominatedNodeNameForExpectation"] is False
        assert sched.cycles.nominated_node_name_for_expectation is False
    finally:
        sched.close()
    sched = Scheduler(store)
    try:
        assert sched.profiles["default-scheduler"].kube_version == NEWEST_KUBE_VERSION
        assert sched.cycles.nominated_node_name_for_expectation is True
    finally:
        sched.close()


def _all_switches() -> list[ReleaseSwitch]:
    """Every module-level ReleaseSwitch in the package."""
    found: dict[str, ReleaseSwitch] = {}
    for info in pkgutil.walk_packages(kubesched.__path__, "kubesched."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra (ray, live) that is not installed
            continue
        for value in vars(module).values():
            if isinstance(value, ReleaseSwitch):
                found[value.name] = value
    return list(found.values())


def test_the_docs_list_every_release_switch() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "releases.md").read_text()
    switches = _all_switches()
    assert {s.name for s in switches} >= {"BalancedAllocationScoresTheChange",
                                          "BalancedAllocationSkipsBestEffortPods"}
    rows = [line for line in page.splitlines() if line.startswith("  | `")]
    for s in switches:
        row = next((r for r in rows if r.startswith(f"  | `{s.name}` |")), None)
        assert row is not None, f"docs/releases.md: no row for the switch {s.name}"
        assert f"| {s.since} |" in row and f"[#{s.pr}]({s.url})" in row, row
