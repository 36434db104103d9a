"""How many copies fit: cluster-capacity's loop on kubesched's scheduler.

cluster-capacity (kubernetes-sigs/cluster-capacity, pkg/framework/simulator.go) runs the real
scheduler on a copy of the cluster, creates one copy of the pod, waits until it is bound
(``postBindHook``) and creates the next, and stops at the first copy the scheduler reports
Unschedulable (``Update``) or after ``--max`` copies (``LimitReached``). Here each copy goes
through a dry run (:class:`~kubesched.scheduler.DryRun`) of the same scheduling cycle as any pod
(``schedulePod``: PreFilter, Filter, Score, host selection with the seeded tie-break; then
assume, Reserve and Permit), with the profile the pod's ``schedulerName`` picks; what a copy
adds is only what the next copy's cycle reads, the assumed pod in the cache, which the snapshot
takes in incrementally. The queue, the binding cycle, events and store writes are skipped:
nothing in them changes the next decision, and they are most of a cycle's cost. PostFilter
(preemption) is not run for the copy that fails: the answer stops there, and a preemption would
only evict pods of the input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from ...api import Pod
from ...framework import Code, FitError
from ...scheduler import DryRun, DryRunOptions, Scheduler
from .._simulation import SCHEDULER_ERROR, UNSCHEDULABLE

__all__ = ["LIMIT_REACHED", "SCHEDULER_ERROR", "UNSCHEDULABLE", "CapacityResult", "Failure",
           "count_copies", "format_reasons", "why_unschedulable"]

LIMIT_REACHED: Final = "LimitReached"
"""cluster-capacity's stop reason after ``--max`` copies; the other two, UNSCHEDULABLE and
SCHEDULER_ERROR, are the simulation's pod statuses of the same names."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a pod has no node: each reason with the number of nodes that gave it (the FitError
    histogram), and the message the scheduler would write in PodScheduled."""

    reasons: dict[str, int]
    message: str
    error: bool = False  # an internal error, not a rejection


@dataclass(frozen=True, slots=True)
class CapacityResult:
    fits: int
    placements: dict[str, int]
    """Node -> copies placed there, by node name."""
    stop: str
    """UNSCHEDULABLE, LIMIT_REACHED or SCHEDULER_ERROR."""
    reasons: dict[str, int] = field(default_factory=dict)
    """Why the next copy fails: reason -> nodes, most nodes first (empty at the limit)."""
    message: str = ""


def sorted_reasons(counts: Mapping[str, int]) -> dict[str, int]:
    """Most nodes first, then by reason."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def format_reasons(reasons: Mapping[str, int]) -> str:
    """``Insufficient cpu (12 nodes), node(s) had untolerated taint(s) (3 nodes)``."""
    return ", ".join(f"{r} ({n} node{'' if n == 1 else 's'})" for r, n in reasons.items())


def _fit_failure(err: FitError) -> Failure:
    return Failure(sorted_reasons(err.reason_counts()), err.error())


def _try_place(sched: Scheduler, pod: Pod, *, assume: bool) -> str | Failure:
    """One dry-run cycle for ``pod`` (schedulePod, then with ``assume`` the assume, Reserve
    and Permit steps of schedulingCycle): the chosen node, or why there is none."""
    out = DryRun(sched, sched.profiles[pod.scheduler_name], pod, DryRunOptions(assume=assume)).run()
    if out.host:
        return out.host
    if out.pre_enqueue:
        return Failure({out.message: sched.snapshot.num_nodes()}, out.message)
    if out.fit_error is not None:
        return _fit_failure(out.fit_error)
    return Failure({}, out.message, error=out.status.code == Code.ERROR)


def count_copies(sched: Scheduler, copies: Iterable[Pod], limit: int | None = None) -> CapacityResult:
    """Place copies one at a time until one fails (or ``limit`` are placed)."""
    placed: Counter[str] = Counter()
    fits = 0
    it = iter(copies)
    while limit is None or fits < limit:  # never take a copy beyond the limit (it may cost a sync)
        pod = next(it, None)
        if pod is None:
            break
        out = _try_place(sched, pod, assume=True)
        if isinstance(out, Failure):
            stop = SCHEDULER_ERROR if out.error else UNSCHEDULABLE
            return CapacityResult(fits, dict(sorted(placed.items())), stop, out.reasons, out.message)
        placed[out] += 1
        fits += 1
    return CapacityResult(fits, dict(sorted(placed.items())), LIMIT_REACHED,
                          message=f"the limit of {limit} copies was reached")


def why_unschedulable(sched: Scheduler, pod: Pod) -> Failure | None:
    """One scheduling cycle for a pending pod, nothing assumed: why it fails now (None: it
    would fit)."""
    out = _try_place(sched, pod, assume=False)
    return out if isinstance(out, Failure) else None
