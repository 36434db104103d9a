"""Run a filter/score plugin the way the framework would, on both paths, for tests.

``run_filter`` runs PreFilter then Filter per node and the batch Filter, asserts that the two
agree node by node, and returns the per-node statuses (a PreFilter Skip means every node passes,
as the framework skips the plugin's Filter). ``run_score`` does the same for PreScore / Score /
NormalizeScore and returns the normalized scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubesched.api import Namespace, Node, Pod
from kubesched.cache import NodeInfo, PodInfo, Snapshot
from kubesched.framework import Code, CycleState, NodeBatch, Status
from kubesched.testing import snapshot_of

from .._harness import FakeHandle

__all__ = ["FakeHandle", "FakeStore", "run_filter", "run_score", "snap"]


@dataclass
class FakeStore:
    namespaces: list[Namespace] = field(default_factory=list)

    def list(self, kind: str) -> list[Any]:
        return list(self.namespaces) if kind == "Namespace" else []


def snap(nodes: Sequence[Node], pods: Sequence[Pod] = ()) -> Snapshot:
    return snapshot_of(nodes, pods)


def _code(st: Status | None) -> Code:
    return Code.SUCCESS if st is None else st.code


def run_filter(
    plugin: Any, pod: Pod, snapshot: Snapshot, state: CycleState | None = None
) -> list[Status | None]:
    """Per-node statuses (None = success) after checking the batch path agrees."""
    nodes = snapshot.node_info_list
    if state is None:
        state = CycleState()
        _, pst = plugin.pre_filter(state, pod, nodes)
        if pst is not None and pst.code == Code.SKIP:
            return [None] * len(nodes)
        assert pst is None or pst.is_success(), pst
    per_node = [plugin.filter(state, pod, ni) for ni in nodes]
    batch = plugin.filter_batch(state, pod, NodeBatch.all(snapshot))
    for i, st in enumerate(per_node):
        b = batch.status(i)
        assert _code(st) == b.code, (nodes[i].name, st, b)
        if st is not None:
            assert st.reasons == b.reasons, (nodes[i].name, st, b)
    return per_node


def run_score(
    plugin: Any, pod: Pod, snapshot: Snapshot, feasible: Sequence[str] | None = None
) -> tuple[list[int], list[int]]:
    """(raw, normalized) scores for the feasible nodes (default: all), both paths checked."""
    infos: list[NodeInfo] = [ni for ni in snapshot.node_info_list if feasible is None or ni.name in feasible]
    state = CycleState()
    pst = plugin.pre_score(state, pod, infos)
    if pst is not None and pst.code == Code.SKIP:
        return [0] * len(infos), [0] * len(infos)
    assert pst is None or pst.is_success(), pst
    raw = []
    for ni in infos:
        s, st = plugin.score(state, pod, ni)
        assert st is None or st.is_success(), st
        raw.append(s)
    idx = np.array([snapshot.node_index[ni.name] for ni in infos], dtype=np.int64)
    batch, bst = plugin.score_batch(state, pod, NodeBatch(snapshot, idx))
    assert bst is None or bst.is_success(), bst
    assert batch.tolist() == raw
    scores = np.array(raw, dtype=np.int64)
    ext = plugin.score_extensions()
    if ext is not None:
        nst = ext.normalize_score(state, pod, scores, [ni.name for ni in infos])
        assert nst is None or nst.is_success(), nst
    return raw, scores.tolist()


def check_add_remove_pod(plugin: Any, pod: Pod, snapshot: Snapshot, node: NodeInfo, other: PodInfo) -> None:
    """AddPod and RemovePod of ``other`` on ``node`` keep the batch and per-node paths in
    agreement (:func:`run_filter` checks it), and RemovePod undoes AddPod."""
    state = CycleState()
    _, st = plugin.pre_filter(state, pod, snapshot.node_info_list)
    if st is not None and st.code == Code.SKIP:
        return
    before = run_filter(plugin, pod, snapshot, state)
    plugin.add_pod(state, pod, other, node)
    run_filter(plugin, pod, snapshot, state)
    plugin.remove_pod(state, pod, other, node)
    assert run_filter(plugin, pod, snapshot, state) == before
