"""Pure helpers of the scheduler: numFeasibleNodesToFind, node update events, host selection,
failure message truncation, metrics names."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.scheduler._algorithm import ScheduleAlgorithm, _next_chunk, num_feasible_nodes_to_find
from kubesched.scheduler._eventhandlers import node_scheduling_properties_change
from kubesched.scheduler._failure import NOTE_LENGTH_LIMIT, truncate_message
from kubesched.scheduler._metrics import SchedulerMetrics
from kubesched.testing.wrappers import make_node


@pytest.mark.parametrize(("percentage", "num_nodes", "want"), [
    pytest.param(None, 10, 10, id="not set percentageOfNodesToScore and nodes number not more than 50"),
    pytest.param(40, 10, 10, id="set profile percentageOfNodesToScore and nodes number not more than 50"),
    pytest.param(None, 1000, 420, id="not set percentageOfNodesToScore and nodes number more than 50"),
    pytest.param(40, 1000, 400, id="set profile percentageOfNodesToScore and nodes number more than 50"),
    pytest.param(None, 6000, 300,
                 id="not set profile percentageOfNodesToScore and nodes number more than 50*125"),
    pytest.param(40, 6000, 2400,
                 id="set profile percentageOfNodesToScore and nodes number more than 50*125"),
    pytest.param(1, 1000, 100, id="never fewer than minFeasibleNodesToFind"),
    pytest.param(None, 100, 100, id="adaptive at the threshold"),
])
def test_num_feasible_nodes_to_find(percentage: int | None, num_nodes: int, want: int) -> None:
    assert num_feasible_nodes_to_find(percentage, num_nodes) == want


@pytest.mark.parametrize(("chunk", "pos", "found", "to_find", "want"), [
    pytest.param(750, 750, 0, 750, 1500, id="nothing found yet: doubles"),
    # TopologySpreading at 15,000 nodes, one zone of three at maxSkew: 500 of the first 750
    # pass; 250 more are needed at that rate, 375 nodes, plus an eighth and 16.
    pytest.param(750, 750, 500, 750, 375 + 46 + 16, id="sized by the pass rate"),
    pytest.param(100, 100, 99, 100, 64, id="never fewer than 64"),
])
def test_next_chunk(chunk: int, pos: int, found: int, to_find: int, want: int) -> None:
    assert _next_chunk(chunk, pos, found, to_find) == want


def _node_events(mutate: str) -> list[ActionType]:
    old = make_node().name("n").capacity({"cpu": "4"}).label("a", "1").obj()
    b = make_node().name("n").capacity({"cpu": "4"}).label("a", "1")
    if mutate == "labels":
        b.label("a", "2")
    elif mutate == "allocatable":
        b.capacity({"cpu": "8"})
    elif mutate == "taints":
        b.taint("k", "v")
    elif mutate == "conditions":
        b.condition("Ready", "False")
    elif mutate == "annotations":
        b.annotation("x", "y")
    elif mutate == "labels+taints":
        b.label("a", "2").taint("k", "v")
    return [e.action for e in node_scheduling_properties_change(b.obj(), old)]


@pytest.mark.parametrize(("mutate", "want"), [
    pytest.param("none", [], id="no scheduling property changed"),
    pytest.param("labels", [ActionType.UPDATE_NODE_LABEL], id="labels"),
    pytest.param("allocatable", [ActionType.UPDATE_NODE_ALLOCATABLE], id="allocatable"),
    pytest.param("taints", [ActionType.UPDATE_NODE_TAINT], id="taints"),
    pytest.param("conditions", [ActionType.UPDATE_NODE_CONDITION], id="conditions"),
    pytest.param("annotations", [ActionType.UPDATE_NODE_ANNOTATION], id="annotations"),
    pytest.param("labels+taints", [ActionType.UPDATE_NODE_LABEL, ActionType.UPDATE_NODE_TAINT],
                 id="several changes, upstream order"),
])
def test_node_scheduling_properties_change(mutate: str, want: list[ActionType]) -> None:
    assert _node_events(mutate) == want


@pytest.mark.parametrize(("old_unsched", "new_unsched", "want"), [
    pytest.param(True, False, [ActionType.UPDATE_NODE_TAINT], id="became schedulable: a taint change"),
    pytest.param(False, True, [], id="became unschedulable: nothing can get better"),
])
def test_spec_unschedulable_change(old_unsched: bool, new_unsched: bool, want: list[ActionType]) -> None:
    old = make_node().name("n").unschedulable(old_unsched).obj()
    new = make_node().name("n").unschedulable(new_unsched).obj()
    got = node_scheduling_properties_change(new, old)
    assert [e.action for e in got] == want
    assert all(e == ClusterEvent(EventResource.NODE, e.action) for e in got)


def test_select_host_picks_a_top_node_uniformly_and_deterministically() -> None:
    scores = [("a", 10), ("b", 30), ("c", 30), ("d", 30), ("e", 5)]
    algo = ScheduleAlgorithm([], random.Random(7))
    picks = Counter(algo.select_host(scores) for _ in range(3000))
    assert set(picks) == {"b", "c", "d"}
    assert all(800 < v < 1200 for v in picks.values())
    first = [ScheduleAlgorithm([], random.Random(7)).select_host(scores) for _ in range(5)]
    assert len(set(first)) == 1  # same seed, same choice


def test_select_host_unique_top() -> None:
    assert ScheduleAlgorithm([], random.Random(0)).select_host([("a", 1), ("b", 2)]) == "b"


def test_truncate_message() -> None:
    assert truncate_message("short") == "short"
    long = "x" * (NOTE_LENGTH_LIMIT + 10)
    got = truncate_message(long)
    assert len(got) == NOTE_LENGTH_LIMIT and got.endswith(" ...")


def test_metrics_have_upstream_names_and_separate_registries() -> None:
    m1, m2 = SchedulerMetrics(), SchedulerMetrics()
    m1.observe_attempt("scheduled", "default-scheduler", 0.01)
    m1.set_pending({"active": 2, "unschedulable": 1})
    assert m1.value("scheduler_schedule_attempts_total",
                    {"result": "scheduled", "profile": "default-scheduler"}) == 1
    assert m2.value("scheduler_schedule_attempts_total",
                    {"result": "scheduled", "profile": "default-scheduler"}) == 0
    assert m1.value("scheduler_pending_pods", {"queue": "active"}) == 2
    text = m1.exposition().decode()
    for name in ("scheduler_schedule_attempts_total", "scheduler_scheduling_attempt_duration_seconds",
                 "scheduler_pending_pods", "scheduler_preemption_attempts_total",
                 "scheduler_preemption_victims", "scheduler_framework_extension_point_duration_seconds",
                 "scheduler_pod_scheduling_attempts"):
        assert name in text
