"""NodeResourcesBalancedAllocation: favours nodes whose resource usage the pod makes *more*
balanced.

Mirrors pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go at kubernetes
PR #135573 (v1.36, master 2026). The balance of a usage vector is ``(1 - std) * 100``
truncated, where std is over the fractions ``requested / allocatable`` (capped at 1) of the
configured resources the node has: ``|f1 - f2| / 2`` for two resources, the population standard
deviation for more, 0 for fewer. Since v1.36 the score is the *change* the pod causes::

    50 + (50 + balance(with pod) - balance(without pod)) / 2

(both balances lie in [50, 100], so the score does too; ~75 means "no change"). Earlier
releases returned balance(with pod) alone. BalancedAllocation reads plain requests (no scoring
defaults, ``useRequested``) and skips best-effort pods at PreScore (issue 129138).

The float arithmetic runs resource by resource in upstream's order so that per-node and batch
results match Go bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    Code,
    CycleState,
    NodeBatch,
    PluginArgs,
    PluginBase,
    Status,
)
from kubesched.plugins.helper import go_div_array
from kubesched.plugins.names import NODE_RESOURCES_BALANCED_ALLOCATION

from ._args import NodeResourcesBalancedAllocationArgs
from .resource_allocation import Matrix, ResourceAllocationScorer, pod_request_list

__all__ = ["NAME", "BalancedAllocation", "balanced_resource_score", "balanced_resource_scorer"]

NAME = NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME


def balanced_resource_score(requested: Matrix, allocatable: Matrix) -> npt.NDArray[np.int64]:
    """balancedResourceScore for each row: ``int64((1 - std) * MaxNodeScore)``."""
    n, r = requested.shape
    valid = allocatable != 0
    safe = np.where(valid, allocatable, 1).astype(np.float64)
    fractions = np.minimum(requested.astype(np.float64) / safe, 1.0)
    count = valid.sum(axis=1)
    total = np.zeros(n, dtype=np.float64)
    first = np.zeros(n, dtype=np.float64)
    second = np.zeros(n, dtype=np.float64)
    seen = np.zeros(n, dtype=np.int64)
    for j in range(r):  # Go's loop order, for identical float sums
        f = fractions[:, j]
        v = valid[:, j]
        total = np.where(v, total + f, total)
        first = np.where(v & (seen == 0), f, first)
        second = np.where(v & (seen == 1), f, second)
        seen = seen + v
    mean = total / np.where(count == 0, 1, count)
    sq = np.zeros(n, dtype=np.float64)
    for j in range(r):
        d = fractions[:, j] - mean
        sq = np.where(valid[:, j], sq + d * d, sq)
    std = np.where(
        count == 2,
        np.abs((first - second) / 2),
        np.where(count > 2, np.sqrt(sq / np.where(count == 0, 1, count)), 0.0),
    )
    return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)


def balanced_resource_scorer(
    requested: Matrix, allocated: Matrix, allocatable: Matrix
) -> npt.NDArray[np.int64]:
    """balancedResourceScorer (PR #135573): the improvement in balance, mapped to [50, 100]."""
    with_pod = balanced_resource_score(requested, allocatable)
    without_pod = balanced_resource_score(allocated, allocatable)
    half = MAX_NODE_SCORE // 2
    return (half + go_div_array(half + with_pod - without_pod, 2)).astype(np.int64)


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]

    def clone(self) -> _PreScoreState:
        return self


class BalancedAllocation(PluginBase):
    NAME = NAME
    Args = NodeResourcesBalancedAllocationArgs

    def __init__(self, args: PluginArgs | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        assert isinstance(self.args, NodeResourcesBalancedAllocationArgs)
        self.resources = self.args.resources
        self.scorer = ResourceAllocationScorer(
            NAME, balanced_resource_scorer, self.resources, use_requested=True
        )

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        reqs = pod_request_list(pod, self.resources, use_requested=True)
        if not any(reqs):
            return Status.of(Code.SKIP)  # best-effort pods: issue 129138
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(reqs))
        return None

    def _requests(self, state: CycleState, pod: Pod) -> tuple[int, ...]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(s, _PreScoreState):
            return s.pod_requests
        return pod_request_list(pod, self.resources, use_requested=True)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        reqs = self._requests(state, pod)
        if not any(reqs):
            return 0, None
        return self.scorer.score(node_info, reqs)

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        reqs = self._requests(state, pod)
        if not any(reqs):
            return np.zeros(len(nodes), dtype=np.int64), None
        return self.scorer.score_batch(nodes, reqs)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A score plugin never rejects a pod, so no event needs to requeue one."""
        return []
