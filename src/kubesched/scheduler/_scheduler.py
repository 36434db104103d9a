"""The Scheduler: profiles, queue, cache and store wired together, and the run loops.

Mirrors pkg/scheduler/scheduler.go (master 2026): one framework per profile (keyed by
``schedulerName``), one scheduling queue and one cache shared by all profiles, the store's watch
feeding the event handlers, extenders from the configuration. The cycles (ScheduleOne) are a
:class:`~._schedule_one.ScheduleOne` built here over those, the store's reads and writes
(:class:`~._store_client.StoreClient`) and the binding executor the binding mode selects
(:mod:`._binding`).

Time and randomness are injected: the clock (VirtualClock in simulations) and one
``random.Random(seed)`` used for every random choice (ties in host selection, preemption's
candidate offset), so the same inputs and seed give the same placements.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from ..api import DeviceTaintRule, Node, Pod
from ..cache import Cache, PodInfo, Snapshot
from ..clock import Clock, VirtualClock
from ..cluster import Clocked, Store, WatchEvent
from ..framework import (
    EXTENDER_NAME,
    MAX_PERMIT_TIMEOUT,
    ActionType,
    EventResource,
    Framework,
    QueuedPodInfo,
    feature_gates_for,
    gang_scheduling_enabled,
    new_profile_map,
)
from ..framework.config import SchedulerConfig, default_config
from ..plugins.helper.dra import DEVICE_TAINT_RULES_OWN_GATE, manager_for
from ..plugins.names import POD_TOPOLOGY_SPREAD
from ..plugins.queuesort import PrioritySort
from ..plugins.registry import in_tree_registry
from ..queue import (
    PriorityQueue,
    build_queueing_hint_map,
)
from ._algorithm import ScheduleAlgorithm
from ._binding import BindingExecutor, BindingMode, new_binding_executor
from ._eventhandlers import KIND_TO_RESOURCE, EventHandlers
from ._extender import HTTPExtender, build_extenders
from ._loop import run
from ._metrics import SchedulerMetrics
from ._pod_informer import deliver_pod_event, informer_selects
from ._schedule_one import NOMINATED_NODE_NAME_FOR_EXPECTATION, ScheduleOne
from ._store_client import StoreClient

__all__ = ["RunSummary", "Scheduler", "SchedulerOptions"]

log = logging.getLogger(__name__)

_NAMESPACE_SPREAD_PLUGINS = frozenset({POD_TOPOLOGY_SPREAD})
"""Plugins whose rejection any assigned pod of the rejected pod's namespace may resolve: the
queue's cross-topology pre-check (upstream names PodTopologySpread in the queue itself)."""


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
    cycle dominated filtering time. The rest is the queue's: the change log the nominated
    columns read (``LoggingNominator``) and ``activate`` (upstream's PodActivator)."""

    __slots__ = ("_queue",)

    def __init__(self, queue: PriorityQueue) -> None:
        self._queue = queue

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        if not self._queue.nominator.nominated_pods(node_name):
            return []
        return self._queue.nominated_pods_for_node(node_name)

    def __len__(self) -> int:
        return len(self._queue.nominator)

    def nominated_changes_since(self, version: int) -> tuple[int, list[str] | None]:
        return self._queue.nominated_changes_since(version)

    def nominated_node_names(self) -> set[str]:
        return self._queue.nominated_node_names()

    def activate(self, pods: Mapping[str, Pod]) -> None:
        self._queue.activate(pods)


class Scheduler:
    """kube-scheduler over a :class:`~kubesched.cluster.Store`.

    ``store``: the cluster (MemoryStore or a live adapter); ``clock``: defaults to the store's;
    ``config``: a SchedulerConfig (``default_config()`` when None); ``seed``: the RNG seed."""

    def __init__(self, store: Store, clock: Clock | None = None, config: SchedulerConfig | None = None,
                 seed: int = 0,
                 options: SchedulerOptions | None = None) -> None:
        self.store = store
        if clock is None:
            clock = store.clock if isinstance(store, Clocked) else None
        self.clock: Clock = clock if clock is not None else VirtualClock()
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
        self.metrics = SchedulerMetrics()
        self.client = StoreClient(store)
        # Where binding cycles run: the one place the binding mode is looked at.
        self.binding: BindingExecutor = new_binding_executor(self.options.binding, self.clock)
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
            # asynchronous preemption where binding cycles run (live mode: beside the loop)
            fwk.run_async = self.binding.run_async
        self.algorithm = ScheduleAlgorithm(self.extenders, self.rng,
                                           per_node=self.options.per_node_filters)
        self.cycles = ScheduleOne(
            profiles=self.profiles, queue=self.queue, cache=self.cache, snapshot=self.snapshot,
            algorithm=self.algorithm, extenders=self.extenders, metrics=self.metrics,
            plugin_metrics_rng=self.plugin_metrics_rng, client=self.client, binding=self.binding,
            # NominatedNodeNameForExpectation (KEP-5278; beta, on by default since 1.35).
            nominated_node_name_for_expectation=bool(
                self.options.features.get(NOMINATED_NODE_NAME_FOR_EXPECTATION, True)))
        self.handlers = EventHandlers(self, gang_scheduling=gang_scheduling_enabled(self.options.features))
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
            pod_lookup=self.client.get_pod,
            namespace_labels=self.client.namespace_labels,
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
        elif kind == "DeviceTaintRule" and self._rule_changes_slices(
                cast("DeviceTaintRule | None", old), cast("DeviceTaintRule | None", new)):
            # Upstream's ResourceSlice tracker applies taint rules to the slices it serves and
            # reports the change as ResourceSlice updates; no slice object stands for it here.
            h.other(EventResource.RESOURCE_SLICE, ActionType.UPDATE, None, None)

    def _rule_changes_slices(self, old: DeviceTaintRule | None, new: DeviceTaintRule | None) -> bool:
        """Whether the tracker would report slice updates for this rule change (its
        deviceTaintAdd/Update/Delete sync the slices the old or new rule selects, and syncSlice
        reports only a slice whose patched copy changed): the rule (before or after) selects a
        device of a stored slice, and an update changed its selector or taint. In 1.33 and
        1.34 a rule also selects by class and CEL (:data:`DEVICE_TAINT_RULES_OWN_GATE`)."""
        def selector(r: DeviceTaintRule) -> tuple[object, ...]:
            return (r.driver, r.pool, r.device, r.device_class_name, r.selectors, r.taint)

        if old is not None and new is not None and selector(old) == selector(new):
            return False
        class_and_cel = not DEVICE_TAINT_RULES_OWN_GATE.on(self.config.kube_version)
        slices = self.store.list("ResourceSlice")
        mgr = manager_for(self.store)
        return any(patched is not s for r in (old, new) if r is not None
                   for s, patched in zip(slices, mgr.patch_slices(slices, [r], class_and_cel), strict=True))

    def _update_snapshot(self) -> None:
        self.cache.update_snapshot(self.snapshot)

    def shutdown_binding(self, wait: bool = True) -> None:
        """Stop the binding workers (after the cycles in flight when ``wait``)."""
        self.binding.shutdown(wait=wait)

    # -- the cycles (ScheduleOne) --------------------------------------------------------------
    def schedule_one(self) -> bool:
        """ScheduleOne: pop one pod and run its scheduling cycle (its binding cycle is started
        on the binding executor). False when activeQ had no pod, or the attempt hook stopped
        the run. Kept on the Scheduler because upstream's ``Scheduler.ScheduleOne`` is the
        entry point its ``Run`` loop calls (``wait.UntilWithContext(ctx, sched.ScheduleOne,
        0)``); the cycles' own state (``stats``, ``attempt_hook``, ``stopped_before``,
        ``bindings_in_flight``, ...) is read from :attr:`cycles`."""
        return self.cycles.schedule_one()

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

    def run_until_idle(self, until: float | None = None, max_cycles: int = 1_000_000,
                       before_step: Callable[[float], None] | None = None) -> RunSummary:
        """Schedule until nothing more can happen (VirtualClock only): :func:`~._loop.run` to
        its fixed point, or to ``until`` (the clock then moved there). ``max_cycles`` bounds
        the number of scheduling cycles as a safety net; ``before_step`` is told the time of
        each timer before the clock moves there (a replay samples its metrics on the way).
        When the attempt hook stops the run (``cycles.stopped_before``), the loop returns at once,
        the clock where that attempt was about to run."""
        if not isinstance(self.clock, VirtualClock):
            raise TypeError("run_until_idle needs a VirtualClock")
        run(self, until, before_step=before_step, max_cycles=max_cycles)
        clock = self.clock
        if until is not None and self.cycles.stopped_before is None and clock.now < until < clock.peek():
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
        while self.cycles.bindings_in_flight > 0 and clock.peek() <= limit:
            clock.step()

    def summary(self) -> RunSummary:
        pending, _ = self.queue.pending_pods()
        stats = self.cycles.stats
        return RunSummary(
            scheduled=stats.scheduled,
            attempts=stats.attempts,
            unschedulable_attempts=stats.unschedulable_attempts,
            error_attempts=stats.error_attempts,
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
