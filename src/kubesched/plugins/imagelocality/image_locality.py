"""ImageLocality: favours nodes that already have the pod's images.

Mirrors pkg/scheduler/framework/plugins/imagelocality/image_locality.go (master 2026): for each
init and app container whose image (normalized: ``:latest`` appended when untagged) the node
has, add ``int64(size * num_nodes_with_image / total_nodes)`` (spread scaling, to avoid the
"node heating" of piling pods onto the one node with the image); clamp the sum to
[23 MiB, 1000 MiB x containers] and map it linearly onto 0..100 with integer division.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import ImageStateSummary, NodeInfo, normalized_image_name
from kubesched.framework import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    CycleState,
    Handle,
    NodeBatch,
    PluginArgs,
    PluginBase,
    Status,
)
from kubesched.plugins.helper import go_div
from kubesched.plugins.names import IMAGE_LOCALITY

__all__ = ["MAX_CONTAINER_THRESHOLD", "MIN_THRESHOLD", "NAME", "ImageLocality", "normalized_image_name"]

NAME = IMAGE_LOCALITY
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """scaledImageScore: Go's ``int64(float64(size) * (float64(numNodes) / float64(total)))``."""
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    total = 0
    states = node_info.image_states
    for c in (*pod.init_containers, *pod.containers):
        st = states.get(normalized_image_name(c.image))
        if st is not None:
            total += scaled_image_score(st, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """calculatePriority: clamp, then scale to 0..MaxNodeScore."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    sum_scores = (
        max(MIN_THRESHOLD, min(sum_scores, max_threshold)) if sum_scores >= MIN_THRESHOLD else MIN_THRESHOLD
    )
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class _NodesWithImages:
    """Names of the snapshot's nodes that have any image, kept across cycles: when the last
    snapshot update started from the generation seen here, only the nodes it rewrote
    (``Snapshot.last_update``) are looked at again; otherwise every node is."""

    def __init__(self) -> None:
        self._snap: Any = None
        self._fp: tuple[int, int, int] | None = None
        self._names: set[str] = set()

    def names(self, snap: Any) -> set[str]:
        fp = (snap.generation, snap.tree_version, len(snap.node_info_list))
        if snap is self._snap and self._fp is not None and snap.generation > 0:
            if fp == self._fp:
                return self._names
            prev, rewritten = getattr(snap, "last_update", (-1, ()))
            if fp[1:] == self._fp[1:] and prev == self._fp[0]:
                for ni in rewritten:
                    if ni.image_states:
                        self._names.add(ni.name)
                    else:
                        self._names.discard(ni.name)
                self._fp = fp
                return self._names
        self._names = {ni.name for ni in snap.node_info_list if ni.image_states}
        self._snap, self._fp = (snap, fp) if snap.generation > 0 else (None, None)
        return self._names


class ImageLocality(PluginBase):
    NAME = NAME

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self._with_images = _NodesWithImages()

    def _score(self, pod: Pod, node_info: NodeInfo, total: int) -> int:
        n = len(pod.init_containers) + len(pod.containers)
        return calculate_priority(sum_image_scores(node_info, pod, total), n)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        # Upstream divides by len(SnapshotSharedLister().NodeInfos().List()).
        if self.handle is None:
            return 0, Status.from_error(RuntimeError("ImageLocality needs a handle to count the nodes"))
        return self._score(pod, node_info, self.handle.snapshot().num_nodes()), None

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        total = nodes.snapshot.num_nodes()
        infos = nodes.snapshot.node_info_list
        # Nodes with none of the images all get the same clamped minimum: computed once, and
        # only nodes holding one of the images take the per-node arithmetic.
        out = np.empty(len(nodes), dtype=np.int64)
        out.fill(self._score_none(pod))
        if not self._with_images.names(nodes.snapshot):
            return out, None  # no node has any image (simulated clusters often): all minimum
        images = {normalized_image_name(c.image) for c in (*pod.init_containers, *pod.containers)}
        for i, idx in enumerate(nodes.indices.tolist()):
            ni = infos[idx]
            if not images.isdisjoint(ni.image_states):
                out[i] = self._score(pod, ni, total)
        return out, None

    def _score_none(self, pod: Pod) -> int:
        return calculate_priority(0, len(pod.init_containers) + len(pod.containers))

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A score plugin never rejects a pod, so no event needs to requeue one."""
        return []
