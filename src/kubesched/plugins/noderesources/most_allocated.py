"""MostAllocated scoring strategy: favours fuller nodes (bin packing).

Mirrors pkg/scheduler/framework/plugins/noderesources/most_allocated.go (master 2026): per
resource ``requested * 100 / capacity`` with requested capped at capacity (pods without
requests count with the scoring defaults and may exceed it), weighted mean as LeastAllocated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework import MAX_NODE_SCORE
from kubesched.plugins.helper import go_div_array

from ._args import ResourceSpec
from .least_allocated import weighted_mean
from .resource_allocation import Matrix, Scorer

__all__ = ["most_requested_score", "most_resource_scorer"]


def most_requested_score(requested: Matrix, capacity: Matrix) -> Matrix:
    """mostRequestedScore, element-wise."""
    capped = np.minimum(requested, capacity)
    return np.where(capacity == 0, 0, go_div_array(capped * MAX_NODE_SCORE, capacity)).astype(np.int64)


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    weights = np.array([r.weight for r in resources], dtype=np.int64)

    def scorer(requested: Matrix, allocated: Matrix, allocatable: Matrix) -> npt.NDArray[np.int64]:
        return weighted_mean(most_requested_score(requested, allocatable), allocatable, weights)

    return scorer
