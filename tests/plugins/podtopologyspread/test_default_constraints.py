"""Default constraints with upstream's DefaultSelector: the cases of upstream's filtering_test.go
(TestPreFilterState, default constraints), scoring_test.go (TestPreScoreSkip,
TestPreScoreStateEmptyNodes, TestPodTopologySpreadScore "system defaulting ... pods match
service"), with Services and controllers in the store. Both paths are checked by run_filter /
run_score."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import ApiObject, LabelSelector, Node, Pod
from kubesched.framework import Code, CycleState
from kubesched.plugins.podtopologyspread import PodTopologySpread, PodTopologySpreadArgs, filtering, scoring
from kubesched.testing import make_node, make_pod

from .._workloads import replica_set, service, store_with
from ..interpodaffinity._paths import FakeHandle, run_filter, run_score, snap

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}


def list_args(*constraints: tuple[int, str, str]) -> PodTopologySpreadArgs:
    return PodTopologySpreadArgs.from_dict({
        "defaultingType": "List",
        "defaultConstraints": [{"maxSkew": m, "topologyKey": k, "whenUnsatisfiable": w}
                               for m, k, w in constraints],
    })


SYSTEM = PodTopologySpreadArgs.from_dict({"defaultingType": "System"})


def plugin(args: PodTopologySpreadArgs, nodes: list[Node], pods: list[Pod], *objects: ApiObject) -> Any:
    s = snap(nodes, pods)
    return PodTopologySpread(args, FakeHandle(s, store=store_with(*objects))), s


def summary(constraints: list[Any]) -> list[tuple[int, str, LabelSelector | None]]:
    return [(c.max_skew, c.topology_key, c.selector) for c in constraints]


def foo_bar() -> LabelSelector:
    return LabelSelector((("foo", "bar"),))


# -- PreFilter (filtering_test.go TestPreFilterState) ------------------------------------------------
def test_pre_filter_default_constraints_and_a_service() -> None:
    pod = make_pod().name("p").labels({"foo": "bar", "baz": "kar"}).obj()
    args = list_args((3, "node", "DoNotSchedule"), (2, "node", "ScheduleAnyway"),
                     (5, "rack", "DoNotSchedule"))
    pl, s = plugin(args, [], [], service("s", {"foo": "bar"}))
    state = CycleState()
    _, st = pl.pre_filter(state, pod, s.node_info_list)
    assert st is None
    got = filtering.get_pre_filter_state(state)
    assert summary(got.constraints) == [(3, "node", foo_bar()), (5, "rack", foo_bar())]
    assert got.tp_value_to_match_num == [{}, {}]


@pytest.mark.parametrize(
    ("pod", "args", "selector"),
    [
        pytest.param(make_pod().name("p").label("foo", "bar").obj(), list_args((3, "node", "DoNotSchedule")),
                     {"baz": "kep"}, id="default constraints and a service that doesn't match"),
        pytest.param(make_pod().name("p").label("foo", "bar").obj(), list_args((2, "node", "ScheduleAnyway")),
                     {"foo": "bar"}, id="default soft constraints and a service"),
    ],
)
def test_pre_filter_skips(pod: Pod, args: PodTopologySpreadArgs, selector: dict[str, str]) -> None:
    pl, s = plugin(args, [], [], service("s", selector))
    _, st = pl.pre_filter(CycleState(), pod, s.node_info_list)
    assert st is not None and st.code == Code.SKIP


def test_pre_filter_pod_constraints_win_over_defaults() -> None:
    """default constraints and a service, but pod has constraints."""
    pod = (make_pod().name("p").labels({"foo": "bar", "baz": "tar"})
           .spread_constraint(1, "zone", "DoNotSchedule", {"matchLabels": {"baz": "tar"}})
           .spread_constraint(2, "planet", "ScheduleAnyway", {"matchLabels": {"fot": "rok"}}).obj())
    pl, s = plugin(list_args((2, "node", "DoNotSchedule")), [], [], service("s", {"foo": "bar"}))
    state = CycleState()
    pl.pre_filter(state, pod, s.node_info_list)
    got = filtering.get_pre_filter_state(state)
    assert summary(got.constraints) == [(1, "zone", LabelSelector((("baz", "tar"),)))]


def test_filter_default_constraints_of_a_service() -> None:
    """The service's selector counts the matching pods: node-a holds two, node-b none; maxSkew 1
    rejects node-a. Without the service (the pod's own labels) nothing would be filtered."""
    nodes = [make_node().name(n).label("node", n).obj() for n in ("node-a", "node-b")]
    existing = [make_pod().name(f"e{i}").labels({"foo": "bar", "x": str(i)}).node("node-a").obj()
                for i in range(2)]
    pod = make_pod().name("p").labels({"foo": "bar", "baz": "kar"}).obj()
    pl, s = plugin(list_args((1, "node", "DoNotSchedule")), nodes, existing, service("s", {"foo": "bar"}))
    statuses = run_filter(pl, pod, s)
    assert [st is None for st in statuses] == [False, True]


# -- PreScore (scoring_test.go TestPreScoreSkip, TestPreScoreStateEmptyNodes) ----------------------
def test_pre_score_skips_when_the_replica_set_is_not_found() -> None:
    """default constraints and a replicaset that doesn't match: the pod's owner rs2 does not
    exist, so there is no default selector (the pod's own labels are not used)."""
    pod = (make_pod().name("p").labels({"foo": "bar", "baz": "sup"})
           .owner_reference("rs2", kind="ReplicaSet").obj())
    nodes = [make_node().name("node-a").label("planet", "mars").obj()]
    rs1 = replica_set("rs1", {"matchExpressions": [{"key": "tar", "operator": "Exists"}]})
    pl, s = plugin(list_args((2, "planet", "ScheduleAnyway")), nodes, [], rs1)
    st = pl.pre_score(CycleState(), pod, s.node_info_list)
    assert st is not None and st.code == Code.SKIP


def rs1_pod() -> Pod:
    return (make_pod().name("p").labels({"foo": "tar", "baz": "sup"})
            .owner_reference("rs1", kind="ReplicaSet").obj())


def foo_exists() -> LabelSelector:
    sel = LabelSelector.from_dict(FOO)
    assert sel is not None
    return sel


def _requirements(c: Any) -> list[tuple[str, str]]:
    assert c.selector is not None
    return [(r.key, r.operator) for r in c.selector.match_expressions]


def test_pre_score_system_default_constraints_and_a_replica_set() -> None:
    """Nodes without a zone are not excluded: they form the zone "" (system defaulting only)."""
    nodes = [
        make_node().name("node-a").label(HOSTNAME, "node-a").label(ZONE, "mars").obj(),
        make_node().name("node-b").label(HOSTNAME, "node-b").label(ZONE, "mars").obj(),
        make_node().name("node-c").label(HOSTNAME, "node-c").obj(),
        make_node().name("node-d").label(HOSTNAME, "node-d").obj(),
    ]
    pl, s = plugin(SYSTEM, nodes, [], replica_set("rs1", FOO))
    state = CycleState()
    assert pl.pre_score(state, rs1_pod(), s.node_info_list) is None
    got = scoring.get_pre_score_state(state)
    assert [(c.max_skew, c.topology_key, _requirements(c)) for c in got.constraints] == [
        (3, HOSTNAME, [("foo", "Exists")]), (5, ZONE, [("foo", "Exists")])]
    assert got.ignored_nodes == frozenset()
    assert got.topology_value_to_pod_counts[1] == {"mars": 0, "": 0}


def test_pre_score_list_default_constraints_and_a_replica_set() -> None:
    """default constraints and a replicaset: the ScheduleAnyway ones, with the set's selector."""
    nodes = [make_node().name("node-a").label("rack", "rack1").label(HOSTNAME, "node-a")
             .label("planet", "mars").obj()]
    args = list_args((1, HOSTNAME, "ScheduleAnyway"), (2, "rack", "DoNotSchedule"),
                     (2, "planet", "ScheduleAnyway"))
    pl, s = plugin(args, nodes, [], replica_set("rs1", FOO))
    state = CycleState()
    assert pl.pre_score(state, rs1_pod(), s.node_info_list) is None
    got = scoring.get_pre_score_state(state)
    assert [(c.max_skew, c.topology_key, _requirements(c)) for c in got.constraints] == [
        (1, HOSTNAME, [("foo", "Exists")]), (2, "planet", [("foo", "Exists")])]
    assert got.topology_value_to_pod_counts[1] == {"mars": 0}


def test_pre_score_pod_constraints_win_over_the_replica_set() -> None:
    pod = (make_pod().name("p").labels({"foo": "bar", "baz": "sup"}).owner_reference("rs1", kind="ReplicaSet")
           .spread_constraint(1, "zone", "DoNotSchedule", {"matchLabels": {"bar": ""}})
           .spread_constraint(2, "planet", "ScheduleAnyway", {"matchLabels": {"baz": "sup"}}).obj())
    nodes = [make_node().name("node-a").label("planet", "mars").label("galaxy", "andromeda").obj()]
    pl, s = plugin(list_args((2, "galaxy", "ScheduleAnyway")), nodes, [], replica_set("rs1", FOO))
    state = CycleState()
    assert pl.pre_score(state, pod, s.node_info_list) is None
    got = scoring.get_pre_score_state(state)
    assert summary(got.constraints) == [(2, "planet", LabelSelector((("baz", "sup"),)))]


# -- Score (scoring_test.go TestPodTopologySpreadScore) ----------------------------------------------
def test_system_defaulting_nodes_without_zone_pods_match_service() -> None:
    """system defaulting, nodes don't have zone, pods match service: matching pods spread as
    4/3/2/1; same scores as one hostname constraint with maxSkew 3: 44/66/77/100."""
    names = ["node-a", "node-b", "node-c", "node-d"]
    nodes = [make_node().name(n).label(HOSTNAME, n).obj() for n in names]
    existing = [make_pod().name(f"p-{n[-1]}{i}").label("foo", "").node(n).obj()
                for n, k in zip(names, (4, 3, 2, 1), strict=True) for i in range(k)]
    pl, s = plugin(SYSTEM, nodes, existing, service("s", {"foo": ""}))
    _, normalized = run_score(pl, make_pod().name("p").label("foo", "").obj(), s)
    assert normalized == [44, 66, 77, 100]


def test_a_service_created_later_is_seen() -> None:
    """The store is read on every cycle: no Service, no default spreading (all 0 = skipped);
    after the Service is created the same pod is spread."""
    names = ["node-a", "node-b"]
    nodes = [make_node().name(n).label(HOSTNAME, n).obj() for n in names]
    existing = [make_pod().name(f"e{i}").label("foo", "").node("node-a").obj() for i in range(3)]
    s = snap(nodes, existing)
    store = store_with()
    pl = PodTopologySpread(SYSTEM, FakeHandle(s, store=store))
    pod = make_pod().name("p").label("foo", "").obj()
    assert run_score(pl, pod, s) == ([0, 0], [0, 0])
    store.create(service("s", {"foo": ""}))
    _, normalized = run_score(pl, pod, s)
    assert normalized[1] == 100 and normalized[0] < 100
    store.delete("Service", "default", "s")
    assert run_score(pl, pod, s) == ([0, 0], [0, 0])
