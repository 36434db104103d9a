"""GpuPackingScore (pkg/simulator/plugin/gpu_packing_score.go, getPackingScore): prefer, in this
order, (1) sharing GPUs already in use: ``100 - Σ(left*100/1000)/10`` over the GPUs the pod would
take (tightest first), at least 50; (2) free GPUs of a node already in use: ``50 - free GPUs
taken``, at least 33; (3) an idle node: ``33 - its GPUs`` (the simulator's cap is its GPU count).
CPU-only pods score 0 everywhere."""

from __future__ import annotations

import numpy as np

from kubesched.framework import CycleState
from kubesched.replay.openb import MILLI, PodGpu

from ._policy import I64, GpuScorePlugin
from ._state import GpuRows


class GpuPackingScore(GpuScorePlugin):
    NAME = "GpuPackingScore"

    def scores(self, rows: GpuRows, req: PodGpu, state: CycleState) -> I64:
        n = len(rows)
        if not req.wants_gpu or n == 0:
            return np.zeros(n, dtype=np.int64)
        free = np.count_nonzero(rows.left == MILLI, axis=1)
        idle_node = free == rows.count
        # the GPUs taken: in ascending order of milli left (stable), the first req.count that fit
        order = np.sort(np.where(rows.left >= 0, rows.left, np.iinfo(np.int64).max), axis=1, kind="stable")
        fits = order >= req.milli
        fits &= order != np.iinfo(np.int64).max
        first = np.argmax(fits, axis=1)
        take = np.minimum(first[:, None] + np.arange(req.count)[None, :], order.shape[1] - 1)
        used = np.take_along_axis(order, take, axis=1)
        free_used = np.count_nonzero(used == MILLI, axis=1)
        case2 = np.maximum(50 - free_used, 33)
        case1 = np.maximum(100 - (used * 100 // MILLI).sum(axis=1) // 10, 50)
        case3 = np.maximum(33 - free, free)
        return np.where(idle_node, case3, np.where(free_used > 0, case2, case1)).astype(np.int64)
