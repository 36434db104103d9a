"""The snapshot: an immutable-for-one-cycle view of the cache, with columnar arrays.

Mirrors pkg/scheduler/backend/cache/snapshot.go (master 2026): ``node_info_list`` in node-tree
order, ``node_index`` (name -> row), the lists of nodes having pods with affinity / required
anti-affinity / required non-hostname anti-affinity, the set of PVCs used by scheduled pods, and
adds :class:`~kubesched.cache.NodeColumns` (``columns``; contract in ``_columns.py``).

A snapshot is built once (``Snapshot(node_infos)``, ``Snapshot.from_objects(nodes, pods)``) or
kept up to date by ``Cache.update_snapshot`` which rewrites only what changed since the
snapshot's ``generation``. Plugins must not mutate it (preemption works on copies).
"""

from __future__ import annotations

import bisect
import builtins
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from ..api import Node, Pod
from ._columns import BASE_RESOURCES, NodeColumns
from ._images import node_image_states
from ._node_info import NodeInfo

__all__ = ["BASE_RESOURCES", "NodeColumns", "Snapshot"]


class Snapshot:
    """What one scheduling cycle sees."""

    def __init__(self, node_infos: Sequence[NodeInfo] = ()) -> None:
        self.node_info_list: list[NodeInfo] = list(node_infos)
        # Node names aligned with node_info_list: batch paths read names without a property call
        # per node.
        self.node_names: list[str] = [ni.name for ni in self.node_info_list]
        self._names_array: npt.NDArray[np.object_] | None = None
        self._infos_array: npt.NDArray[np.object_] | None = None
        # id(NodeInfo) -> row: the list holds every NodeInfo alive, so an id found here is that
        # very object (lets callers holding NodeInfos find their rows without reading names).
        self.row_of_id: dict[int, int] = {id(ni): i for i, ni in enumerate(self.node_info_list)}
        self.node_index: dict[str, int] = {name: i for i, name in enumerate(self.node_names)}
        # name -> NodeInfo; kept by Cache.update_snapshot, objects keep their identity across updates.
        self._map: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_info_list}
        self.have_pods_with_affinity_list: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity_list: list[NodeInfo] = []
        self.have_pods_with_required_non_host_scoped_anti_affinity_list: list[NodeInfo] = []
        self._affinity_rows: tuple[list[int], list[int], list[int]] = ([], [], [])
        self.refresh_affinity_lists()
        self._pvc_counts: dict[str, int] = {}
        for ni in self.node_info_list:
            self.add_pvc_counts(ni.pvc_ref_counts, 1)
        self.columns = NodeColumns(self.node_info_list)
        self.generation = 0
        self.tree_version = -1
        # (generation before the last update_snapshot, the NodeInfos it rewrote): lets indexes
        # kept beside the snapshot re-read only those nodes when they saw the previous generation.
        self.last_update: tuple[int, list[NodeInfo]] = (-1, [])

    @staticmethod
    def from_objects(nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> Snapshot:
        """NewSnapshot(pods, nodes): node infos with their pods and image states, in ``nodes``
        order. Pods on nodes not listed are left out (upstream lists a node-less NodeInfo that
        ``Get`` then refuses)."""
        nodes = list(nodes)
        by_node: dict[str, list[Pod]] = {}
        for p in pods:
            by_node.setdefault(p.node_name, []).append(p)
        images = node_image_states(nodes)
        infos = []
        for n in nodes:
            ni = NodeInfo.of(n, by_node.get(n.name, ()))
            ni.image_states = images[n.name]
            infos.append(ni)
        return Snapshot(infos)

    def names_array(self) -> npt.NDArray[np.object_]:
        """``node_names`` as a numpy object array (built once per node list): batch paths pick
        thousands of names by row with one fancy index instead of a Python loop."""
        arr = self._names_array
        if arr is None:
            arr = self._names_array = np.array(self.node_names, dtype=object)
        return arr

    def infos_array(self) -> npt.NDArray[np.object_]:
        """``node_info_list`` as a numpy object array (rebuilt only with the node list: the
        NodeInfos keep their identity across updates)."""
        arr = self._infos_array
        if arr is None:
            arr = np.empty(len(self.node_info_list), dtype=object)
            arr[:] = self.node_info_list
            self._infos_array = arr
        return arr

    # -- SharedLister ---------------------------------------------------------
    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def get(self, node_name: str) -> NodeInfo | None:
        i = self.node_index.get(node_name)
        return None if i is None else self.node_info_list[i]

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def is_pvc_used_by_pods(self, key: str) -> bool:
        """IsPVCUsedByPods: ``key`` is ``namespace/claim``."""
        return key in self._pvc_counts

    # -- maintenance (Cache.update_snapshot) -------------------------------------
    def add_pvc_counts(self, counts: dict[str, int], sign: int) -> None:
        pc = self._pvc_counts
        for k, v in counts.items():
            n = pc.get(k, 0) + sign * v
            if n > 0:
                pc[k] = n
            else:
                pc.pop(k, None)

    def refresh_affinity_lists(self) -> None:
        """updateNodeInfoSnapshotList's affinity part: re-scan the node list."""
        lst = self.node_info_list
        rows: tuple[builtins.list[int], builtins.list[int], builtins.list[int]] = ([], [], [])
        for i, ni in enumerate(lst):
            if ni.pods_with_affinity:
                rows[0].append(i)
                if ni.pods_with_required_anti_affinity:
                    rows[1].append(i)
                    if ni.pods_with_required_non_host_scoped_anti_affinity:
                        rows[2].append(i)
        self._affinity_rows = rows
        self.have_pods_with_affinity_list = [lst[i] for i in rows[0]]
        self.have_pods_with_required_anti_affinity_list = [lst[i] for i in rows[1]]
        self.have_pods_with_required_non_host_scoped_anti_affinity_list = [lst[i] for i in rows[2]]

    def update_affinity_membership(self, ni: NodeInfo, had: tuple[bool, bool, bool]) -> None:
        """Add ``ni`` to / drop it from the affinity lists whose membership flipped since
        ``had``, keeping node-list order: O(log N) search plus a C-level list shift, instead of
        upstream's full re-scan (which costs milliseconds per cycle on thousands of nodes)."""
        now = (bool(ni.pods_with_affinity), bool(ni.pods_with_required_anti_affinity),
               bool(ni.pods_with_required_non_host_scoped_anti_affinity))
        row = self.node_index[ni.name]
        lists = (self.have_pods_with_affinity_list, self.have_pods_with_required_anti_affinity_list,
                 self.have_pods_with_required_non_host_scoped_anti_affinity_list)
        for rows, lst, was, is_ in zip(self._affinity_rows, lists, had, now, strict=True):
            if was == is_:
                continue
            pos = bisect.bisect_left(rows, row)
            if is_:
                rows.insert(pos, row)
                lst.insert(pos, ni)
            else:
                del rows[pos]
                del lst[pos]

    def set_node_list(self, infos: builtins.list[NodeInfo], dirty: set[int],
                      names: Sequence[str] | None = None) -> None:
        """Adopt a new node list (nodes added, removed or re-ordered): re-index, refresh the
        affinity lists, regather the columns (rows of NodeInfos whose ``id`` is in ``dirty`` and
        of new nodes are refilled). ``names`` are the infos' node names when the caller has them."""
        if names is None:
            names = [ni.name for ni in infos]
        get = self.node_index.get
        src = [get(name, -1) for name in names]
        rows = [i for i, ni in enumerate(infos) if id(ni) in dirty] if dirty else []
        # The new columns first: if building them fails, the node list and its columns still
        # describe the same rows.
        columns = self.columns.regather(infos, src, rows)
        self.node_info_list = infos
        self.node_names = list(names)
        self._names_array = None
        self._infos_array = None
        self.row_of_id = {id(ni): i for i, ni in enumerate(infos)}
        self.node_index = dict(zip(names, range(len(names)), strict=True))
        self.refresh_affinity_lists()
        self.columns = columns

    def reset(self) -> None:
        """Forget every node: the next ``Cache.update_snapshot`` rebuilds the snapshot whole.
        What an update that failed half-way leaves behind (see Cache.update_snapshot)."""
        Snapshot.__init__(self)
