"""The skeleton every GPU policy shares: a Score plugin whose rule is one function over rows.

A policy implements ``scores(rows, req) -> int64[R]`` (vectorised over the candidate nodes); the
per-node ``score`` and the batch ``score_batch`` both call it, so the two paths cannot differ.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import ClusterEventWithHint, CycleState, NodeBatch, PluginArgs, PluginBase, Status
from kubesched.replay.openb import PodGpu

from ._state import GpuRows, request_of, shared_state

I64 = npt.NDArray[np.int64]


class GpuScorePlugin(PluginBase):
    NAME = "GpuScorePlugin"  # abstract; subclasses set their own

    def __init__(self, args: PluginArgs | None = None, handle: object = None) -> None:
        super().__init__(args, handle)  # type: ignore[arg-type]
        self.state = shared_state(handle)

    def scores(self, rows: GpuRows, req: PodGpu, state: CycleState) -> I64:
        raise NotImplementedError

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return int(self.scores(self.state.node_rows(node_info), request_of(pod), state)[0]), None

    def score_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> tuple[I64, Status | None]:
        rows = self.state.rows(nodes.snapshot).take(nodes.indices)
        return self.scores(rows, request_of(pod), state).astype(np.int64), None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []  # Score plugins reject no pod
