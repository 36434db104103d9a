"""Run a plugin the way the framework does, on both paths, and check they agree.

``filter_all`` runs PreFilter (a Skip means every node passes), then Filter per node and the
batch Filter, asserts the two agree node by node, and returns the per-node statuses.
``score_all`` runs PreScore (Skip -> None), Score per node and the batch Score, asserts they
agree, then NormalizeScore when the plugin has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubesched.api import NEWEST_KUBE_VERSION, KubeVersion, Pod
from kubesched.cache import Snapshot
from kubesched.framework import Code, CycleState, NodeBatch, PreFilterResult, Status

__all__ = ["FakeHandle", "FilterRun", "filter_all", "score_all", "simple"]


@dataclass
class FakeHandle:
    """The part of the framework handle the plugins read: the cycle snapshot, the store,
    features, the release."""

    snap: Snapshot = field(default_factory=Snapshot)
    store: Any = None
    features: Mapping[str, bool] = field(default_factory=dict)
    kube_version: KubeVersion = NEWEST_KUBE_VERSION

    def snapshot(self) -> Snapshot:
        return self.snap


@dataclass
class FilterRun:
    pre_filter_result: PreFilterResult | None
    pre_filter_status: Status | None
    statuses: list[Status]


def simple(st: Status | None) -> tuple[Code, tuple[str, ...]]:
    st = st or Status.success()
    return st.code, st.reasons


def filter_all(plugin: Any, pod: Pod, snap: Snapshot) -> FilterRun:
    state = CycleState()
    result: PreFilterResult | None = None
    pre_status: Status | None = None
    if hasattr(plugin, "pre_filter"):
        result, pre_status = plugin.pre_filter(state, pod, snap.node_info_list)
        if pre_status is not None and pre_status.code == Code.SKIP:
            return FilterRun(result, pre_status, [Status.success()] * snap.num_nodes())
        if pre_status is not None and pre_status.code != Code.SUCCESS:
            return FilterRun(result, pre_status, [])
    per_node = [plugin.filter(state, pod, ni) or Status.success() for ni in snap.node_info_list]
    batch = plugin.filter_batch(state, pod, NodeBatch.all(snap))
    batched = [batch.status(i) for i in range(snap.num_nodes())]
    assert [simple(s) for s in per_node] == [simple(s) for s in batched], (per_node, batched)
    return FilterRun(result, pre_status, per_node)


def score_all(plugin: Any, pod: Pod, snap: Snapshot, normalize: bool = True) -> list[int] | None:
    state = CycleState()
    if hasattr(plugin, "pre_score"):
        st = plugin.pre_score(state, pod, snap.node_info_list)
        if st is not None and st.code == Code.SKIP:
            return None
        assert st is None or st.is_success(), st
    per_node = []
    for ni in snap.node_info_list:
        s, st = plugin.score(state, pod, ni)
        assert st is None or st.is_success(), st
        per_node.append(s)
    batch, st = plugin.score_batch(state, pod, NodeBatch.all(snap))
    assert st is None or st.is_success(), st
    assert per_node == batch.tolist(), (per_node, batch.tolist())
    scores = np.array(per_node, dtype=np.int64)
    ext = plugin.score_extensions()
    if normalize and ext is not None:
        ext.normalize_score(state, pod, scores, [ni.name for ni in snap.node_info_list])
    return scores.tolist()
