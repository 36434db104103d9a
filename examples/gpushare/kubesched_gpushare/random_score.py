"""RandomScore (pkg/simulator/plugin/random_score.go): PreScore draws one of the feasible nodes
uniformly (from the framework's seeded RNG); Score gives it MaxNodeScore, the others 0."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import MAX_NODE_SCORE, CycleState, NodeBatch, Status

from ._policy import I64, GpuScorePlugin

KEY = "PreScore-RandomScore"


class RandomScore(GpuScorePlugin):
    NAME = "RandomScore"

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if nodes:
            k = self.handle.rng.randrange(len(nodes)) if self.handle is not None else 0
            state.write(KEY, nodes[k].name)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return (MAX_NODE_SCORE if state.get(KEY) == node_info.name else 0), None

    def score_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> tuple[I64, Status | None]:
        row = nodes.snapshot.node_index.get(state.get(KEY, ""), -1)
        return np.where(nodes.indices == row, MAX_NODE_SCORE, 0).astype(np.int64), None
