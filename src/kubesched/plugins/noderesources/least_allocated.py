"""LeastAllocated scoring strategy: favours nodes with more free capacity.

Mirrors pkg/scheduler/framework/plugins/noderesources/least_allocated.go (master 2026):
per resource ``(capacity - requested) * 100 / capacity`` (0 when over capacity), weighted mean
over resources with allocatable capacity, Go integer division throughout.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework import MAX_NODE_SCORE
from kubesched.plugins.helper import go_div_array

from ._args import ResourceSpec
from .resource_allocation import Matrix, Scorer

__all__ = ["least_requested_score", "least_resource_scorer"]


def least_requested_score(requested: Matrix, capacity: Matrix) -> Matrix:
    """leastRequestedScore, element-wise (0 where capacity is 0 or exceeded)."""
    raw = go_div_array((capacity - requested) * MAX_NODE_SCORE, capacity)
    return np.where((capacity == 0) | (requested > capacity), 0, raw).astype(np.int64)


def weighted_mean(
    scores: Matrix, allocatable: Matrix, weights: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Sum of score*weight over resources with capacity, divided by the sum of their weights."""
    w = np.where(allocatable != 0, weights[None, :], 0)
    node_score = (scores * w).sum(axis=1)
    weight_sum = w.sum(axis=1)
    return np.where(weight_sum == 0, 0, go_div_array(node_score, weight_sum)).astype(np.int64)


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    weights = np.array([r.weight for r in resources], dtype=np.int64)

    def scorer(requested: Matrix, allocated: Matrix, allocatable: Matrix) -> npt.NDArray[np.int64]:
        return weighted_mean(least_requested_score(requested, allocatable), allocatable, weights)

    return scorer
