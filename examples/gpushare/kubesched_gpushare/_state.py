"""The GPU state the plugins share: every node's GPUs as numpy rows, and Reserve's choices.

The plugins of one profile (the GpuShare filter/Reserve and a policy's Score) read the same rows,
so they share one :class:`GpuShareState` per framework (looked up by the plugin's handle; a plugin
built without a handle, in a unit test, gets its own). The rows follow the snapshot: a row is
recomputed only when the snapshot rewrote that node (``NodeColumns.changed_rows_since``), from
the pods on it (see ``kubesched.replay.openb.node_gpu_left``), so a scheduling cycle costs O(rows
that changed) Python and the policies run vectorised over all candidate nodes.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeColumns, NodeInfo, Snapshot
from kubesched.replay.openb import (
    GPU_INDEX,
    PodGpu,
    node_gpu_count,
    node_gpu_left,
    node_gpu_model,
    pod_gpu,
)

I64 = npt.NDArray[np.int64]
MIN_WIDTH = 8
_AFFINITY_BITS = {"share-gpu": 1}


def request_of(pod: Pod) -> PodGpu:
    """The pod's GPU request, cpu being its non-zero cpu request (utils.GetPodResource)."""
    return pod_gpu(pod.meta.annotations, int(pod.non_zero_requests.get("cpu", 0)))


def affinity_bit(tag: str) -> int:
    """GpuClustering's affinity tags as bits: ``share-gpu`` is 1, ``<n>-gpu`` is 2**n."""
    bit = _AFFINITY_BITS.get(tag)
    if bit is None:
        bit = 1 << int(tag.split("-", 1)[0]) if tag != "no-gpu" else 0
    return bit


@dataclass(slots=True)
class GpuRows:
    """Rows of nodes: ``left[R, G]`` milli left per GPU (-1 past the node's GPUs), ``count[R]``
    GPUs, ``models[R]`` GPU model (object array of str), ``tags[R]`` the GPU affinity bits of the
    pods on the node, ``cpu_left[R]`` and ``cpu_capacity[R]`` (allocatable cpu) in milli."""

    left: I64
    count: I64
    models: npt.NDArray[np.object_]
    tags: I64
    cpu_left: I64
    cpu_capacity: I64

    def __len__(self) -> int:
        return len(self.count)

    def take(self, rows: I64) -> GpuRows:
        return GpuRows(self.left[rows], self.count[rows], self.models[rows], self.tags[rows],
                       self.cpu_left[rows], self.cpu_capacity[rows])


_PodEntry = tuple[PodGpu, str, str, int]  # request, uid, gpu-index annotation, affinity bit
PodCache = dict[int, tuple[Pod, _PodEntry]]


def _pod_entry(p: Pod, cache: PodCache) -> _PodEntry:
    """What a node's row needs of a pod, parsed once per pod object (pods are immutable; a
    changed pod is a new object)."""
    hit = cache.get(id(p))
    if hit is not None and hit[0] is p:
        return hit[1]
    req = request_of(p)
    bit = affinity_bit(req.affinity) if req.count else 0
    entry = (req, p.uid, p.meta.annotations.get(GPU_INDEX, ""), bit)
    if len(cache) >= 200_000:
        cache.clear()
    cache[id(p)] = (p, entry)
    return entry


def _node_row(ni: NodeInfo, width: int, assigned: Callable[[str], list[int] | None],
              cache: PodCache) -> tuple[int, str, I64, int]:
    node = ni.node
    if node is None:
        return 0, "", np.full(width, -1, dtype=np.int64), 0
    count = node_gpu_count(node.capacity)
    tags = 0
    pods = []
    for pi in ni.pods:
        req, uid, index, bit = _pod_entry(pi.pod, cache)
        if req.count > 0:
            tags |= bit
            pods.append((req, uid, index))
    left = node_gpu_left(count, pods, max(width, count), assigned)
    return count, node_gpu_model(node.labels), left, tags


def rows_of(infos: list[NodeInfo], assigned: Callable[[str], list[int] | None],
            cache: PodCache | None = None) -> GpuRows:
    """GpuRows computed from scratch (the per-node path uses it with one NodeInfo)."""
    width = max([MIN_WIDTH, *(node_gpu_count(ni.node.capacity) for ni in infos if ni.node)])
    n = len(infos)
    left = np.full((n, width), -1, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    tags = np.zeros(n, dtype=np.int64)
    models = np.empty(n, dtype=object)
    cpu_alloc = np.zeros(n, dtype=np.int64)
    cpu_req = np.zeros(n, dtype=np.int64)
    pods: PodCache = {} if cache is None else cache
    for i, ni in enumerate(infos):
        count[i], models[i], left[i], tags[i] = _node_row(ni, width, assigned, pods)
        cpu_alloc[i] = ni.allocatable.get("cpu", 0)
        cpu_req[i] = ni.requested.get("cpu", 0)
    return GpuRows(left, count, models, tags, cpu_alloc - cpu_req, cpu_alloc)


class GpuShareState:
    """What the plugins of one profile share: Reserve's GPU choices for pods not bound yet
    (``assigned``), GPU selectors registered by policies (``selectors``, as the simulator's
    ``allocateGpuIdFunc``), and the snapshot's rows."""

    def __init__(self) -> None:
        self.assigned: dict[str, list[int]] = {}
        self.selectors: dict[str, Callable[[GpuRows, PodGpu], list[int]]] = {}
        self._cols: NodeColumns | None = None
        self._mark = 0
        self._rows: GpuRows | None = None
        self._pods: PodCache = {}

    def rows(self, snapshot: Snapshot) -> GpuRows:
        """All the snapshot's rows, current: rows the snapshot rewrote since the last call are
        recomputed, everything when the node list changed."""
        cols = snapshot.columns
        infos = snapshot.node_info_list
        rows = self._rows
        changed = cols.changed_rows_since(self._mark) if cols is self._cols else None
        if rows is None or changed is None or len(rows) != len(infos):
            rows = rows_of(infos, self.assigned.get, self._pods)
        elif changed:
            width = rows.left.shape[1]
            for r in set(changed):
                ni = infos[r]
                c, model, left, tags = _node_row(ni, width, self.assigned.get, self._pods)
                if len(left) > width:
                    rows = rows_of(infos, self.assigned.get, self._pods)
                    break
                rows.count[r], rows.models[r], rows.left[r], rows.tags[r] = c, model, left, tags
                alloc = ni.allocatable.get("cpu", 0)
                rows.cpu_capacity[r] = alloc
                rows.cpu_left[r] = alloc - ni.requested.get("cpu", 0)
        self._rows, self._cols, self._mark = rows, cols, cols.log_mark()
        return rows

    def node_rows(self, node_info: NodeInfo) -> GpuRows:
        """One node's row, for the per-node paths."""
        return rows_of([node_info], self.assigned.get)


_STATES: weakref.WeakKeyDictionary[Any, GpuShareState] = weakref.WeakKeyDictionary()


def shared_state(handle: Any) -> GpuShareState:
    """The state of the framework ``handle`` (a fresh one without a handle)."""
    if handle is None:
        return GpuShareState()
    st = _STATES.get(handle)
    if st is None:
        st = _STATES[handle] = GpuShareState()
    return st
