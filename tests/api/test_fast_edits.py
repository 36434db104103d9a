"""The shortcuts in parsing and editing objects give what parsing from scratch gives.

``with_changes`` re-reads only the fields fed by the edited parts of a manifest (store writes,
binding, admission, default tolerations, status patches) and carries the container-derived
caches over; quantity and time parsing are memoised. Each test compares against the long way
round, so a shortcut that goes stale (a field fed by a path it does not re-read, a cache kept
across an edit that changes it) fails here.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import (
    DELETE,
    Node,
    ObjectMeta,
    Pod,
    PriorityClass,
    QuantityError,
    format_time,
    milli_value,
    parse_quantity,
    parse_time,
    value,
    with_paths,
)
from kubesched.api.loader import parse_object
from kubesched.testing import make_node, make_pod

_POD_CACHES = ("requests", "non_zero_requests", "host_ports", "pvc_names")


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _assert_same_pod(got: Pod, want: Pod) -> None:
    assert got.raw == want.raw
    assert _fields(got) == _fields(want)
    assert got.meta.key == want.meta.key  # a cached key carried over must still be right
    for name in _POD_CACHES:
        assert getattr(got, name) == getattr(want, name), name


def _pod() -> Pod:
    return (make_pod().name("p").namespace("ns").uid("u1").req({"cpu": "1", "memory": "1Gi"})
            .host_port(8080).toleration("k", "v", "NoSchedule").priority(5)
            .volume({"name": "scratch", "ephemeral": {}}).obj())


# Every kind of edit the store and the scheduler make, plus edits that must take the long way.
_EDITS: list[Any] = [
    pytest.param({("metadata", "resourceVersion"): "7"}, id="store-write"),
    pytest.param({("metadata", "uid"): "u2", ("metadata", "creationTimestamp"): "2024-01-02T03:04:05Z",
                  ("metadata", "resourceVersion"): "1"}, id="create"),
    pytest.param({("metadata", "deletionTimestamp"): "2024-01-02T03:04:35Z",
                  ("metadata", "deletionGracePeriodSeconds"): 30}, id="graceful-delete"),
    pytest.param({("metadata", "uid"): DELETE, ("metadata", "generation"): 3}, id="delete-uid"),
    pytest.param({("spec", "nodeName"): "n1", ("status", "phase"): "Running",
                  ("status", "conditions"): [{"type": "PodScheduled", "status": "True"}],
                  ("status", "startTime"): "2024-01-02T03:04:05Z", ("status", "nominatedNodeName"): DELETE,
                  ("metadata", "resourceVersion"): "9"}, id="bind"),
    pytest.param({("spec", "priority"): 1000, ("spec", "preemptionPolicy"): "Never",
                  ("spec", "priorityClassName"): "high"}, id="admission"),
    pytest.param({("spec", "tolerations"): [{"key": "a", "operator": "Exists", "effect": "NoExecute",
                                             "tolerationSeconds": 300}]}, id="default-tolerations"),
    pytest.param({("status",): {"phase": "Failed"}}, id="whole-status"),
    pytest.param({("metadata", "labels"): {"app": "x"}}, id="labels-reparse-meta"),
    pytest.param({("metadata", "name"): "q"}, id="rename-drops-claim-names"),
    pytest.param({("metadata",): {"name": "r", "namespace": "ns"}}, id="whole-metadata"),
    pytest.param({("spec", "containers"): [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]},
                 id="containers-full-reparse"),
    pytest.param({("spec", "affinity", "nodeAffinity"): {}}, id="deep-spec-full-reparse"),
]


@pytest.mark.parametrize("changes", _EDITS)
def test_pod_with_changes_equals_parsing_the_edited_manifest(changes: dict[Any, Any]) -> None:
    pod = _pod()
    for name in _POD_CACHES:  # fill the caches that a shortcut could carry over
        getattr(pod, name)
    assert pod.meta.key == "ns/p"
    _assert_same_pod(pod.with_changes(changes), Pod.from_dict(with_paths(pod.raw, changes)))


@pytest.mark.parametrize("changes", _EDITS)
def test_memoised_edit_plans_hold_for_other_values(changes: dict[Any, Any]) -> None:
    """with_changes memoises what an edit re-parses by its set of paths: a second edit of the
    same paths with other values (and of the same paths after the first) is still exact."""
    pod = _pod()
    first = pod.with_changes(changes)
    other = {path: (DELETE if value is DELETE else _other(value)) for path, value in changes.items()}
    for base in (pod, first):
        _assert_same_pod(base.with_changes(other), Pod.from_dict(with_paths(base.raw, other)))
        _assert_same_pod(base.with_changes(changes), Pod.from_dict(with_paths(base.raw, changes)))


def _other(value: Any) -> Any:
    """Another value of the same shape."""
    if isinstance(value, str):
        return "2025-05-06T07:08:09Z" if value[:2] == "20" else value + "x"
    if isinstance(value, int):
        return value + 1
    return value


def test_pod_with_changes_carries_container_caches() -> None:
    pod = _pod()
    requests = pod.requests
    bound = pod.with_changes({("spec", "nodeName"): "n1", ("metadata", "resourceVersion"): "2"})
    assert bound.requests is requests
    assert pod.node_name == "" and bound.node_name == "n1"


@pytest.mark.parametrize("changes", _EDITS)
def test_node_and_other_kinds_with_changes_equal_parsing(changes: dict[Any, Any]) -> None:
    node = make_node().name("n").label("zone", "a").capacity({"cpu": "4"}).taint("k", "v").obj()
    pc = PriorityClass.from_dict({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                  "metadata": {"name": "high"}, "value": 10})
    for obj in (node, pc):
        if any(p[0] == "spec" for p in changes) and not isinstance(obj, Node):
            continue
        got = obj.with_changes(changes)
        want = type(obj).from_dict(with_paths(obj.raw, changes))
        assert got.raw == want.raw and _fields(got) == _fields(want)


_META_VALUES: dict[str, Any] = {
    "resourceVersion": st.sampled_from(["1", "22", "", DELETE]),
    "uid": st.sampled_from(["a", "", DELETE]),
    "creationTimestamp": st.sampled_from(["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.5+01:00", DELETE]),
    "deletionTimestamp": st.sampled_from(["2024-05-06T07:08:09Z", None, DELETE]),
    "deletionGracePeriodSeconds": st.sampled_from([0, 30, None, DELETE]),
    "generation": st.sampled_from([0, 4, "5", DELETE]),
    "labels": st.sampled_from([{"a": "b"}, {}, DELETE]),
    "name": st.sampled_from(["x", "p"]),
}


@settings(max_examples=150, deadline=None)
@given(st.sets(st.sampled_from(sorted(_META_VALUES)), min_size=1).flatmap(
    lambda keys: st.fixed_dictionaries({k: _META_VALUES[k] for k in keys})))
def test_object_meta_updated_equals_from_dict(edits: dict[str, Any]) -> None:
    raw_meta = {"name": "p", "namespace": "ns", "uid": "u", "resourceVersion": "3", "labels": {"x": "y"},
                "creationTimestamp": "2020-01-01T00:00:00Z", "generation": 2}
    meta = ObjectMeta.from_dict(raw_meta)
    edited = with_paths({"metadata": raw_meta}, {("metadata", k): v for k, v in edits.items()})["metadata"]
    assert meta.updated(edited, set(edits)) == ObjectMeta.from_dict(edited)
    assert meta.updated(edited, {None}) == ObjectMeta.from_dict(edited)


# -- memoised parsing --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "exact"),
    [
        pytest.param("100m", Fraction(1, 10), id="milli"),
        pytest.param("1.5Gi", Fraction(1610612736), id="binary-fraction"),
        pytest.param(1, Fraction(1), id="int"),
        pytest.param(1.5, Fraction(3, 2), id="float"),
        pytest.param("1e3", Fraction(1000), id="exponent"),
    ],
)
def test_memoised_quantities_are_exact_every_time(text: Any, exact: Fraction) -> None:
    assert parse_quantity(text) == parse_quantity(text) == exact


def test_quantity_cache_keeps_types_apart() -> None:
    # 1 == 1.0 == True in Python: a cache keyed without types would answer one for another.
    assert value(1) == value(1.0) == 1
    assert milli_value(0.0005) == 1 and milli_value("0.0005") == 1
    for _ in range(2):
        with pytest.raises(QuantityError):
            value(True)


@pytest.mark.parametrize("bad", [pytest.param("12x", id="bad-suffix"), pytest.param(["1"], id="unhashable"),
                                 pytest.param(float("inf"), id="infinite")])
def test_bad_quantities_fail_every_time(bad: Any) -> None:
    for _ in range(2):  # errors are not cached as values
        with pytest.raises(QuantityError):
            parse_quantity(bad)
        with pytest.raises(QuantityError):
            milli_value(bad)


def test_memoised_times_round_trip() -> None:
    assert parse_time(format_time(86400.0)) == 86400.0
    assert parse_time("2024-01-02T03:04:05Z") == parse_time("2024-01-02T03:04:05+00:00")
    for _ in range(2):
        with pytest.raises(ValueError, match="invalid RFC 3339"):
            parse_time("yesterday")


@given(st.one_of(st.floats(min_value=-1e9, max_value=4e9, allow_nan=False),
                 st.integers(0, 4 * 10**9).map(lambda s: s + 0.9999995),
                 st.integers(0, 4 * 10**9).map(lambda s: s + 0.999999),
                 st.integers(0, 4 * 10**9).map(lambda s: s - 1e-7)))
@settings(max_examples=300, deadline=None)
def test_time_stamps_memoised_per_second_equal_formatting_each_time(seconds: float) -> None:
    from datetime import UTC, datetime

    assert format_time(seconds) == datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_nodes_from_one_template_share_parsed_quantities_correctly() -> None:
    doc = make_node().name("n").capacity({"cpu": "4", "memory": "32Gi", "pods": "110"}).to_dict()
    a, b = parse_object(doc), parse_object(doc)
    assert isinstance(a, Node) and isinstance(b, Node)
    assert a.allocatable == b.allocatable == {"cpu": 4000, "memory": 32 * 2**30, "pods": 110}


# -- Pod.updated_from: an informer's update parsed against the cached version ---------------

_UPDATES: list[Any] = [
    *_EDITS,
    pytest.param({("metadata", "managedFields"): [{"manager": "m", "operation": "Update"}],
                  ("metadata", "resourceVersion"): "8"}, id="managed-fields"),
    pytest.param({("spec", "schedulerName"): "other"}, id="scheduler-name-full-reparse"),
    pytest.param({("spec", "nodeName"): DELETE}, id="spec-key-removed"),
]


@pytest.mark.parametrize("changes", _UPDATES)
def test_pod_updated_from_equals_parsing_the_new_manifest(changes: dict[Any, Any]) -> None:
    pod = _pod()
    for name in _POD_CACHES:
        getattr(pod, name)
    raw = with_paths(pod.raw, changes)
    _assert_same_pod(pod.updated_from(raw), Pod.from_dict(raw))


def test_a_confirmed_binding_is_not_parsed_again() -> None:
    """The watch event confirming a binding (nodeName, resourceVersion, managedFields, the
    PodScheduled condition) keeps everything parsed from the unchanged spec."""
    pod = _pod()
    requests = pod.requests
    raw = with_paths(pod.raw, {("spec", "nodeName"): "n1", ("metadata", "resourceVersion"): "9",
                               ("metadata", "managedFields"): [{"manager": "kube-scheduler"}],
                               ("status", "conditions"): [{"type": "PodScheduled", "status": "True"}]})
    got = pod.updated_from(raw)
    assert got.requests is requests and got.containers is pod.containers
    assert got.tolerations is pod.tolerations and got.meta.labels is pod.meta.labels
    _assert_same_pod(got, Pod.from_dict(raw))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([p.values[0] for p in _UPDATES]), max_size=4))
def test_a_chain_of_updates_equals_parsing_each_version(chain: list[dict[Any, Any]]) -> None:
    pod = _pod()
    for changes in chain:
        raw = with_paths(pod.raw, changes)
        want = Pod.from_dict(raw)
        pod = pod.updated_from(raw)
        _assert_same_pod(pod, want)


def test_parse_update_validates_and_falls_back_for_other_objects() -> None:
    from kubesched.api.loader import parse_update

    pod = parse_object({**_pod().raw, "apiVersion": "v1", "kind": "Pod"})
    for changes in ({("spec", "containers"): []}, {("metadata", "labels"): {"app": ["x"]}},
                    {("spec", "tolerations"): "x"}, {("status", "conditions"): "x"}):
        bad = with_paths(pod.raw, changes)
        with pytest.raises(ValueError) as want:
            parse_object(bad)
        with pytest.raises(ValueError) as got:
            parse_update(pod, bad)
        assert str(got.value) == str(want.value)
    other = with_paths(pod.raw, {("metadata", "name"): "q"})
    assert parse_update(pod, other).meta.name == "q"
    node = make_node().name("n").obj()
    doc = {**node.raw, "apiVersion": "v1", "kind": "Node"}
    assert _fields(parse_update(node, doc)) == _fields(parse_object(doc))
