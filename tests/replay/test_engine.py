"""The replay driver and its metrics on small hand-made traces (every number checked by hand)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kubesched.api import parse_object
from kubesched.cluster import WatchEvent
from kubesched.replay import MetricProvider, Replay, Trace, TraceError, read_trace

from ._traces import create, node, pod, ref, write_jsonl


def _run(
    tmp_path: Path, events: list[dict[str, Any]], cluster: Sequence[dict[str, Any]] = (), **kwargs: Any
) -> tuple[dict[str, Any], list[dict[str, float]], Replay]:
    trace = read_trace([write_jsonl(tmp_path / "t.jsonl", events)])
    trace.cluster = list(cluster)
    rows: list[Sequence[float]] = []
    rep = Replay(trace, sink=rows.append, **kwargs)
    res = rep.run()
    return res.summary, [dict(zip(res.columns, r, strict=True)) for r in rows], rep


def _col(rows: list[dict[str, float]], *names: str) -> list[tuple[float, ...]]:
    return [tuple(r[n] for n in names) for r in rows]


def test_metrics_after_each_event(tmp_path: Path) -> None:
    # Two 4-cpu nodes; three 3-cpu pods: a (runs 100 s) and b fit, c waits. Draining n2 at 50
    # evicts its pod (30 s grace: gone at 80), c lands there at 80 (latency 77 s).
    events = [
        create(0, node("n1")),
        create(0, node("n2")),
        create(1, pod("a", "3"), runSeconds=100),
        create(2, pod("b", "3")),
        create(3, pod("c", "3")),
        ref(50, "drain", "n2"),
        ref(60, "uncordon", "n2"),
    ]
    summary, rows, _ = _run(tmp_path, events)
    assert _col(rows, "time", "pods", "pending", "unschedulable", "running", "scheduled", "evictions") == [
        (0, 0, 0, 0, 0, 0, 0),
        (0, 0, 0, 0, 0, 0, 0),
        (1, 1, 0, 0, 1, 1, 0),
        (2, 2, 0, 0, 2, 2, 0),
        (3, 3, 1, 1, 2, 2, 0),
        (50, 3, 1, 1, 2, 2, 1),
        (60, 3, 1, 1, 2, 2, 1),
        (80, 3, 0, 0, 2, 3, 1),  # no event here: a row because the state changed
        (101, 3, 0, 0, 2, 3, 1),
    ]
    assert rows[4]["requested:cpu"] == 6000 and rows[4]["allocatable:cpu"] == 8000
    assert rows[4]["allocation:cpu"] == 0.75
    assert rows[4]["arrivedDemand"] == 9 / 8  # 9 cpu asked of 8
    assert summary["pods"] == 3 and summary["scheduled"] == 3 and summary["unschedulable"] == 0
    assert summary["evictions"] == 1 and summary["events"] == 7 and summary["virtualSeconds"] == 101
    assert summary["latencySeconds"]["max"] == 77
    assert summary["gpuAllocation"] == 0.0


def test_a_row_at_every_change_after_the_last_event(tmp_path: Path) -> None:
    # Six pods arrive at once and finish at 60, 120, ..., 360 s: without a sample interval the
    # running curve steps down at each finish, not in one drop at the end.
    events = [create(0, node("n1", "8")),
              *(create(1, pod(f"p{i}", "1"), runSeconds=60 * (i + 1)) for i in range(6))]
    _, rows, _ = _run(tmp_path, events)
    after = [(r["time"], r["running"]) for r in rows if r["events"] == 7]
    assert after == [(1, 6), (61, 5), (121, 4), (181, 3), (241, 2), (301, 1), (361, 0)]


def test_fixed_interval_rows(tmp_path: Path) -> None:
    events = [create(0, node("n1")), create(5, pod("a", "1")), create(25, pod("b", "1"))]
    _, rows, _ = _run(tmp_path, events, sample_every=10)
    # a row per 10 s, then the end state (the last event's instant)
    assert _col(rows, "time", "running") == [(0, 0), (10, 1), (20, 1), (25, 2)]


def _bound(name: str, node_name: str, labels: dict[str, str]) -> dict[str, Any]:
    p = pod(name, "1", labels=labels, grace=0)
    p["spec"]["nodeName"] = node_name
    p["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    return p


PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
}


def test_drain_honours_the_pdb_and_retries(tmp_path: Path) -> None:
    # w1, w2 on n1 under minAvailable 1: the drain at 10 evicts one; the other waits until w3,
    # created at 20, runs on n2 (the retry at 20 fires just before w3 arrives); kubectl's
    # 5-second retry evicts it at 25. A row shows the state at the end of its instant.
    web = {"app": "web"}
    cluster = [node("n1"), node("n2"), PDB, _bound("w1", "n1", web), _bound("w2", "n1", web)]
    events = [ref(10, "drain", "n1"), create(20, pod("w3", "1", labels=web))]
    summary, rows, rep = _run(tmp_path, events, cluster=cluster, sample_every=5)
    by_time = {r["time"]: r for r in rows}
    assert by_time[15]["evictions"] == 1 and by_time[20]["evictions"] == 1
    assert by_time[25]["evictions"] == 2 and summary["evictions"] == 2
    assert [p.name for p in rep.store.list("Pod")] == ["w3"]
    n1 = rep.store.get("Node", "", "n1")
    assert n1.unschedulable


def test_drain_without_pdb_evicts_all_but_daemons(tmp_path: Path) -> None:
    ds = _bound("agent", "n1", {})
    ds["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "u1", "controller": True}
    ]
    cluster = [node("n1"), _bound("x", "n1", {}), _bound("y", "n1", {}), ds]
    summary, _, rep = _run(tmp_path, [ref(1, "drain", "n1")], cluster=cluster)
    assert summary["evictions"] == 2
    assert [p.name for p in rep.store.list("Pod")] == ["agent"]


def test_cordon_uncordon(tmp_path: Path) -> None:
    events = [create(0, node("n1")), ref(1, "cordon", "n1"), create(2, pod("a")), ref(7, "uncordon", "n1")]
    summary, rows, _ = _run(tmp_path, events)
    assert _col(rows, "time", "unschedulable", "running") == [(0, 0, 0), (1, 0, 0), (2, 1, 0), (7, 0, 1)]
    assert summary["latencySeconds"]["max"] == 5


def test_delete_frees_room(tmp_path: Path) -> None:
    events = [
        create(0, node("n1", cpu="2")),
        create(0, pod("a", "2", grace=0)),
        create(1, pod("b", "2")),
        {"time": 4, "op": "delete", "kind": "Pod", "name": "a"},
    ]
    summary, rows, _ = _run(tmp_path, events)
    assert _col(rows, "time", "running", "unschedulable") == [(0, 0, 0), (0, 1, 0), (1, 1, 1), (4, 1, 0)]
    assert summary["scheduled"] == 2 and summary["latencySeconds"]["max"] == 3


def test_update_node(tmp_path: Path) -> None:
    events = [
        create(0, node("n1", cpu="1")),
        create(1, pod("a", "2")),
        {"time": 3, "op": "update", "object": node("n1", cpu="4")},
    ]
    summary, rows, _ = _run(tmp_path, events)
    assert _col(rows, "time", "running", "allocatable:cpu") == [(0, 0, 1000), (1, 0, 1000), (3, 1, 4000)]
    assert summary["unschedulable"] == 0


def test_scale_a_deployment(tmp_path: Path) -> None:
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
            },
        },
    }
    events = [
        create(0, node("n1")),
        create(0, dep),
        {"time": 10, "op": "scale", "kind": "Deployment", "name": "web", "replicas": 3},
    ]
    summary, rows, _ = _run(tmp_path, events)
    assert rows[1]["running"] == 1 and rows[-1]["running"] == 3
    assert summary["pods"] == 3


HIGH_PRIORITY = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "high"},
    "value": 1000,
}


def test_preemptions_counted(tmp_path: Path) -> None:
    events = [
        create(0, node("n1", cpu="2")),
        create(0, HIGH_PRIORITY),
        create(1, pod("low", "2", grace=0)),
        create(2, pod("high", "2", priority="high")),
    ]
    summary, _, rep = _run(tmp_path, events)
    assert summary["preemptions"] == 1
    assert [p.name for p in rep.store.list("Pod")] == ["high"]
    assert rep.store.get("Pod", "default", "high").node_name == "n1"


def test_an_event_whose_object_is_gone_is_skipped(tmp_path: Path) -> None:
    events = [
        create(0, node("n1", cpu="2")),
        create(0, HIGH_PRIORITY),
        create(1, pod("low", "2", grace=0)),
        create(2, pod("high", "2", priority="high")),
        {"time": 9, "op": "delete", "kind": "Pod", "name": "low"},
    ]
    summary, _, rep = _run(tmp_path, events)
    assert summary["skippedEvents"] == 1 and summary["events"] == 5
    assert list(rep.skip_reasons) == ['delete: pods "low" not found']
    assert summary["skipped"] == {'delete: pods "low" not found': 1}


CHECKS = [
    pytest.param([ref(1, "cordon", "nope")], "cordon: Node nope not found", id="unknown-node"),
    pytest.param(
        [create(0, node("n1")), create(1, node("n1"))], "create: Node n1 already exists", id="twice"
    ),
    pytest.param([create(1, pod("a", priority="gold"))], "no PriorityClass with name gold", id="no-class"),
    pytest.param(
        [
            create(
                1, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": "x"}}
            )
        ],
        "create:",
        id="bad-manifest",
    ),
    pytest.param(
        [{"time": 1, "op": "update", "object": node("n9")}], "update: Node n9 not found", id="update-missing"
    ),
    pytest.param(
        [
            create(0, node("n1")),
            {"time": 1, "op": "delete", "kind": "Node", "name": "n1"},
            ref(2, "drain", "n1"),
        ],
        "drain: Node n1 not found",
        id="deleted-before",
    ),
]


@pytest.mark.parametrize(("events", "message"), CHECKS)
def test_checked_before_anything_runs(tmp_path: Path, events: list[dict[str, Any]], message: str) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [create(0, node("ok")), *events])
    with pytest.raises(TraceError) as err:
        Replay(read_trace([path]))
    assert str(err.value).startswith(f"{path}:{len(events) + 1}: ")
    assert message in str(err.value)


class _NodeCounter(MetricProvider):
    columns = ("nodeEvents", "gpuAllocation")

    def __init__(self) -> None:
        self.n = 0
        self.started_with = -1

    def start(self, store: Any) -> None:
        self.started_with = len(store.list("Node"))

    def on_event(self, ev: WatchEvent) -> None:
        self.n += ev.kind == "Node"

    def sample(self) -> Sequence[float]:
        return (self.n, 0.25)


def test_metric_provider_hook(tmp_path: Path) -> None:
    provider = _NodeCounter()
    trace = Trace(cluster=[node("n0")], events=[], name="p", metrics=[provider])
    trace.events = [
        e
        for e in read_trace(
            [write_jsonl(tmp_path / "t.jsonl", [create(0, node("n1")), ref(1, "cordon", "n1")])]
        ).events
    ]
    rows: list[Sequence[float]] = []
    rep = Replay(trace, sink=rows.append)
    res = rep.run()
    assert provider.started_with == 1
    assert res.columns[-2:] == ["nodeEvents", "gpuAllocation"] and res.columns.count("gpuAllocation") == 1
    assert [r[-2] for r in rows] == [1, 2]
    assert res.summary["nodeEvents"] == 2 and res.summary["gpuAllocation"] == 0.25


def test_builtin_gpu_allocation(tmp_path: Path) -> None:
    events = [
        create(0, node("g1", **{"nvidia.com/gpu": "4"})),
        create(1, pod("a", "1", **{"nvidia.com/gpu": "3"})),
    ]
    summary, rows, _ = _run(tmp_path, events)
    assert summary["gpuAllocation"] == 0.75 and rows[-1]["gpuAllocation"] == 0.75
    assert rows[-1]["allocation:nvidia.com/gpu"] == 0.75  # a resource only a trace's node declares


def test_until_stops_early(tmp_path: Path) -> None:
    events = [create(0, node("n1")), create(5, pod("a")), create(50, pod("b"))]
    summary, rows, _ = _run(tmp_path, events, until=20)
    assert summary["events"] == 2 and summary["virtualSeconds"] == 20 and summary["pods"] == 1
    assert rows[-1]["time"] == 20


def test_same_seed_same_series(tmp_path: Path) -> None:
    events = [create(0, node(f"n{i}")) for i in range(5)] + [create(i, pod(f"p{i}", "1")) for i in range(20)]
    a = _run(tmp_path, events, seed=7)
    b = _run(tmp_path, events, seed=7)
    strip = lambda s: {k: v for k, v in s.items() if k != "wallSeconds"}  # noqa: E731
    assert strip(a[0]) == strip(b[0])
    assert [[x for x in r.values() if not (isinstance(x, float) and math.isnan(x))] for r in a[1]] == [
        [x for x in r.values() if not (isinstance(x, float) and math.isnan(x))] for r in b[1]
    ]
    assert parse_object(node("x")).meta.name == "x"
