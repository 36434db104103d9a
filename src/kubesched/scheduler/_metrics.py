"""Scheduler metrics with upstream's names, one registry per scheduler.

Mirrors pkg/scheduler/metrics/metrics.go (master 2026): names, label names and bucket layouts.
Each :class:`SchedulerMetrics` owns a ``CollectorRegistry`` so that several schedulers (and
tests) in one process never collide. Durations are wall time (``time.perf_counter``): they
measure our speed and never feed a decision.

Histograms are fed several times per scheduling cycle (every extension point), so they are
:class:`FastHistogram` collectors: one lock and one bucket search per observation instead of
prometheus_client's lock per bucket and sum; the registry renders them the same (``_bucket``
with ``le``, ``_count``, ``_sum``; no ``_created``, which Go's client does not export either).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.core import HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from ..metrics import exposition

__all__ = [
    "ERROR",
    "PLUGIN_METRICS_SAMPLE_PERCENT",
    "SCHEDULED",
    "UNSCHEDULABLE",
    "FastHistogram",
    "SchedulerMetrics",
    "exponential_buckets",
]

SCHEDULED = "scheduled"
UNSCHEDULABLE = "unschedulable"
ERROR = "error"

PLUGIN_METRICS_SAMPLE_PERCENT = 10
"""pluginMetricsSamplePercent (schedule_one.go): the share of scheduling cycles whose plugin
calls are timed into scheduler_plugin_execution_duration_seconds."""

PENDING_QUEUES = ("active", "backoff", "unschedulable", "gated")


def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    """metrics.ExponentialBuckets."""
    return [start * factor**i for i in range(count)]


_PENDING_MAX = 1024
"""Observations a histogram child holds before it sorts them into buckets."""


class _HistogramChild:
    """One label set's buckets (not cumulative: bucket i counts values in (bound[i-1], bound[i]]).

    Observations are appended and sorted into buckets in batches (when :data:`_PENDING_MAX`
    are held, and before any read): the scheduler observes a dozen durations per cycle and
    reads them rarely, so the per-observation cost is one list append."""

    __slots__ = ("_bounds_array", "_counts", "_lock", "_pending", "_sum")

    def __init__(self, bounds: Sequence[float]) -> None:
        self._bounds_array = np.asarray(bounds, dtype=np.float64)
        self._lock = threading.Lock()
        self._counts = [0] * len(bounds)
        self._sum = 0.0
        self._pending: list[float] = []

    def observe(self, amount: float) -> None:
        """Histogram.Observe: counted in the first bucket whose upper bound is >= ``amount``."""
        pending = self._pending
        pending.append(amount)
        if len(pending) >= _PENDING_MAX:
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            pending = self._pending
            n = len(pending)  # appends after this point stay for the next flush
            if not n:
                return
            values = pending[:n]
            del pending[:n]
            # bisect_left per value (the first bound >= it), as one searchsorted
            per_bucket = np.bincount(np.searchsorted(self._bounds_array, values, side="left"),
                                     minlength=len(self._counts)).tolist()
            self._counts = [c + d for c, d in zip(self._counts, per_bucket, strict=True)]
            total = self._sum
            for amount in values:  # in order: the sum adds up exactly as one by one
                total += amount
            self._sum = total

    def read(self) -> tuple[list[int], float]:
        """(bucket counts, sum) of every observation so far."""
        self._flush()
        with self._lock:
            return list(self._counts), self._sum


class FastHistogram(Collector):
    """A labelled histogram with prometheus_client's Histogram surface for what we use
    (``labels(*values)``, ``observe``) and its exposition, at a fraction of its cost."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str] = (),
                 *, buckets: Sequence[float], registry: CollectorRegistry) -> None:
        bounds = sorted(float(b) for b in buckets)
        if bounds[-1] != math.inf:
            bounds.append(math.inf)
        self._name = name
        self._documentation = documentation
        self._labelnames = tuple(labelnames)
        self._bounds = tuple(bounds)
        self._children: dict[tuple[str, ...], _HistogramChild] = {}
        self._lock = threading.Lock()
        registry.register(self)

    def labels(self, *values: str, **kwargs: str) -> _HistogramChild:
        if kwargs:
            values = tuple(kwargs[n] for n in self._labelnames)
        if len(values) != len(self._labelnames):
            raise ValueError(f"{self._name}: expected labels {self._labelnames}, got {values}")
        key = tuple(str(v) for v in values)
        child = self._children.get(key)
        if child is None:
            with self._lock:
                child = self._children.setdefault(key, _HistogramChild(self._bounds))
        return child

    def observe(self, amount: float) -> None:
        """Observe on the histogram without labels (the child ``labels()`` gives, looked up
        directly once it exists: scheduler_pod_scheduling_attempts is fed for every bound pod)."""
        child = self._children.get(())
        if child is None:
            child = self.labels()
        child.observe(amount)

    def describe(self) -> Iterator[Metric]:
        yield HistogramMetricFamily(self._name, self._documentation, labels=self._labelnames)

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self._name, self._documentation, labels=self._labelnames)
        for values, child in list(self._children.items()):
            counts, total = child.read()
            acc, buckets = 0, []
            for bound, n in zip(self._bounds, counts, strict=True):
                acc += n
                buckets.append((floatToGoString(bound), float(acc)))
            family.add_metric(list(values), buckets, total)
        yield family


class _ChildMethods(dict[tuple[str, ...], Callable[..., None]]):
    """Label values -> one method (``observe``, ``inc``) of that label set's child, bound on
    first use (``__missing__``): the metrics fed for every extension point, attempt and sampled
    plugin call then cost one flat lookup and the call, not a ``labels()`` resolution."""

    def __init__(self, metric: Any, method: str) -> None:
        super().__init__()
        self._metric = metric
        self._method = method

    def __missing__(self, values: tuple[str, ...]) -> Callable[..., None]:
        bound: Callable[..., None] = getattr(self._metric.labels(*values), self._method)
        self[values] = bound
        return bound


class SchedulerMetrics:
    """The scheduler's own metrics (a subset of upstream's, same names and labels)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.schedule_attempts = Counter(
            "scheduler_schedule_attempts_total",
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
            "not be scheduled, while 'error' means an internal scheduler problem.",
            ["result", "profile"], registry=r)
        self.scheduling_attempt_duration = FastHistogram(
            "scheduler_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            ["result", "profile"], buckets=exponential_buckets(0.001, 2, 15), registry=r)
        self.pending_pods = Gauge(
            "scheduler_pending_pods",
            "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
            "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
            "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the "
            "number of unschedulable pods that the scheduler never attempted to schedule because "
            "they are gated.",
            ["queue"], registry=r)
        self.preemption_attempts = Counter(
            "scheduler_preemption_attempts_total",
            "Total preemption attempts in the cluster till now", registry=r)
        self.preemption_victims = FastHistogram(
            "scheduler_preemption_victims", "Number of selected preemption victims",
            buckets=exponential_buckets(1, 2, 7), registry=r)
        self.framework_extension_point_duration = FastHistogram(
            "scheduler_framework_extension_point_duration_seconds",
            "Latency for running all plugins of a specific extension point.",
            ["extension_point", "status", "profile"],
            buckets=exponential_buckets(0.0001, 2, 12), registry=r)
        self.pod_scheduling_attempts = FastHistogram(
            "scheduler_pod_scheduling_attempts",
            "Number of attempts to successfully schedule a pod.",
            buckets=exponential_buckets(1, 2, 5), registry=r)
        self.plugin_execution_duration = FastHistogram(
            "scheduler_plugin_execution_duration_seconds",
            "Duration for running a plugin at a specific extension point.",
            ["plugin", "extension_point", "status"],
            buckets=exponential_buckets(0.00001, 1.5, 20), registry=r)
        # OpportunisticBatching (KEP-5598): framework/_opportunistic_batch.py reports here.
        self.batch_attempts = Counter(
            "scheduler_batch_attempts_total", "Counts of results when we attempt to use batching.",
            ["profile", "result"], registry=r)
        self.batch_cache_flushed = Counter(
            "scheduler_batch_cache_flushed_total", "Counts of cache flushes by reason.",
            ["profile", "reason"], registry=r)
        self.get_node_hint_duration = FastHistogram(
            "scheduler_get_node_hint_duration_seconds", "Latency for getting a node hint.",
            ["hinted", "profile"], buckets=exponential_buckets(0.00001, 2, 12), registry=r)
        self.store_schedule_results_duration = FastHistogram(
            "scheduler_store_schedule_results_duration_seconds", "Latency for storing scheduling results.",
            ["profile"], buckets=exponential_buckets(0.00001, 2, 12), registry=r)
        # kubernetes#140289: re-scoring the last chosen node (BatchRescoresLastChosenNode).
        self.batch_rescore_attempts = Counter(
            "scheduler_batch_rescore_attempts_total",
            "Counts of rescore attempts during opportunistic batching.", ["profile"], registry=r)
        self.batch_rescore_duration = FastHistogram(
            "scheduler_batch_rescore_duration_seconds",
            "Latency for rescoring a node during opportunistic batching.",
            ["profile"], buckets=exponential_buckets(0.00001, 2, 12), registry=r)
        self._count_batch_rescore = _ChildMethods(self.batch_rescore_attempts, "inc")
        self._time_batch_rescore = _ChildMethods(self.batch_rescore_duration, "observe")
        self._count_batch_attempt = _ChildMethods(self.batch_attempts, "inc")
        self._count_batch_flush = _ChildMethods(self.batch_cache_flushed, "inc")
        self._time_node_hint = _ChildMethods(self.get_node_hint_duration, "observe")
        self._time_store_results = _ChildMethods(self.store_schedule_results_duration, "observe")
        self._count_attempt = _ChildMethods(self.schedule_attempts, "inc")
        self._time_attempt = _ChildMethods(self.scheduling_attempt_duration, "observe")
        self._time_extension_point = _ChildMethods(self.framework_extension_point_duration, "observe")
        self._time_plugin = _ChildMethods(self.plugin_execution_duration, "observe")

    # -- helpers named after metrics.PodScheduled / PodUnschedulable / PodScheduleError ------
    def observe_attempt(self, result: str, profile: str, seconds: float) -> None:
        """metrics.PodScheduled / PodUnschedulable / PodScheduleError: one attempt counted and
        timed."""
        key = (result, profile)
        self._count_attempt[key]()
        self._time_attempt[key](seconds)

    def observe_extension_point(self, point: str, status: str, profile: str, seconds: float) -> None:
        """metrics.FrameworkExtensionPointDuration.WithLabelValues(...).Observe (the
        framework's ``observer``, called after every extension point of every cycle)."""
        self._time_extension_point[point, status, profile](seconds)

    def observe_plugin(self, point: str, plugin: str, status: str, seconds: float) -> None:
        """scheduler_plugin_execution_duration_seconds, fed only in sampled cycles (the
        framework's ``plugin_observer``; upstream samples pluginMetricsSamplePercent = 10%)."""
        self._time_plugin[plugin, point, status](seconds)

    # -- the opportunistic batch's (framework.BatchMetrics) ------------------------------------
    def batch_attempt(self, profile: str, result: str) -> None:
        """metrics.BatchAttemptStats: no_hint, hint_used or hint_not_used."""
        self._count_batch_attempt[profile, result]()

    def batch_flushed(self, profile: str, reason: str) -> None:
        """metrics.BatchCacheFlushed, by reason (framework.BATCH_FLUSH_REASONS)."""
        self._count_batch_flush[profile, reason]()

    def observe_get_node_hint(self, hinted: str, profile: str, seconds: float) -> None:
        self._time_node_hint[hinted, profile](seconds)

    def observe_store_schedule_results(self, profile: str, seconds: float) -> None:
        self._time_store_results[(profile,)](seconds)

    def batch_rescore_attempt(self, profile: str) -> None:
        """metrics.BatchRescoreAttempts."""
        self._count_batch_rescore[(profile,)]()

    def observe_batch_rescore(self, profile: str, seconds: float) -> None:
        """metrics.BatchRescoreDuration."""
        self._time_batch_rescore[(profile,)](seconds)

    def set_pending(self, counts: Mapping[str, int]) -> None:
        for q in PENDING_QUEUES:
            self.pending_pods.labels(queue=q).set(counts.get(q, 0))

    def value(self, name: str, labels: Mapping[str, str] | None = None) -> float:
        """A sample's current value (0 when absent): a convenience for tests and the CLI."""
        v = self.registry.get_sample_value(name, dict(labels or {}))
        return 0.0 if v is None else v

    def exposition(self) -> bytes:
        """The Prometheus text format of this scheduler's registry (no ``_created`` series)."""
        return exposition([self.registry])
