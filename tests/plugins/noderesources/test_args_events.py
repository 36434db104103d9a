"""Args defaults and validation (validation_pluginargs_test.go), events and queueing hints
(fit_test.go TestFitSchedulingGates... isSchedulableAfter*), and the batch == per-node property."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from kubesched.api import Pod
from kubesched.framework import ActionType, ArgsError, EventResource, QueueingHint
from kubesched.plugins.noderesources import (
    BalancedAllocation,
    Fit,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    ResourceSpec,
)
from kubesched.testing import make_node, make_pod

from .._harness import FakeHandle, filter_all, score_all
from ..strategies import EXTENDED, HUGEPAGES, Cluster, clusters, incoming_pods


def test_fit_args_defaults() -> None:
    a = NodeResourcesFitArgs.from_dict({})
    assert a.scoring_strategy.type == "LeastAllocated"
    assert a.scoring_strategy.resources == (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    b = NodeResourcesFitArgs.from_dict(
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}}
    )
    assert b.scoring_strategy.resources == (ResourceSpec("cpu", 1),)  # weight 0 defaults to 1
    c = NodeResourcesFitArgs.from_dict({"scoringStrategy": {"type": "MostAllocated"}})
    assert c.scoring_strategy.resources == (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@pytest.mark.parametrize(
    ("args", "match"),
    [
        pytest.param(
            {"ignoredResources": ["example.com/aaa", "kubernetes.io/foo/bar"]},
            r"ignoredResources\[1\]",
            id="IgnoredResources: too long value",
        ),
        pytest.param(
            {"ignoredResourceGroups": ["example.com/aaa"]},
            r"ignoredResourceGroups\[0\].*resource group name can't contain '/'",
            id="IgnoredResourceGroups: name cannot contain slashes",
        ),
        pytest.param(
            {"ignoredResourceGroups": ["-example.com"]},
            r"ignoredResourceGroups\[0\]",
            id="IgnoredResourceGroups: invalid name",
        ),
        pytest.param(
            {"scoringStrategy": {"type": "Invalid"}},
            r"scoringStrategy\.type: Unsupported value",
            id="ScoringStrategy: type is unsupported",
        ),
        pytest.param(
            {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 101}]}},
            r"scoringStrategy\.resources\[0\]\.weight.*not in valid range \(0, 100\]",
            id="ScoringStrategy: weight out of range",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": []},
                }
            },
            r"scoringStrategy\.shape: Required value",
            id="ScoringStrategy: shape is empty",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {
                        "shape": [{"utilization": 10, "score": 1}, {"utilization": 10, "score": 2}]
                    },
                }
            },
            r"scoringStrategy\.shape\[1\]\.utilization.*sorted in increasing order",
            id="ScoringStrategy: utilization not increasing",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": [{"utilization": 101, "score": 11}]},
                }
            },
            r"shape\[0\]\.utilization.*\[0, 100\].*shape\[0\]\.score.*\[0, 10\]",
            id="ScoringStrategy: shape point out of range",
        ),
        pytest.param({"unknownField": 1}, "unknownField: unknown field", id="strict decoding"),
    ],
)
def test_fit_args_validation(args: dict[str, Any], match: str) -> None:
    with pytest.raises(ArgsError, match=match):
        NodeResourcesFitArgs.from_dict(args)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 2}]},
            r"resources\[0\]\.weight: Invalid value: 2: must be 1",
            id="weight must be 1",
        ),
        pytest.param(
            {"resources": [{"name": "cpu"}, {"name": "cpu"}]},
            r'resources\[1\]\.name: Duplicate value: "cpu"',
            id="duplicated resources",
        ),
    ],
)
def test_balanced_args_validation(args: dict[str, Any], match: str) -> None:
    with pytest.raises(ArgsError, match=match):
        NodeResourcesBalancedAllocationArgs.from_dict(args)


def test_fit_events() -> None:
    pod_ev, node_ev, class_ev = Fit().events_to_register()
    assert class_ev.event.resource == EventResource.DEVICE_CLASS  # DRAExtendedResource (on)
    assert class_ev.event.action == ActionType.ADD | ActionType.UPDATE
    assert pod_ev.event.resource == EventResource.POD
    assert pod_ev.event.action == ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN
    assert node_ev.event.resource == EventResource.NODE
    assert node_ev.event.action == ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE


def _pod(cpu: str, name: str = "p", node: str = "") -> Pod:
    b = make_pod().name(name).uid(name).req({"cpu": cpu})
    if node:
        b.node(node)
    return b.obj()


def test_pod_event_hint() -> None:
    pod_ev, *_ = Fit().events_to_register()
    assert pod_ev.hint is not None
    target = _pod("1")
    assert pod_ev.hint(target, _pod("1", "q", node="n"), None) == QueueingHint.QUEUE  # assigned pod deleted
    assert pod_ev.hint(target, _pod("1", "q"), None) == QueueingHint.QUEUE_SKIP  # unscheduled pod deleted
    # scale down of an assigned pod's cpu, which the target requests
    assert pod_ev.hint(target, _pod("2", "q", node="n"), _pod("1", "q", node="n")) == QueueingHint.QUEUE
    assert pod_ev.hint(target, _pod("1", "q", node="n"), _pod("2", "q", node="n")) == QueueingHint.QUEUE_SKIP
    assert pod_ev.hint(target, _pod("2", "q"), _pod("1", "q")) == QueueingHint.QUEUE_SKIP  # not assigned
    assert pod_ev.hint(target, _pod("2"), _pod("1")) == QueueingHint.QUEUE  # the target itself
    mem_only = make_pod().name("m").uid("m").req({"memory": "1Gi"}).obj()
    assert (
        pod_ev.hint(mem_only, _pod("2", "q", node="n"), _pod("1", "q", node="n")) == QueueingHint.QUEUE_SKIP
    )


def test_node_change_hint() -> None:
    _, node_ev, *_ = Fit().events_to_register()
    assert node_ev.hint is not None
    target = _pod("2")
    small = make_node().name("n").capacity({"cpu": "1"}).obj()
    big = make_node().name("n").capacity({"cpu": "4"}).obj()
    bigger = make_node().name("n").capacity({"cpu": "8"}).obj()
    more_pods = make_node().name("n").capacity({"cpu": "4", "pods": "64"}).obj()
    assert node_ev.hint(target, None, big) == QueueingHint.QUEUE
    assert node_ev.hint(target, None, small) == QueueingHint.QUEUE_SKIP
    assert node_ev.hint(target, small, big) == QueueingHint.QUEUE
    assert node_ev.hint(target, big, bigger) == QueueingHint.QUEUE
    assert node_ev.hint(target, bigger, big) == QueueingHint.QUEUE_SKIP
    assert node_ev.hint(target, big, more_pods) == QueueingHint.QUEUE


def test_score_plugins_register_no_events() -> None:
    assert BalancedAllocation().events_to_register() == []


FIT_VARIANTS = [
    Fit(),
    Fit(
        NodeResourcesFitArgs.from_dict(
            {
                "ignoredResourceGroups": ["example.com"],
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [
                        {"name": "cpu", "weight": 2},
                        {"name": EXTENDED, "weight": 3},
                        {"name": "ephemeral-storage"},
                        {"name": "pods"},
                    ],
                },
            }
        )
    ),
    Fit(
        NodeResourcesFitArgs.from_dict(
            {
                "ignoredResources": [EXTENDED],
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "resources": [{"name": "memory"}, {"name": HUGEPAGES, "weight": 5}],
                    "requestedToCapacityRatio": {
                        "shape": [
                            {"utilization": 0, "score": 2},
                            {"utilization": 40, "score": 9},
                            {"utilization": 100, "score": 1},
                        ]
                    },
                },
            }
        )
    ),
]
BALANCED_VARIANTS = [
    BalancedAllocation(),
    BalancedAllocation(
        NodeResourcesBalancedAllocationArgs.from_dict(
            {
                "resources": [
                    {"name": "cpu"},
                    {"name": "memory"},
                    {"name": EXTENDED},
                    {"name": "ephemeral-storage"},
                ]
            }
        )
    ),
]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cluster=clusters(), p=incoming_pods())
def test_batch_agrees(cluster: Cluster, p: Pod) -> None:
    snap = cluster.snapshot()
    for fit in FIT_VARIANTS:
        filter_all(fit, p, snap)
        score_all(fit, p, snap)
    for ba in BALANCED_VARIANTS:
        score_all(ba, p, snap)


def test_events_follow_feature_gates() -> None:
    off = Fit(handle=FakeHandle(features={"InPlacePodVerticalScaling": False, "SchedulingQueueHint": False,
                                          "DRAExtendedResource": False}))
    pod_ev, node_ev = off.events_to_register()  # no DeviceClass event without DRAExtendedResource
    assert pod_ev.event.action == ActionType.DELETE
    assert node_ev.event.action == (
        ActionType.ADD
        | ActionType.UPDATE_NODE_ALLOCATABLE
        | ActionType.UPDATE_NODE_TAINT
        | ActionType.UPDATE_NODE_LABEL
    )
    assert pod_ev.hint is not None
    assert (
        pod_ev.hint(_pod("1"), _pod("2", "q", node="n"), _pod("1", "q", node="n")) == QueueingHint.QUEUE_SKIP
    )
