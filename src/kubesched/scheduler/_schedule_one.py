"""ScheduleOne: the scheduling cycle, the binding cycle and failure handling.

Mirrors pkg/scheduler/schedule_one.go (master 2026), read top-down: ``schedule_one`` ->
``_scheduling_cycle`` (schedulePod, assume, Reserve, Permit) -> ``_binding_cycle`` (WaitOnPermit,
PreBind, Bind, PostBind) -> ``_handle_binding_cycle_error`` / ``_handle_scheduling_failure``.

The binding cycle is asynchronous from the next scheduling cycle: it is handed to
``self._spawn`` (a task on the virtual clock in simulations, a thread in live mode). Waiting on
Permit never blocks: the binding cycle continues from a callback once the waiting pod is
allowed, rejected or times out; likewise after a PreBind plugin that waits (DynamicResources
polling for device binding conditions, see the framework's ``run_pre_bind_plugins_async``).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..framework import (
    PODS_TO_ACTIVATE_KEY,
    Code,
    CycleState,
    PermitFuture,
    PodsToActivate,
    PostFilterResult,
    QueuedPodInfo,
    Status,
)
from ._algorithm import ScheduleAlgorithm, ScheduleResult
from ._diagnosis import (
    FitError,
    NoNodesAvailableError,
    PodGroupFitError,
    fit_error_for_single_node,
    status_with_fit_error,
)
from ._eventhandlers import EVENT_ASSIGNED_POD_DELETE
from ._failure import (
    CLEAR_NOMINATED_NODE,
    MODE_OVERRIDE,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    pod_scheduled_condition,
    truncate_message,
)
from ._metrics import ERROR, PLUGIN_METRICS_SAMPLE_PERCENT, SCHEDULED, UNSCHEDULABLE, SchedulerMetrics

if TYPE_CHECKING:
    from ..api import Pod, PodGroup
    from ..cache import Cache, Snapshot
    from ..framework import Framework
    from ..queue import PriorityQueue
    from ._attempt_hook import AttemptHook
    from ._extender import HTTPExtender

__all__ = ["NOMINATED_NODE_NAME_FOR_EXPECTATION", "PODS_TO_ACTIVATE_KEY", "PodsToActivate",
           "ScheduleOneMixin"]

log = logging.getLogger(__name__)

NOMINATED_NODE_NAME_FOR_EXPECTATION = "NominatedNodeNameForExpectation"
"""Feature gate (KEP-5278, beta and on by default since 1.35): the binding cycle records the
chosen node in ``status.nominatedNodeName`` before waiting on Permit or running PreBind."""

@dataclass
class _Cycle:
    """What the binding cycle needs from the scheduling cycle."""

    fwk: Framework
    state: CycleState
    pinfo: QueuedPodInfo
    assumed: Pod
    result: ScheduleResult
    start: float
    pods_to_activate: PodsToActivate


def _ok(st: Status | None) -> Status:
    return st if st is not None else Status.success()


class CycleStats:
    """Counters of the scheduling attempts (the run summaries read them)."""

    __slots__ = ("attempts", "error_attempts", "scheduled", "unschedulable_attempts")

    def __init__(self) -> None:
        self.attempts = 0
        self.scheduled = 0
        self.unschedulable_attempts = 0
        self.error_attempts = 0


class ScheduleOneMixin:
    """The cycles; mixed into :class:`~kubesched.scheduler.Scheduler`, which provides these."""

    queue: PriorityQueue
    cache: Cache
    snapshot: Snapshot
    algorithm: ScheduleAlgorithm
    extenders: list[HTTPExtender]
    metrics: SchedulerMetrics
    rng: random.Random
    plugin_metrics_rng: random.Random
    nominated_node_name_for_expectation: bool
    profiles: dict[str, Framework]
    bindings_in_flight: int
    stats: CycleStats
    attempt_hook: AttemptHook | None
    stopped_before: QueuedPodInfo | None
    stopped_pod_group: PodGroup | None

    def _spawn(self, fn: Callable[[], None]) -> None:
        raise NotImplementedError

    def _count_binding(self, delta: int) -> None:
        raise NotImplementedError

    def _resume_binding(self, fn: Callable[[], None]) -> None:
        """Continue a binding cycle after Permit (on a binding worker in live mode)."""
        fn()

    def _to_loop(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` where scheduler state may be changed (the loop thread in live mode)."""
        fn()

    def _store_get_pod(self, namespace: str, name: str) -> Pod | None:
        raise NotImplementedError

    def _store_update_pod(self, pod: Pod, condition: dict[str, Any] | None,
                          nominating: PostFilterResult | None) -> None:
        raise NotImplementedError

    def _record_event(self, pod: Pod, type_: str, reason: str, action: str, message: str) -> None:
        raise NotImplementedError

    def _store_extender_binding(self, pod: Pod, node_name: str) -> None:
        raise NotImplementedError

    def _update_snapshot(self) -> None:
        raise NotImplementedError

    def _pod_group_of(self, fwk: Framework, pod: Pod) -> PodGroup | None:
        """The PodGroup whose cycle schedules ``pod`` (see ``_schedule_pod_group``); None: the
        pod's own cycle."""
        return None

    def _schedule_one_pod_group(self, fwk: Framework, pinfo: QueuedPodInfo, pg: PodGroup) -> None:
        raise NotImplementedError

    # -- ScheduleOne --------------------------------------------------------------------------
    def schedule_one(self) -> bool:
        """ScheduleOne: pop one pod and run its scheduling cycle (and hand its binding cycle to
        ``_spawn``). False when activeQ had no pod, or the attempt hook stopped the run."""
        if self.stopped_before is not None:
            return False
        pinfo = self.queue.pop()
        if pinfo is None:
            return False
        pod = pinfo.pod
        fwk = self.profiles.get(pod.scheduler_name)
        if fwk is None:
            # Only pods of our profiles are queued; this cannot happen but must not leak.
            self.queue.done(pod.uid)
            return True
        if self._skip_pod_schedule(fwk, pod):
            self.queue.done(pod.uid)
            return True
        pod_group = self._pod_group_of(fwk, pod)
        if pod_group is None and self._stops_before([pinfo]):
            return False
        if pod_group is not None:
            self._schedule_one_pod_group(fwk, pinfo, pod_group)
            return True
        self.stats.attempts += 1
        start = time.perf_counter()
        state = CycleState()
        # Time each plugin call in a sample of cycles only (pluginMetricsSamplePercent).
        state.record_plugin_metrics = self.plugin_metrics_rng.randrange(100) < PLUGIN_METRICS_SAMPLE_PERCENT
        pods_to_activate = PodsToActivate()
        state.write(PODS_TO_ACTIVATE_KEY, pods_to_activate)
        cycle, nominating, status = self._scheduling_cycle(fwk, state, pinfo, start, pods_to_activate)
        if not status.is_success() or cycle is None:
            failed = cycle.pinfo if cycle is not None else pinfo
            self._handle_scheduling_failure(fwk, failed, status, nominating, start)
            return True
        self._count_binding(+1)
        self._spawn(lambda: self._binding_cycle(cycle))
        return True

    def _stops_before(self, infos: list[QueuedPodInfo], pod_group: PodGroup | None = None) -> bool:
        """Tell the attempt hook of the pods about to be attempted (one, or a pod group's);
        True when it stops the run before one of them: then ``stopped_before`` is that pod
        (all of them stay popped) and ``stopped_pod_group`` the group whose cycle it was."""
        hook = self.attempt_hook
        if hook is None:
            return False
        for pinfo in infos:
            if hook.before_attempt(pinfo):
                self.stopped_before, self.stopped_pod_group = pinfo, pod_group
                return True
        return False

    def _skip_pod_schedule(self, fwk: Framework, pod: Pod) -> bool:
        """skipPodSchedule: a pod being deleted, or one already assumed (it can come back to the
        queue through an update received during its own scheduling cycle)."""
        if pod.is_terminating:
            self._record_event(pod, "Warning", "FailedScheduling", "Scheduling",
                               f"skip schedule deleting pod: {pod.namespace}/{pod.name}")
            return True
        return bool(self.cache.is_assumed_pod(pod))

    def _scheduling_cycle(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, start: float,
                          pods_to_activate: PodsToActivate
                          ) -> tuple[_Cycle | None, PostFilterResult | None, Status]:
        """schedulingCycle -> (the cycle for binding, nominating info, status)."""
        pod = pinfo.pod
        try:
            self._update_snapshot()
            result = self.algorithm.schedule_pod(fwk, state, pod, self.snapshot,
                                                 self.queue.scheduling_cycle)
        except NoNodesAvailableError as err:
            return None, CLEAR_NOMINATED_NODE, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                      (str(err),), error=err)
        except FitError as fit_err:
            if not fwk.has_post_filter_plugins():
                return None, CLEAR_NOMINATED_NODE, status_with_fit_error(Code.UNSCHEDULABLE, fit_err)
            # PostFilter (preemption) may make the pod schedulable in a later cycle.
            pf_result, pf_status = fwk.run_post_filter_plugins(state, pod, fit_err.diagnosis.node_to_status)
            pf_status = _ok(pf_status)
            fit_err.diagnosis.post_filter_msg = pf_status.message()
            return None, pf_result, status_with_fit_error(Code.UNSCHEDULABLE, fit_err)
        except Exception as err:  # an internal error: retried with backoff, never parked
            return None, CLEAR_NOMINATED_NODE, Status.from_error(err)

        cycle, nominating, status = self._assume_and_reserve(fwk, state, pinfo, result, start,
                                                             pods_to_activate)
        if not status.is_success():
            return cycle, nominating, status
        return self._permit(cycle)

    def _assume_and_reserve(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo,
                            result: ScheduleResult, start: float, pods_to_activate: PodsToActivate
                            ) -> tuple[_Cycle, PostFilterResult | None, Status]:
        """assumeAndReserve: assume the pod on the chosen node (the cache counts it there now,
        so that binding can be asynchronous, and the next pods see it), then Reserve. Shared by
        the pod's own cycle and the pod-group cycle."""
        host = result.suggested_host
        assumed = _with_node_name(pinfo.pod, host)
        cycle = _Cycle(fwk, state, _copy_pinfo(pinfo, assumed), assumed, result, start, pods_to_activate)
        try:
            self.cache.assume_pod(assumed)
        except Exception as err:
            return cycle, CLEAR_NOMINATED_NODE, Status.from_error(err)
        self.queue.delete_nominated_pod_if_exists(assumed)
        sts = _ok(fwk.run_reserve_plugins_reserve(state, assumed, host))
        if not sts.is_success():
            return self._undo_reserve(cycle, pinfo.pod, sts)
        return cycle, None, Status.success()

    def _permit(self, cycle: _Cycle) -> tuple[_Cycle, PostFilterResult | None, Status]:
        """The scheduling cycle's last step: Permit (a rejection undoes the reservation), then
        activate the pods the plugins asked for."""
        permit = _ok(cycle.fwk.run_permit_plugins(cycle.state, cycle.assumed, cycle.result.suggested_host))
        if not permit.is_wait() and not permit.is_success():
            return self._undo_reserve(cycle, cycle.pinfo.pod, permit)
        if cycle.pods_to_activate.map:
            self.queue.activate(list(cycle.pods_to_activate.map.values()))
            cycle.pods_to_activate.map.clear()
        return cycle, None, Status.success()

    def _undo_reserve(self, c: _Cycle, pod: Pod, sts: Status
                      ) -> tuple[_Cycle, PostFilterResult, Status]:
        """A Reserve or Permit failure in the scheduling cycle: Unreserve, forget the assumed
        pod, and report a rejection as a FitError on the one chosen node (NumAllNodes: 1)."""
        host = c.result.suggested_host
        c.fwk.run_reserve_plugins_unreserve(c.state, c.assumed, host)
        self._forget(c.assumed)
        if sts.is_rejected():
            fe = fit_error_for_single_node(pod, host, sts)
            return c, CLEAR_NOMINATED_NODE, status_with_fit_error(sts.code, fe)
        return c, CLEAR_NOMINATED_NODE, sts

    def _forget(self, pod: Pod) -> bool:
        try:
            self.cache.forget_pod(pod)
        except Exception:
            return False
        return True

    # -- binding cycle ------------------------------------------------------------------------
    def _binding_cycle(self, c: _Cycle) -> None:
        """bindingCycle, first steps: announce the chosen node when binding will take a while
        (NominatedNodeNameForExpectation), then wait on Permit without blocking."""
        if self.nominated_node_name_for_expectation:
            try:
                st = self._nominate_for_expectation(c)
            except Exception as err:
                st = Status.from_error(err)
            if st.code == Code.ERROR or st.is_rejected():
                self._end_binding_cycle(c, st)
                return
        self._wait_on_permit(c.fwk, c.assumed, lambda st: self._resume_binding(
            lambda: self._binding_cycle_after_permit(c, st)))

    def _nominate_for_expectation(self, c: _Cycle) -> Status:
        """RunPreBindPreFlights; when a PreBind plugin has work or the pod will wait on Permit,
        set ``nominatedNodeName`` to the chosen node so that external components (the cluster
        autoscaler) see where the pod is about to go. A rejection from a pre-flight is not
        supported upstream and counts as an error; a failed write is not critical."""
        host = c.result.suggested_host
        st = _ok(c.fwk.run_pre_bind_pre_flights(c.state, c.assumed, host))
        if st.code == Code.ERROR or st.is_rejected():
            return st
        if st.is_success() or c.fwk.will_wait_on_permit(c.assumed):
            self._store_update_pod(c.assumed, None, PostFilterResult(host, MODE_OVERRIDE))
        return Status.success()

    def _wait_on_permit(self, fwk: Framework, pod: Pod, cont: Callable[[Status], None]) -> None:
        """WaitOnPermit as a continuation: ``cont`` runs at once when the pod does not wait, or
        when the waiting pod is allowed, rejected or times out."""
        fwk.wait_on_permit(pod).add_done_callback(lambda st: cont(_ok(st)))

    def _binding_cycle_after_permit(self, c: _Cycle, status: Status) -> None:
        """After Permit: PreBind, which may wait (a continuation again, as for Permit), then
        Bind and PostBind."""
        try:
            st = self._binding_cycle_pre_bind(c, status)
        except Exception as err:
            st = Status.from_error(err)
        if isinstance(st, Status):
            self._end_binding_cycle(c, st)
        elif st.done():
            self._binding_cycle_after_pre_bind(c, st.status())
        else:
            st.add_done_callback(lambda s: self._resume_binding(
                lambda: self._binding_cycle_after_pre_bind(c, _ok(s))))

    def _binding_cycle_after_pre_bind(self, c: _Cycle, status: Status) -> None:
        try:
            status = self._binding_cycle_rest(c, status)
        except Exception as err:
            status = Status.from_error(err)
        self._end_binding_cycle(c, status)

    def _end_binding_cycle(self, c: _Cycle, status: Status) -> None:
        if status.is_success():
            self._count_binding(-1)
            return

        def fail() -> None:
            self._handle_binding_cycle_error(c, status)
            self._count_binding(-1)

        self._to_loop(fail)

    def _binding_cycle_pre_bind(self, c: _Cycle, status: Status) -> Status | PermitFuture:
        """The permit outcome, then PreBind: a Status when the cycle ends here, else the
        PreBind plugins' future."""
        fwk, state, pod, host = c.fwk, c.state, c.assumed, c.result.suggested_host
        if not status.is_success():
            if status.is_rejected():
                fe = fit_error_for_single_node(
                    c.pinfo.pod, host, status,
                    record=lambda d, s: d.unschedulable_plugins.add(s.plugin))
                return status_with_fit_error(status.code, fe)
            return status
        # From here on a failure cannot make the pod "unschedulable": it goes to backoffQ.
        self.queue.done(pod.uid)
        return fwk.run_pre_bind_plugins_async(state, pod, host)

    def _binding_cycle_rest(self, c: _Cycle, st: Status) -> Status:
        """After PreBind (``st``): Bind, PostBind."""
        fwk, state, pod, host = c.fwk, c.state, c.assumed, c.result.suggested_host
        if not st.is_success():
            return st
        st = self._bind(fwk, state, pod, host)
        if not st.is_success():
            return st
        self.stats.scheduled += 1
        self.metrics.observe_attempt(SCHEDULED, fwk.profile_name, time.perf_counter() - c.start)
        self.metrics.pod_scheduling_attempts.observe(c.pinfo.attempts)
        fwk.run_post_bind_plugins(state, pod, host)
        if c.pods_to_activate.map:
            self.queue.activate(list(c.pods_to_activate.map.values()))
        return Status.success()

    def _bind(self, fwk: Framework, state: CycleState, pod: Pod, host: str) -> Status:
        """bind: extenders that bind come first, then the Bind plugins; finishBinding after."""
        status = Status.success()
        try:
            bound, err = self._extenders_binding(pod, host)
            if bound:
                status = Status.success() if err is None else Status.from_error(err)
            else:
                status = _ok(fwk.run_bind_plugins(state, pod, host))
        except Exception as err:
            status = Status.from_error(err)
        self.cache.finish_binding(pod)
        if not status.is_success():
            # finishBinding: V(1); the error itself is logged by the failure handler
            log.info('Failed to bind pod pod="%s/%s" node="%s"', pod.namespace, pod.name, host)
            return status
        self._record_event(pod, "Normal", "Scheduled", "Binding",
                           f"Successfully assigned {pod.namespace}/{pod.name} to {host}")
        return status

    def _extenders_binding(self, pod: Pod, host: str) -> tuple[bool, Exception | None]:
        """extendersBinding: the first binder extender interested in the pod binds it (an
        ignorable one's error passes the turn on, in the end to the Bind plugins).

        The extender creates the Binding in the API server and the informer sees the pod bound;
        here its success is that Binding, written to the store (a store refusal is the bind's
        error), so the assumed pod is confirmed as with DefaultBinder."""
        for ext in self.extenders:
            if not ext.is_binder() or not ext.is_interested(pod):
                continue
            try:
                ext.bind(pod, host)
            except Exception as err:
                if ext.is_ignorable():
                    ext.log_skipped_error("bind", err)
                    continue
                return True, err
            try:
                self._store_extender_binding(pod, host)
            except Exception as err:
                return True, err
            return True, None
        return False, None

    def _handle_binding_cycle_error(self, c: _Cycle, status: Status) -> None:
        """handleBindingCycleError: Unreserve, forget, and tell the queue the assumed pod's
        resources are free again (as an AssignedPodDelete). A rejected pod does not move itself:
        the move happens after it is requeued, excluding it."""
        pod = c.assumed
        c.fwk.run_reserve_plugins_unreserve(c.state, pod, c.result.suggested_host)
        deferred = False
        if self._forget(pod):
            if status.is_rejected():
                deferred = True
            else:
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, pod, None, None)
        self._handle_scheduling_failure(c.fwk, c.pinfo, status, CLEAR_NOMINATED_NODE, c.start)
        if deferred:
            uid = pod.uid
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, pod, None, lambda p: p.uid != uid)

    # -- failure ------------------------------------------------------------------------------
    def _handle_scheduling_failure(self, fwk: Framework, pinfo: QueuedPodInfo, status: Status,
                                   nominating: PostFilterResult | None, start: float) -> None:
        """handleSchedulingFailure: requeue (unless the pod is gone or bound meanwhile), record
        the nomination, a FailedScheduling event and the PodScheduled=False condition."""
        reason = REASON_UNSCHEDULABLE if status.is_rejected() else REASON_SCHEDULER_ERROR
        self.metrics.observe_attempt(UNSCHEDULABLE if reason == REASON_UNSCHEDULABLE else ERROR,
                                     fwk.profile_name, time.perf_counter() - start)
        if reason == REASON_UNSCHEDULABLE:
            self.stats.unschedulable_attempts += 1
        else:
            self.stats.error_attempts += 1
        if self.attempt_hook is not None:
            self.attempt_hook.attempt_failed(pinfo, status)
        err = status.error
        pod = pinfo.pod
        if isinstance(err, FitError):
            pinfo.unschedulable_plugins = set(err.diagnosis.unschedulable_plugins)
            pinfo.pending_plugins = set(err.diagnosis.pending_plugins)
        elif isinstance(err, PodGroupFitError):
            pinfo.unschedulable_plugins = set(err.unschedulable_plugins)
        # upstream's log lines: a pod that does not fit waits (V(2)); anything else is an error
        # the pod is retried after, logged at the default level with the pod and the error
        if isinstance(err, NoNodesAvailableError):
            log.debug('Unable to schedule pod; no nodes are registered to the cluster; waiting pod="%s/%s"',
                      pod.namespace, pod.name)
        elif status.is_rejected() or isinstance(err, FitError | PodGroupFitError):
            log.debug('Unable to schedule pod; no fit; waiting pod="%s/%s" err="%s"', pod.namespace, pod.name,
                      status.message())
        else:
            log.error('Error scheduling pod; retrying pod="%s/%s" err="%s"', pod.namespace, pod.name,
                      status.message() or status.code.name)
        cached = self._store_get_pod(pod.namespace, pod.name)
        requeued = False
        if cached is None:
            log.info('Pod doesn\'t exist in informer cache pod="%s/%s"', pod.namespace, pod.name)
        elif cached.node_name:
            log.info('Pod has been assigned to node. Abort adding it back to queue. pod="%s/%s" node="%s"',
                     pod.namespace, pod.name, cached.node_name)
        else:
            pinfo.pod = cached
            self.queue.add_unschedulable_if_not_present(pinfo, self.queue.scheduling_cycle)
            requeued = True
        if not requeued:
            self.queue.done(pod.uid)
        self.queue.add_nominated_pod(pinfo.pod, nominating)
        if cached is None:
            return  # deleted meanwhile: nothing to write
        msg = status.message()
        self._record_event(cached, "Warning", "FailedScheduling", "Scheduling", truncate_message(msg))
        # updatePod with the pod as popped (handleSchedulingFailure's ``pod``), not the cached one
        self._store_update_pod(pod, pod_scheduled_condition(cached, reason, msg), nominating)


def _with_node_name(pod: Pod, node_name: str) -> Pod:
    """The assumed copy of ``pod`` with ``spec.nodeName`` set."""
    return pod.with_changes({("spec", "nodeName"): node_name})


def _copy_pinfo(pinfo: QueuedPodInfo, pod: Pod) -> QueuedPodInfo:
    """podInfo.DeepCopy() with the assumed pod."""
    c = object.__new__(type(pinfo))
    c.__dict__.update(pinfo.__dict__)  # copy.copy without its generic (slow) protocol
    c.pod = pod
    if pinfo.unschedulable_plugins is not None:
        c.unschedulable_plugins = set(pinfo.unschedulable_plugins)
    if pinfo.pending_plugins is not None:
        c.pending_plugins = set(pinfo.pending_plugins)
    return c
