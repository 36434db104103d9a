"""NodeResourcesBalancedAllocation: favours nodes whose resource usage the pod makes *more*
balanced.

Mirrors pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go at kubernetes
PR #135573 (v1.36, master 2026). The balance of a usage vector is ``(1 - std) * 100``
truncated, where std is over the fractions ``requested / allocatable`` (capped at 1) of the
configured resources the node has: ``|f1 - f2| / 2`` for two resources, the population standard
deviation for more, 0 for fewer. Since v1.36 the score is the *change* the pod causes::

    50 + (50 + balance(with pod) - balance(without pod)) / 2

(both balances lie in [50, 100], so the score does too; ~75 means "no change"). Earlier
releases returned balance(with pod) alone (:data:`SCORE_BALANCE_CHANGE`). BalancedAllocation
reads plain requests (no scoring defaults, ``useRequested``) and, since v1.33, skips best-effort
pods at PreScore (issue 129138, :data:`SKIP_BEST_EFFORT_PODS`); before, it scored them too.

The float arithmetic runs resource by resource in upstream's order so that per-node and batch
results match Go bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kubesched.api import KubeVersion, Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    CycleState,
    Handle,
    NodeBatch,
    PluginArgs,
    PluginBase,
    ReleaseSwitch,
    SignFragment,
    Status,
)
from kubesched.plugins.helper import feature_enabled
from kubesched.plugins.names import NODE_RESOURCES_BALANCED_ALLOCATION

from ._args import NodeResourcesBalancedAllocationArgs
from ._dra import DRAScoring
from .resource_allocation import (
    I64,
    DRATotals,
    NodeUsage,
    ResourceAllocationScorer,
    pod_request_list,
    sign_resources,
)

__all__ = ["NAME", "SCORE_BALANCE_CHANGE", "SKIP_BEST_EFFORT_PODS", "BalancedAllocation",
           "balanced_resource_row_scorer", "balanced_resource_row_scorer_before_135573",
           "balanced_resource_score", "balanced_resource_scorer", "balanced_resource_scorer_before_135573"]

NAME = NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME

SCORE_BALANCE_CHANGE = ReleaseSwitch(
    "BalancedAllocationScoresTheChange", KubeVersion(1, 36), 135573,
    "NodeResourcesBalancedAllocation scores the change in balance the pod causes "
    "(50 + (50 + with - without) / 2); before, the balance with the pod alone")
"""kubernetes PR #135573 (v1.36): :func:`balanced_resource_scorer`; before,
:func:`balanced_resource_scorer_before_135573`."""

SKIP_BEST_EFFORT_PODS = ReleaseSwitch(
    "BalancedAllocationSkipsBestEffortPods", KubeVersion(1, 33), 130260,
    "NodeResourcesBalancedAllocation skips best-effort pods (PreScore returns Skip); "
    "before, it scored the nodes' balance for them too")
"""kubernetes PR #130260 (v1.33, issue 129138)."""


def balanced_resource_score(usage: I64, divisor: I64, absent: npt.NDArray[np.bool_] | None) -> I64:
    """balancedResourceScore over usage matrices [..., K, n] (resources on the second-to-last
    axis): ``int64((1 - std) * MaxNodeScore)`` over the fractions (capped at 1) of the resources
    present on the node (``absent``: [K, n], None when all are), in Go's order so that float
    sums are identical. When every resource is present on every node (the usual case) the count
    is the same everywhere and the formula needs no masks."""
    f = np.minimum(usage / divisor, 1.0)
    count = f.shape[-2]
    if absent is None:
        if count < 2:
            return np.full(f.shape[:-2] + f.shape[-1:], MAX_NODE_SCORE, dtype=np.int64)  # std 0
        if count == 2:
            std = np.abs((f[..., 0, :] - f[..., 1, :]) / 2)
        else:
            total = f[..., 0, :]
            for k in range(1, count):
                total = total + f[..., k, :]
            mean = total / count
            sq = (f[..., 0, :] - mean) * (f[..., 0, :] - mean)
            for k in range(1, count):
                sq = sq + (f[..., k, :] - mean) * (f[..., k, :] - mean)
            std = np.sqrt(sq / count)
        return ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)  # Go's int64() truncates
    # Some node lacks some resource: per-node counts, Go's loop with masks.
    shape = f.shape[:-2] + f.shape[-1:]
    total = np.zeros(shape, dtype=np.float64)
    first = np.zeros(shape, dtype=np.float64)
    second = np.zeros(shape, dtype=np.float64)
    seen = np.zeros(shape, dtype=np.int64)
    present = ~absent
    for k in range(count):
        fk, ok = f[..., k, :], present[k]
        total = np.where(ok, total + fk, total)
        first = np.where(ok & (seen == 0), fk, first)
        second = np.where(ok & (seen == 1), fk, second)
        seen = seen + ok
    safe_count = np.where(seen == 0, 1, seen)
    mean = total / safe_count
    sq = np.zeros(shape, dtype=np.float64)
    for k in range(count):
        d = f[..., k, :] - mean
        sq = np.where(present[k], sq + d * d, sq)
    std = np.where(
        seen == 2,
        np.abs((first - second) / 2),
        np.where(seen > 2, np.sqrt(sq / safe_count), 0.0),
    )
    return ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)


def balanced_resource_scorer_before_135573(u: NodeUsage) -> I64:
    """balancedResourceScorer before kubernetes PR #135573 (v1.32 to v1.35): the balance of the
    node's usage with the pod, ``int64((1 - std) * MaxNodeScore)``."""
    return balanced_resource_score(u.usage[0], u.divisor, u.absent)


def balanced_resource_scorer(u: NodeUsage) -> I64:
    """balancedResourceScorer (PR #135573): the improvement in balance, mapped to [50, 100].
    Both balances come from one pass over the [2, K, n] usage (with the pod, without it); each
    lies in [50, 100] (a std of fractions in [0, 1] is at most 1/2), so the halved numerator is
    non-negative and floor division is Go's."""
    balance = balanced_resource_score(u.usage, u.divisor, u.absent)
    half = MAX_NODE_SCORE // 2
    return half + (half + balance[0] - balance[1]) // 2


def _balance(fractions: list[float]) -> int:
    """balancedResourceScore for one node, from the fractions of the resources it has."""
    count = len(fractions)
    std = 0.0
    if count == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif count > 2:
        total = fractions[0]
        for f in fractions[1:]:
            total = total + f
        mean = total / count
        sq = (fractions[0] - mean) * (fractions[0] - mean)
        for f in fractions[1:]:
            sq = sq + (f - mean) * (f - mean)
        std = math.sqrt(sq / count)
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_row_scorer(index: Sequence[int], allocatable: Sequence[int],
                                 allocated: Sequence[int], pod: Sequence[int]) -> int:
    """balancedResourceScorer for one node in plain Python floats (the same IEEE operations
    in the same order as Go and as :func:`balanced_resource_score`: each amount converted to
    float64, divided, capped at 1): what the resource scorers' per-row memo rescores changed
    rows with."""
    with_pod, without = _row_fractions(allocatable, allocated, pod)
    half = MAX_NODE_SCORE // 2
    return half + (half + _balance(with_pod) - _balance(without)) // 2


def balanced_resource_row_scorer_before_135573(index: Sequence[int], allocatable: Sequence[int],
                                               allocated: Sequence[int], pod: Sequence[int]) -> int:
    """:func:`balanced_resource_row_scorer` before kubernetes PR #135573: the balance with the pod."""
    return _balance(_row_fractions(allocatable, allocated, pod)[0])


def _row_fractions(allocatable: Sequence[int], allocated: Sequence[int],
                   pod: Sequence[int]) -> tuple[list[float], list[float]]:
    """A row's fractions (capped at 1) of the resources it has, with the pod and without."""
    with_pod: list[float] = []
    without: list[float] = []
    for capacity, used, want in zip(allocatable, allocated, pod, strict=True):
        if capacity:
            cap = float(capacity)
            # int / float converts the int to float64 first, as float() would (amounts are
            # below ROW_EXACT, so exactly); a conditional caps at 1 without a call to min.
            f = (used + want) / cap
            with_pod.append(f if f < 1.0 else 1.0)
            f = used / cap
            without.append(f if f < 1.0 else 1.0)
    return with_pod, without


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]
    dra: DRATotals | None = None  # draPreScoreState (DRAExtendedResource)

    def clone(self) -> _PreScoreState:
        return self


class BalancedAllocation(PluginBase):
    NAME = NAME
    Args = NodeResourcesBalancedAllocationArgs

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod (:func:`~.resource_allocation.sign_resources`)."""
        return sign_resources(pod, self.enable_dra_extended_resource)

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        assert isinstance(self.args, NodeResourcesBalancedAllocationArgs)
        self.resources = self.args.resources
        self.enable_dra_extended_resource = feature_enabled(handle, "DRAExtendedResource", True)
        change = SCORE_BALANCE_CHANGE.on_for(handle)
        self.scorer = ResourceAllocationScorer(
            NAME, balanced_resource_scorer if change else balanced_resource_scorer_before_135573,
            self.resources, use_requested=True,
            row_scorer=balanced_resource_row_scorer if change else balanced_resource_row_scorer_before_135573,
        )
        self.skip_best_effort = SKIP_BEST_EFFORT_PODS.on_for(handle)
        self.dra_scoring = DRAScoring(handle, self.resources)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        reqs = pod_request_list(pod, self.resources, use_requested=True)
        if self.skip_best_effort and not any(reqs):
            return Status.skip()  # best-effort pods: issue 129138
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(reqs, self.dra_scoring.pre_score()))
        return None

    def _state(self, state: CycleState, pod: Pod) -> _PreScoreState:
        """The PreScore state; without it (upstream's Score fallback) the requests alone."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(s, _PreScoreState):
            return s
        return _PreScoreState(pod_request_list(pod, self.resources, use_requested=True))

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = self._state(state, pod)
        if self.skip_best_effort and not any(s.pod_requests):
            return 0, None
        return self.scorer.score(node_info, s.pod_requests, s.dra)

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        s = self._state(state, pod)
        if self.skip_best_effort and not any(s.pod_requests):
            return np.zeros(len(nodes), dtype=np.int64), None
        return self.scorer.score_batch(nodes, s.pod_requests, s.dra)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A score plugin never rejects a pod, so no event needs to requeue one."""
        return []
