"""What a benchmark run measures: throughput samples, attempt latencies, extension-point time.

Throughput mirrors throughputCollector.run (test/integration/scheduler_perf/util.go, master
2026, the informer-based collector), tick by tick: a tick every ``SAMPLE_INTERVAL`` (1 s) of
harness time reads how many measured pods are bound;

- ticks before the first measured pod is bound are ignored, and the first tick after it only
  takes the baseline (upstream skips that "initial sample": it mixes start-up with steady state);
- a tick without progress records nothing yet and counts as skipped;
- a tick with progress records ``new pods / time since the last recorded tick`` once for itself
  and once per skipped tick ("to keep percentiles accurate"), so that a stall weighs as long as
  it lasted;
- the summary is the average and the p50/p90/p99 of the sorted samples, index
  ``ceil(n * p / 100) - 1``.

Upstream samples on a ticker goroutine; our scheduler runs in the harness's thread, so the ticks
are replayed when a measured pod is bound and at the end, counting only the pods bound before
each tick: the same samples. One deliberate difference: upstream loses the last, partial interval
(its collector stops with the workload); we keep it when it lasted at least half an interval, or
when the run left no other sample (a run too short for two ticks would otherwise report nothing).

Durations are harness time (wall time, plus the idle time the paced clock skipped:
``_pacer.WallPacer``): they measure speed and never feed a decision.
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
        self._next_tick = 0.0
        self._baseline = False  # the first tick with a bound pod was taken
        self._skipped = 0
        self.started = 0.0
        self.stopped = 0.0
        self.cpu_seconds = 0.0
        self._cpu_start = 0.0

    def start(self) -> None:
        self.started = self._last_time = self._now()
        self._next_tick = self.started + self.interval
        self._cpu_start = time.process_time()

    def pod_scheduled(self) -> None:
        self.tick()  # ticks up to now count the pods bound before this one
        self.scheduled += 1

    def tick(self) -> None:
        """Run the ticks due by now."""
        now = self._now()
        while self._next_tick <= now:
            self._on_tick(self._next_tick)
            self._next_tick += self.interval

    def _on_tick(self, t: float) -> None:
        scheduled = self.scheduled
        if scheduled == 0:
            return  # "only do sampling if number of scheduled pods is greater than zero"
        if not self._baseline:
            self._baseline = True
            self._last_count, self._last_time = scheduled, t
            return
        new = scheduled - self._last_count
        if new == 0:
            self._skipped += 1  # no 0 pods/s sample: wait for the next progress
            return
        self._record(new / (t - self._last_time))
        self._last_count, self._last_time = scheduled, t

    def _record(self, rate: float) -> None:
        self.samples.extend([rate] * (self._skipped + 1))
        self._skipped = 0

    def stop(self) -> None:
        self.tick()
        now = self._now()
        self.stopped = now
        self.cpu_seconds += time.process_time() - self._cpu_start
        new = self.scheduled - self._last_count
        elapsed = now - self._last_time
        if new and elapsed > 0 and (elapsed >= self.interval / 2 or not self.samples):
            self._record(new / elapsed)  # the trailing partial interval (see the module doc)
            self._last_count, self._last_time = self.scheduled, now

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
