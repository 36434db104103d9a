"""RequestedToCapacityRatio scoring strategy: a user-defined utilization -> score shape.

Mirrors pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go (master
2026): shape scores (0..10) are scaled by ``MaxNodeScore / MaxCustomPriorityScore``; a
resource's utilization is ``requested * 100 / capacity`` (100 when over capacity or capacity is
0) fed to the broken-linear shape; only resources with a positive score count towards the
weighted mean, which is rounded (math.Round: half away from zero).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework import MAX_NODE_SCORE
from kubesched.plugins.helper import FunctionShapePoint, broken_linear, go_div_array

from ._args import MAX_CUSTOM_PRIORITY_SCORE, ResourceSpec, UtilizationShapePoint
from .resource_allocation import Matrix, Scorer

__all__ = ["MAX_UTILIZATION", "requested_to_capacity_ratio_scorer"]

MAX_UTILIZATION = 100


def go_round(x: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """math.Round: half away from zero."""
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[UtilizationShapePoint]
) -> Scorer:
    points = [
        FunctionShapePoint(p.utilization, p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
        for p in shape
    ]
    weights = np.array([r.weight for r in resources], dtype=np.int64)

    def scorer(requested: Matrix, allocated: Matrix, allocatable: Matrix) -> npt.NDArray[np.int64]:
        over = (allocatable == 0) | (requested > allocatable)
        utilization = np.where(over, MAX_UTILIZATION, go_div_array(requested * MAX_UTILIZATION, allocatable))
        resource_score = broken_linear(points, utilization)
        counted = (allocatable != 0) & (resource_score > 0)
        w = np.where(counted, weights[None, :], 0)
        node_score = (resource_score * w).sum(axis=1)
        weight_sum = w.sum(axis=1)
        safe = np.where(weight_sum == 0, 1, weight_sum)
        return np.where(weight_sum == 0, 0, go_round(node_score / safe)).astype(np.int64)

    return scorer
