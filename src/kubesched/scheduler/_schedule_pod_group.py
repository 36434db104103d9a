"""The pod-group scheduling cycle: a PodGroup's pending pods scheduled together, as a unit.

Mirrors pkg/scheduler/schedule_one_podgroup.go and algorithm_podgroup.go (master 2026,
KEP-4671's pod-group scheduling cycle, gate ``GenericWorkload``): when the scheduler pops a pod
whose PodGroup exists, it pops the group's other queued pods with it, sorts them (priority,
highest first, then the time each was first seen) and, on one view of the cluster:

1. asks the PlacementFeasible plugins whether the group can meet its constraints at all
   (GangScheduling: ``minCount`` against the pods already placed plus those to try);
2. tries each pod with the usual filters and scores (no PostFilter: preemption for a group is
   decided for the group, which kubesched does not do), assumes and reserves the fitting ones
   so that the next pods see them, and asks the PlacementFeasible plugins again after each
   pod, stopping early when the group can no longer be feasible;
3. applies the outcome atomically. Feasible: the placed pods go on to Permit and their binding
   cycles (the others return to the queue with their own reason). Not feasible: every
   reservation is undone and every pod returns to the queue; a pod that fitted is reported with
   the group's reason (``minCount (3) cannot be satisfied: 1 scheduled, 0 remaining``) and
   waits for any event that one of the plugins rejecting the group or its pods registered.

A group whose pods were all placed before is told ``no pods were schedulable`` when none of the
new ones fits (the framework wants at least one pod for a success).

Upstream's functions are methods of the Scheduler beside ScheduleOne's; here they are functions
of the :class:`~._schedule_one.ScheduleOne` whose steps they reuse (assume and Reserve, Permit,
the binding cycle, failure handling), which calls :func:`schedule_one_pod_group` for a pod
:func:`pod_group_of` finds a group for.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..api import PodGroup
from ..framework import (
    GENERIC_WORKLOAD,
    PODS_TO_ACTIVATE_KEY,
    Code,
    CycleState,
    FitError,
    PlacementProgress,
    PodsToActivate,
    PostFilterResult,
    QueuedPodInfo,
    Status,
)
from ._diagnosis import NoNodesAvailableError, PodGroupFitError, status_with_fit_error
from ._failure import CLEAR_NOMINATED_NODE
from ._metrics import PLUGIN_METRICS_SAMPLE_PERCENT
from ._pod_group_status import pod_group_condition, with_condition

if TYPE_CHECKING:
    from ..api import Pod
    from ..framework import Framework
    from ._schedule_one import ScheduleOne, _Cycle

__all__ = ["NO_PODS_SCHEDULABLE", "pod_group_of", "schedule_one_pod_group"]

NO_PODS_SCHEDULABLE = "no pods were schedulable"


@dataclass
class _PodAttempt:
    """algorithmResult: one pod's attempt inside the group cycle (``cycle`` once assumed)."""

    pinfo: QueuedPodInfo
    status: Status
    nominating: PostFilterResult | None = None
    cycle: _Cycle | None = None


# -- entry --------------------------------------------------------------------------
def pod_group_of(fwk: Framework, pod: Pod) -> PodGroup | None:
    """The PodGroup whose cycle schedules ``pod``: with GenericWorkload on, a pod naming an
    existing group (one that does not exist yet keeps the pod out of the queue when
    GangScheduling is on, and is scheduled alone otherwise)."""
    name = pod.pod_group_name
    if not name or not fwk.features.get(GENERIC_WORKLOAD, False) or fwk.store is None:
        return None
    obj = fwk.store.try_get("PodGroup", pod.namespace, name)
    return obj if isinstance(obj, PodGroup) else None


def schedule_one_pod_group(sched: ScheduleOne, fwk: Framework, pinfo: QueuedPodInfo, pg: PodGroup) -> None:
    """scheduleOnePodGroup: collect the group's queued pods, run the algorithm, apply it.
    ``sched``'s steps (assume and reserve, Permit, the binding cycle, failure handling) are
    the pod's own cycle's."""
    start = time.perf_counter()
    infos = _pod_group_queued_pods(sched, fwk, pinfo, pg)
    if sched._stops_before(infos, pg):
        return
    sched.stats.attempts += len(infos)
    group = sched.cache.pod_groups.get(pg.namespace, pg.name)
    progress = PlacementProgress(remaining=len(infos), scheduled=group.scheduled_pods_count())
    proceed, group_status = _potentially_feasible(fwk, pg, progress)
    attempts: list[_PodAttempt] = []
    if proceed:
        for info in infos:
            attempt = _pod_group_pod_attempt(sched, fwk, info, start)
            attempts.append(attempt)
            if attempt.status.code == Code.ERROR:
                # An error (not a rejection) stops the evaluation of the other pods.
                group_status = Status.from_error(RuntimeError(
                    f"failed to schedule other pod from a pod group: {attempt.status.message()}"))
                break
            progress.remaining -= 1
            if attempt.cycle is not None:
                progress.scheduled += 1
            proceed, group_status = _potentially_feasible(fwk, pg, progress)
            if not proceed:
                break
    if group_status.is_success() and not any(a.cycle is not None for a in attempts):
        group_status = Status(Code.UNSCHEDULABLE, (NO_PODS_SCHEDULABLE,))
    if group_status.is_success():
        _pod_group_feasible(sched, fwk, attempts, start)
    else:
        _pod_group_unschedulable(sched, fwk, infos, attempts, group_status, start)
    _update_pod_group_condition(fwk, pg, group_status)


def _update_pod_group_condition(fwk: Framework, pg: PodGroup, group_status: Status) -> None:
    """updatePodGroupCondition: PodGroupInitiallyScheduled from the cycle's outcome. A
    failed write is logged upstream and not retried; here it is dropped too."""
    store = fwk.store
    current = store.try_get("PodGroup", pg.namespace, pg.name) if store is not None else None
    if store is None or not isinstance(current, PodGroup):
        return
    updated = with_condition(current, pod_group_condition(group_status), fwk.clock.now)
    if updated is None:
        return
    try:
        store.update(updated)
    except Exception:  # a conflict or a store that does not serve PodGroups
        return


def _pod_group_queued_pods(sched: ScheduleOne, fwk: Framework, pinfo: QueuedPodInfo,
                           pg: PodGroup) -> list[QueuedPodInfo]:
    """podGroupInfoForPod: the popped pod and the group's other queued pods (popped too),
    in a deterministic order: priority first, then the time each was first attempted."""
    pod = pinfo.pod
    infos = [pinfo]
    for other in sched.cache.pod_groups.get(pg.namespace, pg.name).unscheduled_pods().values():
        if other.uid == pod.uid or other.scheduler_name != pod.scheduler_name:
            continue  # a group's pods share one scheduler; another's pods are not ours
        popped = sched.queue.pop_specific(other)
        if popped is None:
            continue
        if sched._skip_pod_schedule(fwk, popped.pod):
            sched.queue.done(popped.pod.uid)
            continue
        infos.append(popped)
    infos.sort(key=lambda i: (-i.pod.priority_value, i.initial_attempt_timestamp
                              if i.initial_attempt_timestamp is not None else float("-inf")))
    return infos


# -- one pod ------------------------------------------------------------------------
def _pod_group_pod_attempt(sched: ScheduleOne, fwk: Framework, pinfo: QueuedPodInfo,
                           start: float) -> _PodAttempt:
    """podGroupPodSchedulingAlgorithm: filters and scores without PostFilter, then assume
    and Reserve so that the group's next pods see this one placed."""
    state = CycleState()
    state.record_plugin_metrics = sched.plugin_metrics_rng.randrange(100) < PLUGIN_METRICS_SAMPLE_PERCENT
    pods_to_activate = PodsToActivate()
    state.write(PODS_TO_ACTIVATE_KEY, pods_to_activate)
    try:
        sched.cache.update_snapshot(sched.snapshot)
        # The group's pods share the cycle number: the batch is reused across them
        # (kubernetes#138754; before, each one after the first flushed it).
        result = sched.algorithm.schedule_pod(fwk, state, pinfo.pod, sched.snapshot,
                                              sched.queue.scheduling_cycle)
    except NoNodesAvailableError as err:
        return _PodAttempt(pinfo, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (str(err),), error=err),
                           CLEAR_NOMINATED_NODE)
    except FitError as fit_err:
        return _PodAttempt(pinfo, status_with_fit_error(Code.UNSCHEDULABLE, fit_err))
    except Exception as err:
        return _PodAttempt(pinfo, Status.from_error(err), CLEAR_NOMINATED_NODE)
    cycle, nominating, status = sched._assume_and_reserve(fwk, state, pinfo, result, start,
                                                         pods_to_activate)
    if not status.is_success():
        return _PodAttempt(pinfo, status, nominating)
    return _PodAttempt(pinfo, status, None, cycle)


# -- outcome ------------------------------------------------------------------------
def _pod_group_feasible(sched: ScheduleOne, fwk: Framework, attempts: list[_PodAttempt],
                        start: float) -> None:
    """The group is feasible: each placed pod goes through Permit to its binding cycle;
    a pod that did not fit returns to the queue with its own reason."""
    for a in attempts:
        if a.cycle is None:
            sched._handle_scheduling_failure(fwk, a.pinfo, a.status, a.nominating, start)
            continue
        cycle, nominating, status = sched._permit(a.cycle)
        if not status.is_success():
            sched._handle_scheduling_failure(cycle.fwk, cycle.pinfo, status, nominating, start)
            continue
        sched._start_binding_cycle(cycle)


def _pod_group_unschedulable(sched: ScheduleOne, fwk: Framework, infos: list[QueuedPodInfo],
                             attempts: list[_PodAttempt], group_status: Status, start: float) -> None:
    """The group is not feasible: undo every reservation (last first) and return every pod
    to the queue, those that fitted (or were not tried) with the group's reason."""
    for a in reversed(attempts):
        if a.cycle is not None:
            c = a.cycle
            c.fwk.run_reserve_plugins_unreserve(c.state, c.assumed, c.result.suggested_host)
            sched._forget(c.assumed)
    plugins = _rejecting_plugins(group_status, attempts)
    if group_status.code == Code.ERROR:
        group_failure = group_status
    else:
        err = PodGroupFitError(group_status, plugins)
        group_failure = Status(Code.UNSCHEDULABLE, (str(err),), error=err)
    tried = {a.pinfo.pod.uid: a for a in attempts}
    for info in infos:
        own = tried.get(info.pod.uid)
        if own is not None and own.cycle is None:  # it did not fit: its own reason
            sched._handle_scheduling_failure(fwk, own.pinfo, own.status, own.nominating, start)
        else:
            sched._handle_scheduling_failure(fwk, info, group_failure, CLEAR_NOMINATED_NODE, start)


def _potentially_feasible(fwk: Framework, pg: PodGroup, progress: PlacementProgress) -> tuple[bool, Status]:
    """podGroupPotentiallyFeasible: (go on with the next pod?, the group's status so far).
    Wait goes on but is not a success yet; a rejection or an error stops."""
    st = fwk.run_placement_feasible_plugins(pg, progress)
    if st.code == Code.ERROR:
        err = RuntimeError(f"failed to evaluate placement feasibility: {st.message()}")
        return False, Status.from_error(err)
    if st.is_wait():
        return True, Status(Code.UNSCHEDULABLE, st.reasons, plugin=st.plugin)
    if st.is_rejected():
        return False, Status(Code.UNSCHEDULABLE, st.reasons, plugin=st.plugin)
    return True, st


def _rejecting_plugins(group_status: Status, attempts: list[_PodAttempt]) -> set[str]:
    """podGroupFitError's unschedulablePlugins: the plugin deciding the group, and those that
    rejected any of its pods."""
    plugins = {group_status.plugin} if group_status.plugin else set()
    for a in attempts:
        err = a.status.error
        if isinstance(err, FitError):
            plugins |= err.diagnosis.unschedulable_plugins
        elif a.status.is_rejected() and a.status.plugin:
            plugins.add(a.status.plugin)
    return plugins
