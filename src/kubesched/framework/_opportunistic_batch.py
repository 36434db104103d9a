"""Opportunistic batching (KEP-5598, feature gate ``OpportunisticBatching``, beta and on in 1.35).

Mirrors pkg/scheduler/framework/runtime/batch.go (1.35): after a cycle that scored several
nodes, the framework keeps the other nodes, best first, with the pod's signature. The next pod
with the same signature gets the best remaining node as a hint, and the cycle tries only that
node (as a nominated node): the previous cycle's filtering and scoring are reused.

The reuse is exact only when the previous pod filled the node it took, one pod per node: the
other nodes did not change, so the same signature gives them the same verdicts and scores, and
their order is still right. That is what ``_state_compatible`` checks before each hint; any
doubt flushes the kept nodes, counted in ``scheduler_batch_cache_flushed_total`` by reason:

- ``pod_skipped``: another cycle ran in between (another profile's pod, or a failed attempt);
- ``pod_failed``: the last cycle stored no result;
- ``pod_incompatible``: the signatures differ, or this pod cannot be signed;
- ``expired``: the kept nodes are older than 500 ms (``maxBatchAge``; the scheduler's clock, so
  virtual time in simulations);
- ``node_missing``: the last chosen node is gone;
- ``node_not_full``: the last chosen node still passes Filter for this pod (its score may have
  changed, so the order cannot be trusted);
- ``empty_list`` / ``pod_not_batchable`` (when storing): nothing left to keep, or the pod has no
  signature.

Each attempt is counted in ``scheduler_batch_attempts_total`` as ``no_hint``, ``hint_used`` or
``hint_not_used`` (a hint whose node failed Filter after all, so the cycle ran in full).

The state is the scheduler's own (one per profile): the scheduling loop is its only user.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeInfo
    from ._cycle_state import CycleState
    from ._status import Status

__all__ = [
    "BATCH_ATTEMPT_HINT_NOT_USED",
    "BATCH_ATTEMPT_HINT_USED",
    "BATCH_ATTEMPT_NO_HINT",
    "BATCH_FLUSH_REASONS",
    "MAX_BATCH_AGE",
    "OPPORTUNISTIC_BATCHING",
    "BatchMetrics",
    "OpportunisticBatch",
    "SortedScoredNodes",
]

log = logging.getLogger(__name__)

OPPORTUNISTIC_BATCHING = "OpportunisticBatching"

MAX_BATCH_AGE = 0.5
"""maxBatchAge: kept nodes older than this (seconds) are flushed."""

BATCH_ATTEMPT_NO_HINT = "no_hint"
BATCH_ATTEMPT_HINT_USED = "hint_used"
BATCH_ATTEMPT_HINT_NOT_USED = "hint_not_used"

FLUSH_POD_FAILED = "pod_failed"
FLUSH_POD_SKIPPED = "pod_skipped"
FLUSH_NODE_MISSING = "node_missing"
FLUSH_NODE_NOT_FULL = "node_not_full"
FLUSH_EMPTY_LIST = "empty_list"
FLUSH_EXPIRED = "expired"
FLUSH_POD_INCOMPATIBLE = "pod_incompatible"
FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable"
BATCH_FLUSH_REASONS = (FLUSH_POD_FAILED, FLUSH_POD_SKIPPED, FLUSH_NODE_MISSING, FLUSH_NODE_NOT_FULL,
                       FLUSH_EMPTY_LIST, FLUSH_EXPIRED, FLUSH_POD_INCOMPATIBLE, FLUSH_POD_NOT_BATCHABLE)


class BatchMetrics(Protocol):
    """Where the batch reports (the scheduler's SchedulerMetrics): scheduler_batch_attempts_total,
    scheduler_batch_cache_flushed_total, scheduler_get_node_hint_duration_seconds and
    scheduler_store_schedule_results_duration_seconds."""

    def batch_attempt(self, profile: str, result: str) -> None: ...

    def batch_flushed(self, profile: str, reason: str) -> None: ...

    def observe_get_node_hint(self, hinted: str, profile: str, seconds: float) -> None: ...

    def observe_store_schedule_results(self, profile: str, seconds: float) -> None: ...


class _BatchHandle(Protocol):
    """What the batch needs from its framework."""

    profile_name: str

    def sign_pod(self, pod: Pod, record_plugin_metrics: bool = False) -> bytes | None: ...

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...


class SortedScoredNodes:
    """framework.SortedScoredNodes: the scored nodes other than the chosen one, best first;
    equal totals keep the order they were scored in (upstream's heap breaks ties by its
    ``Randomizer``, which it draws only for nodes an extender scored). Sorted on first use: a
    cycle whose pod cannot be batched only asks the length."""

    __slots__ = ("_chosen", "_names", "_order", "_pos", "_totals")

    def __init__(self, names: Sequence[str], totals: npt.NDArray[np.int64], chosen: str) -> None:
        self._names = names
        self._totals = totals
        self._chosen = chosen
        self._order: list[int] | None = None
        self._pos = 0

    @classmethod
    def of(cls, names: Sequence[str]) -> SortedScoredNodes:
        """Nodes already in order (tests)."""
        return cls(list(names), np.zeros(len(names), dtype=np.int64), "")

    def _sorted(self) -> list[int]:
        if self._order is None:
            order = np.argsort(-np.asarray(self._totals, dtype=np.int64), kind="stable").tolist()
            if self._chosen:
                for k, i in enumerate(order):
                    if self._names[i] == self._chosen:
                        del order[k]
                        break
            self._order = order
        return self._order

    def pop(self) -> str:
        name = self._names[self._sorted()[self._pos]]
        self._pos += 1
        return str(name)

    def __len__(self) -> int:
        if self._order is None:
            return len(self._names) - (1 if self._chosen else 0) - self._pos
        return len(self._order) - self._pos

    def keep(self) -> None:
        """Copy the names out: the scoring pass may hand a view that reads the snapshot's rows,
        which the next cycle's snapshot update can move."""
        if not isinstance(self._names, list):
            self._names = [str(n) for n in self._names]

    def remaining(self) -> list[str]:
        return [str(self._names[i]) for i in self._sorted()[self._pos:]]


@dataclass(slots=True)
class _BatchState:
    signature: bytes
    sorted_nodes: SortedScoredNodes
    creation_time: float


@dataclass(slots=True)
class _LastCycle:
    cycle_count: int = 0
    chosen_node: str = ""
    succeeded: bool = False


class OpportunisticBatch:
    """OpportunisticBatch: one per profile (framework); see the module docstring."""

    def __init__(self, handle: _BatchHandle, now: Callable[[], float],
                 node_info: Callable[[str], NodeInfo | None],
                 metrics: BatchMetrics | None = None) -> None:
        self._handle = handle
        self._now = now
        self._node_info = node_info
        self.metrics = metrics
        self.state: _BatchState | None = None
        self.last_cycle = _LastCycle()
        self.batched_pods = 0  # pods placed on a hint (upstream keeps it for its tests)

    @property
    def _profile(self) -> str:
        return self._handle.profile_name

    def get_node_hint(self, state: CycleState, pod: Pod, cycle_count: int) -> tuple[str, bytes | None]:
        """GetNodeHint: ``(hint, signature)``; the hint is "" when the kept nodes cannot serve
        this pod (the reason is counted), else the best kept node, taken off the list."""
        t0 = time.perf_counter()
        hint = ""
        signature = self._handle.sign_pod(pod, state.record_plugin_metrics)
        try:
            if not self._state_compatible(state, pod, signature, cycle_count):
                self._attempt(BATCH_ATTEMPT_NO_HINT)
                log.debug('OpportunisticBatch no node hint available for pod profile="%s" pod="%s/%s" '
                          'cycleCount=%d', self._profile, pod.namespace, pod.name, cycle_count)
                return "", signature
            assert self.state is not None
            hint = self.state.sorted_nodes.pop()
            log.debug('OpportunisticBatch provided node hint profile="%s" pod="%s/%s" hint="%s" '
                      'remainingNodes=%d', self._profile, pod.namespace, pod.name, hint,
                      len(self.state.sorted_nodes))
            return hint, signature
        finally:
            if self.metrics is not None:
                self.metrics.observe_get_node_hint("hint" if hint else "no_hint", self._profile,
                                                   time.perf_counter() - t0)

    def store_schedule_results(self, signature: bytes | None, hinted_node: str, chosen_node: str,
                               other_nodes: SortedScoredNodes | None, cycle_count: int) -> None:
        """StoreScheduleResults: remember this cycle; keep ``other_nodes`` for the next pod
        unless the hint was used (the kept list is still current then) or the pod cannot be
        batched."""
        t0 = time.perf_counter()
        try:
            self.last_cycle = _LastCycle(cycle_count, chosen_node, True)
            if hinted_node and hinted_node == chosen_node:
                self._attempt(BATCH_ATTEMPT_HINT_USED)
                self.batched_pods += 1
                return
            if hinted_node:
                self._attempt(BATCH_ATTEMPT_HINT_NOT_USED)
            if signature is not None and other_nodes is not None and len(other_nodes) > 0:
                other_nodes.keep()
                self.state = _BatchState(signature, other_nodes, self._now())
                return
            reason = FLUSH_POD_NOT_BATCHABLE
            if other_nodes is None or len(other_nodes) == 0:
                reason = FLUSH_EMPTY_LIST
            self._flush(reason)
            self.state = None
        finally:
            if self.metrics is not None:
                self.metrics.observe_store_schedule_results(self._profile, time.perf_counter() - t0)

    # -- internals ------------------------------------------------------------------------
    def _attempt(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.batch_attempt(self._profile, result)

    def _flush(self, reason: str) -> None:
        """logUnusableState: counted by reason. The kept nodes are not dropped here: as
        upstream, a flush on a hint check leaves them until the next store replaces them."""
        if self.metrics is not None:
            self.metrics.batch_flushed(self._profile, reason)

    def _empty(self) -> bool:
        return self.state is None or len(self.state.sorted_nodes) == 0

    def _state_compatible(self, state: CycleState, pod: Pod, signature: bytes | None,
                          cycle_count: int) -> bool:
        """batchStateCompatible."""
        if self._empty():
            return False
        assert self.state is not None
        if cycle_count != self.last_cycle.cycle_count + 1:
            self._flush(FLUSH_POD_SKIPPED)
            return False
        if not self.last_cycle.succeeded:
            self._flush(FLUSH_POD_FAILED)
            return False
        if signature is None or signature != self.state.signature:
            self._flush(FLUSH_POD_INCOMPATIBLE)
            return False
        if self._now() > self.state.creation_time + MAX_BATCH_AGE:
            self._flush(FLUSH_EXPIRED)
            return False
        # Reuse only when the last chosen node cannot take this pod too: then the next best is
        # the next one in the list. If it could, its new score is unknown.
        last = self._node_info(self.last_cycle.chosen_node)
        if last is None:
            self._flush(FLUSH_NODE_MISSING)
            return False
        if not self._handle.run_filter_plugins(state, pod, last).is_rejected():
            self._flush(FLUSH_NODE_NOT_FULL)
            return False
        return True
