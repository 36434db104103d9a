"""The throughput collector: upstream's throughputCollector definition (util.go)."""

from __future__ import annotations

import pytest

from kubesched.perf import ThroughputCollector, percentile, summarize


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize(("values", "p", "want"), [
    pytest.param([1.0, 2.0, 3.0, 4.0], 50, 2.0, id="p50-of-4-is-index-1"),
    pytest.param([1.0, 2.0, 3.0, 4.0], 90, 4.0, id="p90-of-4-is-index-3"),
    pytest.param([float(i) for i in range(1, 101)], 99, 99.0, id="p99-of-100-is-index-98"),
    pytest.param([5.0], 99, 5.0, id="single-sample"),
    pytest.param([], 50, 0.0, id="no-samples"),
])
def test_percentile_index_is_ceil_n_p_over_100_minus_1(values: list[float], p: float, want: float) -> None:
    assert percentile(values, p) == want


def bind(c: ThroughputCollector, now: FakeTime, *times: float) -> None:
    for t in times:
        now.t = t
        c.pod_scheduled()


def test_first_tick_with_a_bound_pod_is_the_baseline_then_one_sample_per_tick() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()  # ticks at 101, 102, ...
    bind(c, now, 100.25, 100.5)  # before the first tick: the skipped initial sample
    bind(c, now, 101.25, 101.5, 101.75)
    bind(c, now, 102.5)  # the tick at 102 saw 3 new pods in 1 s
    assert c.samples == pytest.approx([3.0])


def test_ticks_before_any_bound_pod_are_ignored() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    bind(c, now, 130.25, 130.5)  # thirty ticks with nothing bound yet: no sample, no stall
    bind(c, now, 131.25, 131.5, 131.75, 132.5)
    assert c.samples == pytest.approx([3.0])


def test_a_stall_is_recorded_once_per_skipped_tick() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    bind(c, now, 100.5)  # baseline at 101
    bind(c, now, 103.5)  # ticks 102 and 103 saw no progress
    now.t = 104.25
    c.tick()  # tick 104: 1 pod in 3 s, for itself and both skipped ticks
    assert c.samples == pytest.approx([1 / 3.0] * 3)


def test_short_run_reports_its_only_partial_interval() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    for _ in range(5):
        now.t += 0.01
        c.pod_scheduled()
    c.stop()
    assert c.samples == pytest.approx([100.0])
    assert c.seconds == pytest.approx(0.05)


@pytest.mark.parametrize(("stop_at", "want"), [
    pytest.param(102.25, [2.0], id="quarter-interval-tail-dropped"),
    pytest.param(102.75, [2.0, 1 / 0.75], id="three-quarter-interval-tail-kept"),
])
def test_trailing_partial_interval_counts_when_at_least_half_an_interval(stop_at: float,
                                                                         want: list[float]) -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    bind(c, now, 100.5, 101.25, 101.5)  # baseline at 101, 2 pods/s at the tick at 102
    bind(c, now, 102.125)  # one pod in the tail
    now.t = stop_at
    c.stop()
    assert c.samples == pytest.approx(want)


def test_summary_average_and_percentiles() -> None:
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert (s.average, s.p50, s.p90, s.p99) == (2.5, 2.0, 4.0, 4.0)
