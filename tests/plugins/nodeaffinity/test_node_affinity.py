"""NodeAffinity (node_affinity_test.go): PreFilter node-name subset, Filter, Score, args, hints."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.framework import ArgsError, Code, PreFilterResult, QueueingHint
from kubesched.plugins.nodeaffinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    NodeAffinityArgs,
)
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import filter_all, score_all, simple
from ..strategies import Cluster, clusters, incoming_pods

OK = (Code.SUCCESS, ())
FAIL_POD = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_POD,))
FAIL_ENFORCED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_ENFORCED,))


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def name_in(*names: str) -> dict[str, Any]:
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def pod_with(terms: list[dict[str, Any]] | None = None, selector: dict[str, str] | None = None) -> Pod:
    b = make_pod().name("p")
    for t in terms or []:
        b.node_affinity_term(t)
    if selector:
        b.node_selector(selector)
    return b.obj()


def node(name: str = "node1", **labels: str) -> Node:
    return make_node().name(name).labels(labels).obj()


def raw_pod(affinity: dict[str, Any]) -> Pod:
    d = make_pod().name("p").to_dict()
    d["spec"]["affinity"] = affinity
    return Pod.from_dict(d)


FILTER_CASES = [
    pytest.param(pod_with(selector={"foo": "bar"}), node(), FAIL_POD, None, id="missing labels"),
    pytest.param(pod_with(selector={"foo": "bar"}), node(foo="bar"), OK, None, id="same labels"),
    pytest.param(
        pod_with(selector={"foo": "bar"}),
        node(foo="bar", baz="blah"),
        OK,
        None,
        id="node labels are superset",
    ),
    pytest.param(
        pod_with(selector={"foo": "bar", "baz": "blah"}),
        node(foo="bar"),
        FAIL_POD,
        None,
        id="node labels are subset",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("foo", "In", "bar", "value2")]}]),
        node(foo="bar"),
        OK,
        None,
        id="Pod with matchExpressions using In operator that matches the existing node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("kernel-version", "Gt", "0204")]}]),
        node(**{"kernel-version": "0206"}),
        OK,
        None,
        id="Pod with matchExpressions using Gt operator that matches the existing node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("mem-type", "NotIn", "DDR", "DDR2")]}]),
        node(**{"mem-type": "DDR3"}),
        OK,
        None,
        id="Pod with matchExpressions using NotIn operator that matches the existing node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("GPU", "Exists")]}]),
        node(GPU="NVIDIA-GRID-K1"),
        OK,
        None,
        id="Pod with matchExpressions using Exists operator that matches the existing node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("foo", "In", "value1", "value2")]}]),
        node(foo="bar"),
        FAIL_POD,
        None,
        id="Pod with affinity that don't match node's labels won't schedule onto the node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": []}]),
        node(foo="bar"),
        FAIL_POD,
        None,
        id="Pod with empty MatchExpressions is not a valid value will match no objects",
    ),
    pytest.param(
        raw_pod(
            {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}
        ),
        node(foo="bar"),
        FAIL_POD,
        None,
        id="required affinity with no terms matches no node",
    ),
    pytest.param(
        make_pod().name("p").obj(),
        node(foo="bar"),
        OK,
        None,
        id="Pod with no Affinity will schedule onto a node",
    ),
    pytest.param(
        raw_pod({"nodeAffinity": {}}),
        node(foo="bar"),
        OK,
        None,
        id="Pod with Affinity but nil NodeSelector will schedule onto a node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]}]),
        node(GPU="NVIDIA-GRID-K1"),
        OK,
        None,
        id="Pod with multiple matchExpressions ANDed that matches the existing node",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]}]),
        node(GPU="NVIDIA-GRID-K1"),
        FAIL_POD,
        None,
        id="Pod with multiple matchExpressions ANDed that doesn't match the existing node",
    ),
    pytest.param(
        pod_with(
            [
                {"matchExpressions": [expr("foo", "In", "bar", "value2")]},
                {"matchExpressions": [expr("diffkey", "In", "wrong", "value2")]},
            ]
        ),
        node(foo="bar"),
        OK,
        None,
        id="Pod with multiple NodeSelectorTerms ORed in affinity",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("foo", "Exists")]}], selector={"foo": "bar"}),
        node(foo="bar"),
        OK,
        None,
        id="Pod with an Affinity and a PodSpec.NodeSelector both are satisfied",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("foo", "Exists")]}], selector={"foo": "bar"}),
        node(foo="barrrrrr"),
        FAIL_POD,
        None,
        id="Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied",
    ),
    pytest.param(
        pod_with([{"matchExpressions": [expr("foo", "In", "invalid value: ___@#$%^")]}]),
        node(foo="bar"),
        FAIL_POD,
        None,
        id="Pod with an invalid value in Affinity term won't be scheduled onto the node",
    ),
    pytest.param(
        pod_with([{"matchFields": [name_in("node1")]}]),
        node("node1"),
        OK,
        PreFilterResult(frozenset({"node1"})),
        id="Pod with matchFields using In operator that matches the existing node",
    ),
    pytest.param(
        pod_with([{"matchFields": [name_in("node1")]}]),
        node("node2"),
        FAIL_POD,
        PreFilterResult(frozenset({"node1"})),
        id="Pod with matchFields using In operator that does not match the existing node",
    ),
    pytest.param(
        pod_with([{"matchFields": [name_in("node1")]}, {"matchExpressions": [expr("foo", "In", "bar")]}]),
        node("node2", foo="bar"),
        OK,
        None,
        id="Pod with two terms: matchFields does not match, but matchExpressions matches",
    ),
    pytest.param(
        pod_with([{"matchFields": [name_in("node1")], "matchExpressions": [expr("foo", "In", "bar")]}]),
        node("node2", foo="bar"),
        FAIL_POD,
        PreFilterResult(frozenset({"node1"})),
        id="Pod with one term: matchFields does not match, but matchExpressions matches",
    ),
    pytest.param(
        pod_with([{"matchFields": [name_in("node1")], "matchExpressions": [expr("foo", "In", "bar")]}]),
        node("node1", foo="bar"),
        OK,
        PreFilterResult(frozenset({"node1"})),
        id="Pod with one term: both matchFields and matchExpressions match",
    ),
    pytest.param(
        pod_with(
            [
                {"matchFields": [name_in("node1")]},
                {"matchExpressions": [expr("foo", "In", "not-match-to-bar")]},
            ]
        ),
        node("node2", foo="bar"),
        FAIL_POD,
        None,
        id="Pod with two terms: both matchFields and matchExpressions do not match",
    ),
    pytest.param(
        pod_with([{"matchFields": [name_in("node1")]}, {"matchFields": [name_in("node2")]}]),
        node("node2"),
        OK,
        PreFilterResult(frozenset({"node1", "node2"})),
        id="Pod with two terms of node.Name affinity",
    ),
    pytest.param(
        pod_with([{"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node1"]}]}]),
        node("node1"),
        FAIL_POD,
        None,
        id="NotIn on metadata.name does not narrow PreFilter",
    ),
]


@pytest.mark.parametrize(("p", "n", "want", "pre_result"), FILTER_CASES)
def test_filter(
    p: Pod, n: Node, want: tuple[Code, tuple[str, ...]], pre_result: PreFilterResult | None
) -> None:
    run = filter_all(NodeAffinity(), p, snapshot_of([n]))
    assert simple(run.statuses[0]) == want
    assert run.pre_filter_result == pre_result


def test_pre_filter_skips_pods_without_constraints() -> None:
    run = filter_all(NodeAffinity(), make_pod().name("p").obj(), snapshot_of([node()]))
    assert run.pre_filter_status is not None and run.pre_filter_status.code == Code.SKIP


def test_pre_filter_conflicting_match_fields() -> None:
    p = pod_with([{"matchFields": [name_in("node1"), name_in("node2")]}])
    run = filter_all(NodeAffinity(), p, snapshot_of([node()]))
    assert simple(run.pre_filter_status) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))


ADDED = {
    "requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "foo")]}]
    }
}


@pytest.mark.parametrize(
    ("p", "n", "want"),
    [
        pytest.param(
            pod_with([{"matchExpressions": [expr("zone", "In", "foo", "bar")]}]),
            node(zone="foo"),
            OK,
            id="Matches added affinity and Pod's node affinity",
        ),
        pytest.param(
            pod_with([{"matchExpressions": [expr("zone", "In", "bar")]}]),
            node(zone="foo"),
            FAIL_POD,
            id="Matches added affinity but not Pod's node affinity",
        ),
        pytest.param(
            pod_with([{"matchExpressions": [expr("zone", "In", "bar")]}]),
            node(zone="bar"),
            FAIL_ENFORCED,
            id="Doesn't match added affinity",
        ),
        pytest.param(
            make_pod().name("p").obj(),
            node(zone="bar"),
            FAIL_ENFORCED,
            id="added affinity applies to pods without constraints",
        ),
    ],
)
def test_added_affinity(p: Pod, n: Node, want: tuple[Code, tuple[str, ...]]) -> None:
    pl = NodeAffinity(NodeAffinityArgs.from_dict({"addedAffinity": ADDED}))
    assert simple(filter_all(pl, p, snapshot_of([n])).statuses[0]) == want


def test_args_validation_names_the_field() -> None:
    bad = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Foo"}]}]
        }
    }
    with pytest.raises(ArgsError, match=r"addedAffinity\.requiredDuringSchedulingIgnoredDuringExecution"):
        NodeAffinityArgs.from_dict({"addedAffinity": bad})
    with pytest.raises(
        ArgsError, match=r"addedAffinity\.preferredDuringSchedulingIgnoredDuringExecution\[0\]"
    ):
        NodeAffinityArgs.from_dict(
            {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "preference": {
                                "matchFields": [{"key": "foo", "operator": "In", "values": ["x"]}]
                            },
                        }
                    ]
                }
            }
        )


def preferred(*terms: tuple[int, list[dict[str, Any]]]) -> Pod:
    b = make_pod().name("p")
    for w, exprs in terms:
        b.preferred_node_affinity(w, {"matchExpressions": exprs})
    return b.obj()


AFFINITY1 = preferred((2, [expr("foo", "In", "bar")]))
AFFINITY2 = preferred(
    (2, [expr("foo", "In", "bar")]),
    (4, [expr("key", "In", "value")]),
    (5, [expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")]),
)
LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def nodes(*labels: dict[str, str]) -> list[Node]:
    return [node(f"node{i + 1}", **lab) for i, lab in enumerate(labels)]


SCORE_CASES = [
    pytest.param(
        AFFINITY1,
        nodes(LABEL4, LABEL2, LABEL3),
        [0, 0, 0],
        id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",  # noqa: E501
    ),
    # raw [2, 0, 0] -> 100*2/2 = 100
    pytest.param(
        AFFINITY1,
        nodes(LABEL1, LABEL2, LABEL3),
        [100, 0, 0],
        id="only node1 matches the preferred scheduling requirements of pod",
    ),
    # raw [2, 2+4+5=11, 4] -> 100*2/11 = 18, 100, 100*4/11 = 36
    pytest.param(
        AFFINITY2,
        nodes(LABEL1, LABEL5, LABEL2),
        [18, 100, 36],
        id="all nodes matches the preferred scheduling requirements of pod but with different priorities",
    ),
    pytest.param(
        preferred((0, [expr("foo", "In", "bar")])),
        nodes(LABEL1, LABEL2),
        [0, 0],
        id="zero-weight terms are ignored",
    ),
]


@pytest.mark.parametrize(("p", "ns", "want"), SCORE_CASES)
def test_score(p: Pod, ns: list[Node], want: list[int]) -> None:
    assert score_all(NodeAffinity(), p, snapshot_of(ns)) == want


def test_score_skips_without_preferred_terms() -> None:
    assert score_all(NodeAffinity(), make_pod().name("p").obj(), snapshot_of(nodes(LABEL1))) is None


def test_score_with_added_preferred_terms() -> None:
    args = NodeAffinityArgs.from_dict(
        {
            "addedAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 3, "preference": {"matchExpressions": [expr("foo", "In", "bar")]}}
                ]
            }
        }
    )
    # added only: raw [3, 0] -> [100, 0]
    assert score_all(NodeAffinity(args), make_pod().name("p").obj(), snapshot_of(nodes(LABEL1, LABEL2))) == [
        100,
        0,
    ]
    # added + pod's AFFINITY2 on LABEL1, LABEL5, LABEL2: raw [3+2, 3+11, 4] -> 100*5/14=35, 100, 100*4/14=28
    assert score_all(NodeAffinity(args), AFFINITY2, snapshot_of(nodes(LABEL1, LABEL5, LABEL2))) == [
        35,
        100,
        28,
    ]


def test_node_change_hint() -> None:
    [ev] = NodeAffinity().events_to_register()
    assert ev.hint is not None
    p = pod_with([{"matchExpressions": [expr("foo", "In", "bar")]}])
    assert ev.hint(p, None, node(foo="bar")) == QueueingHint.QUEUE
    assert ev.hint(p, None, node(foo="baz")) == QueueingHint.QUEUE_SKIP
    assert ev.hint(p, node(foo="baz"), node(foo="bar")) == QueueingHint.QUEUE
    assert ev.hint(p, node(foo="bar"), node(foo="bar", x="y")) == QueueingHint.QUEUE_SKIP
    enforced = NodeAffinity(NodeAffinityArgs.from_dict({"addedAffinity": ADDED})).events_to_register()[0]
    assert enforced.hint is not None
    assert enforced.hint(p, None, node(foo="bar")) == QueueingHint.QUEUE_SKIP


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cluster=clusters(), p=incoming_pods())
def test_batch_agrees(cluster: Cluster, p: Pod) -> None:
    snap = cluster.snapshot()
    filter_all(NodeAffinity(), p, snap)
    score_all(NodeAffinity(), p, snap)
    added = NodeAffinity(
        NodeAffinityArgs.from_dict(
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [expr("disk", "In", "ssd")]}]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 7,
                            "preference": {
                                "matchExpressions": [expr("topology.kubernetes.io/zone", "NotIn", "z1")]
                            },
                        }
                    ],
                }
            }
        )
    )
    filter_all(added, p, snap)
    score_all(added, p, snap)


def test_memoized_node_masks_follow_label_and_node_list_changes() -> None:
    # The batch path memoizes one node mask per requirement across cycles (keyed by the label
    # column / names array it came from); label updates and added nodes must show at once.
    args = NodeAffinityArgs.from_dict({"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [expr("pool", "Exists")]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 2, "preference": {"matchExpressions": [expr("disk", "In", "ssd")]}}],
    }})
    pl = NodeAffinity(args)
    p = (
        make_pod().name("p")
        .node_selector({"pool": "a"})
        .node_affinity_term({"matchExpressions": [expr("zone", "In", "z1")]})
        .node_affinity_term({"matchFields": [name_in("n2")]})
        .preferred_node_affinity(5, {"matchExpressions": [expr("zone", "In", "z2")]})
        .obj()
    )
    cache = Cache(VirtualClock())
    n0, n1 = node("n0", pool="a", zone="z1"), node("n1", zone="z1", disk="ssd")
    cache.add_node(n0)
    cache.add_node(n1)
    snap = Snapshot()

    def cycle() -> tuple[list[tuple[Code, tuple[str, ...]]], list[int] | None]:
        cache.update_snapshot(snap)
        return [simple(s) for s in filter_all(pl, p, snap).statuses], score_all(pl, p, snap, normalize=False)

    assert cycle() == ([OK, FAIL_ENFORCED], [0, 2])
    n1b = node("n1", pool="a", zone="z2", disk="ssd")
    cache.update_node(n1, n1b)
    assert cycle() == ([OK, FAIL_POD], [0, 7])
    cache.add_node(node("n2", pool="a", zone="z3"))  # matched by its name only
    assert cycle() == ([OK, FAIL_POD, OK], [0, 7, 0])
    cache.update_node(n0, node("n0", pool="b", zone="z1"))
    assert cycle() == ([FAIL_POD, FAIL_POD, OK], [0, 7, 0])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 300), st.lists(st.integers(0, 320), min_size=1, max_size=4), st.booleans())
def test_match_fields_mask_equals_membership_on_every_path(n: int, wanted: list[int], not_in: bool) -> None:
    """metadata.name In/NotIn over a batch: one value, a few values on a small batch and
    np.isin on a big one all give plain membership."""
    import numpy as np

    from kubesched.api import NodeSelectorRequirement
    from kubesched.plugins.nodeaffinity._match import BatchView, _field_mask

    snap = Snapshot.from_objects([make_node().name(f"n{i}").obj() for i in range(n)])
    req = NodeSelectorRequirement("metadata.name", "NotIn" if not_in else "In",
                                  tuple(f"n{w}" for w in wanted))
    got = _field_mask(req, BatchView(snap, np.arange(n, dtype=np.int64)))
    want = [(f"n{i}" in req.values) != not_in for i in range(n)]
    assert got.tolist() == want
