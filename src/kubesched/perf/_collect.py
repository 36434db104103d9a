"""What a benchmark run measures: throughput samples, attempt latencies, extension-point time.

Throughput mirrors throughputCollector (test/integration/scheduler_perf/util.go, master 2026):
one sample per ``SAMPLE_INTERVAL`` (1 s) of wall time, the number of measured pods bound in the
interval divided by its actual duration; an interval in which no pod was bound yields no sample
(upstream keeps waiting for the next bound pod rather than recording 0 pods/s); the summary is
the average and the p50/p90/p99 of the sorted samples, index ``ceil(n * p / 100) - 1``.

Two differences, both because our scheduler and the "API server" run in one thread:
- upstream samples on a ticker goroutine; we sample when a measured pod is bound (the only
  moments the count changes), closing every whole interval that has elapsed;
- upstream drops its first sample (pod creation and sampling start independently); our
  measurement starts exactly when the measured pods are handed to the scheduler, so the first
  interval is kept. The trailing partial interval is kept when it lasted at least half an
  interval, or when there is no other sample (a run shorter than a second), so that short runs
  still report a rate.

Durations are wall time (``time.perf_counter``): they measure speed and never feed a decision.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "SAMPLE_INTERVAL",
    "Summary",
    "ThroughputCollector",
    "TimingCollector",
    "percentile",
    "summarize",
]

SAMPLE_INTERVAL = 1.0
"""throughputSampleInterval: seconds of wall time per throughput sample."""


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The p-th percentile as upstream's collect() picks it: ``sorted[ceil(n*p/100) - 1]``."""
    n = len(sorted_values)
    if n == 0:
        return 0.0
    return float(sorted_values[max(0, math.ceil(n * p / 100) - 1)])


@dataclass(frozen=True, slots=True)
class Summary:
    average: float = 0.0
    p50: float = 0.0
    p90: float = 0.0
    p99: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {"average": self.average, "p50": self.p50, "p90": self.p90, "p99": self.p99}


def summarize(values: Sequence[float]) -> Summary:
    if not values:
        return Summary()
    s = sorted(values)
    return Summary(sum(s) / len(s), percentile(s, 50), percentile(s, 90), percentile(s, 99))


class ThroughputCollector:
    """Counts measured pods as they are bound and turns the counts into 1-second samples."""

    def __init__(self, now: Callable[[], float] = time.perf_counter,
                 interval: float = SAMPLE_INTERVAL) -> None:
        self._now = now
        self.interval = interval
        self.samples: list[float] = []
        self.scheduled = 0
        self._last_count = 0
        self._last_time = 0.0
        self.started = 0.0
        self.stopped = 0.0
        self.cpu_seconds = 0.0
        self._cpu_start = 0.0

    def start(self) -> None:
        self.started = self._last_time = self._now()
        self._cpu_start = time.process_time()

    def pod_scheduled(self) -> None:
        self.scheduled += 1
        self.tick()

    def tick(self) -> None:
        """Close the sample interval if a whole interval has passed since the last sample."""
        now = self._now()
        if now - self._last_time >= self.interval:
            self._close(now)

    def _close(self, now: float) -> None:
        new = self.scheduled - self._last_count
        if new == 0:
            return  # no sample for an interval without progress (upstream: skipped++)
        self.samples.append(new / (now - self._last_time))
        self._last_count = self.scheduled
        self._last_time = now

    def stop(self) -> None:
        now = self._now()
        self.stopped = now
        self.cpu_seconds += time.process_time() - self._cpu_start
        if now - self._last_time >= self.interval / 2 or (not self.samples and now > self._last_time):
            self._close(now)

    @property
    def seconds(self) -> float:
        return self.stopped - self.started

    def summary(self) -> Summary:
        return summarize(self.samples)


@dataclass(slots=True)
class TimingCollector:
    """Raw scheduling-attempt durations (fed by the scheduler's ``observe_attempt`` hook) and
    the summed time per extension point (read from the scheduler's own histogram at the start
    and end of each measured window: no per-call hook)."""

    attempts: list[float] = field(default_factory=list)
    extension_points: dict[str, float] = field(default_factory=dict)
    active: bool = False

    def attempt(self, seconds: float) -> None:
        if self.active:
            self.attempts.append(seconds)

    def add_extension_points(self, before: dict[str, float], after: dict[str, float]) -> None:
        """Add the time per extension point between two readings of the scheduler's
        scheduler_framework_extension_point_duration_seconds sums (a measured window)."""
        for point, total in after.items():
            spent = total - before.get(point, 0.0)
            if spent:
                self.extension_points[point] = self.extension_points.get(point, 0.0) + spent

    def attempt_summary(self) -> Summary:
        return summarize(self.attempts)
