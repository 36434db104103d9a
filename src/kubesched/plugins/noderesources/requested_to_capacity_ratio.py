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
from .resource_allocation import I64, NodeUsage, Scorer

__all__ = ["MAX_UTILIZATION", "requested_to_capacity_ratio_scorer"]

MAX_UTILIZATION = 100


def go_round(x: npt.NDArray[np.float64]) -> I64:
    """math.Round: half away from zero."""
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[UtilizationShapePoint]
) -> Scorer:
    points = [
        FunctionShapePoint(p.utilization, p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
        for p in shape
    ]
    weights = [r.weight for r in resources]

    def scorer(u: NodeUsage) -> I64:
        node_score: I64 = np.zeros(u.n, dtype=np.int64)
        weight_sum: I64 = np.zeros(u.n, dtype=np.int64)
        for k, j in enumerate(u.index):
            req, cap, ok = u.usage[0, k], u.allocatable[k], u.present_row(k)
            over = (cap == 0) | (req > cap)
            utilization = np.where(over, MAX_UTILIZATION, go_div_array(req * MAX_UTILIZATION, cap))
            resource_score = broken_linear(points, utilization)
            w = np.where(np.logical_and(ok, resource_score > 0), weights[j], 0)
            node_score = node_score + resource_score * w
            weight_sum = weight_sum + w
        safe = np.where(weight_sum == 0, 1, weight_sum)
        return np.where(weight_sum == 0, 0, go_round(node_score / safe)).astype(np.int64)

    return scorer
