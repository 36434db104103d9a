"""resourceAllocationScorer: the shared part of the resource-based scores.

Mirrors pkg/scheduler/framework/plugins/noderesources/resource_allocation.go (master 2026,
with kubernetes PR #135573, v1.36, which hands scorers both the node's usage *with* the pod
("requested") and *without* it ("allocated")). For each configured resource:

- the pod's request is computed once per cycle (``pod_request_list``): with scoring defaults
  for missing container cpu/memory (100m / 200Mi) unless the plugin uses plain requests
  (``use_requested``, BalancedAllocation);
- the node's allocatable and already-allocated amounts: cpu/memory from the non-zero requested
  totals (or plain requested with ``use_requested``), ephemeral-storage and scalar resources
  from the requested totals; other names (e.g. ``pods``) count as absent;
- a scalar resource the pod does not request is bypassed (PR #103169), as is any resource the
  node has no allocatable of: its row stays zero and scorers skip it.

Everything is computed as [nodes x resources] int64 matrices so that the per-node path (one
row) and the batch path (all rows, read from the snapshot columns) run the same scorer code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.cache._node_info import is_scalar_resource_name
from kubesched.framework import NodeBatch, Status

from ._args import ResourceSpec

__all__ = ["Matrix", "ResourceAllocationScorer", "Scorer", "pod_request_list"]

Matrix = npt.NDArray[np.int64]
Scorer = Callable[[Matrix, Matrix, Matrix], npt.NDArray[np.int64]]
"""(requested, allocated, allocatable) [N, R] -> scores [N]: requested includes the pod."""


def pod_request_list(pod: Pod, resources: Sequence[ResourceSpec], use_requested: bool) -> tuple[int, ...]:
    """calculatePodResourceRequestList: the pod's request per configured resource."""
    reqs = pod.requests if use_requested else pod.non_zero_requests
    return tuple(int(reqs.get(r.name, 0)) for r in resources)


@dataclass(frozen=True, slots=True)
class ResourceAllocationScorer:
    name: str
    scorer: Scorer
    resources: tuple[ResourceSpec, ...]
    use_requested: bool = False

    def _bypassed(self, pod_requests: Sequence[int]) -> npt.NDArray[np.bool_]:
        return np.array(
            [
                req == 0 and is_scalar_resource_name(r.name)
                for r, req in zip(self.resources, pod_requests, strict=True)
            ],
            dtype=bool,
        )

    def _node_row(self, ni: NodeInfo) -> tuple[list[int], list[int]]:
        allocatable: list[int] = []
        allocated: list[int] = []
        for r in self.resources:
            name = r.name
            if name in ("cpu", "memory"):
                basis = ni.requested if self.use_requested else ni.non_zero_requested
                allocatable.append(ni.allocatable.get(name, 0))
                allocated.append(basis.get(name, 0))
            elif name == "ephemeral-storage" or is_scalar_resource_name(name):
                allocatable.append(ni.allocatable.get(name, 0))
                allocated.append(ni.requested.get(name, 0))
            else:
                allocatable.append(0)
                allocated.append(0)
        return allocatable, allocated

    def _batch_rows(self, nodes: NodeBatch) -> tuple[Matrix, Matrix]:
        cols = nodes.snapshot.columns
        n, r = len(nodes), len(self.resources)
        allocatable = np.zeros((n, r), dtype=np.int64)
        allocated = np.zeros((n, r), dtype=np.int64)
        for j, res in enumerate(self.resources):
            name = res.name
            c = cols.resource_col(name)
            if c is None or not (
                name in ("cpu", "memory", "ephemeral-storage") or is_scalar_resource_name(name)
            ):
                continue
            basis = (
                cols.requested
                if (self.use_requested or name not in ("cpu", "memory"))
                else cols.non_zero_requested
            )
            allocatable[:, j] = cols.allocatable[nodes.indices, c]
            allocated[:, j] = basis[nodes.indices, c]
        return allocatable, allocated

    def _finish(
        self, allocatable: Matrix, allocated: Matrix, pod_requests: Sequence[int]
    ) -> npt.NDArray[np.int64]:
        req = np.asarray(pod_requests, dtype=np.int64)
        skip = (allocatable == 0) | self._bypassed(pod_requests)[None, :]
        allocatable = np.where(skip, 0, allocatable)
        allocated = np.where(skip, 0, allocated)
        requested = np.where(skip, 0, allocated + req[None, :])
        return self.scorer(requested, allocated, allocatable)

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> tuple[int, Status | None]:
        """resourceAllocationScorer.score for one node."""
        if not self.resources:
            return 0, Status.from_error(RuntimeError("resources not found"))
        alloc, allocated = self._node_row(node_info)
        out = self._finish(
            np.array([alloc], dtype=np.int64), np.array([allocated], dtype=np.int64), pod_requests
        )
        return int(out[0]), None

    def score_batch(
        self, nodes: NodeBatch, pod_requests: Sequence[int]
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        if not self.resources:
            return np.zeros(len(nodes), dtype=np.int64), Status.from_error(
                RuntimeError("resources not found")
            )
        alloc, allocated = self._batch_rows(nodes)
        return self._finish(alloc, allocated, pod_requests), None
