"""Node tree, after pkg/scheduler/backend/cache/node_tree_test.go."""

from __future__ import annotations

import pytest

from kubesched.api import Node
from kubesched.cache import NodeTree, get_zone_key
from kubesched.testing.wrappers import make_node

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def _node(name: str, region: str | None = None, zone: str | None = None) -> Node:
    b = make_node().name(name)
    if region is not None:
        b.label(REGION, region)
    if zone is not None:
        b.label(ZONE, zone)
    return b.obj()


# allTestNodes of node_tree_test.go: nodes 0-2 in region-1/zone-1 (node-0 via beta labels in
# upstream; here GA labels), 3 in region-1/zone-2, 4 in region-2/zone-2, 5 unlabeled, ...
ALL = [
    _node("node-0", "region-1", "zone-1"),
    _node("node-1", "region-1", "zone-1"),
    _node("node-2", "region-1", "zone-2"),
    _node("node-3", "region-2", "zone-2"),
    _node("node-4", "region-2", "zone-2"),
    _node("node-5"),
    _node("node-6", "region-1", "zone-1"),
]


@pytest.mark.parametrize(
    ("labels", "key"),
    [
        pytest.param({}, "", id="no-labels"),
        pytest.param({ZONE: "z"}, ":\x00:z", id="zone-only"),
        pytest.param({REGION: "r"}, "r:\x00:", id="region-only"),
        pytest.param({REGION: "r", ZONE: "z"}, "r:\x00:z", id="both"),
        pytest.param({BETA_REGION: "br", BETA_ZONE: "bz"}, "br:\x00:bz", id="beta-fallback"),
        pytest.param({REGION: "r", ZONE: "z", BETA_REGION: "br", BETA_ZONE: "bz"}, "r:\x00:z", id="ga-wins"),
    ],
)
def test_get_zone_key(labels: dict[str, str], key: str) -> None:
    assert get_zone_key(make_node().name("n").labels(labels).obj()) == key


def test_add_node_groups_by_zone_and_ignores_duplicates() -> None:
    # TestNodeTree_AddNode "same node specified twice".
    nt = NodeTree(ALL[:2])
    assert not nt.add_node(ALL[0])
    assert nt.num_nodes == 2
    assert nt.list() == ["node-0", "node-1"]


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        pytest.param([], [], id="empty-input-list"),
        pytest.param(ALL[:1], ["node-0"], id="one-node"),
        pytest.param(ALL[:4], ["node-0", "node-2", "node-3", "node-1"], id="four-nodes"),
        pytest.param(ALL, ["node-0", "node-2", "node-3", "node-5", "node-1", "node-4", "node-6"],
                     id="all-nodes"),
    ],
)
def test_list_round_robin_over_zones(nodes: list[Node], expected: list[str]) -> None:
    # TestNodeTree_List: zones in first-seen order, i-th node of each zone in turn.
    assert NodeTree(nodes).list() == expected


def test_remove_node_drops_empty_zone() -> None:
    nt = NodeTree(ALL[:4])
    assert nt.remove_node(ALL[2])
    assert nt.zones == [get_zone_key(ALL[0]), get_zone_key(ALL[3])]
    assert nt.list() == ["node-0", "node-3", "node-1"]
    assert not nt.remove_node(ALL[2])  # "remove non-existing node"
    assert nt.num_nodes == 3


def test_update_node_moves_between_zones_only_when_zone_changes() -> None:
    nt = NodeTree(ALL[:3])
    assert not nt.update_node(ALL[0], _node("node-0", "region-1", "zone-1"))
    assert nt.list() == ["node-0", "node-2", "node-1"]
    assert nt.update_node(ALL[0], _node("node-0", "region-1", "zone-2"))
    assert nt.list() == ["node-1", "node-2", "node-0"]
    assert nt.num_nodes == 3


def test_update_of_unknown_node_adds_it() -> None:
    # "update non-existing node": the old node's removal is ignored, the new one is added.
    nt = NodeTree(ALL[:1])
    assert nt.update_node(None, ALL[3])
    assert nt.list() == ["node-0", "node-3"]
