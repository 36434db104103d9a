"""Property: a long-lived plugin, whose pod index follows a cache-maintained snapshot
incrementally across cycles, decides exactly like a fresh plugin (both plugins share the index)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.plugins.interpodaffinity import InterPodAffinity
from kubesched.plugins.podtopologyspread import PodTopologySpread

from ..strategies import node_manifests
from ._paths import FakeHandle, run_filter, run_score
from ._strategies import affinity_pods

OPS = st.lists(st.tuples(st.sampled_from(["add_pod", "add_pod", "remove_pod", "add_node", "remove_node",
                                          "relabel"]), st.integers(0, 1000)), min_size=1, max_size=6)


@pytest.mark.parametrize("plugin_cls", [InterPodAffinity, PodTopologySpread])
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(ops=OPS, data=st.data())
def test_long_lived_plugin_agrees_with_fresh_one(plugin_cls: Any, ops: list[tuple[str, int]],
                                                 data: st.DataObject) -> None:
    cache = Cache(VirtualClock())
    snap = Snapshot()
    handle = FakeHandle(snap)
    live = plugin_cls(handle=handle)
    nodes: dict[str, Node] = {}
    pods: list[Pod] = []
    for k in range(3):
        n = Node.from_dict(data.draw(node_manifests(f"n{k}")))
        nodes[n.name] = n
        cache.add_node(n)
    for step, (op, r) in enumerate(ops):
        names = sorted(nodes)
        if op == "add_pod" and names:
            p = data.draw(affinity_pods(f"p{step}", node_name=names[r % len(names)]))
            pods.append(p)
            cache.add_pod(p)
        elif op == "remove_pod" and pods:
            cache.remove_pod(pods.pop(r % len(pods)))
        elif op == "add_node":
            n = Node.from_dict(data.draw(node_manifests(f"m{step}")))
            nodes[n.name] = n
            cache.add_node(n)
        elif op == "remove_node" and len(names) > 1:
            gone = nodes.pop(names[r % len(names)])
            for p in [p for p in pods if p.node_name == gone.name]:
                pods.remove(p)
                cache.remove_pod(p)
            cache.remove_node(gone)
        elif op == "relabel" and names:
            old = nodes[names[r % len(names)]]
            new = Node.from_dict(data.draw(node_manifests(old.name)))
            nodes[old.name] = new
            cache.update_node(old, new)
        cache.update_snapshot(snap)
        incoming = data.draw(affinity_pods("incoming"))
        fresh = plugin_cls(handle=FakeHandle(snap))
        assert run_filter(live, incoming, snap) == run_filter(fresh, incoming, snap)
        assert run_score(live, incoming, snap) == run_score(fresh, incoming, snap)
