"""PodTopologySpread args (validation_pluginargs_test.go TestValidatePodTopologySpreadArgs), events
and queueing hints (plugin_test.go Test_isSchedulableAfterNodeChange / PodChange)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Node, Pod
from kubesched.framework import ActionType, ArgsError, ClusterEvent, EventResource, QueueingHint
from kubesched.plugins.podtopologyspread import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    PodTopologySpread,
    PodTopologySpreadArgs,
)
from kubesched.testing import make_node, make_pod

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def test_args_defaults() -> None:
    a = PodTopologySpreadArgs.from_dict({})
    assert (a.defaulting_type, a.default_constraints) == ("System", ())
    assert [(c.topology_key, c.max_skew, c.when_unsatisfiable) for c in SYSTEM_DEFAULT_CONSTRAINTS] == [
        (HOSTNAME, 3, "ScheduleAnyway"),
        (ZONE, 5, "ScheduleAnyway"),
    ]


def c(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", **extra: Any) -> dict[str, Any]:
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when, **extra}


@pytest.mark.parametrize(
    ("args", "err"),
    [
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(skew=-1)]},
            r"defaultConstraints\[0\].maxSkew",
            id="wrong constraints",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(key="")]},
            r"defaultConstraints\[0\].topologyKey",
            id="empty topology key",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(key="a/b/c")]},
            r"defaultConstraints\[0\].topologyKey",
            id="invalid topology key",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(when="Unknown")]},
            r"defaultConstraints\[0\].whenUnsatisfiable",
            id="unsupported action",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(), c(skew=2)]},
            r"defaultConstraints\[1\]: Duplicate",
            id="repeated constraints",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(labelSelector={"matchLabels": {"a": "b"}})]},
            r"defaultConstraints\[0\].labelSelector: Forbidden",
            id="label selector present",
        ),
        pytest.param(
            {"defaultingType": "System", "defaultConstraints": [c()]},
            "defaultingType: Invalid value",
            id="system defaulting with constraints",
        ),
        pytest.param(
            {"defaultingType": "Other"}, "defaultingType: Unsupported value", id="wrong defaulting type"
        ),
    ],
)
def test_args_validation(args: dict[str, Any], err: str) -> None:
    with pytest.raises(ArgsError, match=err):
        PodTopologySpreadArgs.from_dict(args)


def test_args_list_defaulting_valid() -> None:
    a = PodTopologySpreadArgs.from_dict(
        {"defaultingType": "List", "defaultConstraints": [c(), c(key=HOSTNAME, when="ScheduleAnyway")]}
    )
    assert [x.topology_key for x in a.default_constraints] == [ZONE, HOSTNAME]
    assert PodTopologySpreadArgs.from_dict({"defaultingType": "List"}).default_constraints == ()


def test_events_to_register() -> None:
    evs = [e.event for e in PodTopologySpread().events_to_register()]
    assert evs == [
        ClusterEvent(
            EventResource.POD,
            ActionType.ADD
            | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATION
            | ActionType.DELETE,
        ),
        ClusterEvent(
            EventResource.NODE,
            ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
        ),
    ]


TARGET = (
    make_pod()
    .name("p")
    .uid("p")
    .label("foo", "")
    .spread_constraint(1, ZONE, "DoNotSchedule", {"foo": ""})
    .obj()
)


def node(zone: str | None = None, taint: bool = False) -> Node:
    b = make_node().name("n")
    if zone:
        b = b.label(ZONE, zone)
    if taint:
        b = b.taint("t")
    return b.obj()


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, node("z1"), QUEUE, id="node add with matching topology key"),
        pytest.param(None, node(), SKIP, id="node add without topology key"),
        pytest.param(node("z1"), None, QUEUE, id="node delete with matching topology key"),
        pytest.param(node(), None, SKIP, id="node delete without topology key"),
        pytest.param(node("z1"), node("z2"), QUEUE, id="topology value changed"),
        pytest.param(node(), node("z1"), QUEUE, id="topology key added"),
        pytest.param(node("z1"), node(), QUEUE, id="topology key removed"),
        pytest.param(node("z1"), node("z1", taint=True), QUEUE, id="taints changed on a matching node"),
        pytest.param(node(), node(taint=True), SKIP, id="taints changed on a node without the key"),
        pytest.param(node("z1"), node("z1"), SKIP, id="nothing relevant changed"),
    ],
)
def test_is_schedulable_after_node_change(old: Node | None, new: Node | None, want: QueueingHint) -> None:
    assert PodTopologySpread().is_schedulable_after_node_change(TARGET, old, new) == want


def assigned(ns: str = "default", **labels: str) -> Pod:
    return make_pod().name("e").uid("e").namespace(ns).labels(labels).node("n").obj()


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, assigned(foo=""), QUEUE, id="add pod with labels matching the constraints"),
        pytest.param(None, assigned(bar=""), SKIP, id="add pod with labels not matching the constraints"),
        pytest.param(
            None, make_pod().name("e").uid("e").label("foo", "").obj(), SKIP, id="add an unscheduled pod"
        ),
        pytest.param(None, assigned("other", foo=""), SKIP, id="add pod in another namespace"),
        pytest.param(assigned(foo=""), None, QUEUE, id="delete a matching pod"),
        pytest.param(assigned(bar=""), None, SKIP, id="delete a pod that doesn't match"),
        pytest.param(
            assigned(bar=""), assigned(foo=""), QUEUE, id="label that matches the selector is added"
        ),
        pytest.param(
            assigned(foo="", a="1"),
            assigned(foo="", a="2"),
            SKIP,
            id="labels changed without changing the selector match",
        ),
        pytest.param(assigned(foo=""), assigned(foo=""), SKIP, id="labels unchanged"),
    ],
)
def test_is_schedulable_after_pod_change(old: Pod | None, new: Pod | None, want: QueueingHint) -> None:
    assert PodTopologySpread().is_schedulable_after_pod_change(TARGET, old, new) == want


def test_target_pod_toleration_update_requeues_only_with_taints_policy_honor() -> None:
    old = (
        make_pod()
        .name("p")
        .uid("p")
        .label("foo", "")
        .spread_constraint(1, ZONE, "DoNotSchedule", {"foo": ""}, node_taints_policy="Honor")
    )
    new = (
        make_pod()
        .name("p")
        .uid("p")
        .label("foo", "")
        .spread_constraint(1, ZONE, "DoNotSchedule", {"foo": ""}, node_taints_policy="Honor")
        .toleration("t", operator="Exists")
    )
    pl = PodTopologySpread()
    assert pl.is_schedulable_after_pod_change(old.obj(), old.obj(), new.obj()) == QUEUE
    assert pl.is_schedulable_after_pod_change(TARGET, TARGET, TARGET) == SKIP
