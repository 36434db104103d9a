"""LeastAllocated scoring strategy: favours nodes with more free capacity.

Mirrors pkg/scheduler/framework/plugins/noderesources/least_allocated.go (master 2026):
per resource ``(capacity - requested) * 100 / capacity`` (0 when over capacity), weighted mean
over resources with allocatable capacity, Go integer division throughout.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kubesched.framework import MAX_NODE_SCORE

from ._args import ResourceSpec
from .resource_allocation import I64, NodeUsage, RowScorer, Scorer, weighted_mean

__all__ = ["least_requested_score", "least_resource_row_scorer", "least_resource_scorer"]


def least_requested_score(requested: I64, divisor: I64) -> I64:
    """leastRequestedScore, element-wise: ``(capacity - requested) * 100 / capacity``, 0 when
    the request exceeds the capacity. ``divisor`` is the capacity with zeros replaced by 1
    (those entries are dropped by the caller). Where ``requested <= capacity`` the numerator is
    non-negative and floor division is Go's; where it exceeds it the quotient is negative and
    the clamp at 0 gives upstream's 0."""
    return np.maximum((divisor - requested) * MAX_NODE_SCORE // divisor, 0)


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    weights = [r.weight for r in resources]

    def scorer(u: NodeUsage) -> I64:
        return weighted_mean(least_requested_score(u.usage[0], u.divisor), u, weights)

    return scorer


def least_resource_row_scorer(resources: Sequence[ResourceSpec]) -> RowScorer:
    """leastResourceScorer for one node, as upstream writes it (least_allocated.go): per
    resource with allocatable capacity ``(capacity - requested) * 100 / capacity`` (0 when the
    request exceeds it), weighted mean with Go's integer division. What the resource scorers'
    per-row memo rescores changed rows with; equal to :func:`least_resource_scorer`."""
    weights = [r.weight for r in resources]

    def row(index: Sequence[int], allocatable: Sequence[int], allocated: Sequence[int],
            pod: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for j, capacity, used, want in zip(index, allocatable, allocated, pod, strict=True):
            if capacity == 0:
                continue
            requested = used + want
            score = 0 if requested > capacity else (capacity - requested) * MAX_NODE_SCORE // capacity
            node_score += score * weights[j]
            weight_sum += weights[j]
        return node_score // weight_sum if weight_sum else 0

    return row
