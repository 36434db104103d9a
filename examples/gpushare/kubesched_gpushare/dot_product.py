"""DotProductScore (pkg/simulator/plugin/dot_product_score.go, Tetris' alignment), as the paper
runs it (``dimExtMethod: merge``, ``normMethod: max``): node free [cpu, GPU milli] and pod request,
each divided by the largest node (128 cores, 8 GPUs); score ``int(100 * (1 - dot / 2))``, so the
node whose free resources align least with the request wins (0 when the cpu does not fit)."""

from __future__ import annotations

import dataclasses

import numpy as np

from kubesched.framework import ArgsError, CycleState, PluginArgs
from kubesched.replay.openb import PodGpu

from ._policy import I64, GpuScorePlugin
from ._state import GpuRows

MAX_SPEC_CPU = 128000.0
MAX_SPEC_GPU = 8000.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class DotProductArgs(PluginArgs):
    dim_ext_method: str = "merge"
    norm_method: str = "max"

    def validate(self) -> None:
        if self.dim_ext_method != "merge":
            raise ArgsError("dimExtMethod: only \"merge\" is implemented (what the paper runs)")
        if self.norm_method != "max":
            raise ArgsError("normMethod: only \"max\" is implemented (what the paper runs)")


def gpu_left_total(rows: GpuRows) -> I64:
    return np.where(rows.left >= 0, rows.left, 0).sum(axis=1)


class DotProductScore(GpuScorePlugin):
    NAME = "DotProductScore"
    Args = DotProductArgs

    def scores(self, rows: GpuRows, req: PodGpu, state: CycleState) -> I64:
        node_cpu = rows.cpu_left / MAX_SPEC_CPU
        node_gpu = gpu_left_total(rows) / MAX_SPEC_GPU
        dot = node_cpu * (req.cpu / MAX_SPEC_CPU)
        dot = dot + node_gpu * (req.total / MAX_SPEC_GPU)
        score = (100.0 * (1 - dot / 2)).astype(np.int64)
        return np.where(rows.cpu_left >= req.cpu, score, 0)
