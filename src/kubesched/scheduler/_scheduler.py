"""The Scheduler: profiles, queue, cache and store wired together, and the run loops.

Mirrors pkg/scheduler/scheduler.go (master 2026): one framework per profile (keyed by
``schedulerName``), one scheduling queue and one cache shared by all profiles, the store's watch
feeding the event handlers, extenders from the configuration. ``schedule_one`` (the cycles) lives
in :mod:`._schedule_one`.

Time and randomness are injected: the clock (VirtualClock in simulations) and one
``random.Random(seed)`` used for every random choice (ties in host selection, preemption's
candidate offset), so the same inputs and seed give the same placements.
"""

from __future__ import annotations

import enum
import logging
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, cast

from ..api import Namespace, Node, Pod, PodGroup
from ..cache import Cache, PodInfo, Snapshot
from ..clock import Clock, VirtualClock
from ..cluster import Store, WatchEvent
from ..framework import (
    EXTENDER_NAME,
    MAX_PERMIT_TIMEOUT,
    ActionType,
    EventResource,
    Framework,
    PostFilterResult,
    QueuedPodInfo,
    feature_gates_for,
    gang_scheduling_enabled,
    new_profile_map,
)
from ..framework.config import SchedulerConfig, default_config
from ..plugins.names import POD_TOPOLOGY_SPREAD
from ..plugins.queuesort import PrioritySort
from ..plugins.registry import in_tree_registry
from ..queue import (
    PriorityQueue,
    build_queueing_hint_map,
)
from ._algorithm import ScheduleAlgorithm
from ._attempt_hook import AttemptHook
from ._eventhandlers import KIND_TO_RESOURCE, EventHandlers
from ._extender import HTTPExtender, build_extenders
from ._loop import run
from ._metrics import SchedulerMetrics
from ._pod_informer import deliver_pod_event, informer_selects
from ._schedule_one import NOMINATED_NODE_NAME_FOR_EXPECTATION, CycleStats
from ._schedule_pod_group import SchedulePodGroupMixin
from ._workers import WorkerPool

__all__ = ["BINDING_WORKERS", "RunSummary", "Scheduler", "SchedulerOptions"]

log = logging.getLogger(__name__)

BINDING_WORKERS = 64
"""Binding cycles in flight at once in live mode (goroutines upstream: unbounded; here
threads, bounded so that a slow API server does not grow them without limit). A binding POST
waits milliseconds on a busy API server; with 16 workers the bindings queued behind each other
and kubesched ended 4 s behind a burst of 5000 pod creations where kube-scheduler ended under
1 s behind (benchmarks/live_side_by_side.py, 1000 nodes); with 64, 1-2 s."""

_NAMESPACE_SPREAD_PLUGINS = frozenset({POD_TOPOLOGY_SPREAD})
"""Plugins whose rejection any assigned pod of the rejected pod's namespace may resolve: the
queue's cross-topology pre-check (upstream names PodTopologySpread in the queue itself)."""


class BindingMode(enum.StrEnum):
    """How binding cycles run (:attr:`SchedulerOptions.binding`)."""

    CLOCK = "clock"
    """A task at the current time on the clock: deterministic, the default."""
    THREAD = "thread"
    """Live mode: binding workers run them beside the loop, as upstream's goroutines; their
    failure handling comes back to the loop."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SchedulerOptions:
    """Knobs that are not part of KubeSchedulerConfiguration.

    ``binding``: how binding cycles run (:class:`BindingMode`; its value as a string is
    accepted too).
    ``per_node_filters``: force the per-node Filter path (the batch path is used otherwise).
    ``assumed_pod_ttl``: seconds after FinishBinding before an unconfirmed assumed pod expires;
    0 (newest upstream) never expires it.
    ``features``: feature gates handed to plugins."""

    binding: BindingMode = BindingMode.CLOCK
    per_node_filters: bool = False
    assumed_pod_ttl: float = 0.0
    features: Mapping[str, bool] = field(default_factory=dict)
    registry: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "binding", BindingMode(self.binding))


@dataclass(slots=True)
class RunSummary:
    """What ``run_until_idle`` did: pods bound, scheduling attempts and their outcomes, and
    which pods were still pending at the end."""

    scheduled: int = 0
    attempts: int = 0
    unschedulable_attempts: int = 0
    error_attempts: int = 0
    pending: list[str] = field(default_factory=list)
    unschedulable: list[str] = field(default_factory=list)
    end_time: float = 0.0


class _ExtenderPlugin:
    """Stands for extenders in the queueing-hint map: pods an extender rejected are retried on
    any cluster event (extenders register none; kubernetes#122019)."""

    def name(self) -> str:
        return EXTENDER_NAME


class _NominatorView:
    """The scheduling queue as the frameworks' nominator, with a fast path: most nodes have no
    nominated pod, and asking the queue (its lock and timer re-arm) for every node of every
    cycle dominated filtering time. Everything else goes to the queue."""

    def __init__(self, queue: PriorityQueue) -> None:
        self._queue = queue

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        if not self._queue.nominator.nominated_pods(node_name):
            return []
        return self._queue.nominated_pods_for_node(node_name)

    def __len__(self) -> int:
        return len(self._queue.nominator)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._queue, name)


class Scheduler(SchedulePodGroupMixin):
    """kube-scheduler over a :class:`~kubesched.cluster.Store`.

    ``store``: the cluster (MemoryStore or a live adapter); ``clock``: defaults to the store's;
    ``config``: a SchedulerConfig (``default_config()`` when None); ``seed``: the RNG seed."""

    def __init__(self, store: Store, clock: Clock | None = None, config: SchedulerConfig | None = None,
                 seed: int = 0,
                 options: SchedulerOptions | None = None) -> None:
        self.store = store
        self.clock: Clock = clock if clock is not None else getattr(store, "clock", None) or VirtualClock()
        options = options or SchedulerOptions()
        config = config if config is not None else default_config(options.features or None)
        # The release's gate defaults (the config's, decoded with the caller's gates) with the
        # options' gates on top: from here on every reader sees each known gate.
        self.options = replace(options, features=feature_gates_for(
            config.kube_version, {**config.features, **options.features}))
        # buildExtenders: ignorable extenders last; their ignoredByScheduler resources become
        # every profile's NodeResourcesFit ignoredResources, before the frameworks are built.
        self.extenders: list[HTTPExtender]
        self.extenders, self.config = build_extenders(config)
        self.rng = random.Random(seed)
        # Which cycles time each plugin call (pluginMetricsSamplePercent): drawn from a second
        # generator seeded from ``seed``, so that sampling never shifts the decisions' stream.
        self.plugin_metrics_rng = random.Random(f"pluginMetricsSample/{seed}")
        # NominatedNodeNameForExpectation (KEP-5278; beta, on by default since 1.35).
        self.nominated_node_name_for_expectation = bool(
            self.options.features.get(NOMINATED_NODE_NAME_FOR_EXPECTATION, True))
        self.metrics = SchedulerMetrics()
        self.stats = CycleStats()
        # Told of each attempt, may stop the run before one (see AttemptHook); None: no hook.
        self.attempt_hook: AttemptHook | None = None
        self.stopped_before: QueuedPodInfo | None = None
        self.stopped_pod_group: PodGroup | None = None  # the cycle stopped_before was in
        self.bindings_in_flight = 0
        self.last_progress = self.clock.now
        self.snapshot = Snapshot()
        self.cache = Cache(self.clock, self.options.assumed_pod_ttl)
        self.profiles: dict[str, Framework] = new_profile_map(
            self.config, in_tree_registry(self.options.features), registry=self.options.registry,
            clock=self.clock, rng=self.rng, store=self.store, features=self.options.features,
            kube_version=self.config.kube_version,
            extenders=self.extenders,
            snapshot=lambda: self.snapshot, per_node=self.options.per_node_filters,
            observer=self.metrics.observe_extension_point,
            plugin_observer=self.metrics.observe_plugin)
        self.queue = self._new_queue()
        for fwk in self.profiles.values():
            fwk.set_nominator(_NominatorView(self.queue))
            fwk.metrics = self.metrics  # plugins' metrics (preemption) go to this scheduler's registry
            if fwk.batch is not None:
                fwk.batch.metrics = self.metrics
            fwk.set_pod_group_states(self.cache.pod_groups)
            if self.options.binding is BindingMode.THREAD:
                fwk.run_async = self._spawn  # asynchronous preemption beside the loop, too
        self.algorithm = ScheduleAlgorithm(self.extenders, self.rng,
                                           per_node=self.options.per_node_filters)
        self.handlers = EventHandlers(self, gang_scheduling=gang_scheduling_enabled(self.options.features))
        self._lock = threading.RLock()
        self._pool: WorkerPool | None = None
        self._worker = threading.local()
        self._initial_sync()
        self._unsubscribe = store.subscribe(self._on_watch_event)
        self.queue.start()

    # -- construction ------------------------------------------------------------------------
    def _new_queue(self) -> PriorityQueue:
        first = next(iter(self.profiles.values()))
        less = first.queue_sort_func()
        sort_plugins = first.queue_sort_plugins
        sort_key = _priority_sort_key if sort_plugins and type(sort_plugins[0]) is PrioritySort else None
        pre_enqueue = {name: list(f.pre_enqueue_plugins) for name, f in self.profiles.items()}
        # The plugins that can reject a pod register the events that may help it
        # (buildQueueingHintMap over PreEnqueue, PreFilter, Filter, Reserve, Permit).
        rejectors = {name: [*f.pre_enqueue_plugins, *f.pre_filter_plugins, *f.filter_plugins,
                            *f.reserve_plugins, *f.permit_plugins,
                            *([_ExtenderPlugin()] if self.extenders else [])]
                     for name, f in self.profiles.items()}
        return PriorityQueue(
            self.clock, less, pre_enqueue, build_queueing_hint_map(rejectors),
            pod_initial_backoff=float(self.config.pod_initial_backoff_seconds),
            pod_max_backoff=float(self.config.pod_max_backoff_seconds),
            pop_from_backoff_q=self.options.features.get("SchedulerPopFromBackoffQ", True),
            pod_lookup=self._store_get_pod,
            namespace_labels=self._namespace_labels,
            sort_key=sort_key,
            namespace_spread_plugins=_NAMESPACE_SPREAD_PLUGINS,
        )

    def _initial_sync(self) -> None:
        """The informers' initial list: nodes, then pods (not finished ones: the pod informer's
        field selector), then nothing else matters yet."""
        for node in self.store.list("Node"):
            self.handlers.add_node(node)
        for pod in self.store.list("Pod"):
            if informer_selects(pod):
                self.handlers.add_pod(pod)

    def close(self) -> None:
        """Stop watching the store and the queue's timers."""
        self._unsubscribe()
        self.queue.stop()

    # -- profiles ----------------------------------------------------------------------------
    def handles_scheduler_name(self, name: str) -> bool:
        return name in self.profiles

    def framework_for_pod(self, pod: Pod) -> Framework:
        """frameworkForPod; KeyError for a schedulerName without a profile."""
        try:
            return self.profiles[pod.scheduler_name]
        except KeyError:
            raise KeyError(f"profile not found for scheduler name {pod.scheduler_name!r}") from None

    # -- store plumbing ------------------------------------------------------------------------
    def _on_watch_event(self, ev: WatchEvent) -> None:
        """Dispatch a watch event to the handlers (the informers' event handlers); the event's
        ``kind`` names its objects' type (the casts say so to the type checker)."""
        kind, typ, old, new = ev.kind, ev.type, ev.old, ev.new
        if not ev.is_pending_pod_status_update:
            self.last_progress = self.clock.now
        h = self.handlers
        if kind == "Pod":
            deliver_pod_event(h, typ, cast("Pod | None", old), cast("Pod | None", new))
        elif kind == "Node":
            if typ == "ADDED":
                h.add_node(cast(Node, new))
            elif typ == "MODIFIED":
                h.update_node(cast(Node, old), cast(Node, new))
            else:
                h.delete_node(cast(Node, old))
        elif kind in KIND_TO_RESOURCE:
            action = {"ADDED": ActionType.ADD, "MODIFIED": ActionType.UPDATE}.get(typ, ActionType.DELETE)
            h.other(KIND_TO_RESOURCE[kind], action, old, new)
        elif kind == "DeviceTaintRule":
            # Upstream's ResourceSlice tracker applies taint rules to the slices it serves and
            # reports the change as ResourceSlice updates; no slice object stands for it here.
            h.other(EventResource.RESOURCE_SLICE, ActionType.UPDATE, None, None)

    def _store_get_pod(self, namespace: str, name: str) -> Pod | None:
        """The pod lister of the scheduler's informer: a finished pod is not found."""
        pod = self.store.try_get("Pod", namespace, name)
        return pod if pod is not None and informer_selects(pod) else None

    def _namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        ns = self.store.try_get("Namespace", "", namespace)
        return ns.labels if isinstance(ns, Namespace) else None

    def _store_update_pod(self, pod: Pod, condition: dict[str, Any] | None,
                          nominating: PostFilterResult | None) -> None:
        """updatePod: the condition (the store skips an unchanged one) and, in ModeOverride,
        nominatedNodeName when it differs from ``pod``'s: upstream compares with the pod it was
        given (the one popped from the queue), not the current one, so a binding cycle's
        failure leaves the nominatedNodeName its NominatedNodeNameForExpectation step wrote."""
        nnn = None
        if nominating is not None and nominating.mode == "ModeOverride" \
                and nominating.nominated_node_name != (pod.nominated_node_name or ""):
            nnn = nominating.nominated_node_name
        try:
            self.store.patch_pod_status(pod.namespace, pod.name, [condition] if condition else [], nnn)
        except Exception as err:  # the pod may be gone; upstream logs and moves on
            log.error('Error updating pod pod="%s/%s" err="%s"', pod.namespace, pod.name, err)

    def _store_extender_binding(self, pod: Pod, node_name: str) -> None:
        """The Binding a binder extender created through the API server, as the store sees it:
        the pod bound to ``node_name`` (the informer's update then confirms the assumed pod).
        Nothing to do when the store already shows it (an extender that wrote to this store)."""
        current = self._store_get_pod(pod.namespace, pod.name)
        if current is not None and current.uid == pod.uid and current.node_name == node_name:
            return
        self.store.bind(pod.namespace, pod.name, node_name, uid=pod.meta.uid or None)

    def _record_event(self, pod: Pod, type_: str, reason: str, action: str, message: str) -> None:
        """The event recorder: a failure is logged upstream, never raised. (try, not
        contextlib.suppress: this runs for every bound pod, and a suppress object per call
        costs more than the guarded call's own bookkeeping.)"""
        try:
            self.store.record_event(pod, reason, message, type=type_, action=action)
        except Exception:
            return

    def _update_snapshot(self) -> None:
        self.cache.update_snapshot(self.snapshot)

    def _count_binding(self, delta: int) -> None:
        with self._lock:
            self.bindings_in_flight += delta

    def _spawn(self, fn: Callable[[], None]) -> None:
        """Start a binding cycle: a task on the clock, or (``BindingMode.THREAD``, live mode) a
        job for the binding workers, upstream's ``go sched.bindingCycle(...)``."""
        if self.options.binding is BindingMode.THREAD:
            self._binding_pool().submit(partial(self._on_worker, fn))
        else:
            self.clock.schedule(0.0, fn)

    def _binding_pool(self) -> WorkerPool:
        if self._pool is None:
            self._pool = WorkerPool(BINDING_WORKERS, "binding")
        return self._pool

    def _on_worker(self, fn: Callable[[], None]) -> None:
        self._worker.active = True
        try:
            fn()
        except Exception:
            log.exception("binding cycle failed")

    def _resume_binding(self, fn: Callable[[], None]) -> None:
        """After WaitOnPermit: a pod allowed from the loop thread (a Permit plugin, a timeout)
        goes back to a binding worker; one that did not wait continues where it is."""
        if self.options.binding is BindingMode.THREAD and not getattr(self._worker, "active", False):
            self._binding_pool().submit(partial(self._on_worker, fn))
        else:
            fn()

    def _to_loop(self, fn: Callable[[], None]) -> None:
        """Binding-cycle failure handling runs on the loop (a timer due now on the clock)."""
        if self.options.binding is BindingMode.THREAD:
            self.clock.schedule(0.0, fn)
        else:
            fn()

    def shutdown_binding(self, wait: bool = True) -> None:
        """Stop the binding workers (after the cycles in flight when ``wait``)."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait)
            self._pool = None

    # -- running -----------------------------------------------------------------------------
    def schedule_pending(self, max_cycles: int | None = None) -> int:
        """Run scheduling cycles while activeQ has pods (binding tasks stay queued on the
        clock); returns the number of cycles run."""
        n = 0
        while max_cycles is None or n < max_cycles:
            if not self.schedule_one():
                break
            n += 1
        self._update_pending_metric()
        return n

    run_one_cycle = SchedulePodGroupMixin.schedule_one

    def run_until_idle(self, until: float | None = None, max_cycles: int = 1_000_000,
                       before_step: Callable[[float], None] | None = None) -> RunSummary:
        """Schedule until nothing more can happen (VirtualClock only): :func:`~._loop.run` to
        its fixed point, or to ``until`` (the clock then moved there). ``max_cycles`` bounds
        the number of scheduling cycles as a safety net; ``before_step`` is told the time of
        each timer before the clock moves there (a replay samples its metrics on the way).
        When the attempt hook stops the run (``stopped_before``), the loop returns at once,
        the clock where that attempt was about to run."""
        if not isinstance(self.clock, VirtualClock):
            raise TypeError("run_until_idle needs a VirtualClock")
        run(self, until, before_step=before_step, max_cycles=max_cycles)
        clock = self.clock
        if until is not None and self.stopped_before is None and clock.now < until < clock.peek():
            clock.run(until=until)
        return self.summary()

    def _drain_bindings(self, until: float | None) -> None:
        """Stopping with binding cycles in flight (pods waiting on Permit for a gang that never
        completes): run the clock on, starting no new cycle, until each has ended (allowed,
        rejected or timed out: at most the longest Permit wait), so that no pod is left
        assumed and each reports why it was not placed."""
        clock = self.clock
        assert isinstance(clock, VirtualClock)
        limit = clock.now + MAX_PERMIT_TIMEOUT
        if until is not None:
            limit = min(limit, until)
        while self.bindings_in_flight > 0 and clock.peek() <= limit:
            clock.step()

    def summary(self) -> RunSummary:
        pending, _ = self.queue.pending_pods()
        return RunSummary(
            scheduled=self.stats.scheduled,
            attempts=self.stats.attempts,
            unschedulable_attempts=self.stats.unschedulable_attempts,
            error_attempts=self.stats.error_attempts,
            pending=sorted(p.key for p in pending),
            unschedulable=sorted(p.key for p in self.queue.unschedulable_pods()),
            end_time=self.clock.now,
        )

    def _update_pending_metric(self) -> None:
        self.metrics.set_pending(self.queue.pending_pod_counts())


def _priority_sort_key(p: QueuedPodInfo) -> tuple[int, float]:
    """PrioritySort's ``less`` as a sort key (higher priority, then earlier timestamp): the
    queue's heaps then compare tuples in C instead of calling ``less``."""
    return -p.pod.priority_value, p.timestamp
