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
from .resource_allocation import I64, NodeUsage, Scorer, weighted_mean

__all__ = ["least_requested_score", "least_resource_scorer"]


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
