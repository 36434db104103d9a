"""InterPodAffinity Filter, ported from upstream's filtering_test.go (TestRequiredAffinitySingleNode,
TestRequiredAffinityMultipleNodes, TestPreFilterStateAddRemovePod); every case runs on the
per-node and the batch path (run_filter checks they agree)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Namespace, Node, Pod
from kubesched.cache import PodInfo
from kubesched.framework import Code, CycleState, Status
from kubesched.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    InterPodAffinity,
)
from kubesched.testing import make_node, make_pod

from ._paths import FakeHandle, FakeStore, run_filter, snap

AFF = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,), "InterPodAffinity")
ANTI = Status(Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,), "InterPodAffinity")
EXISTING = Status(
    Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,), "InterPodAffinity"
)


def node1() -> Node:
    return make_node().name("node1").labels({"region": "r1", "zone": "z11", "hostname": "node1"}).obj()


def sec_in(*values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": "service", "operator": "In", "values": list(values)}]}


def sec_not_in(*values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": "service", "operator": "NotIn", "values": list(values)}]}


def p(name: str = "p", **labels: str) -> Any:
    return make_pod().name(name).labels(labels)


SINGLE_NODE = [
    pytest.param(
        make_pod().name("in").obj(),
        [],
        None,
        id="A pod that has no required pod affinity scheduling rules can schedule onto a node "
        "with no existing pods",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_in("securityscan", "value2")).obj(),
        [p("e", service="securityscan").node("node1").obj()],
        None,
        id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
        "operator that matches the existing pod",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_not_in("securityscan3", "value3")).obj(),
        [p("e", service="securityscan").node("node1").obj()],
        None,
        id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity "
        "using not in operator in labelSelector that matches the existing pod",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_in("securityscan"), namespaces=["DiffNameSpace"]).obj(),
        [p("e", service="securityscan").node("node1").obj()],
        AFF,
        id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_in("antivirusscan", "value2")).obj(),
        [p("e", service="securityscan").node("node1").obj()],
        AFF,
        id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
    ),
    pytest.param(
        p("in")
        .pod_affinity(
            "region",
            {
                "matchExpressions": [
                    {"key": "service", "operator": "Exists"},
                    {"key": "wrongkey", "operator": "DoesNotExist"},
                ]
            },
        )
        .pod_affinity("region", sec_in("securityscan", "value2"))
        .obj(),
        [p("e", service="securityscan").node("node1").obj()],
        None,
        id="satisfies the PodAffinity with different label Operators in multiple "
        "RequiredDuringSchedulingIgnoredDuringExecution",
    ),
    pytest.param(
        p("in")
        .pod_affinity(
            "region",
            {
                "matchExpressions": [
                    {"key": "service", "operator": "Exists"},
                    {"key": "wrongkey", "operator": "DoesNotExist"},
                ]
            },
        )
        .pod_affinity("region", sec_in("securityscan2", "value2"))
        .obj(),
        [p("e", service="securityscan").node("node1").obj()],
        AFF,
        id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
        "schedule onto the node because one of the matchExpression item don't match.",
    ),
    pytest.param(
        p("in")
        .pod_affinity("region", sec_in("securityscan", "value2"))
        .pod_anti_affinity("node", sec_in("antivirusscan", "value2"))
        .obj(),
        [p("e", service="securityscan").node("node1").obj()],
        None,
        id="satisfies the PodAffinity and PodAntiAffinity with the existing pod",
    ),
    pytest.param(
        p("in")
        .pod_affinity("region", sec_in("securityscan", "value2"))
        .pod_anti_affinity("zone", sec_in("securityscan", "value2"))
        .obj(),
        [p("e", service="securityscan").node("node1").obj()],
        ANTI,
        id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
    ),
    pytest.param(
        p("in", service="securityscan")
        .pod_affinity("region", sec_in("securityscan", "value2"))
        .pod_anti_affinity("node", sec_in("antivirusscan", "value2"))
        .obj(),
        [
            p("e", service="securityscan")
            .node("node1")
            .pod_anti_affinity("zone", sec_in("securityscan", "value2"))
            .obj()
        ],
        EXISTING,
        id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity "
        "symmetry with the existing pod",
    ),
    pytest.param(
        p("in", service="securityscan").pod_affinity("region", sec_in("securityscan")).obj(),
        [],
        None,
        id="pod matches its own Label in PodAffinity and that matches the existing pod Labels",
    ),
    pytest.param(
        p("in", service="securityscan").obj(),
        [p("e").node("node1").pod_anti_affinity("zone", sec_in("securityscan", "value2")).obj()],
        EXISTING,
        id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
        "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    ),
    pytest.param(
        p("in", service="securityscan").obj(),
        [p("e").node("node1").pod_anti_affinity("zone", sec_not_in("securityscan", "value2")).obj()],
        None,
        id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
        "constraints. satisfy PodAntiAffinity symmetry with the existing pod",
    ),
    pytest.param(
        p("in", service="securityscan").pod_anti_affinity("zone", sec_in("securityscan")).obj(),
        [
            p("e", service="antivirusscan")
            .node("node1")
            .pod_anti_affinity("zone", sec_in("securityscan"))
            .obj()
        ],
        EXISTING,
        id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
        "symmetry with incoming pod",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_in("securityscan"), namespace_selector={"team": "team1"}).obj(),
        [p("e", service="securityscan").namespace("subteam").node("node1").obj()],
        AFF,
        id="PodAffinity fails because namespace selector doesn't match",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_in("securityscan"), namespace_selector={"team": "team1"}).obj(),
        [p("e", service="securityscan").namespace("team1").node("node1").obj()],
        None,
        id="PodAffinity passes because namespace selector matches",
    ),
    pytest.param(
        p("in").pod_anti_affinity("zone", sec_in("securityscan"), namespace_selector={}).obj(),
        [p("e", service="securityscan").namespace("subteam").node("node1").obj()],
        ANTI,
        id="PodAntiAffinity fails because of empty namespace selector",
    ),
    pytest.param(
        p("in").pod_anti_affinity("zone", sec_in("securityscan"), namespace_selector={"team": "t2"}).obj(),
        [p("e", service="securityscan").namespace("team1").node("node1").obj()],
        None,
        id="PodAntiAffinity passes because namespace selector doesn't match",
    ),
    pytest.param(
        p("in", service="securityscan").namespace("team1").obj(),
        [p("e").namespace("other").node("node1")
         .pod_anti_affinity("zone", sec_in("securityscan"), namespace_selector={"team": "team1"}).obj()],
        EXISTING,
        id="existing pod's anti-affinity namespace selector matches the incoming pod's namespace",
    ),
    pytest.param(
        p("in", service="securityscan").namespace("subteam").obj(),
        [p("e").namespace("other").node("node1")
         .pod_anti_affinity("zone", sec_in("securityscan"), namespace_selector={"team": "team1"}).obj()],
        None,
        id="existing pod's anti-affinity namespace selector doesn't match the incoming pod's namespace",
    ),
    pytest.param(
        p("in", team="a").pod_affinity("region", sec_in("securityscan"), match_label_keys=["team"]).obj(),
        [p("e", service="securityscan", team="b").node("node1").obj()],
        AFF,
        id="matchLabelKeys merged into the affinity selector: different team does not match",
    ),
    pytest.param(
        p("in", service="securityscan", team="a")
        .pod_anti_affinity("zone", sec_in("securityscan"), mismatch_label_keys=["team"])
        .obj(),
        [p("e", service="securityscan", team="a").node("node1").obj()],
        None,
        id="mismatchLabelKeys merged into the anti-affinity selector: same team is not repelled",
    ),
    pytest.param(
        p("in").pod_affinity("region", sec_in("securityscan")).obj(),
        [p("e", service="securityscan").node("node1").terminating().obj()],
        None,
        id="terminating pods still count for inter-pod affinity",
    ),
]

NAMESPACES = [
    Namespace.from_dict({"metadata": {"name": "team1", "labels": {"team": "team1"}}}),
    Namespace.from_dict({"metadata": {"name": "subteam", "labels": {"team": "subteam"}}}),
]


@pytest.mark.parametrize(("pod", "existing", "want"), SINGLE_NODE)
def test_required_affinity_single_node(pod: Pod, existing: list[Pod], want: Status | None) -> None:
    s = snap([node1()], existing)
    pl = InterPodAffinity(handle=FakeHandle(s, FakeStore(NAMESPACES)))
    assert run_filter(pl, pod, s) == [want]


def zone_nodes() -> list[Node]:
    return [
        make_node().name("nodeA").labels({"region": "r1", "zone": "z1", "hostname": "h1"}).obj(),
        make_node().name("nodeB").labels({"region": "r1", "zone": "z2", "hostname": "h2"}).obj(),
        make_node().name("nodeC").labels({"region": "r2", "zone": "z3"}).obj(),
    ]


MULTI_NODE = [
    pytest.param(
        p("in").pod_affinity("region", {"foo": "bar"}).obj(),
        [p("e", foo="bar").node("nodeA").obj()],
        [None, None, AFF],
        id="A pod can be scheduled onto all the nodes that have the same topology key & label value "
        "with one of them has an existing pod that matches the affinity rules",
    ),
    pytest.param(
        p("in", foo="bar").pod_affinity("zone", {"foo": "bar"}).obj(),
        [],
        [None, None, None],
        id="The affinity rule is to schedule all of the pods of this collection to the same zone. The "
        "first pod of the collection should not be blocked from being scheduled onto any node, even "
        "there's no existing pod that matches the rule anywhere.",
    ),
    pytest.param(
        p("in", foo="bar").pod_affinity("hostname", {"foo": "bar"}).obj(),
        [],
        [None, None, AFF],
        id="first pod of a collection: nodes without the topology key still fail",
    ),
    pytest.param(
        p("in", foo="baz").pod_affinity("zone", {"foo": "bar"}).obj(),
        [],
        [AFF, AFF, AFF],
        id="no pod matches the affinity and the pod does not match itself: nowhere",
    ),
    pytest.param(
        p("in").pod_anti_affinity("region", {"foo": "bar"}).obj(),
        [p("e", foo="bar").node("nodeA").obj()],
        [ANTI, ANTI, None],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
        "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
    ),
    pytest.param(
        p("in", foo="bar").obj(),
        [p("e").node("nodeA").pod_anti_affinity("region", {"foo": "bar"}).obj()],
        [EXISTING, EXISTING, None],
        id="existing pod anti-affinity on region blocks every node of the region",
    ),
    pytest.param(
        p("in").pod_anti_affinity("zone", {"foo": "bar"}).pod_anti_affinity("zone", {"abc": "xyz"}).obj(),
        [p("e1", foo="bar").node("nodeA").obj(), p("e2", abc="xyz").node("nodeB").obj()],
        [ANTI, ANTI, None],
        id="This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
        "matches a pod.",
    ),
    pytest.param(
        p("in", foo="bar").pod_anti_affinity("hostname", {"foo": "bar"}).obj(),
        [p("e", foo="bar").node("nodeC").obj()],
        [None, None, None],
        id="Test incoming pod's anti-affinity: even if labels matches, topology key is missing on the "
        "node so incoming pod can be scheduled",
    ),
    pytest.param(
        p("in", foo="bar").obj(),
        [p("e", foo="bar").node("nodeC").pod_anti_affinity("hostname", {"foo": "bar"}).obj()],
        [None, None, None],
        id="Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
        "labels match is not sufficient for the pod to be rejected",
    ),
    pytest.param(
        p("in", foo="bar")
        .pod_affinity("zone", {"foo": "bar"})
        .pod_anti_affinity("zone", {"foo": "bar"})
        .obj(),
        [p("e", foo="bar").node("nodeA").obj()],
        [ANTI, AFF, AFF],
        id="affinity is checked before anti-affinity",
    ),
    pytest.param(
        p("in", foo="bar").pod_affinity("zone", {"foo": "bar"}).pod_affinity("region", {"foo": "bar"}).obj(),
        [p("e", foo="bar").node("nodeB").obj()],
        [AFF, None, AFF],
        id="all affinity terms must be satisfied by the node's domains",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want"), MULTI_NODE)
def test_required_affinity_multiple_nodes(pod: Pod, existing: list[Pod], want: list[Status | None]) -> None:
    s = snap(zone_nodes(), existing)
    assert run_filter(InterPodAffinity(), pod, s) == want


def test_pre_filter_skips_without_terms() -> None:
    s = snap(zone_nodes(), [p("e", foo="bar").node("nodeA").obj()])
    _, st = InterPodAffinity().pre_filter(CycleState(), p("in").obj(), s.node_info_list)
    assert st is not None and st.code == Code.SKIP


def test_filter_without_pre_filter_state_is_an_error() -> None:
    s = snap(zone_nodes())
    st = InterPodAffinity().filter(CycleState(), p("in").obj(), s.node_info_list[0])
    assert st is not None and st.code == Code.ERROR


def test_pre_filter_state_add_remove_pod() -> None:
    """TestPreFilterStateAddRemovePod: adding then removing a pod restores the state, and the
    filter sees the added pod on both paths."""
    s = snap(zone_nodes(), [p("e1", foo="bar").node("nodeA").obj()])
    incoming = p("in", foo="bar").pod_anti_affinity("zone", {"foo": "bar"}).obj()
    pl = InterPodAffinity()
    state = CycleState()
    pl.pre_filter(state, incoming, s.node_info_list)
    before = run_filter(pl, incoming, s, state)
    assert before == [ANTI, None, None]
    ext = pl.pre_filter_extensions()
    added = PodInfo(p("e2", foo="bar").node("nodeB").pod_anti_affinity("region", {"foo": "bar"}).obj())
    clone = state.clone()
    assert ext.add_pod(clone, incoming, added, s.node_info_list[1]) is None
    assert run_filter(pl, incoming, s, clone) == [ANTI, ANTI, None]
    assert ext.remove_pod(clone, incoming, added, s.node_info_list[1]) is None
    assert run_filter(pl, incoming, s, clone) == before
    # the original state is untouched by the clone's updates
    assert run_filter(pl, incoming, s, state) == before


def test_batch_filter_follows_add_pod_on_the_same_state() -> None:
    """The batch result kept for a cycle's later node chunks is dropped when AddPod changes the
    state it was computed from."""
    s = snap(zone_nodes(), [p("e1", foo="bar").node("nodeA").obj()])
    incoming = p("in", foo="bar").pod_anti_affinity("zone", {"foo": "bar"}).obj()
    pl = InterPodAffinity()
    state = CycleState()
    pl.pre_filter(state, incoming, s.node_info_list)
    assert run_filter(pl, incoming, s, state) == [ANTI, None, None]
    added = PodInfo(p("e2", foo="bar").node("nodeB").obj())
    assert pl.pre_filter_extensions().add_pod(state, incoming, added, s.node_info_list[1]) is None
    assert run_filter(pl, incoming, s, state) == [ANTI, ANTI, None]


def test_namespace_selector_without_a_store_selects_nothing() -> None:
    """Without namespaces to list, a non-empty namespace selector resolves to no namespace."""
    s = snap([node1()], [p("e", service="securityscan").namespace("team1").node("node1").obj()])
    pod = p("in").pod_affinity("region", sec_in("securityscan"), namespace_selector={"team": "team1"}).obj()
    assert run_filter(InterPodAffinity(), pod, s) == [AFF]


@pytest.mark.parametrize(
    ("existing", "skip"),
    [
        pytest.param(p("e", foo="bar").node("nodeA"), True, id="no pod with required anti-affinity"),
        pytest.param(p("e", foo="bar").node("nodeA").pod_anti_affinity("zone", {"foo": "bar"}), False,
                     id="an existing pod's required anti-affinity matches"),
        pytest.param(p("e", foo="bar").node("nodeA").pod_anti_affinity("zone", {"foo": "bar"},
                                                                       kind="preferred"),
                     True, id="preferred anti-affinity does not count in PreFilter"),
    ],
)
def test_pre_filter_without_terms_reads_pods_with_required_anti_affinity(existing: Any, skip: bool) -> None:
    """Without required terms of its own, the pod's PreFilter state holds only existing pods'
    anti-affinity (HavePodsWithRequiredAntiAffinityList upstream): Skip when there is none."""
    s = snap(zone_nodes(), [existing.obj()])
    _, st = InterPodAffinity(handle=FakeHandle(s)).pre_filter(CycleState(), p("in", foo="bar").obj(),
                                                               s.node_info_list)
    assert (st is not None and st.code == Code.SKIP) == skip
