"""FastHistogram exports what prometheus_client's Histogram exports for the same observations."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram

from kubesched.scheduler._metrics import FastHistogram, exponential_buckets

_BUCKETS = exponential_buckets(0.001, 2, 6)


def _samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for m in registry.collect() for s in m.samples if not s.name.endswith("_created")}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Filter", "Score"]),
                          st.one_of(st.sampled_from(_BUCKETS), st.floats(0, 0.1, allow_nan=False))),
                max_size=30))
def test_fast_histogram_samples_equal_prometheus_histogram(observations: list[tuple[str, float]]) -> None:
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    fast = FastHistogram("x_seconds", "doc", ["point"], buckets=_BUCKETS, registry=ours)
    slow = Histogram("x_seconds", "doc", ["point"], buckets=_BUCKETS, registry=theirs)
    for point, seconds in observations:  # bucket bounds included: an observation equal to a bound
        fast.labels(point).observe(seconds)  # counts in that bucket (le)
        slow.labels(point).observe(seconds)
    got, want = _samples(ours), _samples(theirs)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert abs(got[key] - value) < 1e-9, key


def test_fast_histogram_without_labels_and_by_keyword() -> None:
    registry = CollectorRegistry()
    h = FastHistogram("attempts", "doc", buckets=[1, 2, 4], registry=registry)
    h.observe(3)
    assert registry.get_sample_value("attempts_bucket", {"le": "2.0"}) == 0
    assert registry.get_sample_value("attempts_bucket", {"le": "4.0"}) == 1
    assert registry.get_sample_value("attempts_bucket", {"le": "+Inf"}) == 1
    labelled = FastHistogram("d", "doc", ["a", "b"], buckets=[1], registry=registry)
    labelled.labels(b="y", a="x").observe(0.5)
    assert registry.get_sample_value("d_count", {"a": "x", "b": "y"}) == 1
