"""PodTopologySpread PreScore/Score/NormalizeScore, ported from upstream's scoring_test.go
(TestPodTopologySpreadScore); each case runs on the per-node and the batch path. Weights:
log(n+2) for n domains, so log(3)=1.0986, log(4)=1.3863, log(5)=1.6094, log(6)=1.7918."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeBatch
from kubesched.plugins.podtopologyspread import PodTopologySpread, PodTopologySpreadArgs
from kubesched.plugins.podtopologyspread.scoring import go_round
from kubesched.testing import make_node, make_pod

from .._workloads import replica_set, store_with
from ..interpodaffinity._paths import FakeHandle, run_score, snap

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}


def node(name: str, zone: str | None = None) -> Node:
    b = make_node().name(name).label(HOSTNAME, name)
    return (b.label(ZONE, zone) if zone else b).obj()


def on(node_name: str, n: int, **labels: str) -> list[Pod]:
    labels = labels or {"foo": ""}
    return [make_pod().name(f"{node_name}-{i}").labels(labels).node(node_name).obj() for i in range(n)]


def soft(*keys_skews: tuple[str, int]) -> Pod:
    b = make_pod().name("p").label("foo", "")
    for key, skew in keys_skews:
        b = b.spread_constraint(skew, key, "ScheduleAnyway", FOO)
    return b.obj()


def zone_nodes() -> list[Node]:
    return [
        node("node-a", "zone1"),
        node("node-b", "zone1"),
        node("node-x", "zone2"),
        node("node-y", "zone2"),
    ]


CASES = [
    pytest.param(
        soft((HOSTNAME, 1)),
        [node("node-a"), node("node-b")],
        [],
        None,
        [0, 0],
        [100, 100],
        id="one constraint on node, no existing pods",
    ),
    # 2 * log(1+2) = 2.197 -> 2; alone: 100 * (2+2-2) / 2 = 100.
    pytest.param(
        soft((HOSTNAME, 1)),
        [node("node-a"), node("node-b")],
        [*on("node-a", 2), *on("node-b", 1)],
        ["node-a"],
        [2],
        [100],
        id="one constraint on node, only one node is candidate",
    ),
    # a: 2*1.7918=3.58->4, b: 1.79->2, c: 0, d: 3*1.7918=5.38->5; max 5 min 0:
    # a 100*1/5=20, b 100*3/5=60, c 100, d 0.
    pytest.param(
        soft((HOSTNAME, 1)),
        [node("node-a"), node("node-b"), node("node-c"), node("node-d")],
        [*on("node-a", 2), *on("node-b", 1), *on("node-d", 3)],
        None,
        [4, 2, 0, 5],
        [20, 60, 100, 0],
        id="one constraint on node, all 4 nodes are candidates",
    ),
    # maxSkew 3 adds 2: a 5.58->6, b 3.79->4, c 2, d 7.38->7; max 7 min 2:
    # a 100*3/7=42, b 100*5/7=71, c 100, d 100*2/7=28.
    pytest.param(
        soft((HOSTNAME, 3)),
        [node("node-a"), node("node-b"), node("node-c"), node("node-d")],
        [*on("node-a", 2), *on("node-b", 1), *on("node-d", 3)],
        None,
        [6, 4, 2, 7],
        [42, 71, 100, 28],
        id="one constraint on node, maxSkew waters down the differences",
    ),
    # zone1 3*1.3863=4.16->4, zone2 1.39->1; max 4 min 1: zone1 100*1/4=25, zone2 100.
    pytest.param(
        soft((ZONE, 1)),
        zone_nodes(),
        [*on("node-a", 1), *on("node-b", 2), *on("node-x", 1)],
        None,
        [4, 4, 1, 1],
        [25, 25, 100, 100],
        id="one constraint on zone, all nodes are candidates",
    ),
    # a 4.16+1.79=5.95->6, b 4.16+3.58=7.74->8, x 1.39+1.79=3.18->3, y 1.39->1; max 8 min 1:
    # a 100*3/8=37, b 100*1/8=12, x 100*6/8=75, y 100.
    pytest.param(
        soft((ZONE, 1), (HOSTNAME, 1)),
        zone_nodes(),
        [*on("node-a", 1), *on("node-b", 2), *on("node-x", 1)],
        None,
        [6, 8, 3, 1],
        [37, 12, 75, 100],
        id="two Constraints on zone and node, 2 domains",
    ),
    # node-c has no zone: ignored (0). zone1 only domain: log(3); a,b: 1.0986->1 -> 100.
    pytest.param(
        soft((ZONE, 1)),
        [node("node-a", "zone1"), node("node-b", "zone1"), node("node-c")],
        on("node-a", 1),
        None,
        [1, 1, 0],
        [100, 100, 0],
        id="nodes without the topology key are ignored",
    ),
    # node-a (zone1, 2 pods) is not a candidate but its pods count for zone1:
    # b 2*1.3863=2.77->3, x 0; max 3 min 0: b 0, x 100.
    pytest.param(
        soft((ZONE, 1)),
        zone_nodes(),
        on("node-a", 2),
        ["node-b", "node-x"],
        [3, 0],
        [0, 100],
        id="pods on nodes that are not candidates count for their domain",
    ),
    # 2 hosts: a 2*log(4)=2.77->3; node-b's pods are in another namespace: 0.
    pytest.param(
        soft((HOSTNAME, 1)),
        [node("node-a"), node("node-b")],
        [
            *on("node-a", 2),
            *[
                make_pod().name(f"o{i}").namespace("ns").label("foo", "").node("node-b").obj()
                for i in range(3)
            ],
        ],
        None,
        [3, 0],
        [0, 100],
        id="pods in other namespaces don't count",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "feasible", "raw", "want"), CASES)
def test_pod_topology_spread_score(
    pod: Pod,
    nodes: list[Node],
    existing: list[Pod],
    feasible: list[str] | None,
    raw: list[int],
    want: list[int],
) -> None:
    s = snap(nodes, existing)
    assert run_score(PodTopologySpread(handle=FakeHandle(s)), pod, s, feasible) == (raw, want)


def rs_store() -> Any:
    """The ReplicaSet owning the `owned` pods."""
    return store_with(replica_set("rs", {"matchLabels": {"app": "web"}}))


def owned(name: str, node_name: str = "") -> Any:
    b = make_pod().name(name).label("app", "web").owner_reference("rs", kind="ReplicaSet")
    return b.node(node_name) if node_name else b


def test_system_default_constraints() -> None:
    """System defaulting: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway, selector from the
    owning ReplicaSet; nodes without a zone keep hostname spreading (not ignored).
    a: host 2*log(5)+2=5.22, zone 2*log(4)+4=6.77 -> 11.99 -> 12; b: 2+6.77 -> 9; c: host 2 (no zone)
    -> 2. max 12 min 2: a 100*2/12=16, b 100*5/12=41, c 100."""
    nodes = [node("node-a", "zone1"), node("node-b", "zone1"), node("node-c")]
    s = snap(nodes, [owned("e1", "node-a").obj(), owned("e2", "node-a").obj()])
    pl = PodTopologySpread(handle=FakeHandle(s, store=rs_store()))
    assert run_score(pl, owned("p").obj(), s) == ([12, 9, 2], [16, 41, 100])


def test_system_defaults_need_a_selector() -> None:
    s = snap([node("node-a", "zone1")], on("node-a", 2))
    pl = PodTopologySpread(handle=FakeHandle(s))
    assert pl.pre_score(CycleState(), make_pod().name("p").label("foo", "").obj(), s.node_info_list).is_skip()


def test_list_defaulting_uses_default_constraints() -> None:
    args = PodTopologySpreadArgs.from_dict(
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "DoNotSchedule"}
            ],
        }
    )
    s = snap([node("node-a"), node("node-b")], [owned("e1", "node-a").obj()])
    pl = PodTopologySpread(args, FakeHandle(s, store=rs_store()))
    state = CycleState()
    _, st = pl.pre_filter(state, owned("p").obj(), s.node_info_list)
    assert st is None
    assert [pl.filter(state, owned("p").obj(), ni) is None for ni in s.node_info_list] == [False, True]


@pytest.mark.parametrize(
    ("x", "want"), [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (0.49999999999999994, 0), (-0.5, -1), (0.0, 0)]
)
def test_go_round_is_half_away_from_zero(x: float, want: int) -> None:
    assert int(go_round(np.array([x]))[0]) == want


def test_normalize_all_ignored() -> None:
    s = snap([node("node-a"), node("node-b", "zone1")], [])
    pl = PodTopologySpread(handle=FakeHandle(s))
    state = CycleState()
    pod = soft((ZONE, 1))
    assert pl.pre_score(state, pod, s.node_info_list[:1]) is None
    scores = np.array([0], dtype=np.int64)
    assert pl.normalize_score(state, pod, scores, ["node-a"]) is None
    assert scores.tolist() == [0]


def test_hostname_counts_of_another_snapshot_are_read_by_node_name() -> None:
    """PreScore keeps hostname counts per row of its snapshot; a batch over an equal snapshot
    whose rows are in another order reads them by node name."""
    nodes = [node("node-a"), node("node-b")]
    pods = on("node-a", 2)
    s = snap(nodes, pods)
    pl = PodTopologySpread(handle=FakeHandle(s))
    state = CycleState()
    pod = soft((HOSTNAME, 1))
    assert pl.pre_score(state, pod, s.node_info_list) is None
    other = snap(list(reversed(nodes)), pods)
    per_node = [pl.score(state, pod, ni)[0] for ni in other.node_info_list]
    batch, st = pl.score_batch(state, pod, NodeBatch.all(other))
    assert st is None and batch.tolist() == per_node and per_node[0] < per_node[1]
