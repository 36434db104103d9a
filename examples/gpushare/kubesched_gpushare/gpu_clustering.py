"""GpuClusteringScore (pkg/simulator/plugin/gpu_clustering_score.go): keep pods of one GPU shape
together. A GPU pod scores, by the GPU shapes ("share-gpu", "<n>-gpu") of the pods on the node:
(75, 100] only its own shape there, (50, 75] its shape among others, (25, 50] no GPU pod yet,
[0, 25] only other shapes; within a band, nodes with less GPU left score higher
(``25 * (8000 - left) / 8000``, integer). A CPU-only pod scores 0 everywhere."""

from __future__ import annotations

import numpy as np

from kubesched.framework import CycleState
from kubesched.replay.openb import PodGpu

from ._policy import I64, GpuScorePlugin
from ._state import GpuRows, affinity_bit
from .dot_product import MAX_SPEC_GPU, gpu_left_total


def popcount(x: I64) -> I64:
    return np.array([bin(int(v)).count("1") for v in x], dtype=np.int64) if len(x) < 8 else \
        np.unpackbits(x.astype(">u8").view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1).astype(np.int64)


class GpuClusteringScore(GpuScorePlugin):
    NAME = "GpuClusteringScore"

    def scores(self, rows: GpuRows, req: PodGpu, state: CycleState) -> I64:
        if req.count == 0:
            return np.zeros(len(rows), dtype=np.int64)
        base = 25 * (int(MAX_SPEC_GPU) - gpu_left_total(rows)) // int(MAX_SPEC_GPU)
        mine = (rows.tags & affinity_bit(req.affinity)) != 0
        shapes = popcount(rows.tags)
        band = np.where(mine, np.where(shapes == 1, 75, 50), np.where(shapes == 0, 25, 0))
        return (base + band).astype(np.int64)
