"""Which pods a controller deletes first when it has too many.

Mirrors pkg/controller/controller_utils.go (master 2026): ``ActivePods.Less`` (the Job
controller's order) and ``ActivePodsWithRanks.Less`` (the ReplicaSet controller's, with the
``controller.kubernetes.io/pod-deletion-cost`` annotation (PodDeletionCost: GA) and the
logarithmic comparison of ready and creation times (LogarithmicScaleDown: GA)), and
pkg/controller/replicaset/replica_set.go ``getPodsRankedByRelatedPodsOnSameNode``. Both orders
put the pods to delete first: unscheduled before scheduled, Pending before Unknown before
Running, not Ready before Ready, ...

Upstream sorts with Go's ``sort.Sort`` a list the informer hands over in map order, so pods
that compare equal come out in no defined order; here the sort is stable over the store's
order (namespace, then name), so a simulation is reproducible.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..api import Pod, parse_time

__all__ = ["DELETION_COST_ANNOTATION", "deletion_cost", "rank_for_deletion", "related_ranks"]

DELETION_COST_ANNOTATION: Final = "controller.kubernetes.io/pod-deletion-cost"

_PHASE_ORDINAL: Final = {"Pending": 0, "Unknown": 1, "Running": 2}
"""podPhaseToOrdinal; any other phase counts as 0."""


def deletion_cost(annotations: Mapping[str, str]) -> int:
    """GetDeletionCostFromPodAnnotations: the annotation as an int32; 0 when absent or invalid
    (a leading ``+`` or zero is invalid: validFirstDigit)."""
    value = annotations.get(DELETION_COST_ANNOTATION)
    if not value:
        return 0
    first_ok = value[0] == "-" or value == "0" or "1" <= value[0] <= "9"
    if not first_ok:
        return 0
    try:
        n = int(value, 10)
    except ValueError:
        return 0
    if "_" in value or value.strip() != value or not -(2**31) <= n < 2**31:
        return 0  # strconv.ParseInt refuses underscores, spaces and out-of-range values
    return n


def _ready(pod: Pod) -> bool:
    """podutil.IsPodReady."""
    c = pod.condition("Ready")
    return c is not None and c.get("status") == "True"


def _ready_time(pod: Pod) -> float | None:
    """podReadyTime: when the Ready condition became True (None: the zero time)."""
    c = pod.condition("Ready")
    return parse_time(c.get("lastTransitionTime")) if c is not None else None


def _restarts(pod: Pod) -> tuple[int, int]:
    """maxContainerRestarts: the most restarts of a regular container, then of a sidecar
    (an init container with restartPolicy Always)."""
    status = pod.raw.get("status") or {}
    statuses = status.get("containerStatuses")
    regular = max((_int(c.get("restartCount")) for c in statuses or () if isinstance(c, Mapping)),
                  default=0)
    init_statuses = status.get("initContainerStatuses")
    if not init_statuses:
        return regular, 0
    sidecars = {c.name for c in pod.init_containers if c.is_restartable_init}
    sidecar = max((_int(c.get("restartCount")) for c in init_statuses
                   if isinstance(c, Mapping) and c.get("name") in sidecars), default=0)
    return regular, sidecar


def _int(v: Any) -> int:
    """A restart count (upstream's maxima start at 0: a negative one counts as 0)."""
    return max(v, 0) if isinstance(v, int) and not isinstance(v, bool) else 0


def _log_rank(t: float, now: float) -> int:
    """logarithmicRankDiff's rank: floor(log2(now - t in nanoseconds)), -1 when not before now."""
    d = round((now - t) * 1e9)
    return int(math.log2(d)) if d > 0 else -1


def _after_or_zero(t1: float | None, t2: float | None) -> bool:
    """afterOrZero: the zero time first, then the later one."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def _time_less(t1: float | None, t2: float | None, uid1: str, uid2: str, now: float | None) -> bool:
    """Steps 6 and 8 of ActivePodsWithRanks.Less for two different times: with a ``now``, times
    in the same power-of-two bucket of age are equal and the uids decide."""
    if now is None or t1 is None or t2 is None:
        return _after_or_zero(t1, t2)
    diff = _log_rank(t1, now) - _log_rank(t2, now)
    return uid1 < uid2 if diff == 0 else diff < 0


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the comparison reads of one pod, computed once per sort."""

    unassigned: bool
    node: str
    phase: int
    ready: bool
    cost: int
    rank: int
    ready_time: float | None
    restarts: tuple[int, int]
    created: float | None
    uid: str

    @staticmethod
    def of(pod: Pod, rank: int) -> _Facts:
        ready = _ready(pod)
        return _Facts(not pod.node_name, pod.node_name, _PHASE_ORDINAL.get(pod.phase, 0), ready,
                      deletion_cost(pod.meta.annotations), rank, _ready_time(pod) if ready else None,
                      _restarts(pod), pod.meta.creation_timestamp, pod.uid)


def _less(a: _Facts, b: _Facts, now: float | None) -> bool:
    """ActivePodsWithRanks.Less when ``now`` is given, else ActivePods.Less (no deletion cost,
    no rank, times compared exactly)."""
    if a.node != b.node and (a.unassigned or b.unassigned):
        return a.unassigned  # 1. unassigned first
    if a.phase != b.phase:
        return a.phase < b.phase  # 2. Pending < Unknown < Running
    if a.ready != b.ready:
        return not a.ready  # 3. not ready first
    if now is not None:
        if a.cost != b.cost:
            return a.cost < b.cost  # 4. lower pod-deletion-cost first
        if a.rank != b.rank:
            return a.rank > b.rank  # 5. more related pods on its node first
    if a.ready and b.ready and a.ready_time != b.ready_time:
        return _time_less(a.ready_time, b.ready_time, a.uid, b.uid, now)  # 6. ready for less time first
    if a.restarts != b.restarts:
        return a.restarts > b.restarts  # 7. more restarts (regular, then sidecar) first
    if a.created != b.created:
        return _time_less(a.created, b.created, a.uid, b.uid, now)  # 8. newer first
    return False


def rank_for_deletion(pods: Sequence[Pod], *, ranks: Sequence[int] | None = None,
                      now: float | None = None) -> list[Pod]:
    """``pods`` in the order to delete them. With ``now`` (the ReplicaSet controller):
    ActivePodsWithRanks with ``ranks`` (one per pod, see :func:`related_ranks`), deletion cost
    and logarithmic times; without (the Job controller): ActivePods."""
    rk = list(ranks) if ranks is not None else [0] * len(pods)
    facts = [_Facts.of(p, r) for p, r in zip(pods, rk, strict=True)]

    def cmp(i: int, j: int) -> int:
        if _less(facts[i], facts[j], now):
            return -1
        if _less(facts[j], facts[i], now):
            return 1
        return 0

    idx = sorted(range(len(pods)), key=functools.cmp_to_key(cmp))
    return [pods[i] for i in idx]


def related_ranks(pods: Sequence[Pod], related: Sequence[Pod], active: Callable[[Pod], bool]) -> list[int]:
    """getPodsRankedByRelatedPodsOnSameNode: each pod's rank is the number of ``active``
    related pods on its node (unscheduled ones count together under the empty node name)."""
    on_node: dict[str, int] = {}
    for p in related:
        if active(p):
            on_node[p.node_name] = on_node.get(p.node_name, 0) + 1
    return [on_node.get(p.node_name, 0) for p in pods]
