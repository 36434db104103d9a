"""The snapshot: an immutable-for-one-cycle view of the cache, with columnar arrays.

Mirrors pkg/scheduler/backend/cache/snapshot.go (NodeInfoList in node-tree order, the lists of
nodes having pods with (anti-)affinity) and adds :class:`NodeColumns`: per-node numpy arrays
that batch plugins read to filter and score every candidate node at once.

Column contract (all arrays have one row per node, in ``node_info_list`` order):

- ``resource_names`` / ``resource_index``: column order of the resource matrices. cpu, memory,
  ephemeral-storage and pods always come first; extended and hugepages resources follow.
- ``allocatable[N, R]``, ``requested[N, R]`` (int64): sum of pods' requests; the ``pods`` column
  of ``requested`` holds the pod count.
- ``non_zero_requested[N, R]``: like ``requested`` but cpu/memory with the scoring defaults.
- ``pod_count[N]``, ``unschedulable[N]`` (bool).
- ``taint_set_id[N]`` into ``taint_sets`` (distinct taint tuples): evaluate tolerations once per
  distinct set, then gather.
- ``label_column(key)`` -> (codes[N] int32 with -1 for "no such label", values list): node label
  values encoded per key, computed lazily and cached for the snapshot's life.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..api import Taint
from ._node_info import NodeInfo

__all__ = ["BASE_RESOURCES", "NodeColumns", "Snapshot"]

BASE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")

I64 = npt.NDArray[np.int64]


class NodeColumns:
    def __init__(self, infos: Sequence[NodeInfo]) -> None:
        names = list(BASE_RESOURCES)
        seen = set(names)
        for ni in infos:
            for k in (*ni.allocatable, *ni.requested):
                if k not in seen:
                    seen.add(k)
                    names.append(k)
        self.resource_names: list[str] = names
        self.resource_index: dict[str, int] = {n: i for i, n in enumerate(names)}
        n, r = len(infos), len(names)
        self.allocatable: I64 = np.zeros((n, r), dtype=np.int64)
        self.requested: I64 = np.zeros((n, r), dtype=np.int64)
        self.non_zero_requested: I64 = np.zeros((n, r), dtype=np.int64)
        self.pod_count: I64 = np.zeros(n, dtype=np.int64)
        self.unschedulable = np.zeros(n, dtype=bool)
        self.taint_set_id = np.zeros(n, dtype=np.int32)
        self.taint_sets: list[tuple[Taint, ...]] = []
        self._infos = infos
        self._label_cache: dict[str, tuple[npt.NDArray[np.int32], list[str]]] = {}
        taint_ids: dict[tuple[Taint, ...], int] = {}
        for i, ni in enumerate(infos):
            self.fill_row(i, ni, taint_ids)

    def fill_row(self, i: int, ni: NodeInfo, taint_ids: dict[tuple[Taint, ...], int] | None = None) -> None:
        idx = self.resource_index
        self.allocatable[i, :] = 0
        self.requested[i, :] = 0
        self.non_zero_requested[i, :] = 0
        for k, v in ni.allocatable.items():
            self.allocatable[i, idx[k]] = v
        for k, v in ni.requested.items():
            self.requested[i, idx[k]] = v
            self.non_zero_requested[i, idx[k]] = v
        self.non_zero_requested[i, 0] = ni.non_zero_requested.get("cpu", 0)
        self.non_zero_requested[i, 1] = ni.non_zero_requested.get("memory", 0)
        self.pod_count[i] = len(ni.pods)
        self.requested[i, 3] = len(ni.pods)
        self.non_zero_requested[i, 3] = len(ni.pods)
        node = ni.node
        self.unschedulable[i] = bool(node and node.unschedulable)
        taints = node.taints if node else ()
        if taint_ids is None:
            taint_ids = {t: j for j, t in enumerate(self.taint_sets)}
        tid = taint_ids.get(taints)
        if tid is None:
            tid = len(self.taint_sets)
            self.taint_sets.append(taints)
            taint_ids[taints] = tid
        self.taint_set_id[i] = tid
        self._label_cache.clear()

    def label_column(self, key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
        """Node label ``key`` encoded: codes[i] indexes ``values``, -1 where the node lacks it."""
        hit = self._label_cache.get(key)
        if hit is not None:
            return hit
        values: list[str] = []
        ids: dict[str, int] = {}
        codes = np.full(len(self._infos), -1, dtype=np.int32)
        for i, ni in enumerate(self._infos):
            if ni.node is None:
                continue
            v = ni.node.labels.get(key)
            if v is None:
                continue
            c = ids.get(v)
            if c is None:
                c = ids[v] = len(values)
                values.append(v)
            codes[i] = c
        self._label_cache[key] = (codes, values)
        return codes, values

    def resource_col(self, name: str) -> int | None:
        return self.resource_index.get(name)


class Snapshot:
    """What one scheduling cycle sees. Plugins must not mutate it (preemption works on copies)."""

    def __init__(self, node_infos: Sequence[NodeInfo] = ()) -> None:
        self.node_info_list: list[NodeInfo] = list(node_infos)
        self.node_index: dict[str, int] = {ni.name: i for i, ni in enumerate(self.node_info_list)}
        self.have_pods_with_affinity_list = [ni for ni in self.node_info_list if ni.pods_with_affinity]
        self.have_pods_with_required_anti_affinity_list = [
            ni for ni in self.node_info_list if ni.pods_with_required_anti_affinity
        ]
        self.columns = NodeColumns(self.node_info_list)
        self.generation = 0

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def get(self, node_name: str) -> NodeInfo | None:
        i = self.node_index.get(node_name)
        return None if i is None else self.node_info_list[i]

    def list(self) -> list[NodeInfo]:
        return self.node_info_list
