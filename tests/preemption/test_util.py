"""pickOneNodeForPreemption, MoreImportantPod and GetEarliestPodStartTime, table-driven with
upstream's case names (TestPickOneNodeForPreemption, default_preemption_test.go)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.framework.preemption import (
    Victims,
    default_ordered_score_funcs,
    get_earliest_pod_start_time,
    more_important_pod,
    pick_one_node_for_preemption,
)
from kubesched.testing.wrappers import make_pod

NOW = 1000.0


def pod(name: str, priority: int, start: float | None = None) -> Pod:
    b = make_pod().name(name).priority(priority)
    if start is not None:
        b.start_time(start)
    return b.obj()


def victims(*pods: tuple[int, float | None], pdb_violations: int = 0) -> Victims:
    """Victims given as (priority, start time), most important first as SelectVictimsOnNode
    returns them."""
    return Victims([pod(f"v{i}", p, s) for i, (p, s) in enumerate(pods)], pdb_violations)


@dataclass(frozen=True)
class Case:
    name: str
    nodes: dict[str, Victims]
    want: str


CASES = [
    Case("No node needs preemption", {}, ""),
    Case("a pod that fits on one node", {"node1": victims((100, None))}, "node1"),
    Case("node with fewest PDB violations is picked",
         {"node1": victims((1, None), pdb_violations=1), "node2": victims((500, None))}, "node2"),
    Case("machine with min highest priority pod is picked",
         {"node1": victims((1000, None), (10, None)), "node2": victims((500, None), (500, None)),
          "node3": victims((200, None))}, "node3"),
    Case("when highest priorities are the same, minimum sum of lower priority pods is used",
         {"node1": victims((500, None), (10, None)), "node2": victims((500, None), (400, None)),
          "node3": victims((500, None), (100, None))}, "node1"),
    Case("when highest priority and sum are the same, minimum number of pods is used",
         # sums with MaxInt32+1 added per pod favour fewer pods
         {"node1": victims((500, None), (0, None), (0, None), (0, None)),
          "node2": victims((500, None), (0, None))}, "node2"),
    Case("sum of adjusted priorities is considered",
         # negative priorities: node2's two pods sum higher once shifted to >= 0
         {"node1": victims((-10, None), (-10, None), (-10, None)),
          "node2": victims((-10, None), (-20, None))},
         "node2"),
    Case("non-overlapping lowest high priority, sum priorities, and number of pods",
         {"node1": victims((500, None), (300, None)), "node2": victims((500, None), (100, None), (100, None)),
          "node3": victims((400, None), (100, None), (100, None), (100, None))}, "node3"),
    Case("same priority, same number of victims, different start time for each node's pod",
         {"node1": victims((10, 100.0)), "node2": victims((10, 300.0)), "node3": victims((10, 200.0))},
         "node2"),
    Case("same priority, same number of victims, different start time for all pods",
         # the earliest start among each node's highest-priority victims is compared
         {"node1": victims((10, 100.0), (10, 500.0)), "node2": victims((10, 200.0), (10, 150.0)),
          "node3": victims((10, 300.0), (10, 50.0))}, "node2"),
    Case("different priority, same number of victims, different start time for all pods",
         # only the highest-priority victims' start times count
         {"node1": victims((20, 500.0), (10, 10.0)), "node2": victims((20, 300.0), (10, 600.0))}, "node1"),
    Case("ties after every criterion: the first candidate",
         {"node2": victims((10, 100.0)), "node1": victims((10, 100.0))}, "node2"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_pick_one_node_for_preemption(case: Case) -> None:
    assert pick_one_node_for_preemption(case.nodes, None, NOW) == case.want


def test_custom_score_funcs_take_precedence() -> None:
    nodes = {"node1": victims((1, None)), "node2": victims((100, None))}
    assert pick_one_node_for_preemption(nodes, [lambda n: 1 if n == "node2" else 0], NOW) == "node2"


@pytest.mark.parametrize(("p1", "p2", "want"), [
    pytest.param(pod("a", 10), pod("b", 5), True, id="higher-priority"),
    pytest.param(pod("a", 5), pod("b", 10), False, id="lower-priority"),
    pytest.param(pod("a", 5, 100.0), pod("b", 5, 200.0), True, id="same-priority-started-earlier"),
    pytest.param(pod("a", 5, 200.0), pod("b", 5, 100.0), False, id="same-priority-started-later"),
    pytest.param(pod("a", 5, 100.0), pod("b", 5), True, id="not-started-counts-as-now"),
    pytest.param(pod("a", 5, 100.0), pod("b", 5, 100.0), False, id="equal"),
])
def test_more_important_pod(p1: Pod, p2: Pod, want: bool) -> None:
    assert more_important_pod(p1, p2, NOW) is want


def test_earliest_pod_start_time_among_highest_priority_victims() -> None:
    v = victims((5, 300.0), (10, 400.0), (10, 350.0), (1, 10.0))
    assert get_earliest_pod_start_time(v, NOW) == 350.0
    assert get_earliest_pod_start_time(Victims(), NOW) is None
    assert get_earliest_pod_start_time(victims((1, None)), NOW) == NOW


victims_st = st.lists(st.tuples(st.integers(-3, 3), st.one_of(st.none(), st.integers(0, 3).map(float))),
                      min_size=1, max_size=3)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(victims_st, st.integers(0, 1)), min_size=1, max_size=6))
def test_default_pick_is_the_criterion_by_criterion_pick(nodes: list[tuple[list[Any], int]]) -> None:
    """With the default functions the one-pass pick equals applying them one after the other
    (the path any custom function list takes)."""
    m = {f"node{i}": victims(*sorted(vs, key=lambda v: -v[0]), pdb_violations=viol)
         for i, (vs, viol) in enumerate(nodes)}
    assert pick_one_node_for_preemption(m, None, NOW) == pick_one_node_for_preemption(
        m, default_ordered_score_funcs(m, NOW), NOW)
