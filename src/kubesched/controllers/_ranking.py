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
    regular = max((_int(c.get("restartCount")) for c in status.get("containerStatuses") or ()
                   if isinstance(c, Mapping)), default=0)
    sidecars = {c.name for c in pod.init_containers if c.is_restartable_init}
    sidecar = max((_int(c.get("restartCount")) for c in status.get("initContainerStatuses") or ()
                   if isinstance(c, Mapping) and c.get("name") in sidecars), default=0)
    return max(regular, 0), max(sidecar, 0)


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


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


def _less(a: Pod, b: Pod, rank_a: int, rank_b: int, now: float | None) -> bool:
    """ActivePodsWithRanks.Less when ``now`` is given, else ActivePods.Less (no deletion cost,
    no rank, times compared exactly)."""
    if a.node_name != b.node_name and (not a.node_name or not b.node_name):
        return not a.node_name  # 1. unassigned first
    pa, pb = _PHASE_ORDINAL.get(a.phase, 0), _PHASE_ORDINAL.get(b.phase, 0)
    if pa != pb:
        return pa < pb  # 2. Pending < Unknown < Running
    ra, rb = _ready(a), _ready(b)
    if ra != rb:
        return not ra  # 3. not ready first
    if now is not None:
        ca, cb = deletion_cost(a.meta.annotations), deletion_cost(b.meta.annotations)
        if ca != cb:
            return ca < cb  # 4. lower pod-deletion-cost first
        if rank_a != rank_b:
            return rank_a > rank_b  # 5. more related pods on its node first
    if ra and rb:
        ta, tb = _ready_time(a), _ready_time(b)
        if ta != tb:
            return _time_less(ta, tb, a.uid, b.uid, now)  # 6. ready for less time first
    xa, xb = _restarts(a), _restarts(b)
    if xa != xb:
        return xa > xb  # 7. more restarts first
    ta, tb = a.meta.creation_timestamp, b.meta.creation_timestamp
    if ta != tb:
        return _time_less(ta, tb, a.uid, b.uid, now)  # 8. newer first
    return False


def rank_for_deletion(pods: Sequence[Pod], *, ranks: Sequence[int] | None = None,
                      now: float | None = None) -> list[Pod]:
    """``pods`` in the order to delete them. With ``now`` (the ReplicaSet controller):
    ActivePodsWithRanks with ``ranks`` (one per pod, see :func:`related_ranks`), deletion cost
    and logarithmic times; without (the Job controller): ActivePods."""
    rk = list(ranks) if ranks is not None else [0] * len(pods)
    idx = list(range(len(pods)))

    def cmp(i: int, j: int) -> int:
        if _less(pods[i], pods[j], rk[i], rk[j], now):
            return -1
        if _less(pods[j], pods[i], rk[j], rk[i], now):
            return 1
        return 0

    idx.sort(key=functools.cmp_to_key(cmp))
    return [pods[i] for i in idx]


def related_ranks(pods: Sequence[Pod], related: Sequence[Pod], active: Callable[[Pod], bool]) -> list[int]:
    """getPodsRankedByRelatedPodsOnSameNode: each pod's rank is the number of ``active``
    related pods on its node (unscheduled ones count together under the empty node name)."""
    on_node: dict[str, int] = {}
    for p in related:
        if active(p):
            on_node[p.node_name] = on_node.get(p.node_name, 0) + 1
    return [on_node.get(p.node_name, 0) for p in pods]
