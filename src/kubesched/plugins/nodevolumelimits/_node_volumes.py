"""Per-node attached-volume counts for NodeVolumeLimits' batch Filter, kept across cycles.

Upstream's CSILimits.Filter (csi.go, master 2026) recounts, for every node it filters, the unique
attachable volumes of all the node's pods (pod -> PVC -> PV -> CSI driver and volume handle) in
Go. In Python that recount dominated volume-heavy cycles, so the batch path keeps, per snapshot
row, what Filter reads of the node: whether it has a CSINode, its limits, the unique volumes
attached by its pods (or the error their resolution fails with), and per limit key the headroom
``limit - attached`` in a numpy column. A row is re-read only when it may differ:

- its NodeInfo ``generation`` changed (pods added or removed, node updated): found from
  ``Snapshot.last_update`` when the index saw the previous snapshot generation, otherwise by
  comparing every row's generation;
- the storage objects the resolution reads changed: the caller passes a version of the
  PersistentVolumeClaim, PersistentVolume, StorageClass and CSINode kinds, and any change of it
  marks every row stale (and drops the per-pod memos: a pod's volumes are resolved again);
- the snapshot or its node list changed (another layout): everything is dropped.

Stale rows are re-read lazily, only when a batch holds them, so a storage write every cycle
costs no more than the recount did. Re-reading a node reuses the resolved volumes of the pods it
already had (same pod object, same storage version).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ...api import Pod
    from ...cache import NodeInfo, Snapshot

__all__ = ["NO_LIMIT", "NodeVolumeIndex", "NodeVolumes", "PodVolumes"]

# Headroom of a node without a limit for a key: more than any pod can ask for.
NO_LIMIT = np.iinfo(np.int64).max // 4

# A pod's attachable volumes (unique name ``<driver>/<handle>`` -> limit key), or the error
# filterAttachableVolumes fails with for it.
PodVolumes = dict[str, str] | ValueError


@dataclass(slots=True)
class NodeVolumes:
    """What CSILimits.Filter reads of one node, beyond the incoming pod."""

    generation: int
    has_csi_node: bool
    limits: dict[str, int]
    attached: dict[str, str]  # unique volume name -> limit key, of the node's pods
    counts: dict[str, int]  # limit key -> unique volumes attached
    error: ValueError | None  # the first pod whose volumes fail to resolve (pods' order)
    # pod uid -> (the pod, its volumes): kept so that a re-read resolves only new pods
    pods: dict[str, tuple[Pod, PodVolumes]] = field(default_factory=dict)

    def headroom(self, key: str) -> int:
        limit = self.limits.get(key)
        return NO_LIMIT if limit is None else limit - self.counts.get(key, 0)


# (the NodeInfo, the entry it had before or None) -> its entry
NodeReader = Callable[["NodeInfo", "NodeVolumes | None"], NodeVolumes]


class NodeVolumeIndex:
    """Row-aligned NodeVolumes of one snapshot (see the module doc)."""

    def __init__(self, read: NodeReader) -> None:
        self._read = read
        self._snap_ref: weakref.ref[Any] | None = None
        self._layout: Any = None
        self._version: Hashable = None
        self._synced = -1  # snapshot generation of the last sync
        self.entries: list[NodeVolumes | None] = []
        self._gens: list[int] = []  # generation of the NodeInfo each row was read from (-1: never)
        self.stale: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self.no_node: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)  # node-less NodeInfo
        self.has_csi_node: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        # no Node object, or an error Filter returns (its pods' volumes fail, and it has limits)
        self.flagged: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self._headroom: dict[str, npt.NDArray[np.int64]] = {}

    def _reset(self, n: int) -> None:
        self.entries = [None] * n
        self._gens = [-1] * n
        self.stale = np.ones(n, dtype=bool)
        self.no_node = np.zeros(n, dtype=bool)
        self.has_csi_node = np.zeros(n, dtype=bool)
        self.flagged = np.zeros(n, dtype=bool)
        self._headroom = {}

    def sync(self, snap: Snapshot, version: Hashable) -> None:
        """Mark the rows that may have changed since the last sync stale."""
        infos = snap.node_info_list
        same_snap = self._snap_ref is not None and self._snap_ref() is snap
        if not same_snap or self._layout is not snap.node_index or len(self.entries) != len(infos):
            self._reset(len(infos))
            self._snap_ref, self._layout = weakref.ref(snap), snap.node_index
        elif version != self._version:
            self._reset(len(infos))
        elif snap.generation > 0 and snap.generation == self._synced:
            pass
        elif snap.generation > 0 and snap.last_update[0] == self._synced:
            row_of = snap.row_of_id
            for ni in snap.last_update[1]:
                r = row_of.get(id(ni))
                if r is not None:
                    self.stale[r] = True
        else:
            gens = self._gens
            for r, ni in enumerate(infos):
                if gens[r] != ni.generation:
                    self.stale[r] = True
        self._version, self._synced = version, snap.generation

    def refresh(self, snap: Snapshot, rows: npt.NDArray[np.int64]) -> None:
        """Re-read the stale ones of ``rows``."""
        todo = rows[self.stale[rows]]
        if not todo.size:
            return
        infos = snap.node_info_list
        for r in todo.tolist():
            self._refresh_row(r, infos[r])

    def _refresh_row(self, r: int, ni: NodeInfo) -> None:
        self.stale[r] = False
        self._gens[r] = ni.generation
        if ni.node is None:
            self.entries[r] = None
            self.no_node[r] = self.flagged[r] = True
            self.has_csi_node[r] = False
            return
        e = self.entries[r] = self._read(ni, self.entries[r])
        self.no_node[r] = False
        self.has_csi_node[r] = e.has_csi_node
        self.flagged[r] = e.error is not None and bool(e.limits)
        for key, col in self._headroom.items():
            col[r] = e.headroom(key)

    def headroom(self, key: str) -> npt.NDArray[np.int64]:
        """``limit - attached`` per row for ``key`` (NO_LIMIT without a limit): exact for every
        row that is not stale."""
        col = self._headroom.get(key)
        if col is None:
            col = np.full(len(self.entries), NO_LIMIT, dtype=np.int64)
            for r, e in enumerate(self.entries):
                if e is not None:
                    col[r] = e.headroom(key)
            self._headroom[key] = col
        return col
