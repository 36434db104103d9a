"""InterPodAffinity PreScore/Score/NormalizeScore, ported from upstream's scoring_test.go
(TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight); each case runs
on the per-node and the batch path (run_score checks they agree)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kubesched.api import Node, Pod
from kubesched.framework import CycleState
from kubesched.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs
from kubesched.testing import make_node, make_pod

from ._paths import FakeHandle, run_score, snap

S1 = {"matchExpressions": [{"key": "security", "operator": "In", "values": ["S1"]}]}
S2 = {"matchExpressions": [{"key": "security", "operator": "In", "values": ["S2"]}]}


def pod(name: str, node: str = "", **labels: str) -> Any:
    b = make_pod().name(name).labels(labels)
    return b.node(node) if node else b


def nodes3() -> list[Node]:
    return [make_node().name("machine1").label("region", "China").obj(),
            make_node().name("machine2").label("region", "India").obj(),
            make_node().name("machine3").label("az", "az1").obj()]


def nodes_china2() -> list[Node]:
    return [make_node().name("machine1").label("region", "China").obj(),
            make_node().name("machine2").labels({"region": "China", "az": "az1"}).obj(),
            make_node().name("machine3").label("region", "India").obj()]


def stay_with_s1_in_region(b: Any) -> Any:
    return b.pod_affinity("region", S1, kind="preferred", weight=5)


def away_from_s1_in_az(b: Any) -> Any:
    return b.pod_anti_affinity("az", S1, kind="preferred", weight=5)


CASES = [
    pytest.param(pod("in").obj(), [], nodes3(), [0, 0, 0], [0, 0, 0],
                 id="all nodes are same priority as Affinity is nil"),
    # machine1 (China) holds an S1 pod: +5; machine2's pod is S2; machine3 has no region label.
    pytest.param(stay_with_s1_in_region(pod("in")).obj(),
                 [pod("e1", "machine1", security="S1").obj(), pod("e2", "machine2", security="S2").obj(),
                  pod("e3", "machine3", security="S1").obj()],
                 nodes3(), [5, 0, 0], [100, 0, 0],
                 id="Affinity: pod that matches topology key & pods in nodes will get high score comparing "
                    "to others which doesn't match either pods in nodes or in topology key"),
    pytest.param(stay_with_s1_in_region(pod("in")).obj(), [pod("e1", "machine1", security="S1").obj()],
                 nodes_china2(), [5, 5, 0], [100, 100, 0],
                 id="All the nodes that have the same topology key & label value with one of them has an "
                    "existing pod that match the affinity rules, have the same score"),
    # machine1 (az1) holds an S1 pod: -5 -> min; machine2 has no az label: 0 -> max.
    pytest.param(away_from_s1_in_az(pod("in")).obj(),
                 [pod("e1", "machine1", security="S1").obj(), pod("e2", "machine2", security="S2").obj()],
                 [make_node().name("machine1").label("az", "az1").obj(),
                  make_node().name("machine2").label("region", "China").obj()],
                 [-5, 0], [0, 100],
                 id="Anti Affinity: pod that does not match existing pods in node will get high score"),
    # affinity +5 (S1 in China) and anti-affinity -5 (S1 in az1) cancel on machine2: 5-5=0.
    pytest.param(away_from_s1_in_az(stay_with_s1_in_region(pod("in"))).obj(),
                 [pod("e1", "machine2", security="S1").obj(), pod("e2", "machine3", security="S2").obj()],
                 nodes_china2(), [5, 0, 0], [100, 0, 0],
                 id="Affinity and Anti Affinity: considering both affinity and anti-affinity"),
    # existing pods' preferred terms: machine1's pod prefers S1 in its region (+5), machine3's pod
    # wants S1 away from its region (-5): min -5 -> 0, max 5 -> 100, 0 -> 50.
    pytest.param(pod("in", security="S1").obj(),
                 [stay_with_s1_in_region(pod("e1", "machine1")).obj(),
                  pod("e2", "machine3").pod_anti_affinity("region", S1, kind="preferred", weight=5).obj()],
                 nodes_china2(), [5, 5, -5], [100, 100, 0],
                 id="Affinity symmetry: considering existing pods' preferred affinity and anti-affinity"),
    pytest.param(pod("in").pod_affinity("region", S1, kind="preferred", weight=3, namespaces=["other"]).obj(),
                 [pod("e1", "machine1", security="S1").obj()], nodes_china2(), [0, 0, 0], [0, 0, 0],
                 id="preferred term in another namespace does not count"),
    # 3 matching pods in China weigh 3*2: 6 -> 100; India 1*2: 2 -> int(100*2/6)=33; no region: 0.
    pytest.param(pod("in").pod_affinity("region", S1, kind="preferred", weight=2).obj(),
                 [pod("e1", "machine1", security="S1").obj(), pod("e2", "machine2", security="S1").obj(),
                  pod("e3", "machine2", security="S1").obj(), pod("e4", "machine3", security="S1").obj()],
                 [*nodes_china2(), make_node().name("machine4").label("az", "az2").obj()],
                 [6, 6, 2, 0], [100, 100, 33, 0],
                 id="scores are min-max scaled and truncated"),
]


@pytest.mark.parametrize(("incoming", "existing", "nodes", "raw", "want"), CASES)
def test_preferred_affinity(incoming: Pod, existing: list[Pod], nodes: list[Node], raw: list[int],
                            want: list[int]) -> None:
    s = snap(nodes, existing)
    got_raw, got = run_score(InterPodAffinity(handle=FakeHandle(s)), incoming, s)
    assert (got_raw, got) == (raw, want)


HARD = {"matchExpressions": [{"key": "security", "operator": "In", "values": ["S1"]}]}


def hard_existing() -> list[Pod]:
    return [pod("e1", "machine1").pod_affinity("region", HARD).obj(),
            pod("e2", "machine2").pod_affinity("region", HARD).obj()]


@pytest.mark.parametrize(("weight", "raw", "want"), [
    # each existing pod's required term matches the incoming pod: +weight in its region.
    pytest.param(1, [1, 1, 0], [100, 100, 0], id="with default weight"),
    pytest.param(10, [10, 10, 0], [100, 100, 0], id="with non-default weight"),
    pytest.param(0, [0, 0, 0], [0, 0, 0], id="with zero weight"),
])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(weight: int, raw: list[int],
                                                                   want: list[int]) -> None:
    s = snap(nodes3(), hard_existing())
    pl = InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=weight), FakeHandle(s))
    assert run_score(pl, pod("in", security="S1").obj(), s) == (raw, want)


@pytest.mark.parametrize(("ignore", "want"), [
    pytest.param(False, [100, 100, 0], id="existing pods' preferred terms count"),
    pytest.param(True, [0, 0, 0], id="ignorePreferredTermsOfExistingPods skips them"),
])
def test_ignore_preferred_terms_of_existing_pods(ignore: bool, want: list[int]) -> None:
    s = snap(nodes_china2(), [stay_with_s1_in_region(pod("e1", "machine1")).obj()])
    pl = InterPodAffinity(InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=ignore), FakeHandle(s))
    assert run_score(pl, pod("in", security="S1").obj(), s)[1] == want


def test_pre_score_counts_pods_on_infeasible_nodes() -> None:
    """PreScore reads all nodes of the snapshot, not only the feasible ones."""
    s = snap(nodes_china2(), [pod("e1", "machine1", security="S1").obj()])
    pl = InterPodAffinity(handle=FakeHandle(s))
    raw, got = run_score(pl, stay_with_s1_in_region(pod("in")).obj(), s, feasible=["machine2", "machine3"])
    assert (raw, got) == ([5, 0], [100, 0])


def test_normalize_all_equal_scores_to_zero() -> None:
    s = snap(nodes_china2(), [pod("e1", "machine1", security="S1").obj(), pod("e2", "machine3", security="S1")
                              .obj()])
    pl = InterPodAffinity(handle=FakeHandle(s))
    state = CycleState()
    assert pl.pre_score(state, stay_with_s1_in_region(pod("in")).obj(), s.node_info_list) is None
    scores = np.array([5, 5, 5], dtype=np.int64)
    assert pl.normalize_score(state, pod("in").obj(), scores, ["machine1", "machine2", "machine3"]) is None
    assert scores.tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    ("existing", "skip"),
    [
        pytest.param(make_pod().name("e").label("foo", "bar").node("n1"), True, id="no pod with affinity"),
        pytest.param(make_pod().name("e").label("foo", "bar").node("n1").pod_affinity(
            "zone", {"foo": "bar"}, kind="preferred", weight=5), False,
            id="an existing pod's preferred affinity matches"),
    ],
)
def test_pre_score_without_preferred_terms_reads_pods_with_affinity(existing: Any, skip: bool) -> None:
    """Without preferred terms of its own only existing pods' terms score (HavePodsWithAffinityList
    upstream): Skip when no pod has affinity."""
    nodes = [make_node().name(n).label("zone", z).obj() for n, z in (("n1", "z1"), ("n2", "z2"))]
    s = snap(nodes, [existing.obj()])
    incoming = make_pod().name("in").label("foo", "bar").obj()
    st = InterPodAffinity(handle=FakeHandle(s)).pre_score(CycleState(), incoming, s.node_info_list)
    assert (st is not None and st.is_skip()) == skip
