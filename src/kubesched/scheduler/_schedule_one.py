"""ScheduleOne: the scheduling cycle, the binding cycle and failure handling.

Mirrors pkg/scheduler/schedule_one.go (master 2026), read top-down as upstream's:
:meth:`ScheduleOne.schedule_one` (ScheduleOne) -> :meth:`~ScheduleOne._scheduling_cycle`
(schedulingCycle: schedulePod, assume, Reserve, Permit) -> :meth:`~ScheduleOne._binding_cycle`
(bindingCycle: WaitOnPermit, PreBind, Bind, PostBind) -> :meth:`~ScheduleOne._handle_binding_cycle_error`
(handleBindingCycleError) / :meth:`~ScheduleOne._handle_scheduling_failure`
(handleSchedulingFailure). A pod of a PodGroup goes through the group's cycle instead
(:mod:`._schedule_pod_group`, upstream's schedule_one_podgroup.go), which reuses these steps.

What the cycles need from the scheduler hosting them is passed in, typed: the queue, the cache
and its snapshot, the profiles' frameworks, the algorithm, the extenders, the metrics, the
store's reads and writes (:class:`~._store_client.StoreClient`: the pod lister, updatePod, the
event recorder) and the :class:`~._binding.BindingExecutor`.

The binding cycle is asynchronous from the next scheduling cycle: the executor starts it (a
timer due now on the virtual clock in simulations, a binding worker in live mode). Its waits
(WaitOnPermit; a PreBind plugin that waits, DynamicResources polling for device binding
conditions, see the framework's ``run_pre_bind_plugins_async``) never block a thread:
``_binding_cycle`` is a generator that yields the future each wait ends with, and
:meth:`~ScheduleOne._advance` resumes it once the future is resolved (at once when it already
is; else from the future's callback, through the executor, which brings it back to a binding
worker in live mode). Offline, everything runs on the loop's thread in timer order, so a run
stays deterministic.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
from ._schedule_pod_group import pod_group_of, schedule_one_pod_group

if TYPE_CHECKING:
    from ..api import Pod, PodGroup
    from ..cache import Cache, Snapshot
    from ..framework import Framework
    from ..queue import PriorityQueue
    from ._attempt_hook import AttemptHook
    from ._binding import BindingExecutor
    from ._extender import HTTPExtender
    from ._store_client import StoreClient

__all__ = ["NOMINATED_NODE_NAME_FOR_EXPECTATION", "PODS_TO_ACTIVATE_KEY", "CycleStats", "PodsToActivate",
           "ScheduleOne"]

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


BindingSteps = Generator[PermitFuture, Status, Status]
"""A binding cycle in progress: yields the future of each wait, is sent the status the wait
ended with, and returns the cycle's status."""


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


class ScheduleOne:
    """The cycles of one scheduler (upstream: the ``Scheduler`` methods of schedule_one.go),
    over the collaborators it is given; :class:`~kubesched.scheduler.Scheduler` builds it."""

    def __init__(self, *, profiles: Mapping[str, Framework], queue: PriorityQueue, cache: Cache,
                 snapshot: Snapshot, algorithm: ScheduleAlgorithm, extenders: Sequence[HTTPExtender],
                 metrics: SchedulerMetrics, plugin_metrics_rng: random.Random, client: StoreClient,
                 binding: BindingExecutor, nominated_node_name_for_expectation: bool) -> None:
        """``plugin_metrics_rng``: draws which cycles time each plugin call
        (pluginMetricsSamplePercent); ``nominated_node_name_for_expectation``: the
        NominatedNodeNameForExpectation gate."""
        self.profiles = profiles
        self.queue = queue
        self.cache = cache
        self.snapshot = snapshot
        self.algorithm = algorithm
        self.extenders = extenders
        self.metrics = metrics
        self.plugin_metrics_rng = plugin_metrics_rng
        self.client = client
        self.binding = binding
        self.nominated_node_name_for_expectation = nominated_node_name_for_expectation
        self.stats = CycleStats()
        # Told of each attempt, may stop the run before one (see AttemptHook); None: no hook.
        self.attempt_hook: AttemptHook | None = None
        self.stopped_before: QueuedPodInfo | None = None
        self.stopped_pod_group: PodGroup | None = None  # the cycle stopped_before was in
        self.bindings_in_flight = 0
        self._lock = threading.Lock()  # bindings_in_flight: binding workers end cycles too

    # -- ScheduleOne --------------------------------------------------------------------------
    def schedule_one(self) -> bool:
        """ScheduleOne: pop one pod, run its scheduling cycle and, when it succeeds, start its
        binding cycle (asynchronous: the binding executor runs it). False when activeQ had no
        pod, or the attempt hook stopped the run."""
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
        pod_group = pod_group_of(fwk, pod)
        if pod_group is not None:
            # scheduleOnePodGroup: the group's queued pods in one cycle
            schedule_one_pod_group(self, fwk, pinfo, pod_group)
            return True
        if self._stops_before([pinfo]):
            return False
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
        self._start_binding_cycle(cycle)
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
            self.client.record_event(pod, "Warning", "FailedScheduling", "Scheduling",
                                     f"skip schedule deleting pod: {pod.namespace}/{pod.name}")
            return True
        return bool(self.cache.is_assumed_pod(pod))

    # -- scheduling cycle ---------------------------------------------------------------------
    def _scheduling_cycle(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, start: float,
                          pods_to_activate: PodsToActivate
                          ) -> tuple[_Cycle | None, PostFilterResult | None, Status]:
        """schedulingCycle -> (the cycle for binding, nominating info, status)."""
        pod = pinfo.pod
        try:
            self.cache.update_snapshot(self.snapshot)
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
    def _start_binding_cycle(self, c: _Cycle) -> None:
        """ScheduleOne's ``go func() { status := bindingCycle(...); if !status.IsSuccess() {
        handleBindingCycleError(...) } }()``: the executor starts the cycle; it counts as in
        flight until :meth:`_end_binding_cycle`."""
        self._count_binding(+1)
        self.binding.start(lambda: self._advance(c, self._binding_cycle(c), None))

    def _binding_cycle(self, c: _Cycle) -> BindingSteps:
        """bindingCycle: announce the chosen node (NominatedNodeNameForExpectation), wait on
        Permit, PreBind (which may wait too), Bind, PostBind. Each wait is a ``yield`` of the
        future it ends with (:meth:`_advance` sends back its status); the return value is the
        cycle's status."""
        fwk, state, pod, host = c.fwk, c.state, c.assumed, c.result.suggested_host
        if self.nominated_node_name_for_expectation:
            try:
                st = self._nominate_for_expectation(c)
            except Exception as err:
                st = Status.from_error(err)
            if st.code == Code.ERROR or st.is_rejected():
                return st

        # WaitOnPermit
        status = yield fwk.wait_on_permit(pod)
        try:
            if not status.is_success():
                if status.is_rejected():
                    fe = fit_error_for_single_node(
                        c.pinfo.pod, host, status,
                        record=lambda d, s: d.unschedulable_plugins.add(s.plugin))
                    return status_with_fit_error(status.code, fe)
                return status
            # From here on a failure cannot make the pod "unschedulable": it goes to backoffQ.
            self.queue.done(pod.uid)
            pre_bind = fwk.run_pre_bind_plugins_async(state, pod, host)
        except Exception as err:
            return Status.from_error(err)

        # PreBind
        status = yield pre_bind
        try:
            if not status.is_success():
                return status
            # Bind
            status = self._bind(fwk, state, pod, host)
            if not status.is_success():
                return status
            self.stats.scheduled += 1
            self.metrics.observe_attempt(SCHEDULED, fwk.profile_name, time.perf_counter() - c.start)
            self.metrics.pod_scheduling_attempts.observe(c.pinfo.attempts)
            # PostBind
            fwk.run_post_bind_plugins(state, pod, host)
            if c.pods_to_activate.map:
                self.queue.activate(list(c.pods_to_activate.map.values()))
        except Exception as err:
            return Status.from_error(err)
        return Status.success()

    def _advance(self, c: _Cycle, steps: BindingSteps, status: Status | None) -> None:
        """Run the binding cycle's ``steps`` on from their last wait (``status``: how it ended;
        None to start) to the next wait not over yet, which resumes them from its callback
        through the executor, or to their end (:meth:`_end_binding_cycle`). No upstream
        counterpart: there the binding goroutine blocks in WaitOnPermit and in PreBind."""
        while True:
            try:
                wait = next(steps) if status is None else steps.send(status)
            except StopIteration as end:
                self._end_binding_cycle(c, end.value)
                return
            if not wait.done():
                wait.add_done_callback(lambda st: self.binding.resume(
                    lambda: self._advance(c, steps, _ok(st))))
                return
            status = wait.status()

    def _end_binding_cycle(self, c: _Cycle, status: Status) -> None:
        """The binding cycle ended: a failure is handled (handleBindingCycleError) where the
        scheduler's state may change (the executor's ``to_loop``)."""
        if status.is_success():
            self._count_binding(-1)
            return

        def fail() -> None:
            self._handle_binding_cycle_error(c, status)
            self._count_binding(-1)

        self.binding.to_loop(fail)

    def _count_binding(self, delta: int) -> None:
        with self._lock:
            self.bindings_in_flight += delta

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
            self.client.update_pod(c.assumed, None, PostFilterResult(host, MODE_OVERRIDE))
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
        self.client.record_event(pod, "Normal", "Scheduled", "Binding",
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
                self.client.extender_binding(pod, host)
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
        cached = self.client.get_pod(pod.namespace, pod.name)
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
        self.client.record_event(cached, "Warning", "FailedScheduling", "Scheduling", truncate_message(msg))
        # updatePod with the pod as popped (handleSchedulingFailure's ``pod``), not the cached one
        self.client.update_pod(pod, pod_scheduled_condition(cached, reason, msg), nominating)


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
