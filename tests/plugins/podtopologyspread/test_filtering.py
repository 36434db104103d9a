"""PodTopologySpread PreFilter/Filter, ported from upstream's filtering_test.go (TestSingleConstraint,
TestMultipleConstraints, TestPreFilterState minDomains, TestPreFilterStateAddPod/RemovePod); each
case runs on the per-node and the batch path (run_filter checks they agree)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Node, Pod
from kubesched.cache import PodInfo
from kubesched.framework import Code, CycleState, Status
from kubesched.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PodTopologySpread,
)
from kubesched.testing import make_node, make_pod

from ..interpodaffinity._paths import run_filter, snap

HOSTNAME = "kubernetes.io/hostname"
ZONE = "zone"
OK = None
SKEW = Status(Code.UNSCHEDULABLE, (ERR_REASON_CONSTRAINTS_NOT_MATCH,), "PodTopologySpread")
LABEL = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_LABEL_NOT_MATCH,), "PodTopologySpread")
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}


def node(name: str, zone: str | None = None, **extra: str) -> Node:
    b = make_node().name(name).label(HOSTNAME, name).labels(extra)
    return (b.label(ZONE, zone) if zone else b).obj()


def nodes4() -> list[Node]:
    return [
        node("node-a", "zone1"),
        node("node-b", "zone1"),
        node("node-x", "zone2"),
        node("node-y", "zone2"),
    ]


def on(node_name: str, n: int, prefix: str = "", ns: str = "default", **labels: str) -> list[Pod]:
    labels = labels or {"foo": ""}
    return [
        make_pod().name(f"{prefix or node_name}-{i}").namespace(ns).labels(labels).node(node_name).obj()
        for i in range(n)
    ]


def incoming(*constraints: tuple[Any, ...], **labels: str) -> Any:
    b = make_pod().name("p").labels(labels if labels else {"foo": ""})
    for c in constraints:
        b = b.spread_constraint(*c)
    return b


def zone_c(max_skew: int = 1, sel: Any = FOO, **kw: Any) -> tuple[Any, ...]:
    return (
        max_skew,
        ZONE,
        "DoNotSchedule",
        sel,
        kw.get("min_domains"),
        kw.get("naff"),
        kw.get("ntaint"),
        kw.get("mlk"),
    )


def host_c(max_skew: int = 1, sel: Any = FOO, **kw: Any) -> tuple[Any, ...]:
    return (
        max_skew,
        HOSTNAME,
        "DoNotSchedule",
        sel,
        kw.get("min_domains"),
        kw.get("naff"),
        kw.get("ntaint"),
        kw.get("mlk"),
    )


SINGLE = [
    pytest.param(incoming(zone_c()).obj(), nodes4(), [], [OK, OK, OK, OK], id="no existing pods"),
    pytest.param(
        incoming(zone_c(sel=BAR)).obj(),
        nodes4(),
        [],
        [OK, OK, OK, OK],
        id="no existing pods, incoming pod doesn't match itself",
    ),
    # zone1: 0 (other namespaces), zone2: 3 -> zone2: 3+1-0 > 1.
    pytest.param(
        incoming(zone_c()).obj(),
        nodes4(),
        [*on("node-a", 1, ns="ns1"), *on("node-b", 1, ns="ns2"), *on("node-x", 1), *on("node-y", 2)],
        [OK, OK, SKEW, SKEW],
        id="existing pods in a different namespace do not count",
    ),
    pytest.param(
        incoming(zone_c()).obj(),
        nodes4(),
        [*on("node-a", 2), *on("node-b", 1), *on("node-x", 1), *on("node-y", 2)],
        [OK, OK, OK, OK],
        id="pods spread across zones as 3/3, all nodes fit",
    ),
    # node-b has no zone: its pods don't count; zone1 1, zone2 2.
    pytest.param(
        incoming(zone_c()).obj(),
        [node("node-a", "zone1"), node("node-b"), node("node-x", "zone2"), node("node-y", "zone2")],
        [*on("node-a", 1), *on("node-b", 1), *on("node-x", 1), *on("node-y", 1)],
        [OK, LABEL, SKEW, SKEW],
        id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
    ),
    pytest.param(
        incoming((1, "rack", "DoNotSchedule", FOO)).obj(),
        nodes4(),
        [],
        [LABEL] * 4,
        id="pod cannot be scheduled as all nodes don't have label 'rack'",
    ),
    pytest.param(
        incoming(host_c()).obj(),
        nodes4(),
        [*on("node-a", 2), *on("node-b", 1), *on("node-y", 3)],
        [SKEW, SKEW, OK, SKEW],
        id="pods spread across nodes as 2/1/0/3, only node-x fits",
    ),
    pytest.param(
        incoming(host_c(2)).obj(),
        nodes4(),
        [*on("node-a", 2), *on("node-b", 1), *on("node-y", 3)],
        [SKEW, OK, OK, SKEW],
        id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
    ),
    pytest.param(
        incoming(host_c(), bar="").obj(),
        nodes4(),
        [*on("node-a", 2), *on("node-b", 1), *on("node-y", 3)],
        [SKEW, OK, OK, SKEW],
        id="pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
    ),
    # terminating pods are not counted: node-a 2 -> 0 counted.
    pytest.param(
        incoming(host_c()).obj(),
        nodes4(),
        [
            *[make_pod().name(f"t{i}").label("foo", "").node("node-a").terminating().obj() for i in range(2)],
            *on("node-b", 1),
            *on("node-x", 1),
            *on("node-y", 1),
        ],
        [OK, SKEW, SKEW, SKEW],
        id="terminating Pods should be excluded",
    ),
    # 2 zones < minDomains 3 -> global min 0: zone1 2+1 > 2, zone2 1+1 <= 2.
    pytest.param(
        incoming(zone_c(2, min_domains=3)).obj(),
        nodes4(),
        [*on("node-a", 2), *on("node-x", 1)],
        [SKEW, SKEW, OK, OK],
        id="pods spread across zone1/zone2 as 2/1, minDomains 3 makes the global minimum 0",
    ),
    pytest.param(
        incoming(zone_c(2, min_domains=2)).obj(),
        nodes4(),
        [*on("node-a", 3), *on("node-x", 1)],
        [SKEW, SKEW, OK, OK],
        id="minDomains satisfied: the global minimum is the smallest domain",
    ),
    pytest.param(
        incoming(zone_c(2, min_domains=2)).obj(),
        nodes4(),
        [*on("node-a", 2), *on("node-x", 1)],
        [OK, OK, OK, OK],
        id="minDomains satisfied, skew within maxSkew",
    ),
    # node-x is excluded by the pod's nodeSelector: zone2 counts only node-y (0); zone1 has 2.
    pytest.param(
        incoming(zone_c()).node_selector({"pool": "p"}).obj(),
        [
            node("node-a", "zone1", pool="p"),
            node("node-b", "zone1", pool="p"),
            node("node-x", "zone2"),
            node("node-y", "zone2", pool="p"),
        ],
        [*on("node-a", 1), *on("node-b", 1), *on("node-x", 3)],
        [SKEW, SKEW, OK, OK],
        id="NodeAffinityPolicy honored with nodeSelector",
    ),
    pytest.param(
        incoming(zone_c(naff="Ignore")).node_selector({"pool": "p"}).obj(),
        [
            node("node-a", "zone1", pool="p"),
            node("node-b", "zone1", pool="p"),
            node("node-x", "zone2"),
            node("node-y", "zone2", pool="p"),
        ],
        [*on("node-a", 1), *on("node-b", 1), *on("node-x", 3)],
        [OK, OK, SKEW, SKEW],
        id="NodeAffinityPolicy ignored with nodeSelector",
    ),
    pytest.param(
        incoming(zone_c(ntaint="Honor")).obj(),
        [
            node("node-a", "zone1"),
            node("node-b", "zone1"),
            make_node().name("node-x").label(HOSTNAME, "node-x").label(ZONE, "zone2").taint("t").obj(),
            node("node-y", "zone2"),
        ],
        [*on("node-a", 1), *on("node-b", 1), *on("node-x", 3)],
        [SKEW, SKEW, OK, OK],
        id="NodeTaintsPolicy honored",
    ),
    pytest.param(
        incoming(zone_c(ntaint="Ignore")).obj(),
        [
            node("node-a", "zone1"),
            node("node-b", "zone1"),
            make_node().name("node-x").label(HOSTNAME, "node-x").label(ZONE, "zone2").taint("t").obj(),
            node("node-y", "zone2"),
        ],
        [*on("node-a", 1), *on("node-b", 1), *on("node-x", 3)],
        [OK, OK, SKEW, SKEW],
        id="NodeTaintsPolicy ignored",
    ),
    # matchLabelKeys: only pods with the same "rev" count (zone2's pods are rev 2).
    pytest.param(
        incoming(zone_c(mlk=["rev"]), foo="", rev="1").obj(),
        nodes4(),
        [*on("node-a", 1, foo="", rev="1"), *on("node-x", 3, foo="", rev="2")],
        [SKEW, SKEW, OK, OK],
        id="matchLabelKeys merged into the selector",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "want"), SINGLE)
def test_single_constraint(
    pod: Pod, nodes: list[Node], existing: list[Pod], want: list[Status | None]
) -> None:
    s = snap(nodes, existing)
    assert run_filter(PodTopologySpread(), pod, s) == want


MULTIPLE = [
    # zone 3/3 fits everywhere (3+1-3); hostname a2 b1 x0 y3: only node-x (0+1-0).
    pytest.param(
        incoming(zone_c(), host_c()).obj(),
        [*on("node-a", 2), *on("node-b", 1), *on("node-y", 3)],
        [SKEW, SKEW, OK, SKEW],
        id="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
    ),
    # zone 3/4: zone2 4+1-3 > 1 fails node-x and node-y; hostname fails node-a and node-b.
    pytest.param(
        incoming(zone_c(), host_c()).obj(),
        [*on("node-a", 2), *on("node-b", 1), *on("node-y", 4)],
        [SKEW, SKEW, SKEW, SKEW],
        id="two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
    ),
    pytest.param(
        incoming(zone_c(), host_c()).obj(),
        [*on("node-b", 2), *on("node-x", 1), *on("node-y", 1)],
        [OK, SKEW, SKEW, SKEW],
        id="two Constraints on zone and node, spreads = [2/2, 0/2/1/1]",
    ),
    # the zone constraint matches foo (zone1 1, zone2 2: zone2 fails 2+1-1), the node constraint
    # matches bar (a0 b1 x0 y0: node-b fails 1+1-0).
    pytest.param(
        incoming(zone_c(), host_c(sel=BAR), foo="", bar="").obj(),
        [*on("node-a", 1, foo=""), *on("node-b", 1, prefix="b", bar=""), *on("node-y", 2, foo="")],
        [OK, SKEW, SKEW, SKEW],
        id="two Constraints on zone and node, with different labelSelectors",
    ),
    # the first failing constraint decides: node without zone label -> missing label first.
    pytest.param(
        incoming(zone_c(), host_c()).obj(),
        [],
        [OK, OK, OK, OK],
        id="two Constraints on zone and node, no existing pods",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want"), MULTIPLE)
def test_multiple_constraints(pod: Pod, existing: list[Pod], want: list[Status | None]) -> None:
    s = snap(nodes4(), existing)
    assert run_filter(PodTopologySpread(), pod, s) == want


def test_node_missing_any_key_is_unresolvable() -> None:
    # node-a lacks the second constraint's key: its pods count nowhere and it is rejected.
    nodes = [node("node-a"), node("node-b", "zone1")]
    pod = incoming(host_c(), zone_c()).obj()
    s = snap(nodes, on("node-a", 2))
    assert run_filter(PodTopologySpread(), pod, s) == [LABEL, OK]


def test_pre_filter_skips_without_constraints() -> None:
    _, st = PodTopologySpread().pre_filter(
        CycleState(), make_pod().name("p").obj(), snap(nodes4()).node_info_list
    )
    assert st is not None and st.code == Code.SKIP


def test_pre_filter_state_add_remove_pod() -> None:
    """TestPreFilterStateAddPod / RemovePod: the state follows added and removed pods on both
    paths; pods in other namespaces or on nodes missing a key are ignored."""
    s = snap(nodes4(), [*on("node-a", 1), *on("node-x", 1)])
    pod = incoming(zone_c()).obj()
    pl = PodTopologySpread()
    state = CycleState()
    pl.pre_filter(state, pod, s.node_info_list)
    assert run_filter(pl, pod, s, state) == [OK, OK, OK, OK]
    clone = state.clone()
    added = PodInfo(on("node-b", 1, prefix="new")[0])
    pl.add_pod(clone, pod, added, s.node_info_list[1])
    assert run_filter(pl, pod, s, clone) == [SKEW, SKEW, OK, OK]
    other_ns = PodInfo(on("node-x", 1, prefix="o", ns="other")[0])
    pl.add_pod(clone, pod, other_ns, s.node_info_list[2])
    assert run_filter(pl, pod, s, clone) == [SKEW, SKEW, OK, OK]
    pl.remove_pod(clone, pod, added, s.node_info_list[1])
    assert run_filter(pl, pod, s, clone) == [OK, OK, OK, OK]
    assert run_filter(pl, pod, s, state) == [OK, OK, OK, OK]
