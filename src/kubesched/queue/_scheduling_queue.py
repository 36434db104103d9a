"""PriorityQueue: the scheduling queue, composed of activeQ, backoffQ and unschedulablePods.

Mirrors pkg/scheduler/backend/queue/scheduling_queue.go (master 2026):

- **activeQ** holds pods being considered for scheduling, ordered by the QueueSort ``less``;
- **backoffQ** holds pods waiting out their backoff before they go back to activeQ;
- **unschedulablePods** holds pods that failed and wait for a cluster event that may help them
  (guided by the queueing hints of the plugins that rejected them), or for the 5-minute flush.
  PreEnqueue-gated pods wait here too until an event their gating plugin registered passes, or
  until the flush re-runs their PreEnqueue plugins (kubernetes PRs 139162 and 139331: a
  preemptor gated by DefaultPreemption while its preemption ran is not stranded when the
  events that follow concern none of its plugins).

Only the queueing-hint flavour is implemented (SchedulerQueueingHints is GA and its gate gone
in newest upstream, and with it ``moveRequestCycle``). ``pop`` does not block: it returns None
when there is nothing to schedule, so a virtual-clock loop can advance time instead.

Periodic work: upstream flushes backoffQ every second (aligned to whole seconds) and leftover
unschedulable pods every 30 s. After ``start()``, the queue arms *one* clock timer for the next
moment a flush can move a pod, and none when nothing can move, so a simulation on a
VirtualClock ends when no timer is left. ``next_wakeup()`` reports that moment. Every public
method holds one re-entrant lock, so the queue also fits a threaded live mode.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar, cast

from ..api import Pod
from ..cache import PodInfo
from ..clock import Clock, Timer
from ..framework import (
    ActionType,
    ClusterEvent,
    EventResource,
    PostFilterResult,
    PreEnqueuePlugin,
    QueuedPodInfo,
    Status,
)
from ._active_queue import ActiveQueue, InFlightEvent
from ._affinity import NamespaceLabels, has_cross_topology_term
from ._backoff_queue import BackoffQueue, LessFn, SortKeyFn
from ._events import (
    BACKOFF_COMPLETE,
    EVENT_ASSIGNED_POD_ADD,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_UPDATE,
    FORCE_ACTIVATE,
    SCHEDULE_ATTEMPT_FAILURE,
    is_wildcard,
    match_any,
    matches,
    pod_scheduling_properties_change,
)
from ._hints import (
    HintIndex,
    QueueingHintMap,
    QueueingStrategy,
    is_pod_worth_requeuing,
    plugin_events,
    rejector_plugins,
)
from ._nominator import Nominator, PodLookup
from ._unschedulable_pods import UnschedulablePods, last_schedule_time

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "DEFAULT_POD_INITIAL_BACKOFF",
    "DEFAULT_POD_MAX_BACKOFF",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "UNSCHEDULABLE_PODS_FLUSH_INTERVAL",
    "UNSCHEDULABLE_Q",
    "PreEnqueueCheck",
    "PriorityQueue",
]

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
UNSCHEDULABLE_PODS_FLUSH_INTERVAL = 30.0
"""flushUnschedulablePodsLeftover runs every 30 s (wait.Until in PriorityQueue.Run)."""
_NOMINATED_INFO_LIMIT = 1 << 16
"""Nominated pods' PodInfos kept at most (stale entries are harmless: checked by identity)."""

ACTIVE_Q = "Active"
BACKOFF_Q = "Backoff"
UNSCHEDULABLE_Q = "Unschedulable"

PreEnqueueCheck = Callable[[Pod], bool]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run under the queue lock, then re-arm the flush timer for whatever changed."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        self = cast(PriorityQueue, args[0])
        with self._lock:
            try:
                return fn(*args, **kwargs)
            finally:
                self._arm()

    return wrapper


class PriorityQueue:
    """The scheduling queue shared by all profiles of one scheduler."""

    def __init__(
        self,
        clock: Clock,
        less: LessFn,
        pre_enqueue_plugins: Mapping[str, Sequence[PreEnqueuePlugin]] | None = None,
        queueing_hint_map: QueueingHintMap | None = None,
        *,
        pod_initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF,
        pod_max_backoff: float = DEFAULT_POD_MAX_BACKOFF,
        pod_max_in_unschedulable_pods_duration: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
        pop_from_backoff_q: bool = True,
        pod_lookup: PodLookup | None = None,
        namespace_labels: NamespaceLabels | None = None,
        sort_key: SortKeyFn | None = None,
        namespace_spread_plugins: Collection[str] = (),
    ) -> None:
        """``pre_enqueue_plugins``: profile -> its PreEnqueue plugins, in order.
        ``queueing_hint_map``: profile -> registrations (see ``build_queueing_hint_map``).
        ``pop_from_backoff_q``: the SchedulerPopFromBackoffQ gate (default on, as upstream).
        ``pod_lookup``: the store's current pod, so the nominator skips deleted/bound pods.
        ``namespace_labels``: namespace labels for namespaceSelector affinity terms.
        ``sort_key``: optional key that orders pods exactly as ``less`` (for PrioritySort:
        ``(-priority, timestamp)``); the heaps then compare in C, several times faster.
        ``namespace_spread_plugins``: plugins whose rejection any assigned pod of the rejected
        pod's namespace may resolve (upstream's PodTopologySpread, named by the scheduler: the
        queue names no plugin)."""
        self._clock = clock
        self._lock = threading.RLock()
        self._nominated_infos: dict[str, PodInfo] = {}  # uid -> PodInfo of its latest version
        self._pre_enqueue = {k: list(v) for k, v in (pre_enqueue_plugins or {}).items()}
        self._hint_map = HintIndex(queueing_hint_map or {})
        self._plugin_events = plugin_events(self._hint_map)
        self._max_in_unschedulable = pod_max_in_unschedulable_pods_duration
        self.pop_from_backoff_q = pop_from_backoff_q
        self._namespace_labels = namespace_labels
        self._namespace_spread_plugins = frozenset(namespace_spread_plugins)
        self._backoff_q = BackoffQueue(clock, pod_initial_backoff, pod_max_backoff, less,
                                       pop_from_backoff_q, sort_key)
        self._active_q = ActiveQueue(less, self._backoff_q if pop_from_backoff_q else None, sort_key)
        profiles = frozenset(self._hint_map)
        self._unschedulable = UnschedulablePods(  # what _move_all moves whatever pods an event names
            lambda p: not (p.unschedulable_plugins or p.pending_plugins)
            or p.pod.scheduler_name not in profiles)
        self.nominator = Nominator(pod_lookup)
        self._epoch = clock.now
        self._started = False
        self._timer: Timer | None = None
        self._armed_entries = (-1, -1)  # backoffQ / unschedulablePods entries when last armed
        self._last_unschedulable_flush: float | None = None

    # -- periodic flushes on the clock -------------------------------------------
    def start(self) -> None:
        """PriorityQueue.Run: from now on, flushes run on the clock when something can move."""
        with self._lock:
            self._started = True
            self._epoch = self._clock.now
            self._arm()

    def stop(self) -> None:
        """Close: cancel the pending flush timer."""
        with self._lock:
            self._started = False
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def next_backoff_flush(self) -> float | None:
        """When the per-second backoffQ flush will next move a pod (None: backoffQ is empty)."""
        with self._lock:
            return self._backoff_q.next_release()

    def next_unschedulable_flush(self) -> float | None:
        """When the 30-second leftover flush will next offer a parked pod the timeout (None:
        nothing is parked).

        Gated pods count too: the flush re-runs their PreEnqueue plugins, and one kept gated
        waits a full period from that flush (its flush timestamp)."""
        with self._lock:
            oldest = self._unschedulable.oldest_timestamp()
            if oldest is None:
                return None
            due = oldest + self._max_in_unschedulable  # moved at the first tick after this
            period = UNSCHEDULABLE_PODS_FLUSH_INTERVAL
            k = math.floor((due - self._epoch) / period) + 1
            if self._last_unschedulable_flush is not None:
                # Never the tick that just ran again (a float rounding at the boundary).
                k = max(k, math.floor((self._last_unschedulable_flush - self._epoch) / period) + 1)
            return self._epoch + period * k

    def next_wakeup(self) -> float | None:
        """The earliest time a periodic flush can move a pod; None when none ever will."""
        times = [t for t in (self.next_backoff_flush(), self.next_unschedulable_flush()) if t is not None]
        return min(times) if times else None

    def _arm(self) -> None:
        if not self._started:
            return
        # Nothing in backoffQ or unschedulablePods: no flush can move a pod (the usual case
        # when pods schedule at once; computing the wakeup on every queue call was measurable).
        current = self._timer
        parked = bool(self._backoff_q or self._unschedulable)
        entries = (self._backoff_q.entries, self._unschedulable.entries)
        if parked and current is not None and not current.cancelled and entries == self._armed_entries:
            # No pod entered backoffQ or unschedulablePods since the timer was armed: leaving
            # can only make the next flush later, and the armed timer fires first and re-arms.
            return
        self._armed_entries = entries
        wake = self.next_wakeup() if parked else None
        if current is not None and not current.cancelled and wake is not None and current.when <= wake:
            return  # an earlier timer fires first and re-arms
        if current is not None:
            current.cancel()
            self._timer = None
        if wake is not None:
            self._timer = self._clock.schedule(max(0.0, wake - self._clock.now), self._on_timer)

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            now = self._clock.now
            b = self._backoff_q.next_release()
            if b is not None and b <= now:
                self._flush_backoff_q_completed()
            u = self.next_unschedulable_flush()
            if u is not None and u <= now:
                self._flush_unschedulable_pods_left_over()
            self._arm()

    @_locked
    def flush_backoff_q_completed(self) -> None:
        """flushBackoffQCompleted: move every pod whose backoff is over to activeQ."""
        self._flush_backoff_q_completed()

    def _flush_backoff_q_completed(self) -> None:
        for p in self._backoff_q.pop_all_backoff_completed():
            self._move_to_active_q(p, BACKOFF_COMPLETE, moves_from_backoff_q=True)

    @_locked
    def flush_unschedulable_pods_left_over(self) -> None:
        """flushUnschedulablePodsLeftover: pods parked longer than the maximum move on."""
        self._flush_unschedulable_pods_left_over()

    def _flush_unschedulable_pods_left_over(self) -> None:
        """Every pod parked longer than the maximum since its last schedule time (its timestamp,
        or the last flush that offered it the timeout) gets the wildcard timeout event; each is
        stamped with this flush first, so that one its PreEnqueue plugins keep gated is not
        offered it again before a full period (kubernetes PR 139331)."""
        now = self._clock.now
        self._last_unschedulable_flush = now
        stale = [p for p in self._unschedulable
                 if now - last_schedule_time(p) > self._max_in_unschedulable]
        for p in stale:
            p.flush_timestamp = now
        if stale:
            self._move_pods(stale, EVENT_UNSCHEDULABLE_TIMEOUT, None, None)

    # -- entering the queue -------------------------------------------------------
    def _new_queued_pod_info(self, pod: Pod) -> QueuedPodInfo:
        return QueuedPodInfo(pod=pod, timestamp=self._clock.now, unschedulable_plugins=set())

    @_locked
    def add(self, pod: Pod) -> None:
        """Add: a new pending pod goes to activeQ, or to unschedulablePods when gated."""
        self._move_to_active_q(self._new_queued_pod_info(pod), str(EVENT_UNSCHEDULED_POD_ADD))

    @_locked
    def activate(self, pods: Mapping[str, Pod] | Iterable[Pod]) -> None:
        """Activate: move pods from unschedulablePods/backoffQ to activeQ; for an in-flight pod,
        record ForceActivate so that it is requeued when its attempt fails. Takes upstream's
        map (key -> pod) or any iterable of pods."""
        for pod in (pods.values() if isinstance(pods, Mapping) else pods):
            if not self._activate(pod):
                self._active_q.add_events_if_pod_in_flight(None, pod, [EVENT_FORCE_ACTIVATE])

    def _activate(self, pod: Pod) -> bool:
        p = self._unschedulable.get(pod.key)
        from_backoff = False
        if p is None:
            p = self._backoff_q.delete(pod.key)
            if p is None:
                return False
            from_backoff = True
        return self._move_to_active_q(p, FORCE_ACTIVATE, moves_from_backoff_q=from_backoff)

    def _run_pre_enqueue_plugins(self, p: QueuedPodInfo) -> None:
        """runPreEnqueuePlugins: the gating plugin first, then the rest; the first rejection
        gates the pod and records the plugin (and the events it registered) on it."""
        plugins = self._pre_enqueue.get(p.pod.scheduler_name, [])
        gating = p.gating_plugin
        if gating:
            first = next((pl for pl in plugins if pl.name() == gating), None)
            if first is not None and not self._run_pre_enqueue_plugin(first, p):
                return
        for pl in plugins:
            if gating and pl.name() == gating:
                continue
            if not self._run_pre_enqueue_plugin(pl, p):
                return
        p.gating_plugin = ""
        p.gated = False

    def _run_pre_enqueue_plugin(self, pl: PreEnqueuePlugin, p: QueuedPodInfo) -> bool:
        try:
            status = pl.pre_enqueue(p.pod)
        except Exception as err:  # a crashing plugin gates the pod, as an Error status would
            status = Status.from_error(err)
        if status is None or status.is_success():
            return True
        name = pl.name()
        if p.unschedulable_plugins is None:
            p.unschedulable_plugins = set()
        p.unschedulable_plugins.add(name)
        p.gating_plugin = name
        p.gated = True
        p.gating_plugin_events = self._plugin_events.get(name, ())
        return False

    def _move_to_active_q(self, p: QueuedPodInfo, event: str, moves_from_backoff_q: bool = False) -> bool:
        """moveToActiveQ: PreEnqueue (skipped for pods straight from backoffQ with
        PopFromBackoffQ, which already ran it), then activeQ or, when gated, unschedulablePods."""
        if not (self.pop_from_backoff_q and moves_from_backoff_q):
            self._run_pre_enqueue_plugins(p)
        key = p.pod.key
        if p.gated:
            if not (self._active_q.has(key) or self._backoff_q.has(key) or self._unschedulable.has(key)):
                self._unschedulable.add_or_update(p)
            return False
        if p.initial_attempt_timestamp is None:
            p.initial_attempt_timestamp = self._clock.now
        self._unschedulable.delete(key)
        self._backoff_q.delete(key)
        self._active_q.add(p)
        if event in (str(EVENT_UNSCHEDULED_POD_ADD), str(EVENT_UNSCHEDULED_POD_UPDATE)):
            self.nominator.add_nominated_pod(p.pod, None)
        return True

    def _move_to_backoff_q(self, p: QueuedPodInfo) -> bool:
        """moveToBackoffQ: with PopFromBackoffQ, PreEnqueue runs here (a pod may be popped
        straight from backoffQ), and a gated pod parks in unschedulablePods instead."""
        if self.pop_from_backoff_q:
            self._run_pre_enqueue_plugins(p)
            if p.gated:
                if not self._unschedulable.has(p.pod.key):
                    self._unschedulable.add_or_update(p)
                return False
        self._unschedulable.delete(p.pod.key)
        self._backoff_q.add(p)
        return True

    def _requeue(self, p: QueuedPodInfo, strategy: QueueingStrategy, event: str) -> str:
        """requeuePodWithQueueingStrategy; returns the queue the pod went to."""
        if strategy == QueueingStrategy.QUEUE_SKIP:
            self._unschedulable.add_or_update(p)
            return UNSCHEDULABLE_Q
        if strategy == QueueingStrategy.QUEUE_AFTER_BACKOFF and self._backoff_q.is_pod_backing_off(p):
            return BACKOFF_Q if self._move_to_backoff_q(p) else UNSCHEDULABLE_Q
        return ACTIVE_Q if self._move_to_active_q(p, event) else UNSCHEDULABLE_Q

    # -- the scheduling cycle --------------------------------------------------------
    @property
    def scheduling_cycle(self) -> int:
        """SchedulingCycle: incremented by every pop."""
        return self._active_q.scheduling_cycle

    @_locked
    def pop(self) -> QueuedPodInfo | None:
        """Pop: the head of activeQ (or of podBackoffQ when activeQ is empty and PopFromBackoffQ
        is on), now in flight until ``done``; None when there is nothing to schedule.

        The rejecting plugins of the previous attempt are cleared: the scheduler records the
        new attempt's (an Error leaves them empty, which routes the pod to the error backoff)."""
        popped = self._active_q.pop()
        if popped is None:
            return None
        p, _ = popped
        return self._begin_attempt(p)

    @_locked
    def pop_specific(self, pod: Pod) -> QueuedPodInfo | None:
        """PopSpecificPod: take ``pod`` out of whichever sub-queue holds it (not a gated one)
        and make it in flight, as ``pop`` does; None when it is not queued (in flight, assumed,
        gated or gone). The pod-group scheduling cycle pops a group's other pending pods with
        it, so that they are scheduled together."""
        key = pod.key
        if self._active_q.is_in_flight(pod.uid):
            return None
        p = self._active_q.delete(key) or self._backoff_q.delete(key)
        if p is None:
            parked = self._unschedulable.get(key)
            if parked is None or parked.gated:
                return None
            p = self._unschedulable.delete(key)
            if p is None:
                return None
        self._active_q.track_in_flight(p)
        return self._begin_attempt(p)

    def _begin_attempt(self, p: QueuedPodInfo) -> QueuedPodInfo:
        """What Pop and PopSpecificPod do to a pod now in flight: the nominator hears of it
        (nominatedPodToInfo falls back to the nominator's copy), its first attempt is stamped,
        and the previous attempt's rejecting plugins are cleared."""
        self.nominator.touch(p.pod.uid)
        if p.initial_attempt_timestamp is None:
            p.initial_attempt_timestamp = self._clock.now
        p.unschedulable_plugins = set()
        p.pending_plugins = set()
        return p

    @_locked
    def done(self, uid: str) -> None:
        """Done: the pod's attempt (scheduling and binding) is over."""
        self._active_q.done(uid)

    @_locked
    def add_unschedulable_if_not_present(self, p: QueuedPodInfo, scheduling_cycle: int) -> str | None:
        """AddUnschedulableIfNotPresent: requeue a pod whose attempt failed.

        Rejected by plugins: counts towards backoff; the events that arrived while the pod was
        in flight are checked against those plugins' hints: a helpful one sends the pod to
        backoffQ/activeQ, none parks it in unschedulablePods. No rejecting plugin (an Error):
        the error count grows and the pod goes to the error backoff. Returns an error message
        when the pod is already queued (the pod is left where it is), else None.
        ``scheduling_cycle`` is kept for upstream's signature; in-flight events supersede it.
        """
        del scheduling_cycle
        try:
            key = p.pod.key
            for has, name in ((self._unschedulable.has, "unschedulable"),
                              (self._active_q.has, "active"), (self._backoff_q.has, "backoff")):
                if has(key):
                    return f"Pod {key} is already present in the {name} queue"
            if not rejector_plugins(p):
                p.consecutive_errors += 1
            else:
                p.unschedulable_count += 1
                p.consecutive_errors = 0
            p.timestamp = self._clock.now
            p.backoff_expiration = None
            self.nominator.touch(p.pod.uid)  # queued again: its queued version is the one read
            self._requeue(p, self._hint_for_in_flight_pod(p), SCHEDULE_ATTEMPT_FAILURE)
            return None
        finally:
            self._active_q.done(p.pod.uid)

    def _hint_for_in_flight_pod(self, p: QueuedPodInfo) -> QueueingStrategy:
        """determineSchedulingHintForInFlightPod."""
        if not rejector_plugins(p):
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        events = self._active_q.cluster_events_for_pod(p.pod.uid)
        if events is None:  # not in flight: a caller bug upstream; retry rather than strand it
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        strategy = QueueingStrategy.QUEUE_SKIP
        for e in events:
            s = is_pod_worth_requeuing(self._hint_map, p, e.event, e.old_obj, e.new_obj)
            if s == QueueingStrategy.QUEUE_IMMEDIATELY:
                return s
            if s == QueueingStrategy.QUEUE_AFTER_BACKOFF:
                strategy = s
                if not p.pending_plugins:
                    return s
        return strategy

    # -- pod updates and deletes -------------------------------------------------------
    @_locked
    def update(self, old_pod: Pod | None, new_pod: Pod) -> None:
        """Update: refresh a queued pod; an update to a parked pod is an event for it (hints
        decide); an in-flight pod's update is recorded for when it comes back; an unknown pod
        is added to activeQ."""
        if old_pod is None:
            events = [ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE)]
        else:
            events = pod_scheduling_properties_change(new_pod, old_pod)
        if self._active_q.add_events_if_pod_in_flight(old_pod, new_pod, events):
            return
        if old_pod is not None:
            for q in (self._active_q, self._backoff_q):
                p = q.get(old_pod.key)
                if p is not None:
                    p.pod = new_pod
                    q.update(p)
                    self.nominator.update_nominated_pod(old_pod, new_pod)
                    return
        p = self._unschedulable.get(new_pod.key)
        if p is not None:
            p.pod = new_pod
            self.nominator.update_nominated_pod(old_pod or new_pod, new_pod)
            for e in events:
                strategy = is_pod_worth_requeuing(self._hint_map, p, e, old_pod, new_pod)
                queue = self._requeue(p, strategy, str(e))
                if queue == ACTIVE_Q or (self.pop_from_backoff_q and queue == BACKOFF_Q):
                    break
            return
        self._move_to_active_q(self._new_queued_pod_info(new_pod), str(EVENT_UNSCHEDULED_POD_UPDATE))

    @_locked
    def delete(self, pod: Pod) -> None:
        """Delete: drop the pod from whichever sub-queue holds it, and its nomination."""
        self.nominator.delete_nominated_pod_if_exists(pod)
        key = pod.key
        if self._active_q.delete(key) is None and self._backoff_q.delete(key) is None:
            self._unschedulable.delete(key)

    # -- cluster events ---------------------------------------------------------------
    @_locked
    def assigned_pod_added(self, pod: Pod) -> None:
        """AssignedPodAdded: only pods with a cross-topology term matching ``pod`` can gain."""
        self._move_pods(self._pods_with_cross_topology_term(pod), EVENT_ASSIGNED_POD_ADD, None, pod)

    @_locked
    def assigned_pod_updated(self, old_pod: Pod, new_pod: Pod, event: ClusterEvent) -> None:
        """AssignedPodUpdated: a scale-down may help any pod (e.g. NodeResourcesFit rejections);
        other updates only pods with a cross-topology term."""
        if matches(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN), event):
            self._move_all(event, old_pod, new_pod, None)
        else:
            self._move_pods(self._pods_with_cross_topology_term(new_pod), event, old_pod, new_pod)

    def move_all_to_active_or_backoff_queue(self, event: ClusterEvent, old_obj: Any, new_obj: Any,
                                            pre_check: PreEnqueueCheck | None = None) -> None:
        """MoveAllToActiveOrBackoffQueue: offer ``event`` to every parked pod (passing
        ``pre_check``); the rejecting plugins' hints decide which move.

        With no pod parked and none in flight there is nothing to move and no one to record the
        event for: the call changes nothing, so the flush timer needs no re-arming either (the
        usual case on every binding when pods schedule at once)."""
        with self._lock:
            if not len(self._unschedulable) and not self._active_q.has_in_flight():
                return
            try:
                self._move_all(event, old_obj, new_obj, pre_check)
            finally:
                self._arm()

    def _move_all(self, event: ClusterEvent, old_obj: Any, new_obj: Any,
                  pre_check: PreEnqueueCheck | None) -> None:
        if not self._hint_map.is_event_of_interest(event):
            return
        candidates = self._hint_map.candidates(event, old_obj, new_obj)
        if candidates is None:
            pods = [p for p in self._unschedulable if pre_check is None or pre_check(p.pod)]
        else:
            # Only the named pods can be queued by a hint; those without a rejecting plugin
            # or of a profile without hints move on any event. Same order, fewer hint calls.
            profiles = set(self._hint_map)
            pods = [p for p in self._unschedulable.named(candidates)
                    if (p.pod.uid in candidates or not (p.unschedulable_plugins or p.pending_plugins)
                        or p.pod.scheduler_name not in profiles)
                    and (pre_check is None or pre_check(p.pod))]
        self._move_pods(pods, event, old_obj, new_obj)

    def _move_pods(self, pods: list[QueuedPodInfo], event: ClusterEvent, old_obj: Any, new_obj: Any) -> None:
        """movePodsToActiveOrBackoffQueue; the event is also recorded for in-flight pods (even
        when no pod is parked: a pod in flight may fail and be judged on it)."""
        if not self._hint_map.is_event_of_interest(event):
            return
        wildcard = is_wildcard(event)
        for p in pods:
            if p.gated and not wildcard and not match_any(event, p.gating_plugin_events):
                # Only an event the gating plugin registered can ungate the pod, or a wildcard
                # (the leftover flush): its PreEnqueue plugins then run again (kubernetes PR
                # 139162), so that a preemptor gated while its preemption ran is not stranded
                # when no later event concerns the plugins that rejected it.
                continue
            strategy = is_pod_worth_requeuing(self._hint_map, p, event, old_obj, new_obj)
            if strategy == QueueingStrategy.QUEUE_SKIP:
                continue
            self._unschedulable.delete(p.pod.key)
            self._requeue(p, strategy, str(event))
        self._active_q.add_event_if_any_in_flight(old_obj, new_obj, event)

    def _pods_with_cross_topology_term(self, pod: Pod) -> list[QueuedPodInfo]:
        ns_labels = self._namespace_labels(pod.namespace) if self._namespace_labels else None
        return [p for p in self._unschedulable
                if has_cross_topology_term(
                    p.pod, not self._namespace_spread_plugins.isdisjoint(p.unschedulable_plugins or ()),
                    pod, ns_labels)]

    # -- the nominator -------------------------------------------------------------------
    @_locked
    def add_nominated_pod(self, pod: Pod | PodInfo, nominating_info: PostFilterResult | None = None) -> None:
        """AddNominatedPod (ModeOverride: the given node; ModeNoop/None: the pod's own)."""
        self.nominator.add_nominated_pod(pod.pod if isinstance(pod, PodInfo) else pod, nominating_info)

    @_locked
    def update_nominated_pod(self, old_pod: Pod, new_pod: Pod) -> None:
        self.nominator.update_nominated_pod(old_pod, new_pod)

    @_locked
    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        self.nominator.delete_nominated_pod_if_exists(pod)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """NominatedPodsForNode: the pods nominated to the node, as the queue knows them now.

        Read-only, so no flush timer to re-arm; asked for every node a preemption dry run or a
        filter pass looks at, so a node without nominated pods costs one lookup."""
        with self._lock:
            pods = self.nominator.nominated_pods(node_name)
            if not pods:
                return []
            return [self._nominated_info(pod) for pod in pods]

    def _nominated_info(self, pod: Pod) -> PodInfo:
        """nominatedPodToInfo's PodInfo, reused while the pod's latest version is the same
        object (upstream hands out the queue's own PodInfo; rebuilding one per node per cycle
        made filtering around thousands of nominated pods quadratic in cost)."""
        latest = self._latest(pod)
        memo = self._nominated_infos
        hit = memo.get(latest.uid)
        if hit is not None and hit.pod is latest:
            return hit
        if len(memo) >= _NOMINATED_INFO_LIMIT:
            memo.clear()
        info = memo[latest.uid] = PodInfo(latest)
        return info

    def nominated_changes_since(self, version: int) -> tuple[int, list[str] | None]:
        """(the nominator's version now, the nodes whose nominated pods may have changed since
        ``version``, or None when that is too far back): see ``Nominator.changes_since``."""
        with self._lock:
            return self.nominator.version, self.nominator.changes_since(version)

    def nominated_node_names(self) -> set[str]:
        """The nodes that have nominated pods (read-only: no timer to re-arm)."""
        with self._lock:
            return self.nominator.node_names()

    def _latest(self, pod: Pod) -> Pod:
        """nominatedPodToInfo: prefer the version in activeQ, unschedulablePods or backoffQ."""
        for get in (self._active_q.get, self._unschedulable.get, self._backoff_q.get):
            p = get(pod.key)
            if p is not None and p.pod.uid == pod.uid:
                return p.pod
        return pod

    # -- introspection (tests, debugging, metrics) ------------------------------------------
    @_locked
    def get_pod(self, name: str, namespace: str) -> QueuedPodInfo | None:
        key = f"{namespace}/{name}" if namespace else name
        return self._backoff_q.get(key) or self._unschedulable.get(key) or self._active_q.get(key)

    @_locked
    def pods_in_active_q(self) -> list[Pod]:
        return [p.pod for p in self._active_q.items()]

    @_locked
    def pods_in_backoff_q(self) -> list[Pod]:
        return [p.pod for p in self._backoff_q.items()]

    @_locked
    def unschedulable_pods(self) -> list[Pod]:
        return [p.pod for p in self._unschedulable]

    @_locked
    def in_flight_pods(self) -> list[Pod]:
        return self._active_q.in_flight_pods()

    @_locked
    def in_flight_events(self) -> list[Pod | InFlightEvent]:
        """The in-flight list: popped pods and the events recorded after them, in order."""
        return self._active_q.in_flight_events()

    @_locked
    def pending_pods(self) -> tuple[list[Pod], str]:
        """PendingPods: every queued pod and upstream's summary string."""
        active, backoff = self.pods_in_active_q(), self.pods_in_backoff_q()
        unsched = self.unschedulable_pods()
        summary = f"activeQ:{len(active)}; backoffQ:{len(backoff)}; unschedulablePods:{len(unsched)}"
        return [*active, *backoff, *unsched], summary

    @_locked
    def pending_pod_counts(self) -> dict[str, int]:
        """Counts for ``scheduler_pending_pods{queue}``: active, backoff, unschedulable, gated."""
        gated = self._unschedulable.count_gated()
        return {"active": len(self._active_q), "backoff": len(self._backoff_q),
                "unschedulable": len(self._unschedulable) - gated, "gated": gated}
