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

Scorers read a :class:`NodeUsage`: [resources x nodes] int64 matrices (nodes on the last axis,
where numpy's inner loops run), so the per-node path (one column) and the batch path (gathered
from the snapshot columns with one ``take`` per matrix) run the same scorer code, a handful of
numpy operations per plugin whatever the number of nodes.

Strategies with a row scorer (LeastAllocated, BalancedAllocation: the default profile's) keep
every snapshot row's score per pod request list across cycles and rescore only the rows the
cache rewrote since (``NodeColumns.changed_rows_since``), in plain Python: with one or two rows
changed per cycle that replaces a dozen numpy calls over the batch by a lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from kubesched.api import Node, Pod
from kubesched.cache import NodeColumns, NodeInfo, RowAnswers, RowMemo, is_scalar_resource_name
from kubesched.framework import RESOURCES_SIGNER_NAME, Code, NodeBatch, SignFragment, Status

from ._args import ResourceSpec

__all__ = ["I64", "ROW_EXACT", "DRATotals", "NodeUsage", "ResourceAllocationScorer", "RowScorer", "Scorer",
           "pod_request_list", "sign_resources"]

I64 = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
_NATIVE_SCORED = ("cpu", "memory", "ephemeral-storage")


def sign_resources(pod: Pod, enable_dra_extended_resource: bool) -> tuple[list[SignFragment] | None,
                                                                          Status | None]:
    """Fit's and BalancedAllocation's SignPod (fit.go, balanced_allocation.go): the containers'
    requests and overhead (computePodResourceRequest); not signable while DRAExtendedResource is
    on (an extended resource may be served by DRA)."""
    if enable_dra_extended_resource:
        return None, Status(Code.UNSCHEDULABLE, ("signature disabled when dra extended resources enabled",))
    return [(RESOURCES_SIGNER_NAME, {k: int(v) for k, v in sorted(pod.requests.items())})], None


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """The resources a pod is scored on, over ``n`` nodes: row ``k`` of each matrix is the
    configured resource ``index[k]``; resources bypassed for this pod or not tracked at all are
    left out (they count nowhere, exactly like a resource with no allocatable).

    ``allocatable`` is [K, n]; ``usage`` is [2, K, n]: ``usage[0]`` the nodes' usage with the
    pod ("requested"), ``usage[1]`` without it ("allocated"), built with one broadcast add so
    that scorers needing both (BalancedAllocation) process them in one operation. ``absent`` is
    ``None`` when every node has some allocatable of every resource (the usual case: no masks),
    else the [K, n] bool matrix of entries without; ``divisor`` is ``allocatable`` with zeros
    replaced by 1, so scorers can divide everywhere and drop the absent entries."""

    n: int
    index: tuple[int, ...]
    allocatable: I64
    usage: I64
    absent: Mask | None
    divisor: I64

    @staticmethod
    def offsets(index: Sequence[int], pod_requests: Sequence[int]) -> I64:
        """[2, K, 1]: the pod's requests (row 0) and nothing (row 1), to add to the allocated."""
        out = np.zeros((2, len(index), 1), dtype=np.int64)
        out[0, :, 0] = [pod_requests[j] for j in index]
        out.flags.writeable = False
        return out

    @staticmethod
    def build(index: Sequence[int], allocatable: I64, allocated: I64, offsets: I64) -> NodeUsage:
        """From [K, n] allocatable and allocated matrices (rows in ``index`` order) and the
        pod's :meth:`offsets`."""
        k, n = allocatable.shape
        usage = allocated[None] + offsets
        if np.count_nonzero(allocatable) == k * n:
            return NodeUsage(n, tuple(index), allocatable, usage, None, allocatable)
        absent = allocatable == 0
        return NodeUsage(n, tuple(index), allocatable, usage, absent, np.where(absent, 1, allocatable))

    def present_row(self, k: int) -> bool | Mask:
        """Whether resource row ``k`` counts, per node (``True``: on every node)."""
        return True if self.absent is None else ~self.absent[k]


DRATotals = Callable[[Node, str], tuple[int, int]]
"""For extended resources backed by DRA (DRAExtendedResource): ``(node, resource) ->
(allocatable, allocated)`` counted in devices, used where the node's allocatable has none."""

Scorer = Callable[[NodeUsage], I64]
"""A scoring strategy: one int64 score per node of the usage."""

RowScorer = Callable[[Sequence[int], Sequence[int], Sequence[int], Sequence[int]], int]
"""The same strategy for one node in plain Python ints: ``(index, allocatable, allocated,
pod)``, the last three aligned with ``index`` (the scored resources, as ``NodeUsage.index``).
Equal to the :data:`Scorer` on a one-node usage for amounts below :data:`ROW_EXACT`."""

ROW_EXACT = 1 << 53
"""Amounts below this keep a :data:`RowScorer` exact: no int64 product overflows (numpy wraps,
Python does not) and each converts to float64 as numpy converts it."""


def weighted_mean(scores: I64, usage: NodeUsage, weights: Sequence[int]) -> I64:
    """Sum of score*weight over the present resources divided (Go's integer division) by the sum
    of their weights; 0 where no resource is present (resourceAllocationScorer's strategies).
    ``scores`` is [K, n] and non-negative, where floor division is Go's."""
    w = [weights[j] for j in usage.index]
    if not w:
        return np.zeros(usage.n, dtype=np.int64)
    if usage.absent is None:
        num = scores[0] if w[0] == 1 else scores[0] * w[0]
        for k in range(1, len(w)):
            num = num + (scores[k] if w[k] == 1 else scores[k] * w[k])
        total = sum(w)
        return num if total == 1 else num // total
    wk = np.where(usage.absent, 0, np.array(w, dtype=np.int64)[:, None])
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


_Plan = tuple[tuple[int, ...], slice | list[int], I64]
"""(scored resources, their columns in the snapshot matrices, the pod's usage offsets)."""

_ROW_PATH_MAX = 16  # stale rows rescored one by one in Python; more go through numpy


@dataclass(frozen=True, slots=True)
class ResourceAllocationScorer:
    name: str
    scorer: Scorer
    resources: tuple[ResourceSpec, ...]
    use_requested: bool = False
    # pod requests -> (resource_index it was made for, its length, plan): a columns' resource
    # index only grows (names keep their column), so the plan holds while both are unchanged.
    _plans: dict[tuple[int, ...], tuple[dict[str, int], int, _Plan]] = field(
        default_factory=dict, compare=False, repr=False
    )
    row_scorer: RowScorer | None = None
    # pod requests -> every row's score, kept across cycles (see _memo_scores)
    _memo: RowMemo = field(default_factory=RowMemo, compare=False, repr=False)

    def _kept(self, pod_requests: Sequence[int]) -> list[int]:
        """Configured resources scored for this pod: not bypassed (a scalar resource the pod
        does not request) and of a kind the node tracks."""
        return [
            j
            for j, (r, req) in enumerate(zip(self.resources, pod_requests, strict=True))
            if _scored(r.name) and not (req == 0 and is_scalar_resource_name(r.name))
        ]

    def usage_of(self, node_info: NodeInfo, pod_requests: Sequence[int],
                 dra: DRATotals | None = None) -> NodeUsage:
        """One node's usage, from its NodeInfo; with ``dra``, a scalar resource the node's
        allocatable lacks counts the devices serving it (calculateResourceAllocatableRequest)."""
        basis = node_info.requested if self.use_requested else node_info.non_zero_requested
        kept = self._kept(pod_requests)
        alloc: list[list[int]] = []
        used: list[list[int]] = []
        for j in kept:
            name = self.resources[j].name
            capacity = node_info.allocatable.get(name, 0)
            if dra is not None and capacity == 0 and name not in _NATIVE_SCORED and node_info.node:
                devices, allocated = dra(node_info.node, name)
                if devices > 0:
                    alloc.append([devices])
                    used.append([allocated])
                    continue
            alloc.append([capacity])
            used.append([(basis if name in ("cpu", "memory") else node_info.requested).get(name, 0)])
        return NodeUsage.build(
            kept,
            np.array(alloc, dtype=np.int64).reshape(len(kept), 1),
            np.array(used, dtype=np.int64).reshape(len(kept), 1),
            NodeUsage.offsets(kept, pod_requests),
        )

    def _plan(self, cols: NodeColumns, pod_requests: Sequence[int]) -> _Plan:
        """Which columns the batch reads for this pod, memoized per requests and columns."""
        key = tuple(pod_requests)
        index = cols.resource_index
        hit = self._plans.get(key)
        if hit is not None and hit[0] is index and hit[1] == len(index):
            return hit[2]
        kept = tuple(j for j in self._kept(pod_requests) if self.resources[j].name in index)
        cix = [index[self.resources[j].name] for j in kept]
        pick: slice | list[int] = cix
        if cix and cix == list(range(cix[0], cix[0] + len(cix))):
            pick = slice(cix[0], cix[0] + len(cix))
        plan = (kept, pick, NodeUsage.offsets(kept, pod_requests))
        if len(self._plans) >= 64:
            self._plans.clear()
        self._plans[key] = (index, len(index), plan)
        return plan

    def usage_batch(self, nodes: NodeBatch, pod_requests: Sequence[int]) -> NodeUsage:
        """The batch's usage from the snapshot columns: one row gather per matrix, then the
        scored resource columns, transposed.

        ``non_zero_requested`` equals ``requested`` outside cpu and memory (column contract), so
        one matrix serves every resource."""
        cols: NodeColumns = nodes.snapshot.columns
        idx = nodes.indices
        kept, pick, offsets = self._plan(cols, pod_requests)
        basis = cols.requested if self.use_requested else cols.non_zero_requested
        # [K, n] C-contiguous: numpy iterates the last axis, which must be the long one.
        alloc = np.ascontiguousarray(cols.allocatable.take(idx, axis=0)[:, pick].T)
        used = np.ascontiguousarray(basis.take(idx, axis=0)[:, pick].T)
        return NodeUsage.build(kept, alloc, used, offsets)

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int],
              dra: DRATotals | None = None) -> tuple[int, Status | None]:
        """resourceAllocationScorer.score for one node."""
        if not self.resources:
            return 0, Status.from_error(RuntimeError("resources not found"))
        return int(self.scorer(self.usage_of(node_info, pod_requests, dra))[0]), None

    def score_batch(self, nodes: NodeBatch, pod_requests: Sequence[int],
                    dra: DRATotals | None = None) -> tuple[I64, Status | None]:
        """The scores of the batch: from the per-row memo when the strategy has a row scorer
        (:meth:`_memo_scores`), else with the numpy scorer over the gathered usage; node by
        node when a scored resource may be counted in devices (``dra``, a rare configuration)."""
        if not self.resources:
            return np.zeros(len(nodes), dtype=np.int64), Status.from_error(
                RuntimeError("resources not found")
            )
        if dra is not None:
            return np.array([self.score(ni, pod_requests, dra)[0] for ni in nodes.node_infos()],
                            dtype=np.int64), None
        if self.row_scorer is not None:
            scores = self._memo_scores(nodes, tuple(pod_requests))
            if scores is not None:
                return scores, None
        return self.scorer(self.usage_batch(nodes, pod_requests)), None

    def _memo_scores(self, nodes: NodeBatch, key: tuple[int, ...]) -> I64 | None:
        """A row's score depends only on its allocatable and allocated columns and the pod's
        requests, and between two cycles the cache rewrites one or two rows (the node the last
        pod went to). So for a request list seen before, every row's score is kept and only
        the rows the columns' change log names are rescored: in Python with the row scorer
        when they are few (a dozen numpy calls cost more than a few rows of arithmetic), with
        the numpy scorer otherwise. ``None``: not memoized (first sight of these requests); the
        caller scores the batch as usual."""
        cols = nodes.snapshot.columns
        plan = self._plan(cols, key)
        memo = self._memo.entry(cols, key, plan)
        if memo is None:
            return None
        idx = nodes.indices
        rows = memo.missing(idx)
        few = len(rows) <= _ROW_PATH_MAX
        if len(rows) and not (few and self._rescore_rows(memo, plan, key, rows.tolist())):
            memo.put(rows, self.scorer(self.usage_batch(NodeBatch(nodes.snapshot, rows), key)))
        return memo.values.take(idx)

    def _rescore_rows(self, memo: RowAnswers, plan: _Plan, pod_requests: tuple[int, ...],
                      rows: list[int]) -> bool:
        """Rows' scores with the row scorer; False (nothing written) when an amount is too
        large for it to be exact (:data:`ROW_EXACT`)."""
        row_scorer = self.row_scorer
        assert row_scorer is not None
        kept, pick, _ = plan
        pod = [pod_requests[j] for j in kept]
        if pod and (max(pod) >= ROW_EXACT or min(pod) < 0):
            return False
        cols = memo.cols
        basis = cols.requested if self.use_requested else cols.non_zero_requested
        allocatable = cols.allocatable
        out: list[int] = []
        for r in rows:
            alloc, used = allocatable[r, pick].tolist(), basis[r, pick].tolist()
            if (alloc and max(alloc) >= ROW_EXACT) or (used and (max(used) >= ROW_EXACT or min(used) < 0)):
                return False
            out.append(row_scorer(kept, alloc, used, pod))
        memo.put(rows, out)
        return True
