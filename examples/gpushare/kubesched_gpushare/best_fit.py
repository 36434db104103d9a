"""BestFitScore (pkg/simulator/plugin/best_fit_score.go): the node the pod leaves least free,
cpu and GPU weighed half each against the largest node: ``int((1 - Σ w·(free - req)/max) * 100)``,
then min-max normalised over the feasible nodes (NormalizeScore in plugin_utils.go)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import CycleState, Status
from kubesched.replay.openb import PodGpu

from ._policy import I64, GpuScorePlugin
from ._state import GpuRows
from .dot_product import MAX_SPEC_CPU, MAX_SPEC_GPU, gpu_left_total


def normalize(scores: npt.NDArray[np.int64]) -> None:
    """NormalizeScore: (s - lowest) * 100 / (highest - lowest); all 0 when they are equal."""
    if scores.size == 0:
        return
    lo, hi = int(scores.min()), int(scores.max())
    if hi == lo:
        scores[:] = 0
    else:
        scores[:] = (scores - lo) * 100 // (hi - lo)


class BestFitScore(GpuScorePlugin):
    NAME = "BestFitScore"

    def scores(self, rows: GpuRows, req: PodGpu, state: CycleState) -> I64:
        s = (rows.cpu_left - req.cpu) / MAX_SPEC_CPU * 0.5
        s = s + (gpu_left_total(rows) - req.total) / MAX_SPEC_GPU * 0.5
        return ((1.0 - s) * 100).astype(np.int64)

    def score_extensions(self) -> BestFitScore:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64],
                        node_names: Sequence[str]) -> Status | None:
        normalize(scores)
        return None
