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


def test_one_sample_per_elapsed_interval_with_actual_duration() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    for _ in range(8):  # 8 pods in the first 1.0 s (binary-exact steps)
        now.t += 0.125
        c.pod_scheduled()
    now.t += 1.5  # 1 pod after 1.5 s: the sample is 1 pod / 1.5 s
    c.pod_scheduled()
    assert c.samples == pytest.approx([8.0, 1 / 1.5])


def test_intervals_without_progress_give_no_zero_sample() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    now.t += 3.0
    c.tick()  # nothing scheduled: upstream keeps waiting instead of recording 0 pods/s
    assert c.samples == []
    c.pod_scheduled()
    assert c.samples == pytest.approx([1 / 3.0])


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


def test_short_trailing_interval_is_dropped_after_full_samples() -> None:
    now = FakeTime()
    c = ThroughputCollector(now)
    c.start()
    now.t += 1.0
    c.pod_scheduled()
    now.t += 0.1
    c.pod_scheduled()
    c.stop()
    assert c.samples == pytest.approx([1.0])


def test_summary_average_and_percentiles() -> None:
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert (s.average, s.p50, s.p90, s.p99) == (2.5, 2.0, 4.0, 4.0)
