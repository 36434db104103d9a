"""The FGD simulator's tie-break, as two Score plugins.

The simulator runs a fork of kube-scheduler v1.20.5 (mental2008/kubernetes v1.20.5-minor,
``pkg/scheduler/core/generic_scheduler.go`` selectHost) whose host selection takes, among the
nodes with the highest total score, the one with the *smallest name* ("for reproducibility"),
where upstream picks one at random; and it names the nodes ``<random rank>-<name>`` (``%04d-``,
a permutation drawn with the seed). Ties are therefore settled by a fixed random order of the
nodes, which packs pods onto the same nodes where upstream spreads them: with uniform tie-breaks
the packing policies allocate 3 to 5 points fewer GPUs than the paper reports.

kube-scheduler has no extension point for host selection, so the order is encoded in scores:
a node's place in name order ``v`` (higher for smaller names) is split into ``v // 101`` and
``v % 101``, scored by ``NameOrderCoarse`` (weight 101) and ``NameOrderFine`` (weight 1); with the
policy weighing 10201 the total is ``10201·policy + 101·coarse + fine``, so the policy decides and
the name only settles ties (exactly for up to 10201 nodes).
"""

from __future__ import annotations

import numpy as np

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import ClusterEventWithHint, CycleState, NodeBatch, PluginBase, Status

from ._policy import I64

BASE = 101
POLICY_WEIGHT = BASE * BASE

def name_order(names: list[str]) -> I64:
    """Per row: how many nodes have a greater name (the smallest name gets ``len - 1``)."""
    order = np.argsort(np.array(names, dtype=object), kind="stable")
    v = np.empty(len(names), dtype=np.int64)
    v[order] = np.arange(len(names) - 1, -1, -1, dtype=np.int64)
    return np.minimum(v, BASE * BASE - 1)


class _NameOrder(PluginBase):
    NAME = "_NameOrder"
    DIGIT = 0

    _names: list[str] | None = None
    _order: I64

    def _digit(self, v: I64) -> I64:
        return v // BASE if self.DIGIT else v % BASE

    def _ranks(self, names: list[str]) -> I64:
        """name_order of the snapshot's node list, recomputed only when the list changes (the
        snapshot replaces ``node_names`` when nodes come or go)."""
        if names is not self._names:
            self._names, self._order = names, name_order(names)
        return self._order

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        snap = self.handle.snapshot() if self.handle is not None else None
        if snap is None:
            return 0, None
        row = snap.node_index.get(node_info.name, 0)
        return int(self._digit(self._ranks(snap.node_names)[row : row + 1])[0]), None

    def score_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> tuple[I64, Status | None]:
        return self._digit(self._ranks(nodes.snapshot.node_names)[nodes.indices]), None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []


class NameOrderCoarse(_NameOrder):
    NAME = "NameOrderCoarse"
    DIGIT = 1


class NameOrderFine(_NameOrder):
    NAME = "NameOrderFine"
    DIGIT = 0
