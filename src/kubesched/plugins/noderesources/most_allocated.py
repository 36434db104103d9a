"""MostAllocated scoring strategy: favours fuller nodes (bin packing).

Mirrors pkg/scheduler/framework/plugins/noderesources/most_allocated.go (master 2026): per
resource ``requested * 100 / capacity`` with requested capped at capacity (pods without
requests count with the scoring defaults and may exceed it), weighted mean as LeastAllocated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kubesched.framework import MAX_NODE_SCORE

from ._args import ResourceSpec
from .resource_allocation import I64, NodeUsage, Scorer, weighted_mean

__all__ = ["most_requested_score", "most_resource_scorer"]


def most_requested_score(requested: I64, divisor: I64) -> I64:
    """mostRequestedScore, element-wise: ``min(requested, capacity) * 100 / capacity``.
    ``divisor`` is the capacity with zeros replaced by 1 (those entries are dropped by the
    caller); requests are non-negative, where floor division is Go's."""
    return np.minimum(requested, divisor) * MAX_NODE_SCORE // divisor


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    weights = [r.weight for r in resources]

    def scorer(u: NodeUsage) -> I64:
        return weighted_mean(most_requested_score(u.usage[0], u.divisor), u, weights)

    return scorer
