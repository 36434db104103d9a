"""KubeSchedulerConfiguration: upstream defaults, plugin-set merging, validation field paths
(apis/config/v1/defaults.go, default_plugins.go, apis/config/validation/validation.go)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from kubesched.framework import ArgsError, PluginArgs, PluginBase
from kubesched.framework.config import (
    ConfigError,
    PluginRef,
    PluginSet,
    default_config,
    default_plugins,
    from_dict,
    load_config,
    merge_plugin_set,
)

UPSTREAM_DEFAULT_MULTI_POINT = [
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 0),  # DynamicResourceAllocation: GA, on by default since 1.34
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
]
UPSTREAM_DEFAULT_ARGS = [
    "DefaultPreemption",
    "DynamicResources",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "PodTopologySpread",
    "VolumeBinding",
]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToyArgs(PluginArgs):
    strategy: str = "LeastAllocated"
    weight: int = 1

    def validate(self) -> None:
        if self.strategy not in ("LeastAllocated", "MostAllocated"):
            raise ArgsError(
                f'scoringStrategy.type: Unsupported value: "{self.strategy}": supported values: '
                '"LeastAllocated", "MostAllocated"'
            )


class ToyFit(PluginBase):
    NAME = "NodeResourcesFit"
    Args = ToyArgs

    def filter(self, state: Any, pod: Any, node_info: Any) -> None:
        return None


TOYS = {"NodeResourcesFit": ToyFit}


def test_default_config_matches_upstream() -> None:
    cfg = default_config()
    assert (cfg.parallelism, cfg.percentage_of_nodes_to_score) == (16, 0)
    assert (cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (1, 10)
    assert cfg.enable_profiling and cfg.enable_contention_profiling and not cfg.extenders
    assert len(cfg.profiles) == 1
    prof = cfg.profiles[0]
    assert prof.scheduler_name == "default-scheduler"
    assert prof.percentage_of_nodes_to_score is None
    assert [(p.name, p.weight) for p in prof.plugins.multi_point.enabled] == UPSTREAM_DEFAULT_MULTI_POINT
    assert all(not prof.plugins.get(k).enabled for k in ("filter", "score", "queueSort", "bind"))
    assert [pc.name for pc in prof.plugin_config] == UPSTREAM_DEFAULT_ARGS, "default args, sorted by name"
    args = {pc.name: pc.args.to_dict() for pc in prof.plugin_config}
    assert args["DefaultPreemption"] == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}
    assert args["InterPodAffinity"]["hardPodAffinityWeight"] == 1
    assert args["NodeResourcesFit"]["scoringStrategy"]["type"] == "LeastAllocated"
    cpu_mem = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    assert args["NodeResourcesFit"]["scoringStrategy"]["resources"] == cpu_mem
    assert args["NodeResourcesBalancedAllocation"]["resources"] == cpu_mem
    assert args["PodTopologySpread"]["defaultingType"] == "System"
    assert args["VolumeBinding"]["bindTimeoutSeconds"] == 600


def test_default_args_filled_per_plugin() -> None:
    cfg = from_dict({}, registry=TOYS)
    assert cfg.profiles[0].args_for("NodeResourcesFit") == ToyArgs()
    cfg = from_dict(
        {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"weight": 4}}]}]}, registry=TOYS
    )
    assert cfg.profiles[0].args_for("NodeResourcesFit") == ToyArgs(weight=4)


def test_dynamic_resources_feature_gate() -> None:
    names = [p.name for p in default_plugins({"DynamicResourceAllocation": True}).multi_point.enabled]
    assert names.index("DynamicResources") == names.index("DefaultPreemption") - 1
    assert [p.name for p in default_plugins().multi_point.enabled] == names
    off = [p.name for p in default_plugins({"DynamicResourceAllocation": False}).multi_point.enabled]
    assert off == [n for n in names if n != "DynamicResources"]


def _refs(*names: str | tuple[str, int]) -> tuple[PluginRef, ...]:
    return tuple(PluginRef(n) if isinstance(n, str) else PluginRef(*n) for n in names)


@pytest.mark.parametrize(
    ("default", "custom", "want"),
    [
        pytest.param(
            PluginSet(_refs("A", "B")), PluginSet(_refs("C")), ["A", "B", "C"], id="AppendCustomPlugin"
        ),
        pytest.param(
            PluginSet(_refs("A", ("B", 2), "C")),
            PluginSet(_refs(("B", 5))),
            ["A", "B:5", "C"],
            id="ReplaceDefaultPlugins-keeps-order",
        ),
        pytest.param(
            PluginSet(_refs("A", "B")),
            PluginSet(_refs("C"), _refs("A")),
            ["B", "C"],
            id="DisableDefaultPlugin",
        ),
        pytest.param(
            PluginSet(_refs("A", "B")),
            PluginSet(_refs("C", "A"), _refs("*")),
            ["C", "A"],
            id="DisabledAll-then-enable",
        ),
        pytest.param(
            PluginSet(_refs("A")),
            PluginSet(_refs("C", "C")),
            ["A", "C", "C"],
            id="duplicates-kept-for-runtime-to-reject",
        ),
    ],
)
def test_merge_plugin_set(default: PluginSet, custom: PluginSet, want: list[str]) -> None:
    got = merge_plugin_set(default, custom)
    assert [p.name + (f":{p.weight}" if p.weight else "") for p in got.enabled] == want


def test_profile_plugins_merged_with_defaults() -> None:
    cfg = from_dict(
        {
            "profiles": [
                {
                    "plugins": {
                        "multiPoint": {
                            "enabled": [{"name": "TaintToleration", "weight": 7}],
                            "disabled": [{"name": "NodeName"}],
                        },
                        "score": {"disabled": [{"name": "ImageLocality"}]},
                    }
                }
            ]
        }
    )
    mp = cfg.profiles[0].plugins.multi_point
    assert ("TaintToleration", 7) in [(p.name, p.weight) for p in mp.enabled]
    assert "NodeName" not in mp.enabled_names()
    assert cfg.profiles[0].plugins.score.disabled_names() == {"ImageLocality"}


def _err(d: dict[str, Any], **kw: Any) -> str:
    with pytest.raises(ConfigError) as exc:
        from_dict(d, **kw)
    return str(exc.value)


@pytest.mark.parametrize(
    ("doc", "want"),
    [
        pytest.param(
            {"percentageOfNodesToScore": 101},
            "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
            id="global-percentage",
        ),
        pytest.param(
            {"profiles": [{"percentageOfNodesToScore": -1}]},
            "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
            id="profile-percentage",
        ),
        pytest.param(
            {"podInitialBackoffSeconds": 0},
            "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0",
            id="initial-backoff",
        ),
        pytest.param(
            {"podInitialBackoffSeconds": 5, "podMaxBackoffSeconds": 2},
            "podMaxBackoffSeconds: Invalid value: 2: "
            "must be greater than or equal to PodInitialBackoffSeconds",
            id="max-backoff",
        ),
        pytest.param(
            {"parallelism": 0},
            "parallelism: Invalid value: 0: should be an integer value greater than zero",
            id="parallelism",
        ),
        pytest.param(
            {"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]},
            'profiles[1].schedulerName: Duplicate value: "profiles[0].schedulerName"',
            id="duplicate-profile",
        ),
        pytest.param(
            {"profiles": [{"schedulerName": "a"}, {}]},
            "profiles[1].schedulerName: Required value",
            id="missing-scheduler-name",
        ),
        pytest.param(
            {
                "profiles": [
                    {"schedulerName": "a"},
                    {"schedulerName": "b", "plugins": {"queueSort": {"enabled": [{"name": "PrioritySort"}]}}},
                ]
            },
            "profiles[1].plugins.queueSort: Invalid value:",
            id="different-queue-sort",
        ),
        pytest.param(
            {"extenders": [{"urlPrefix": "http://x", "prioritizeVerb": "p"}]},
            "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it",
            id="extender-weight",
        ),
        pytest.param(
            {"extenders": [{"bindVerb": "b"}, {"bindVerb": "b"}]},
            'extenders: Invalid value: "found 2 extenders implementing bind": '
            "only one extender can implement bind",
            id="two-binders",
        ),
        pytest.param(
            {"extenders": [{"managedResources": [{"name": "example.com/foo"}] * 2}]},
            'extenders[0].managedResources[1].name: Invalid value: "example.com/foo": '
            "duplicate extender managed resource name",
            id="duplicate-managed-resource",
        ),
        pytest.param(
            {"extenders": [{"managedResources": [{"name": "cpu"}]}]},
            'extenders[0].managedResources[0].name: Invalid value: "cpu"',
            id="managed-resource-not-extended",
        ),
        pytest.param(
            {"extenders": [{"httpTimeout": "soon"}]},
            'extenders[0].httpTimeout: Invalid value: "soon"',
            id="bad-duration",
        ),
        pytest.param({"profiles": [{"foo": 1}]}, "profiles[0].foo: unknown field", id="strict-decoding"),
        pytest.param(
            {"apiVersion": "kubescheduler.config.k8s.io/v1beta3"},
            'apiVersion: Unsupported value: "kubescheduler.config.k8s.io/v1beta3"',
            id="api-version",
        ),
        pytest.param(
            {"profiles": [{"plugins": {"filter": {"enabled": [{"name": "NoSuchPlugin"}]}}}]},
            'profiles[0].plugins.filter.enabled[0].name: Invalid value: "NoSuchPlugin": no such plugin',
            id="unknown-plugin",
        ),
        pytest.param(
            {
                "profiles": [
                    {"plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": "x"}]}}}
                ]
            },
            'profiles[0].plugins.score.enabled[0].weight: Invalid value: "x": must be an integer',
            id="bad-weight",
        ),
    ],
)
def test_invalid_config_names_field(doc: dict[str, Any], want: str) -> None:
    assert want in _err(doc)


def test_plugin_args_errors_carry_field_path() -> None:
    doc = {
        "profiles": [
            {
                "pluginConfig": [
                    {"name": "Other", "args": {}},
                    {"name": "NodeResourcesFit", "args": {"strategy": "Bogus"}},
                ]
            }
        ]
    }
    msg = _err(doc, registry=TOYS)
    assert 'profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value: "Bogus"' in msg
    doc = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"nope": 1}}]}]}
    assert "profiles[0].pluginConfig[0].args.nope: unknown field" in _err(doc, registry=TOYS)


def test_duplicate_plugin_config() -> None:
    doc = {"profiles": [{"pluginConfig": [{"name": "X", "args": {}}, {"name": "X", "args": {}}]}]}
    assert 'profiles[0].pluginConfig[1]: Duplicate value: "X"' in _err(doc)


def test_several_errors_reported_together() -> None:
    msg = _err({"parallelism": -1, "podInitialBackoffSeconds": 0})
    assert "parallelism:" in msg and "podInitialBackoffSeconds:" in msg


def test_load_config_file(tmp_path: Path) -> None:
    good = tmp_path / "sched.yaml"
    good.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "percentageOfNodesToScore: 50\nprofiles:\n- schedulerName: a\n- schedulerName: b\n"
        "  percentageOfNodesToScore: 20\n  plugins:\n    score:\n      disabled:\n      - name: '*'\n"
        "extenders:\n- urlPrefix: http://127.0.0.1:8888\n  filterVerb: filter\n  prioritizeVerb: prioritize\n"
        "  weight: 2\n  httpTimeout: 1m30s\n  nodeCacheCapable: true\n  ignorable: true\n"
    )
    cfg = load_config(good)
    assert [p.scheduler_name for p in cfg.profiles] == ["a", "b"]
    assert cfg.percentage_of_nodes_to_score == 50
    assert cfg.profiles[1].percentage_of_nodes_to_score == 20
    ext = cfg.extenders[0]
    assert (ext.weight, ext.http_timeout, ext.node_cache_capable, ext.ignorable) == (2, 90.0, True, True)
    bad = tmp_path / "bad.yaml"
    bad.write_text("profiles:\n- schedulerName: a\n  percentageOfNodesToScore: 300\n")
    with pytest.raises(ConfigError) as exc:
        load_config(bad)
    assert str(exc.value).startswith(f"{bad}: profiles[0].percentageOfNodesToScore")
    assert exc.value.errors[0].path == "profiles[0].percentageOfNodesToScore"


def test_in_tree_args_error_names_field() -> None:
    doc = {
        "profiles": [
            {
                "pluginConfig": [
                    {"name": "NodeAffinity", "args": {}},
                    {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Bogus"}}},
                ]
            }
        ]
    }
    assert 'profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value: "Bogus"' in _err(doc)
