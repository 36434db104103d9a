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
  node has no allocatable of: scorers skip it.

Scorers read a :class:`NodeUsage`: one int64 column over the nodes per scored resource, so the
per-node path (columns of length one) and the batch path (gathered from the snapshot columns
with one ``take`` per matrix) run the same scorer code, with a handful of numpy operations per
resource and no [nodes x resources] temporaries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeColumns, NodeInfo
from kubesched.cache._node_info import is_scalar_resource_name
from kubesched.framework import NodeBatch, Status

from ._args import ResourceSpec

__all__ = ["I64", "NodeUsage", "ResourceAllocationScorer", "Scorer", "pod_request_list"]

I64 = npt.NDArray[np.int64]
_NATIVE_SCORED = ("cpu", "memory", "ephemeral-storage")


Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """The resources a pod is scored on, over ``n`` nodes: row ``k`` of each matrix is the
    configured resource ``index[k]``; resources bypassed for this pod or not tracked at all are
    left out (they count nowhere, exactly like a resource with no allocatable).

    ``allocatable`` is [K, n]; ``usage`` is [2, K, n]: ``usage[0]`` the nodes' usage with the
    pod ("requested"), ``usage[1]`` without it ("allocated"), built with one broadcast add so
    that scorers needing both (BalancedAllocation) process them in one operation. ``present``
    is ``True`` when every node has some allocatable of every resource (the usual case), else a
    [K, n] bool matrix; ``divisor`` is ``allocatable`` with zeros replaced by 1, so scorers can
    divide everywhere and drop the entries that are not present."""

    n: int
    index: tuple[int, ...]
    allocatable: I64
    usage: I64
    present: bool | Mask
    divisor: I64

    @staticmethod
    def build(index: Sequence[int], allocatable: I64, allocated: I64, pod_requests: Sequence[int]) -> NodeUsage:
        """From [K, n] allocatable and allocated matrices (rows in ``index`` order)."""
        k, n = allocatable.shape
        offsets = np.zeros((2, k, 1), dtype=np.int64)
        offsets[0, :, 0] = [pod_requests[j] for j in index]
        usage = allocated[None] + offsets
        if np.count_nonzero(allocatable) == k * n:
            return NodeUsage(n, tuple(index), allocatable, usage, True, allocatable)
        ok = allocatable != 0
        return NodeUsage(n, tuple(index), allocatable, usage, ok, np.where(ok, allocatable, 1))

    def present_row(self, k: int) -> bool | Mask:
        return True if self.present is True else self.present[k]


Scorer = Callable[[NodeUsage], I64]
"""A scoring strategy: one int64 score per node of the usage."""


def weighted_mean(scores: I64, usage: NodeUsage, weights: Sequence[int]) -> I64:
    """Sum of score*weight over the present resources divided (Go's integer division) by the sum
    of their weights; 0 where no resource is present (resourceAllocationScorer's strategies).
    ``scores`` is [K, n] and non-negative, where floor division is Go's."""
    w = [weights[j] for j in usage.index]
    if not w:
        return np.zeros(usage.n, dtype=np.int64)
    if usage.present is True:
        num = scores[0] if w[0] == 1 else scores[0] * w[0]
        for k in range(1, len(w)):
            num = num + (scores[k] if w[k] == 1 else scores[k] * w[k])
        total = sum(w)
        return num if total == 1 else num // total
    wk = np.where(usage.present, np.array(w, dtype=np.int64)[:, None], 0)
    num = (scores * wk).sum(axis=0)
    wsum = wk.sum(axis=0)
    return np.where(wsum == 0, 0, num // np.where(wsum == 0, 1, wsum))


def pod_request_list(pod: Pod, resources: Sequence[ResourceSpec], use_requested: bool) -> tuple[int, ...]:
    """calculatePodResourceRequestList: the pod's request per configured resource."""
    reqs = pod.requests if use_requested else pod.non_zero_requests
    return tuple(int(reqs.get(r.name, 0)) for r in resources)


def _scored(name: str) -> bool:
    """Names resourceAllocationScorer reads from the node (others count as absent)."""
    return name in _NATIVE_SCORED or is_scalar_resource_name(name)


@dataclass(frozen=True, slots=True)
class ResourceAllocationScorer:
    name: str
    scorer: Scorer
    resources: tuple[ResourceSpec, ...]
    use_requested: bool = False

    def _kept(self, pod_requests: Sequence[int]) -> list[int]:
        """Configured resources scored for this pod: not bypassed (a scalar resource the pod
        does not request) and of a kind the node tracks."""
        return [
            j
            for j, (r, req) in enumerate(zip(self.resources, pod_requests, strict=True))
            if _scored(r.name) and not (req == 0 and is_scalar_resource_name(r.name))
        ]

    def usage_of(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> NodeUsage:
        """One node's usage, from its NodeInfo."""
        basis = node_info.requested if self.use_requested else node_info.non_zero_requested
        kept = self._kept(pod_requests)
        alloc: list[list[int]] = []
        used: list[list[int]] = []
        for j in kept:
            name = self.resources[j].name
            alloc.append([node_info.allocatable.get(name, 0)])
            used.append([(basis if name in ("cpu", "memory") else node_info.requested).get(name, 0)])
        return NodeUsage.build(
            kept,
            np.array(alloc, dtype=np.int64).reshape(len(kept), 1),
            np.array(used, dtype=np.int64).reshape(len(kept), 1),
            pod_requests,
        )

    def usage_batch(self, nodes: NodeBatch, pod_requests: Sequence[int]) -> NodeUsage:
        """The batch's usage from the snapshot columns: one row gather per matrix, then the
        resource columns (a view when they are adjacent, as cpu and memory are).

        ``non_zero_requested`` equals ``requested`` outside cpu and memory (column contract), so
        one matrix serves every resource."""
        cols: NodeColumns = nodes.snapshot.columns
        idx = nodes.indices
        kept = [j for j in self._kept(pod_requests) if self.resources[j].name in cols.resource_index]
        cix = [cols.resource_index[self.resources[j].name] for j in kept]
        basis = cols.requested if self.use_requested else cols.non_zero_requested
        alloc_rows = cols.allocatable.take(idx, axis=0).T
        used_rows = basis.take(idx, axis=0).T
        if cix and cix == list(range(cix[0], cix[0] + len(cix))):
            pick: slice | list[int] = slice(cix[0], cix[0] + len(cix))
        else:
            pick = cix
        return NodeUsage.build(kept, alloc_rows[pick], used_rows[pick], pod_requests)

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> tuple[int, Status | None]:
        """resourceAllocationScorer.score for one node."""
        if not self.resources:
            return 0, Status.from_error(RuntimeError("resources not found"))
        return int(self.scorer(self.usage_of(node_info, pod_requests))[0]), None

    def score_batch(self, nodes: NodeBatch, pod_requests: Sequence[int]) -> tuple[I64, Status | None]:
        if not self.resources:
            return np.zeros(len(nodes), dtype=np.int64), Status.from_error(
                RuntimeError("resources not found")
            )
        return self.scorer(self.usage_batch(nodes, pod_requests)), None
