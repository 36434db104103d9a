"""The Executor: the API calls of preemption, synchronous or asynchronous.

Mirrors pkg/scheduler/framework/preemption/executor.go (master 2026). For each victim: a victim
waiting at Permit is rejected (it never reached the API server as bound); any other gets the
``DisruptionTarget`` condition (reason ``PreemptionByScheduler``) and is deleted with its own
grace period, so it terminates gracefully on the clock; each gets a ``Preempted`` event. Victims
already terminating are skipped. Lower-priority pods nominated to the node lose their
nomination, so that they look for another node sooner.

Asynchronous preemption (KEP-4832, feature SchedulerAsyncPreemption, Beta and on by default
since 1.33): the calls run in a task after the scheduling cycle (a task at the current time on
the virtual clock, as upstream's goroutine), and the preemptor is kept out of activeQ by
DefaultPreemption's PreEnqueue (``is_pod_running_preemption``) until they are made. All victims
but the last are deleted first; while the last one's deletion is pending the preemptor counts as
still preempting, so that it cannot re-enter scheduling before every deletion has started.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...cluster import NotFound
from .._interface import AsyncRunnerHandle, PodActivator
from .._status import Status
from ._interface import Candidate

if TYPE_CHECKING:
    from ...api import Pod
    from ...cluster import Store
    from .._handle import Handle, PreemptionMetrics

__all__ = [
    "DISRUPTION_TARGET",
    "PREEMPTED_REASON",
    "REASON_PREEMPTION_BY_SCHEDULER",
    "Executor",
    "disruption_target_condition",
    "get_lower_priority_nominated_pods",
]

DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
PREEMPTED_REASON = "Preempted"

PreemptPodFn = Callable[[Candidate, "Pod", "Pod", str], "BaseException | None"]
"""(candidate, preemptor, victim, plugin name) -> the error, or None."""


def disruption_target_condition(preemptor: Pod, victim: Pod) -> dict[str, Any]:
    """The DisruptionTarget condition added to a victim before its deletion."""
    cond: dict[str, Any] = {
        "type": DISRUPTION_TARGET,
        "status": "True",
        "reason": REASON_PREEMPTION_BY_SCHEDULER,
        "message": f"{preemptor.scheduler_name}: preempting to accommodate a higher priority pod",
    }
    if victim.meta.generation:  # CalculatePodConditionObservedGeneration
        cond["observedGeneration"] = victim.meta.generation
    return cond


def _is_not_found(err: BaseException) -> bool:
    """apierrors.IsNotFound: every store raises its NotFound (a live store maps HTTP 404)."""
    return isinstance(err, NotFound)


def get_lower_priority_nominated_pods(handle: Handle, pod: Pod, node_name: str) -> list[Pod]:
    """getLowerPriorityNominatedPods: pods nominated to ``node_name`` with lower priority than
    ``pod``. (Upstream does not check whether they would still fit: there are few of them.)"""
    nominator = handle.nominator()
    if nominator is None:
        return []
    prio = pod.priority_value
    return [pi.pod for pi in nominator.nominated_pods_for_node(node_name) if pi.pod.priority_value < prio]


class Executor:
    """Actuates the chosen candidate. ``preempt_pod`` is an attribute so tests can replace it,
    as upstream's ``PreemptPod``."""

    def __init__(self, handle: Handle, metrics: Callable[[], PreemptionMetrics | None] | None = None) -> None:
        self._handle = handle
        self._metrics = metrics or (lambda: handle.metrics)
        self._preempting: set[str] = set()
        self._last_victims_pending: dict[str, tuple[str, str]] = {}
        self.preempt_pod: PreemptPodFn = self._preempt_pod

    # -- one victim ---------------------------------------------------------------------------
    def _preempt_pod(self, c: Candidate, preemptor: Pod, victim: Pod,
                     plugin_name: str) -> BaseException | None:
        """PreemptPod: reject a waiting victim, or add the condition and delete it; then the
        ``Preempted`` event. A victim already gone is not an error."""
        fh = self._handle
        wp = fh.get_waiting_pod(victim.uid)
        if wp is not None:
            # Upstream's Reject only sends a message to the victim's binding goroutine, which
            # reacts after the preemption calls return; here that goroutine is a task on the clock.
            fh.clock.schedule(0.0, lambda: wp.reject(plugin_name, "preempted"))
        else:
            try:
                self._store().patch_pod_status(victim.namespace, victim.name,
                                               [disruption_target_condition(preemptor, victim)])
            except Exception as err:
                return None if _is_not_found(err) else err
            try:
                self._store().delete("Pod", victim.namespace, victim.name)
            except Exception as err:
                return None if _is_not_found(err) else err
        # Mirrors the Preempted event of PreemptPod (pkg/scheduler/framework/preemption/
        # executor.go, master 2026): the preemptor is named by UID, "Preempted by pod <uid> on
        # node <node>" (kubernetes#119971, since 1.29). Releases up to 1.25 wrote
        # "Preempted by <namespace>/<name> on node <node>", dropped because it leaked pod names
        # across namespaces (kubernetes#114882); newest upstream wins, so we never emit it.
        msg = f"Preempted by pod {preemptor.uid} on node {c.name}"
        with contextlib.suppress(Exception):  # events are best effort, as the event recorder
            self._store().record_event(victim, PREEMPTED_REASON, msg, type="Normal", action="Preempting")
        return None

    def _observe_victims(self, n: int) -> None:
        m = self._metrics()
        if m is not None:
            m.preemption_victims.observe(n)

    # -- sync ---------------------------------------------------------------------------------
    def prepare_candidate(self, c: Candidate, pod: Pod, plugin_name: str) -> Status:
        """prepareCandidate: preempt every victim not already terminating (the first error
        aborts), then clear lower-priority nominations on the node."""
        self._observe_victims(len(c.victims.pods))
        for victim in c.victims.pods:
            if victim.is_terminating:
                continue  # graceful deletion already started: no second API call
            err = self.preempt_pod(c, pod, victim, plugin_name)
            if err is not None:
                return Status.from_error(err)
        self._clear_nominated_node_name(get_lower_priority_nominated_pods(self._handle, pod, c.name))
        return Status.success()

    # -- async --------------------------------------------------------------------------------
    def prepare_candidate_async(self, c: Candidate, pod: Pod, plugin_name: str) -> None:
        """prepareCandidateAsync: mark the preemptor as preempting and make the calls in a task
        after this cycle. Nothing to delete: nothing to wait for."""
        victims = [v for v in c.victims.pods if not v.is_terminating]
        if not victims:
            return
        self._observe_victims(len(c.victims.pods))
        uid = pod.uid
        self._preempting.add(uid)

        def run() -> None:
            failed = False
            try:
                if not self._clear_nominated_node_name(
                        get_lower_priority_nominated_pods(self._handle, pod, c.name)):
                    failed = True
                preempt_last = True
                for victim in victims[:-1]:
                    if self.preempt_pod(c, pod, victim, plugin_name) is not None:
                        failed = True
                        preempt_last = False
                        break
                if preempt_last:
                    last = victims[-1]
                    self._last_victims_pending[uid] = (last.namespace, last.name)
                    if self.preempt_pod(c, pod, last, plugin_name) is not None:
                        failed = True
            finally:
                self._preempting.discard(uid)
                self._last_victims_pending.pop(uid, None)
            if failed:
                # The pod could otherwise be stuck in unschedulablePods: retry it now.
                self._activate(pod)

        run_async = self._handle.run_async if isinstance(self._handle, AsyncRunnerHandle) else None
        if run_async is not None:
            run_async(run)  # live mode: a worker thread, as upstream's goroutine
        else:
            self._handle.clock.schedule(0.0, run)

    def is_pod_running_preemption(self, uid: str) -> bool:
        """IsPodRunningPreemption: true while the preemptor's calls are pending, and while the
        last victim exists without a deletion under way."""
        if uid not in self._preempting:
            return False
        pending = self._last_victims_pending.get(uid)
        if pending is None:
            return True
        victim = _try_get_pod(self._handle.store, *pending)
        return victim is not None and not victim.is_terminating

    # -- helpers ------------------------------------------------------------------------------
    def _store(self) -> Store:
        """The handle's store (a framework built without one cannot preempt)."""
        store = self._handle.store
        if store is None:
            raise RuntimeError("preemption needs a cluster store")
        return store

    def _clear_nominated_node_name(self, pods: list[Pod]) -> bool:
        """clearNominatedNodeName (without the API cacher): patch each pod that has a
        ``status.nominatedNodeName`` to clear it. False when a patch failed."""
        ok = True
        for p in pods:
            if not p.nominated_node_name:
                continue
            try:
                self._store().patch_pod_status(p.namespace, p.name, (), "")
            except Exception:
                ok = False  # not critical: the nomination stays until the next cycle of that pod
        return ok

    def _activate(self, pod: Pod) -> None:
        queue = self._handle.nominator()
        if isinstance(queue, PodActivator):
            queue.activate({pod.name: pod})


def _try_get_pod(store: Store | None, namespace: str, name: str) -> Pod | None:
    return store.try_get("Pod", namespace, name) if store is not None else None
