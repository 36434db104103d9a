"""TaintToleration (taint_toleration_test.go): Filter, Score + NormalizeScore, hints."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from kubesched.api import Node, Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.framework import Code, QueueingHint
from kubesched.plugins.tainttoleration import ERR_REASON_UNTOLERATED, TaintToleration
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import filter_all, score_all, simple
from ..strategies import Cluster, clusters, incoming_pods

FAIL = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNTOLERATED,))
OK = (Code.SUCCESS, ())


def node(name: str, *taints: tuple[str, str, str]) -> Node:
    b = make_node().name(name)
    for k, v, e in taints:
        b.taint(k, v, e)
    return b.obj()


def pod(*tols: dict[str, Any]) -> Pod:
    b = make_pod().name("pod1")
    for t in tols:
        b.toleration(**t)
    return b.obj()


FILTER_CASES = [
    pytest.param(
        pod(),
        node("n", ("dedicated", "user1", "NoSchedule")),
        FAIL,
        id="A pod having no tolerations can't be scheduled onto a node with nonempty taints",
    ),
    pytest.param(
        pod({"key": "dedicated", "value": "user1", "effect": "NoSchedule"}),
        node("n", ("dedicated", "user1", "NoSchedule")),
        OK,
        id="A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
    ),
    pytest.param(
        pod({"key": "dedicated", "value": "user2", "effect": "NoSchedule"}),
        node("n", ("dedicated", "user1", "NoSchedule")),
        FAIL,
        id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
    ),
    pytest.param(
        pod({"key": "foo", "operator": "Exists", "effect": "NoSchedule"}),
        node("n", ("foo", "bar", "NoSchedule")),
        OK,
        id="A pod can be scheduled onto the node, with a toleration uses operator Exists",
    ),
    pytest.param(
        pod(
            {"key": "dedicated", "value": "user2", "effect": "NoSchedule"},
            {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
        ),
        node("n", ("dedicated", "user2", "NoSchedule"), ("foo", "bar", "NoSchedule")),
        OK,
        id="A pod has multiple tolerations, node has multiple taints, all the taints are tolerated",
    ),
    pytest.param(
        pod({"key": "foo", "value": "bar", "effect": "PreferNoSchedule"}),
        node("n", ("foo", "bar", "NoSchedule")),
        FAIL,
        id="toleration keys and values match but its non-empty effect doesn't",
    ),
    pytest.param(
        pod({"key": "foo", "value": "bar"}),
        node("n", ("foo", "bar", "NoSchedule")),
        OK,
        id="toleration with empty effect tolerates a NoSchedule taint",
    ),
    pytest.param(
        pod({"key": "dedicated", "value": "user2", "effect": "NoSchedule"}),
        node("n", ("dedicated", "user1", "PreferNoSchedule")),
        OK,
        id="taint effect PreferNoSchedule does not filter",
    ),
    pytest.param(
        pod(),
        node("n", ("dedicated", "user1", "PreferNoSchedule")),
        OK,
        id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule",
    ),
    pytest.param(pod(), node("n", ("dedicated", "user1", "NoExecute")), FAIL, id="NoExecute taint filters"),
    pytest.param(
        pod({"operator": "Exists"}),
        node("n", ("a", "b", "NoExecute"), ("c", "", "NoSchedule")),
        OK,
        id="empty key with Exists tolerates everything",
    ),
]


@pytest.mark.parametrize(("p", "n", "want"), FILTER_CASES)
def test_filter(p: Pod, n: Node, want: tuple[Code, tuple[str, ...]]) -> None:
    assert simple(filter_all(TaintToleration(), p, snapshot_of([n])).statuses[0]) == want


PREFER = "PreferNoSchedule"
SCORE_CASES = [
    # A: 0 intolerable, B: 1 -> normalized reversed: 100 - 100*0/1 = 100, 100 - 100*1/1 = 0
    pytest.param(
        pod({"key": "foo", "value": "bar", "effect": PREFER}),
        [node("nodeA", ("foo", "bar", PREFER)), node("nodeB", ("foo", "blah", PREFER))],
        [100, 0],
        id="node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",  # noqa: E501
    ),
    # all counts 0 -> reverse of all-zero is MaxNodeScore everywhere
    pytest.param(
        pod(
            {"key": "cpu-type", "value": "arm64", "effect": PREFER},
            {"key": "disk-type", "value": "ssd", "effect": PREFER},
        ),
        [
            node("nodeA"),
            node("nodeB", ("cpu-type", "arm64", PREFER)),
            node("nodeC", ("cpu-type", "arm64", PREFER), ("disk-type", "ssd", PREFER)),
        ],
        [100, 100, 100],
        id="the nodes that all of their taints are tolerated by the pod, get the same score",
    ),
    # counts 0, 1, 2: 100 - 100*0/2, 100 - 100*1/2, 100 - 100*2/2
    pytest.param(
        pod({"key": "foo", "value": "bar", "effect": PREFER}),
        [
            node("nodeA"),
            node("nodeB", ("cpu-type", "arm64", PREFER)),
            node("nodeC", ("cpu-type", "arm64", PREFER), ("disk-type", "ssd", PREFER)),
        ],
        [100, 50, 0],
        id="the more intolerable taints a node has, the lower score it gets.",
    ),
    # tolerations with NoSchedule effect do not count; nodeC has 2 intolerable PreferNoSchedule taints
    pytest.param(
        pod(
            {"key": "cpu-type", "value": "arm64", "effect": "NoSchedule"},
            {"key": "disk-type", "value": "ssd", "effect": "NoSchedule"},
        ),
        [
            node("nodeA"),
            node("nodeB", ("cpu-type", "arm64", "NoSchedule")),
            node("nodeC", ("cpu-type", "arm64", PREFER), ("disk-type", "ssd", PREFER)),
        ],
        [100, 100, 0],
        id="only taints and tolerations that have effect PreferNoSchedule are checked by prioritize function",
    ),
    pytest.param(
        pod({"key": "foo", "value": "bar", "effect": PREFER}),
        [node("nodeA"), node("nodeB")],
        [100, 100],
        id="Default behaviour No taints and tolerations",
    ),
    # empty-effect toleration counts as a PreferNoSchedule toleration
    pytest.param(
        pod({"key": "foo", "value": "bar"}),
        [node("nodeA", ("foo", "bar", PREFER)), node("nodeB", ("x", "", PREFER))],
        [100, 0],
        id="toleration with empty effect tolerates PreferNoSchedule",
    ),
]


@pytest.mark.parametrize(("p", "nodes", "want"), SCORE_CASES)
def test_score(p: Pod, nodes: list[Node], want: list[int]) -> None:
    assert score_all(TaintToleration(), p, snapshot_of(nodes)) == want


def test_score_without_pre_score_is_error() -> None:
    from kubesched.framework import CycleState

    _, st = TaintToleration().score(CycleState(), pod(), snapshot_of([node("n")]).node_info_list[0])
    assert st is not None and st.code == Code.ERROR


def test_node_change_hint() -> None:
    pl = TaintToleration()
    node_ev, pod_ev = pl.events_to_register()
    assert node_ev.hint is not None and pod_ev.hint is not None
    p = make_pod().name("p").uid("p").obj()
    tainted = node("n", ("a", "b", "NoSchedule"))
    clean = node("n")
    assert node_ev.hint(p, tainted, clean) == QueueingHint.QUEUE
    assert node_ev.hint(p, None, clean) == QueueingHint.QUEUE
    assert node_ev.hint(p, None, tainted) == QueueingHint.QUEUE_SKIP
    assert node_ev.hint(p, clean, clean) == QueueingHint.QUEUE_SKIP
    assert pod_ev.hint(p, p, p) == QueueingHint.QUEUE
    assert pod_ev.hint(p, p, make_pod().name("q").uid("q").obj()) == QueueingHint.QUEUE_SKIP


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cluster=clusters(), p=incoming_pods())
def test_batch_agrees(cluster: Cluster, p: Pod) -> None:
    snap = cluster.snapshot()
    filter_all(TaintToleration(), p, snap)
    score_all(TaintToleration(), p, snap)


def test_memoized_taint_sets_follow_node_updates() -> None:
    # The batch path memoizes per-taint-set answers across cycles; a node gaining or losing a
    # taint (a new taint set, or new columns after a node is added) must show at once.
    pl = TaintToleration()
    cache = Cache(VirtualClock())
    plain, other = node("n0"), node("n1")
    cache.add_node(plain)
    cache.add_node(other)
    snap = Snapshot()
    p = pod()

    def cycle() -> tuple[list[tuple[Code, tuple[str, ...]]], list[int] | None]:
        cache.update_snapshot(snap)
        return [simple(s) for s in filter_all(pl, p, snap).statuses], score_all(pl, p, snap)

    assert cycle() == ([OK, OK], [100, 100])
    tainted = node("n1", ("dedicated", "x", "NoSchedule"))
    cache.update_node(other, tainted)
    assert cycle() == ([OK, FAIL], [100, 100])
    preferred = node("n0", ("spot", "", "PreferNoSchedule"))
    cache.update_node(plain, preferred)
    assert cycle() == ([OK, FAIL], [0, 100])
    cache.update_node(tainted, other)
    cache.add_node(node("n2", ("dedicated", "x", "NoSchedule")))
    assert cycle() == ([OK, OK, FAIL], [0, 100, 100])
