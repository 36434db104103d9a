"""A cache driven by random operations, for property tests of state kept across cycles.

Plugins that keep indexes beside the snapshot (InterPodAffinity, PodTopologySpread and their
shared pod index) must follow every kind of cache change; tests draw a list of operations and
apply them here one by one, checking the incremental state after each."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Cache
from kubesched.clock import VirtualClock
from kubesched.testing import make_pod

from .interpodaffinity._strategies import affinity_pods
from .strategies import node_manifests


class RandomCluster:
    """A Cache with a few nodes, changed by named operations drawn from hypothesis data."""

    def __init__(self, data: st.DataObject, initial_nodes: int = 3) -> None:
        self.data = data
        self.cache = Cache(VirtualClock())
        self.nodes: dict[str, Node] = {}
        self.pods: list[Pod] = []
        for k in range(initial_nodes):
            self._add_node(f"n{k}")

    def _add_node(self, name: str) -> None:
        n = Node.from_dict(self.data.draw(node_manifests(name)))
        self.nodes[n.name] = n
        self.cache.add_node(n)

    def apply(self, op: str, r: int, step: int, while_assumed: Callable[[], None] | None = None) -> None:
        """Apply ``op`` (``r`` picks the pod or node it touches; ``step`` names new objects).
        ``assume_forget`` calls ``while_assumed`` between assuming a pod and forgetting it.
        An operation that has nothing to act on is a no-op."""
        cache, data, nodes, pods = self.cache, self.data, self.nodes, self.pods
        names = sorted(nodes)
        if op == "add_pod" and names:
            p = data.draw(affinity_pods(f"p{step}", node_name=names[r % len(names)]))
            pods.append(p)
            cache.add_pod(p)
        elif op == "remove_pod" and pods:
            cache.remove_pod(pods.pop(r % len(pods)))
        elif op in ("relabel_pod", "terminate") and pods:
            i = r % len(pods)
            old = pods[i]
            b = make_pod().name(old.name).uid(old.uid).namespace(old.namespace).node(old.node_name)
            b = b.labels({"app": "ab"[r % 2]} if op == "relabel_pod" else old.labels)
            new = (b.terminating() if op == "terminate" else b).obj()
            pods[i] = new
            cache.update_pod(old, new)
        elif op == "assume_forget" and names:
            p = data.draw(affinity_pods(f"a{step}", node_name=names[r % len(names)]))
            cache.assume_pod(p)
            if while_assumed is not None:
                while_assumed()
            cache.forget_pod(p)
        elif op == "add_node":
            self._add_node(f"m{step}")
        elif op == "remove_node" and len(names) > 1:
            gone = nodes.pop(names[r % len(names)])
            for p in [p for p in pods if p.node_name == gone.name]:
                pods.remove(p)
                cache.remove_pod(p)
            cache.remove_node(gone)
        elif op == "relabel_node" and names:
            old_node = nodes[names[r % len(names)]]
            new_node = Node.from_dict(data.draw(node_manifests(old_node.name)))
            nodes[old_node.name] = new_node
            cache.update_node(old_node, new_node)
