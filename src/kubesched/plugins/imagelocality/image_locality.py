"""ImageLocality: favours nodes that already have the pod's images.

Mirrors pkg/scheduler/framework/plugins/imagelocality/image_locality.go (master 2026): for each
init and app container whose image (normalized: ``:latest`` appended when untagged) the node
has, add ``int64(size * num_nodes_with_image / total_nodes)`` (spread scaling, to avoid the
"node heating" of piling pods onto the one node with the image); clamp the sum to
[23 MiB, 1000 MiB x containers] and map it linearly onto 0..100 with integer division.

The per-node path reads the node's ``image_states`` as upstream does. The batch path reads the
same summaries from the snapshot's image index (:class:`~kubesched.cache.NodeImages`: per image
name, the rows listing it with their sizes and node counts), one array operation per container
image, and keeps every row's score per pod image list while the index is unchanged: node image
states change only when nodes are added, updated or removed, not when pods are placed.
"""

from __future__ import annotations

from typing import overload

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import ImageRows, ImageStateSummary, NodeImages, NodeInfo, normalized_image_name
from kubesched.framework import (
    IMAGE_NAMES_SIGNER_NAME,
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    CycleState,
    Handle,
    NodeBatch,
    PluginArgs,
    PluginBase,
    SignFragment,
    Status,
)
from kubesched.plugins.helper import go_div
from kubesched.plugins.names import IMAGE_LOCALITY

__all__ = ["MAX_CONTAINER_THRESHOLD", "MIN_THRESHOLD", "NAME", "ImageLocality", "normalized_image_name"]

NAME = IMAGE_LOCALITY
I64 = npt.NDArray[np.int64]
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """scaledImageScore: Go's ``int64(float64(size) * (float64(numNodes) / float64(total)))``."""
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def scaled_image_scores(rows: ImageRows, total_num_nodes: int) -> I64:
    """scaledImageScore for every node listing one image: the same float64 operations in the
    same order, element by element, and the same truncation toward zero."""
    return (rows.size * (rows.num_nodes / float(total_num_nodes))).astype(np.int64)


def pod_image_names(pod: Pod) -> tuple[str, ...]:
    """The normalized image of every init and app container, in sumImageScores' order (a
    repeated image counts once per container, as upstream sums it)."""
    return tuple(normalized_image_name(c.image) for c in (*pod.init_containers, *pod.containers))


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    """sumImageScores: the scaled size of each container image the node has."""
    total = 0
    states = node_info.image_states
    for name in pod_image_names(pod):
        st = states.get(name)
        if st is not None:
            total += scaled_image_score(st, total_num_nodes)
    return total


@overload
def calculate_priority(sum_scores: int, num_containers: int) -> int: ...
@overload
def calculate_priority(sum_scores: I64, num_containers: int) -> I64: ...
def calculate_priority(sum_scores: int | I64, num_containers: int) -> int | I64:
    """calculatePriority: clamp to [minThreshold, maxContainerThreshold x containers] (below the
    minimum first, as upstream's if/else-if), then scale to 0..MaxNodeScore with Go's integer
    division. One rule for a node's sum (int) and for a batch's (int64 array)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if isinstance(sum_scores, int):
        clamped = MIN_THRESHOLD if sum_scores < MIN_THRESHOLD else min(sum_scores, max_threshold)
        return go_div(MAX_NODE_SCORE * (clamped - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)
    arr = np.where(sum_scores < MIN_THRESHOLD, MIN_THRESHOLD, np.minimum(sum_scores, max_threshold))
    return go_div(MAX_NODE_SCORE * (arr - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class _RowScores:
    """Every snapshot row's score per pod image list, kept while the snapshot's image index
    (:class:`~kubesched.cache.NodeImages`) and node count are unchanged: pods of one workload
    share their images, and node image states change only when nodes do. No upstream
    counterpart (kube-scheduler recomputes each node's score per cycle); answers equal doing so."""

    __slots__ = ("_scores", "_token")

    def __init__(self) -> None:
        self._token: tuple[NodeImages, int, int] | None = None
        self._scores: dict[tuple[str, ...], I64] = {}

    def get(self, index: NodeImages, total: int, names: tuple[str, ...]) -> I64:
        token = (index, index.version, total)
        if self._token != token:  # the index compares by identity
            self._token, self._scores = token, {}
        hit = self._scores.get(names)
        if hit is None:
            sums = np.zeros(total, dtype=np.int64)
            for name in names:
                rows = index.rows(name)
                if rows is not None:
                    sums[rows.rows] += scaled_image_scores(rows, total)
            if len(self._scores) >= 16:
                self._scores.clear()
            hit = self._scores[names] = calculate_priority(sums, len(names))
        return hit


class ImageLocality(PluginBase):
    NAME = NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the score reads the containers' normalized images."""
        return [(IMAGE_NAMES_SIGNER_NAME, sorted(pod_image_names(pod)))], None

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self._row_scores = _RowScores()

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        # Upstream divides by len(SnapshotSharedLister().NodeInfos().List()).
        if self.handle is None:
            return 0, Status.from_error(RuntimeError("ImageLocality needs a handle to count the nodes"))
        total = self.handle.snapshot().num_nodes()
        n = len(pod.init_containers) + len(pod.containers)
        return calculate_priority(sum_image_scores(node_info, pod, total), n), None

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        """Score: the sums of every row from the snapshot's image index (one array operation
        per container image), then the same calculatePriority over the batch."""
        snap = nodes.snapshot
        names = pod_image_names(pod)
        index = snap.columns.images()
        if not index:  # no node lists any image (simulated clusters often): all the minimum
            return np.full(len(nodes), calculate_priority(0, len(names)), dtype=np.int64), None
        return self._row_scores.get(index, snap.num_nodes(), names).take(nodes.indices), None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A score plugin never rejects a pod, so no event needs to requeue one."""
        return []
