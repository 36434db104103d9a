"""Victim ordering helpers and the candidate-node choice of preemption.

Mirrors pkg/scheduler/util/utils.go (GetPodStartTime, GetEarliestPodStartTime, MoreImportantPod)
and pickOneNodeForPreemption in pkg/scheduler/framework/preemption/preemption.go (master 2026).

Two deliberate determinism choices: upstream's "now" for pods without ``status.startTime`` is
the wall clock, ours is the injected clock's time; and upstream iterates a Go map of candidates
(random order) so "the first remaining node" is arbitrary there, while ours is the first in
candidate order (non-violating candidates first, each in sampling order).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ...api import Pod

__all__ = [
    "ScoreFunc",
    "Victims",
    "VictimsSummary",
    "default_ordered_score_funcs",
    "get_earliest_pod_start_time",
    "get_pod_start_time",
    "importance_columns",
    "importance_key",
    "more_important_pod",
    "pick_one_node_for_preemption",
]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
_MAX_INT32 = 2**31 - 1
_priority_of = operator.attrgetter("priority")
_MIN_INT64 = -(2**63)

ScoreFunc = Callable[[str], int]
"""node name -> score; the higher the better (OrderedScoreFuncs' element type)."""


class VictimsSummary(NamedTuple):
    """What pickOneNodeForPreemption's default criteria read of a victim list, computed by
    whoever built the list when that is cheaper than reading the pods again (the batch dry
    run has them as arrays). Read by position: a plain tuple in this order serves as well."""

    first_priority: int
    """The first victim's priority (the criterion reads ``Pods[0]``: the highest priority in a
    list most important first)."""
    priority_sum: int
    """The sum of the victims' priorities (as given, without the MaxInt32+1 shift)."""
    num_victims: int
    earliest_start: float
    """The earliest ``status.startTime`` among the victims of the highest priority that have one
    (``inf`` when none has)."""
    unstarted: bool
    """Whether a highest-priority victim has no start time (it counts as "now")."""

    def earliest(self, now: float) -> float:
        """GetEarliestPodStartTime of the list."""
        return _summary_earliest(self, now)


def _summary_earliest(sm: tuple[int, int, int, float, bool], now: float) -> float:
    return min(sm[3], now) if sm[4] else sm[3]


class VictimList(list[Pod]):
    """A node's victims from a dry run, with their :class:`VictimsSummary`: a dry run that
    knows the summary already (DefaultPreemption's batch path) returns its victims as one, and
    the Evaluator keeps the summary in the candidate's :class:`Victims` (no upstream
    counterpart: upstream reads the pods again)."""

    __slots__ = ("summary",)
    summary: VictimsSummary | None  # always set by the builder (no __init__: list's own is faster)


@dataclass(slots=True)
class Victims:
    """extenderv1.Victims: the pods to evict on one node, most important first, and how many
    of them violate a PodDisruptionBudget. Field names match the extender client's Victims;
    ``summary``, when set, describes ``pods`` (see :class:`VictimsSummary`)."""

    pods: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0
    summary: VictimsSummary | None = field(default=None, compare=False, repr=False)


def get_pod_start_time(pod: Pod, now: float) -> float:
    """GetPodStartTime: ``status.startTime``, else ``now`` (assumed or bound pods that have not
    started yet)."""
    return pod.start_time if pod.start_time is not None else now


def importance_key(pod: Pod, now: float) -> tuple[int, float]:
    """MoreImportantPod as a sort key, smallest first: higher priority first; on equal priority
    the pod that started earlier (it has run longer). The one definition of the order every
    victim-selection path uses (:func:`importance_columns` is the same key over arrays)."""
    return -pod.priority_value, get_pod_start_time(pod, now)


def importance_columns(priority: I64, start: F64, now: float) -> tuple[F64, I64]:
    """:func:`importance_key` over arrays of priorities and start times (NaN: not started, which
    counts as ``now``), as ``np.lexsort`` keys (the last one is the primary key)."""
    return np.where(np.isnan(start), now, start), -priority


def more_important_pod(pod1: Pod, pod2: Pod, now: float) -> bool:
    """MoreImportantPod: ``pod1`` comes before ``pod2`` in :func:`importance_key`'s order."""
    return importance_key(pod1, now) < importance_key(pod2, now)


def get_earliest_pod_start_time(victims: Victims, now: float) -> float | None:
    """GetEarliestPodStartTime: the earliest start time among the highest-priority victims."""
    if not victims.pods:
        return None
    first = victims.pods[0]
    earliest = get_pod_start_time(first, now)
    max_priority = first.priority_value
    for pod in victims.pods:
        prio = pod.priority_value
        if prio == max_priority:
            earliest = min(earliest, get_pod_start_time(pod, now))
        elif prio > max_priority:
            max_priority = prio
            earliest = get_pod_start_time(pod, now)
    return earliest


def default_ordered_score_funcs(nodes_to_victims: Mapping[str, Victims], now: float) -> list[ScoreFunc]:
    """pickOneNodeForPreemption's default criteria, in precedence order."""

    def min_num_pdb_violating(node: str) -> int:
        return -nodes_to_victims[node].num_pdb_violations

    def min_highest_priority(node: str) -> int:
        return -nodes_to_victims[node].pods[0].priority_value

    def min_sum_priorities(node: str) -> int:
        # MaxInt32+1 is added to every priority so that all are >= 0: a node with a few pods of
        # negative priority is not preferred over one with fewer pods of that priority.
        return -sum(p.priority_value + _MAX_INT32 + 1 for p in nodes_to_victims[node].pods)

    def min_num_pods(node: str) -> int:
        return -len(nodes_to_victims[node].pods)

    def latest_start_time(node: str) -> int:
        earliest = get_earliest_pod_start_time(nodes_to_victims[node], now)
        if earliest is None:
            return _MIN_INT64
        return round(earliest * 1e9)  # UnixNano

    return [min_num_pdb_violating, min_highest_priority, min_sum_priorities, min_num_pods,
            latest_start_time]


def pick_one_node_for_preemption(nodes_to_victims: Mapping[str, Victims],
                                 score_funcs: Sequence[ScoreFunc] | None, now: float) -> str:
    """pickOneNodeForPreemption: apply the score functions in order, keeping the nodes with the
    highest score, until one node is left; with no functions given, the defaults (fewest PDB
    violations, lowest highest-victim priority, smallest priority sum, fewest victims, latest
    start time of the highest-priority victims). Ties after the last: the first remaining."""
    if not nodes_to_victims:
        return ""
    if not score_funcs and all(v.pods for v in nodes_to_victims.values()):
        return _pick_with_default_funcs(nodes_to_victims, now)
    candidates = list(nodes_to_victims)
    funcs = list(score_funcs) if score_funcs else default_ordered_score_funcs(nodes_to_victims, now)
    for f in funcs:
        best = _MIN_INT64
        selected: list[str] = []
        for node in candidates:
            score = f(node)
            if score > best:
                best = score
                selected = []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0]
        candidates = selected
    return candidates[0]


def _summary(v: Victims) -> VictimsSummary | None:
    """The victim list's summary when it still describes the list (compared by count, read
    by position: it may be a plain tuple)."""
    sm = v.summary
    return sm if sm is not None and sm[2] == len(v.pods) else None


def _pick_with_default_funcs(nodes_to_victims: Mapping[str, Victims], now: float) -> str:
    """pickOneNodeForPreemption with the default functions, in one pass: keeping the best
    nodes criterion by criterion is the lexicographic maximum of the score tuples, first in
    candidate order on a tie. The start-time criterion, the costliest, is computed only for the
    nodes still tied after the first four. Every candidate has at least one victim. A victim
    list's summary, when it has one, stands for reading its pods."""
    best_key: tuple[int, int, int, int] | None = None
    tied: list[str] = []
    offset = _MAX_INT32 + 1
    for node, v in nodes_to_victims.items():
        sm = _summary(v)
        if sm is not None:
            n = sm[2]
            key = (-v.num_pdb_violations, -sm[0], -(sm[1] + offset * n), -n)
        else:
            prios = list(map(_priority_of, v.pods))
            if None in prios:
                prios = [p or 0 for p in prios]  # Pod.priority_value: nil counts as 0
            n = len(prios)
            key = (-v.num_pdb_violations, -prios[0], -(sum(prios) + offset * n), -n)
        if best_key is None or key > best_key:
            best_key, tied = key, [node]
        elif key == best_key:
            tied.append(node)
    if len(tied) == 1:
        return tied[0]
    best, chosen = _MIN_INT64, tied[0]
    for node in tied:
        v = nodes_to_victims[node]
        sm = _summary(v)
        earliest = _summary_earliest(sm, now) if sm is not None else get_earliest_pod_start_time(v, now)
        score = _MIN_INT64 if earliest is None else round(earliest * 1e9)
        if score > best:
            best, chosen = score, node
    return chosen
