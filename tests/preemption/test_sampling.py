"""Candidate sampling: how many nodes the dry run shortlists (minCandidateNodesPercentage /
minCandidateNodesAbsolute) and from which seeded random offset."""

from __future__ import annotations

from typing import Any

import pytest

from ._sim import Sim


@pytest.mark.parametrize(("pct", "absolute", "nodes", "want"), [
    pytest.param(10, 100, 0, 0, id="no-nodes"),
    pytest.param(10, 100, 50, 50, id="nodes-fewer-than-absolute"),
    pytest.param(10, 100, 2000, 200, id="percentage-above-absolute"),
    pytest.param(10, 100, 500, 100, id="absolute-above-percentage"),
    pytest.param(0, 1, 10, 1, id="percentage-zero"),
    pytest.param(50, 0, 9, 4, id="absolute-zero-rounds-down"),
    pytest.param(100, 0, 7, 7, id="all-nodes"),
])
def test_calculate_num_candidates(pct: int, absolute: int, nodes: int, want: int) -> None:
    s = Sim(preemption_args={"minCandidateNodesPercentage": pct, "minCandidateNodesAbsolute": absolute})
    assert s.plugin.calculate_num_candidates(nodes) == want


def ten_full_nodes(s: Sim) -> None:
    for i in range(10):
        s.node(f"n{i}")
        s.pod(f"low{i}", cpu="2", priority=i + 1, node=f"n{i}")
    s.pod("high", cpu="2", priority=100)


class Spy:
    """Counts dry-run checks and records offsets, around the plugin's real hooks."""

    def __init__(self, plugin: Any) -> None:
        self.checked: list[str] = []
        self.offsets: list[tuple[int, int]] = []
        select, offset = plugin.select_victims_on_node, plugin.get_offset_and_num_candidates

        def spy_select(state: Any, pod: Any, node_info: Any, pdbs: Any) -> Any:
            self.checked.append(node_info.name)
            return select(state, pod, node_info, pdbs)

        def spy_offset(n: int) -> tuple[int, int]:
            out = offset(n)
            self.offsets.append(out)
            return out

        plugin.select_victims_on_node = spy_select
        plugin.get_offset_and_num_candidates = spy_offset


def preempted_node(seed: int, args: dict[str, int] | None) -> tuple[str, Spy]:
    s = Sim(seed=seed, preemption_args=args)
    ten_full_nodes(s)
    spy = Spy(s.plugin)
    s.run(until=1)
    return s.nominated("high"), spy


def test_default_args_dry_run_every_node_and_pick_the_best() -> None:
    node, spy = preempted_node(0, None)
    assert spy.offsets[0][1] == 10  # max(10% of 10, 100) capped at 10 nodes
    assert sorted(spy.checked) == sorted(f"n{i}" for i in range(10))
    # The dry run starts at the random offset and wraps around.
    start = spy.offsets[0][0]
    assert spy.checked == [f"n{(start + i) % 10}" for i in range(10)]
    assert node == "n0"  # the lowest-priority victim


def test_one_candidate_stops_the_dry_run_at_the_seeded_offset() -> None:
    args = {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1}
    chosen = {}
    for seed in range(8):
        node, spy = preempted_node(seed, args)
        offset, num = spy.offsets[0]
        assert num == 1
        assert spy.checked == [f"n{offset}"]  # one non-violating candidate is enough
        assert node == f"n{offset}"
        chosen[seed] = node
        assert preempted_node(seed, args)[0] == node  # same seed, same choice
    assert len(set(chosen.values())) > 1  # the offset is random across seeds


def test_dry_run_continues_past_violating_candidates() -> None:
    # A PDB-violating candidate alone does not stop the search: it goes on until a
    # non-violating one is found, and the non-violating one wins.
    s = Sim(preemption_args={"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1})
    for i in range(4):
        s.node(f"n{i}")
        app = "web" if i == 2 else "db"
        s.pod(f"low{i}", cpu="2", priority=1, node=f"n{i}", labels={"app": app})
    s.pdb("db", {"app": "db"}, max_unavailable=0)
    s.pod("high", cpu="2", priority=100)
    spy = Spy(s.plugin)
    s.run(until=1)
    offset = spy.offsets[0][0]
    expected = [f"n{(offset + i) % 4}" for i in range((2 - offset) % 4 + 1)]
    assert spy.checked == expected
    assert s.nominated("high") == "n2"
