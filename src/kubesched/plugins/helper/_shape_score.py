"""BuildBrokenLinearFunction: a piecewise-linear function through shape points.

Mirrors pkg/scheduler/framework/plugins/helper/shape_score.go (master 2026), used by
RequestedToCapacityRatio: at or below the first point's utilization the first score; between
points, linear interpolation with Go integer division; beyond the last point the last score.
The vectorized form evaluates the same integer formula for an array of utilizations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._gomath import go_div, go_div_array

__all__ = ["FunctionShapePoint", "broken_linear", "build_broken_linear_function"]

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class FunctionShapePoint:
    utilization: int
    score: int


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """BuildBrokenLinearFunction for one value."""

    def f(p: int) -> int:
        for i, pt in enumerate(shape):
            if p <= pt.utilization:
                if i == 0:
                    return shape[0].score
                prev = shape[i - 1]
                return prev.score + go_div(
                    (pt.score - prev.score) * (p - prev.utilization), pt.utilization - prev.utilization
                )
        return shape[-1].score

    return f


def broken_linear(shape: Sequence[FunctionShapePoint], p: I64) -> I64:
    """BuildBrokenLinearFunction applied element-wise to an int64 array."""
    p = np.asarray(p, dtype=np.int64)
    out = np.full(p.shape, shape[-1].score, dtype=np.int64)
    done = np.zeros(p.shape, dtype=bool)
    for i, pt in enumerate(shape):
        hit = ~done & (p <= pt.utilization)
        if hit.any():
            if i == 0:
                out[hit] = shape[0].score
            else:
                prev = shape[i - 1]
                seg = prev.score + go_div_array(
                    (pt.score - prev.score) * (p[hit] - prev.utilization), pt.utilization - prev.utilization
                )
                out[hit] = seg
        done |= hit
    return out
