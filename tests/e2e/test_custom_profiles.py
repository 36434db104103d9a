"""Custom profiles from KubeSchedulerConfiguration files (under ``fixtures/``) changing real
placements: NodeResourcesFit MostAllocated bin-packing, RequestedToCapacityRatio with a custom
shape, a second profile with a plugin disabled, and a bad plugin argument rejected whole."""

from __future__ import annotations

import pytest

from kubesched.framework.config import ConfigError

from ._cluster import Cluster, node, pod


def _fill(config: str | None) -> dict[str, str]:
    """Three equal nodes, six pods of a quarter node each, scheduled one after the other."""
    c = Cluster.from_config_file(config) if config else Cluster()
    c.add(*(node(f"n{i}") for i in range(3)), *(pod(f"p{i}") for i in range(6)))
    c.run()
    return c.placements()


@pytest.mark.parametrize(
    ("config", "nodes_used"),
    [
        pytest.param(None, 3, id="default-LeastAllocated-spreads"),
        pytest.param("bin-packing.yaml", 2, id="MostAllocated-packs"),
        pytest.param("requested-to-capacity-ratio.yaml", 2, id="RequestedToCapacityRatio-rising-shape-packs"),
    ],
)
def test_scoring_strategy_decides_spreading_or_packing(config: str | None, nodes_used: int) -> None:
    got = _fill(config)
    assert all(got.values()), got
    assert len(set(got.values())) == nodes_used, got
    if nodes_used == 2:
        # packing: each used node is filled (4 pods of 1 cpu) before the next one is opened
        assert sorted(list(got.values()).count(n) for n in set(got.values())) == [2, 4], got


def test_profile_with_a_plugin_disabled() -> None:
    """The same tainted cluster: the default profile cannot place the pod, the profile without
    TaintToleration (chosen by spec.schedulerName) can."""
    c = Cluster.from_config_file("two-profiles.yaml")
    c.add(node("n1").taint("dedicated", "gpu"))
    c.add(pod("default"), pod("custom").scheduler_name("ignore-taints"))
    c.run()
    assert c.placements() == {"default": "", "custom": "n1"}
    assert c.failure("default").startswith("0/1 nodes are available: 1 node(s) had untolerated taint(s).")


def test_pod_of_an_unknown_scheduler_is_left_alone() -> None:
    c = Cluster.from_config_file("two-profiles.yaml").add(node("n1"), pod("p").scheduler_name("other"))
    summary = c.run()
    assert summary.attempts == 0 and c.node_of("p") == ""


def test_invalid_plugin_args_reject_the_file() -> None:
    with pytest.raises(ConfigError) as err:
        Cluster.from_config_file("invalid-shape.yaml")
    text = str(err.value)
    assert "invalid-shape.yaml" in text
    # validateFunctionShape's path and message (apis/config/validation/validation_pluginargs.go)
    assert "profiles[0].pluginConfig[0].args.scoringStrategy.shape[0].score: Invalid value: 11: " \
        "not in valid range [0, 10]" in text
