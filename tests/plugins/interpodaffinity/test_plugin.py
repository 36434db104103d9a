"""InterPodAffinity args (validation_pluginargs_test.go), events and queueing hints
(plugin_test.go Test_isSchedulableAfterPodChange / Test_isSchedulableAfterNodeChange)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Node, Pod
from kubesched.framework import ActionType, ArgsError, ClusterEvent, EventResource, QueueingHint
from kubesched.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs
from kubesched.testing import make_node, make_pod

from ._paths import FakeHandle, snap

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def test_args_defaults() -> None:
    a = InterPodAffinityArgs.from_dict({})
    assert (a.hard_pod_affinity_weight, a.ignore_preferred_terms_of_existing_pods) == (1, False)


@pytest.mark.parametrize(("args", "err"), [
    pytest.param({"hardPodAffinityWeight": -1}, r"hardPodAffinityWeight.*\[0, 100\]",
                 id="hardPodAffinityWeight less than min"),
    pytest.param({"hardPodAffinityWeight": 101}, r"hardPodAffinityWeight.*\[0, 100\]",
                 id="hardPodAffinityWeight more than max"),
    pytest.param({"hardPodAffinityWeight": 5, "bogus": 1}, "bogus", id="unknown field"),
])
def test_args_validation(args: dict[str, Any], err: str) -> None:
    with pytest.raises(ArgsError, match=err):
        InterPodAffinityArgs.from_dict(args)


@pytest.mark.parametrize("w", [0, 100])
def test_args_bounds_are_valid(w: int) -> None:
    assert InterPodAffinityArgs.from_dict({"hardPodAffinityWeight": w}).hard_pod_affinity_weight == w


@pytest.mark.parametrize(("hints", "node_actions"), [
    pytest.param(True, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, id="with queueing hints"),
    pytest.param(False, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
                 id="without queueing hints"),
])
def test_events_to_register(hints: bool, node_actions: ActionType) -> None:
    pl = InterPodAffinity(handle=FakeHandle(snap([]), features={"SchedulerQueueingHints": hints}))
    evs = [e.event for e in pl.events_to_register()]
    assert evs == [
        ClusterEvent(EventResource.ASSIGNED_POD,
                     ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
        ClusterEvent(EventResource.NODE, node_actions),
    ]


TARGET = (make_pod().name("target").pod_affinity("zone", {"aaa": "a"})
          .pod_anti_affinity("hostname", {"bbb": "b"}).obj())


def assigned(**labels: str) -> Pod:
    return make_pod().name("p").labels(labels).node("n").obj()


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(None, make_pod().name("p").label("aaa", "a").obj(), SKIP, id="add an unscheduled pod"),
    pytest.param(None, assigned(aaa="a"), QUEUE, id="add a pod which matches the pod affinity"),
    pytest.param(None, assigned(aaa="x"), SKIP, id="add a pod which doesn't match the pod affinity"),
    pytest.param(assigned(aaa="x"), assigned(aaa="a"), QUEUE,
                 id="update a pod from non-match to match pod affinity"),
    pytest.param(assigned(aaa="a"), assigned(aaa="a", c="d"), SKIP,
                 id="the updating pod matches target pod's affinity both before and after label changes"),
    pytest.param(assigned(bbb="b"), assigned(bbb="x"), QUEUE,
                 id="update a pod from match to non-match the pod anti-affinity"),
    pytest.param(assigned(bbb="b"), None, QUEUE, id="delete a pod which matches the pod anti-affinity"),
    pytest.param(assigned(bbb="x"), None, SKIP, id="delete a pod which doesn't match the pod anti-affinity"),
])
def test_is_schedulable_after_pod_change(old: Pod | None, new: Pod | None, want: QueueingHint) -> None:
    assert InterPodAffinity().is_schedulable_after_pod_change(TARGET, old, new) == want


def node(**labels: str) -> Node:
    return make_node().name("n").labels(labels).obj()


@pytest.mark.parametrize(("pod", "old", "new", "want"), [
    pytest.param(make_pod().name("t").pod_affinity("zone", {"a": "b"}).obj(), None, node(zone="z1"), QUEUE,
                 id="add a new node with matched pod affinity topologyKey"),
    pytest.param(make_pod().name("t").pod_affinity("zone", {"a": "b"}).obj(), None, node(region="r"), SKIP,
                 id="add a new node without pod affinity topologyKey"),
    pytest.param(make_pod().name("t").pod_anti_affinity("zone", {"a": "b"}).obj(), None, node(), QUEUE,
                 id="add a new node with pod anti-affinity"),
    pytest.param(make_pod().name("t").pod_affinity("zone", {"a": "b"}).obj(), node(), node(zone="z1"), QUEUE,
                 id="update node topologyKey is added for pod affinity"),
    pytest.param(make_pod().name("t").pod_affinity("zone", {"a": "b"}).obj(), node(zone="z1"),
                 node(zone="z2"), QUEUE, id="update node topologyKey value changed for pod affinity"),
    pytest.param(make_pod().name("t").pod_affinity("zone", {"a": "b"}).obj(), node(zone="z1"), node(), SKIP,
                 id="update node topologyKey is removed for pod affinity"),
    pytest.param(make_pod().name("t").pod_anti_affinity("zone", {"a": "b"}).obj(), node(zone="z1"), node(),
                 QUEUE, id="update node topologyKey is removed for pod anti-affinity"),
    pytest.param(make_pod().name("t").pod_anti_affinity("zone", {"a": "b"}).obj(), node(), node(zone="z1"),
                 SKIP, id="update node topologyKey is added for pod anti-affinity"),
])
def test_is_schedulable_after_node_change(pod: Pod, old: Node | None, new: Node | None,
                                         want: QueueingHint) -> None:
    assert InterPodAffinity().is_schedulable_after_node_change(pod, old, new) == want
