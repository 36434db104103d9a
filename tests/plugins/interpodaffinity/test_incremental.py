"""Property: a long-lived plugin, whose pod index follows a cache-maintained snapshot
incrementally across cycles, decides exactly like a fresh plugin (both plugins share the index)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.cache import Snapshot
from kubesched.plugins.interpodaffinity import InterPodAffinity
from kubesched.plugins.podtopologyspread import PodTopologySpread

from .._random_cluster import RandomCluster
from ._paths import FakeHandle, run_filter, run_score
from ._strategies import affinity_pods

OPS = st.lists(st.tuples(st.sampled_from(["add_pod", "add_pod", "remove_pod", "add_node", "remove_node",
                                          "relabel_node"]), st.integers(0, 1000)), min_size=1, max_size=6)


@pytest.mark.parametrize("plugin_cls", [InterPodAffinity, PodTopologySpread])
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(ops=OPS, data=st.data())
def test_long_lived_plugin_agrees_with_fresh_one(plugin_cls: Any, ops: list[tuple[str, int]],
                                                 data: st.DataObject) -> None:
    cluster = RandomCluster(data)
    snap = Snapshot()
    handle = FakeHandle(snap)
    live = plugin_cls(handle=handle)
    for step, (op, r) in enumerate(ops):
        cluster.apply(op, r, step)
        cluster.cache.update_snapshot(snap)
        incoming = data.draw(affinity_pods("incoming"))
        fresh = plugin_cls(handle=FakeHandle(snap))
        assert run_filter(live, incoming, snap) == run_filter(fresh, incoming, snap)
        assert run_score(live, incoming, snap) == run_score(fresh, incoming, snap)
