"""FastHistogram exports what prometheus_client's Histogram exports for the same observations;
SchedulerMetrics' helpers feed the children that labels() resolves."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram

from kubesched.scheduler._metrics import FastHistogram, SchedulerMetrics, exponential_buckets

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


@given(st.lists(st.integers(0, 20), max_size=10))
def test_fast_histogram_observe_equals_labels_then_observe(values: list[int]) -> None:
    """observe() on an unlabelled histogram (its child looked up directly once it exists) is
    labels().observe(); on a labelled one it is refused, as labels() without values is."""
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    fast = FastHistogram("n", "doc", buckets=[1, 2, 4], registry=ours)
    slow = FastHistogram("n", "doc", buckets=[1, 2, 4], registry=theirs)
    for v in values:
        fast.observe(v)
        slow.labels().observe(v)
    assert _samples(ours) == _samples(theirs)
    labelled = FastHistogram("d", "doc", ["a"], buckets=[1], registry=CollectorRegistry())
    for _ in range(2):
        with pytest.raises(ValueError, match="expected labels"):
            labelled.observe(1)


_LABEL = st.sampled_from(["a", "b"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["attempt", "point", "plugin"]), _LABEL, _LABEL, _LABEL,
                          st.floats(0, 0.1, allow_nan=False)), max_size=30))
def test_scheduler_metrics_helpers_equal_labels_then_observe(
        calls: list[tuple[str, str, str, str, float]]) -> None:
    """The helpers' bound-method shortcut (_ChildMethods) feeds the same children, and so
    exports the same samples, as resolving ``labels(...)`` on every call."""
    ours, theirs = SchedulerMetrics(), SchedulerMetrics()
    for kind, x, y, z, seconds in calls:
        if kind == "attempt":
            ours.observe_attempt(x, y, seconds)
            theirs.schedule_attempts.labels(x, y).inc()
            theirs.scheduling_attempt_duration.labels(x, y).observe(seconds)
        elif kind == "point":
            ours.observe_extension_point(x, y, z, seconds)
            theirs.framework_extension_point_duration.labels(x, y, z).observe(seconds)
        else:  # observe_plugin(point, plugin, status): the metric's label order is plugin first
            ours.observe_plugin(x, y, z, seconds)
            theirs.plugin_execution_duration.labels(y, x, z).observe(seconds)
    got, want = _samples(ours.registry), _samples(theirs.registry)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert abs(got[key] - value) < 1e-9, key


def test_fast_histogram_counts_observations_held_past_a_batch() -> None:
    """Observations are bucketed in batches: more than one batch (and a partial one) read
    like prometheus_client's Histogram fed one by one."""
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    fast = FastHistogram("b_seconds", "doc", buckets=_BUCKETS, registry=ours)
    slow = Histogram("b_seconds", "doc", buckets=_BUCKETS, registry=theirs)
    values = [(k % 97) / 1000 for k in range(2600)] + [0.004, 0.032, 1.0]  # bounds included
    for v in values:
        fast.observe(v)
        slow.observe(v)
    got, want = _samples(ours), _samples(theirs)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert abs(got[key] - value) < 1e-9, key
