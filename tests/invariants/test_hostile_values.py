"""Property: hostile values in the fields the scheduler reads never crash a command. Resource
amounts (requests, limits, overhead, allocatable, capacity), counts and seconds (replicas,
priority, tolerationSeconds, maxSkew, weights, ports, grace periods), timestamps and labels are
set to huge, negative, fractional or wrong-typed values, in a cluster with one object of every
kind the loader reads; ``validate``, ``simulate``, ``explain`` and ``capacity`` then exit 0 (the
API server would accept the value: it schedules) or 2 (it would not: one line names the file and
the object), never anything else and never a traceback."""

from __future__ import annotations

import copy
import math
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kubesched.cli import app

from .test_malformed_manifests import EVERY_KIND

runner = CliRunner()

DOCS: list[dict[str, Any]] = [d for d in yaml.safe_load_all(EVERY_KIND) if d]
PENDING = "team-a/web-0"  # the pending pod of EVERY_KIND: explain's pod, capacity's copy

QUANTITY_MAPS = frozenset({"requests", "limits", "overhead", "allocatable", "capacity"})
RESOURCE_NAMES = ("cpu", "memory", "pods", "ephemeral-storage", "example.com/foo", "hugepages-2Mi",
                  "attachable-volumes-csi-ebs.csi.aws.com", "storage")
NUMBER_FIELDS = frozenset({
    "replicas", "priority", "value", "tolerationSeconds", "maxSkew", "minDomains", "weight",
    "containerPort", "hostPort", "port", "sizeBytes", "completions", "parallelism", "minAvailable",
    "maxUnavailable", "maxSurge", "terminationGracePeriodSeconds", "deletionGracePeriodSeconds",
    "activeDeadlineSeconds", "backoffLimit", "count", "start", "generation", "collisionCount",
})
TIME_FIELDS = frozenset({"creationTimestamp", "deletionTimestamp", "startTime", "lastTransitionTime"})
LABEL_MAPS = frozenset({"labels", "matchLabels", "nodeSelector", "annotations"})

# Amounts the API server accepts, most beyond int64 (they must schedule) ...
ACCEPTED_QUANTITIES = ["1E", "10E", "16Ei", "8Ei", "99999999999999999999", "9223372036854775807",
                       "9223372036854775808", "9223372036854775807m", "1e30", "0", "1Ki", "2e9",
                       2**63, 10**30]
# ... and some it does not, or only for some resources (a fraction of an extended resource).
OTHER_QUANTITIES = ["1e-30", "0.0000000001", "0.5", "1.5", "-1", "-0.001", "-1E", "1.000000000000000000001"]
NUMBERS = [0, -1, 1, 2**31 - 1, 2**31, -(2**31), 2**63 - 1, 2**63, -(2**63), 2**64, 10**30,
           0.5, -0.5, 1.5, 1e300, -1e-300, math.inf, -math.inf, math.nan]
WRONG_TYPES: list[Any] = [None, True, [], {}, [1], {"a": 1}, "", "abc", "1", "-1", "1.5", "1E"]
TIMES = ["2026-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z",
         "2026-13-45T99:99:99Z", "yesterday", "", 0, -1, 2**63, 1.5]
LABELS = ["", "x" * 64, "a" * 63, "-bad", "ok", "bad value", "1E", 2**63, -1, 0.5, None, True]

accepted = st.sampled_from(ACCEPTED_QUANTITIES)
quantity_values = st.one_of(accepted, accepted, accepted, st.sampled_from(OTHER_QUANTITIES),
                            st.sampled_from(NUMBERS), st.sampled_from(WRONG_TYPES), st.integers(),
                            st.floats())
number_values = st.one_of(st.sampled_from(NUMBERS), st.sampled_from(WRONG_TYPES), st.integers())
time_values = st.one_of(st.sampled_from(TIMES), st.sampled_from(WRONG_TYPES))
label_values = st.sampled_from(LABELS)


def _targets(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(path, kind) of every place a hostile value can go: a field the scheduler reads, by name,
    at any depth; for a resource or label map also a new entry."""
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return
    for key, child in items:
        path = (*prefix, key)
        if key in QUANTITY_MAPS and isinstance(child, dict):
            yield from (((*path, k), "quantity") for k in child)
            yield from (((*path, k), "quantity") for k in RESOURCE_NAMES if k not in child)
        elif key in LABEL_MAPS and isinstance(child, dict):
            yield from (((*path, k), "label") for k in child)
            yield (*path, "hostile.example/key"), "label"
        elif key in NUMBER_FIELDS:
            yield path, "number"
        elif key in TIME_FIELDS:
            yield path, "time"
        yield from _targets(child, path)


TARGETS: list[tuple[int, tuple[Any, ...], str]] = [
    (i, path, kind) for i, doc in enumerate(DOCS) for path, kind in _targets(doc)
]
QUANTITY_TARGETS = [t for t in TARGETS if t[2] == "quantity"]
NODE_TARGETS = [t for t in QUANTITY_TARGETS if DOCS[t[0]]["kind"] == "Node"]
# A third each: the node's allocatable/capacity, any resource amount, any field at all.
targets = st.one_of(st.sampled_from(NODE_TARGETS), st.sampled_from(QUANTITY_TARGETS),
                    st.sampled_from(TARGETS))
VALUES = {"quantity": quantity_values, "number": number_values, "time": time_values, "label": label_values}


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


@st.composite
def hostile_cluster(draw: st.DrawFn) -> list[dict[str, Any]]:
    """EVERY_KIND with one to four hostile values."""
    docs = copy.deepcopy(DOCS)
    for _ in range(draw(st.integers(1, 4))):
        i, path, kind = draw(targets)
        _set(docs[i], path, draw(VALUES[kind]))
    return docs


def _pod_doc(docs: list[dict[str, Any]]) -> dict[str, Any]:
    ns, name = PENDING.split("/")
    return next(d for d in docs if d.get("kind") == "Pod" and d["metadata"].get("name") == name
                and d["metadata"].get("namespace") == ns)


def _check(command: str, docs: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "cluster.yaml"
        manifest.write_text(yaml.safe_dump_all(docs))
        args = [command, str(manifest)]
        if command == "simulate":
            args += ["-o", "json"]
        elif command == "explain":
            args += ["--pod", PENDING]
        elif command == "capacity":
            copy_file = Path(tmp) / "copy.yaml"
            copy_file.write_text(yaml.safe_dump(_pod_doc(docs)))
            args += ["--pod", str(copy_file), "--max", "3"]
        result = runner.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{command} crashed: {result.output}") from result.exception
    assert result.exit_code in (0, 2), (command, result.exit_code, result.output)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = [line for line in result.stderr.split("\n") if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    elif command == "simulate":
        assert "SchedulerError" not in result.stdout, result.stdout


_SETTINGS = settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(hostile_cluster())
def test_validate_never_crashes_on_hostile_values(docs: list[dict[str, Any]]) -> None:
    _check("validate", docs)


@_SETTINGS
@given(hostile_cluster())
def test_simulate_never_crashes_on_hostile_values(docs: list[dict[str, Any]]) -> None:
    _check("simulate", docs)


@_SETTINGS
@given(hostile_cluster())
def test_explain_never_crashes_on_hostile_values(docs: list[dict[str, Any]]) -> None:
    _check("explain", docs)


@_SETTINGS
@given(hostile_cluster())
def test_capacity_never_crashes_on_hostile_values(docs: list[dict[str, Any]]) -> None:
    _check("capacity", docs)
