"""The node tree: node names grouped by zone, listed zone-interleaved.

Mirrors pkg/scheduler/backend/cache/node_tree.go (master 2026). The snapshot's node list is this
tree's :meth:`NodeTree.list` order, and the scheduler's filter rotation (``nextStartNodeIndex``)
walks that list, so consecutive pods spread their feasibility search across zones.
"""

from __future__ import annotations

from ..api import Node

__all__ = ["NodeTree", "get_zone_key"]

LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def get_zone_key(node: Node) -> str:
    """utilnode.GetZoneKey (k8s.io/component-helpers/node/topology): ``region:\\x00:zone`` from
    the GA labels, falling back to the deprecated beta ones; "" when neither is set."""
    labels = node.labels
    zone = labels.get(LABEL_TOPOLOGY_ZONE)
    if zone is None:
        zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, "")
    region = labels.get(LABEL_TOPOLOGY_REGION)
    if region is None:
        region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTree:
    """Zone -> node names, zones in first-seen order. Not thread-safe: the cache locks.

    Each zone's names are the keys of an insertion-ordered dict (upstream: a slice): same order,
    O(1) membership and order-keeping removal, so adding 15000 nodes is not quadratic."""

    def __init__(self, nodes: tuple[Node, ...] | list[Node] = ()) -> None:
        self._tree: dict[str, dict[str, None]] = {}
        self._zones: list[str] = []
        self.num_nodes = 0
        for n in nodes:
            self.add_node(n)

    @property
    def zones(self) -> list[str]:
        return list(self._zones)

    def add_node(self, node: Node) -> bool:
        """addNode: append to its zone; False (no change) when already present."""
        zone = get_zone_key(node)
        names = self._tree.get(zone)
        if names is None:
            self._zones.append(zone)
            self._tree[zone] = {node.name: None}
        elif node.name in names:
            return False
        else:
            names[node.name] = None
        self.num_nodes += 1
        return True

    def remove_node(self, node: Node) -> bool:
        """removeNode: False when the node is not in its zone (upstream returns an error)."""
        zone = get_zone_key(node)
        names = self._tree.get(zone)
        if names is None or node.name not in names:
            return False
        del names[node.name]
        if not names:
            del self._tree[zone]
            self._zones.remove(zone)
        self.num_nodes -= 1
        return True

    def update_node(self, old: Node | None, new: Node) -> bool:
        """updateNode: re-file the node only when its zone key changed; True if it moved."""
        old_zone = get_zone_key(old) if old is not None else ""
        if old_zone == get_zone_key(new):
            return False
        if old is not None:
            self.remove_node(old)  # upstream ignores whether the old node was there
        self.add_node(new)
        return True

    def list(self) -> list[str]:
        """list: round-robin over zones, taking the i-th node of each zone in turn."""
        zones = [list(self._tree[z]) for z in self._zones]
        if len(zones) == 1:
            return zones[0]
        out: list[str] = []
        depth = max((len(z) for z in zones), default=0)
        for i in range(depth):
            out.extend([names[i] for names in zones if i < len(names)])
        return out
