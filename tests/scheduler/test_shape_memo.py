"""The framework's per-shape memo of node-only plugins (framework._shape_memo): a plugin that
states it is a NodeShapePlugin is run for a pod shape once (twice: the memo keeps a shape seen
twice), not once per pod; its answers are recomputed when a Node object changes, kept apart
per shape, and the placements are those of running it every cycle."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    BatchFilterResult,
    Code,
    CycleState,
    FilterInputs,
    NodeBatch,
    NodeShapePlugin,
    PluginBase,
    Status,
)
from kubesched.plugins import nodeaffinity, nodename, nodeunschedulable, tainttoleration
from kubesched.testing.wrappers import make_node, make_pod

from .env import BASIC, Env, profile

CALLS: list[str] = []
ZONE_A, ZONE_B = {"n0", "n1", "n2"}, {"n3", "n4", "n5"}


class Zoned(PluginBase):
    """Filter: only nodes whose ``zone`` label is the pod's ``want`` label. Score: 10 on nodes
    labelled ``fast``. Every call is recorded in CALLS."""

    NAME = "Zoned"
    FILTER_INPUTS = FilterInputs.NODE

    def node_shape(self, pod: Pod) -> Hashable:
        return pod.labels.get("want", "")

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        if node_info.node.labels.get("zone") != pod.labels.get("want"):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) in another zone")
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        CALLS.append("filter")
        return BatchFilterResult.from_statuses([self.filter(state, pod, ni) for ni in nodes.node_infos()])

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        CALLS.append("pre_score")
        state.write("PreScoreZoned", pod.labels.get("want"))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        assert state.read("PreScoreZoned") == pod.labels.get("want")
        assert node_info.node is not None
        return (10 if "fast" in node_info.node.labels else 0), None

    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[npt.NDArray[np.int64], Status | None]:
        CALLS.append("score")
        return np.array([self.score(state, pod, ni)[0] for ni in nodes.node_infos()], dtype=np.int64), None


def _env(shape_memo: bool = True) -> Env:
    CALLS.clear()
    env = Env(profile(plugins=(*BASIC, "Zoned")), registry={"Zoned": Zoned},
              options={"shape_memo": shape_memo})
    for i in range(6):
        b = make_node().name(f"n{i}").capacity({"cpu": "64", "pods": "110"})
        b.label("zone", "a" if i < 3 else "b")
        if i in (1, 4):
            b.label("fast", "yes")
        env.add(b)
    return env


def _pods(env: Env, n: int, want: str, prefix: str) -> list[str]:
    names = [f"{prefix}{i}" for i in range(n)]
    for name in names:
        env.add(make_pod().name(name).uid(f"{name}-uid").label("want", want).req({"cpu": "1"}))
    return names


def test_the_in_tree_node_only_plugins_state_the_capability() -> None:
    assert isinstance(Zoned(None, None), NodeShapePlugin)
    for plugin in (tainttoleration.TaintToleration(), nodeaffinity.NodeAffinity(),
                   nodename.NodeName(), nodeunschedulable.NodeUnschedulable()):
        assert isinstance(plugin, NodeShapePlugin)


def test_a_node_only_plugin_runs_per_shape_not_per_pod() -> None:
    env = _env()
    names = _pods(env, 20, "a", "p")
    env.run()
    # First pod: as usual; second: the memo computes over every node; the 18 others: nothing.
    assert CALLS.count("filter") == 2
    assert CALLS.count("pre_score") == 2
    assert CALLS.count("score") == 2
    assert env.node_of("p0") == "n1"  # zone a, and the fast node wins an empty cluster
    assert {env.node_of(n) for n in names} <= ZONE_A


def test_without_the_memo_the_plugin_runs_every_cycle_and_places_the_same() -> None:
    placed: list[dict[str, str]] = []
    for memo in (True, False):
        env = _env(memo)
        names = _pods(env, 8, "a", "p") + _pods(env, 8, "b", "q")
        env.run()
        placed.append({n: env.node_of(n) for n in names})
        if not memo:
            assert CALLS.count("filter") == 16
    assert placed[0] == placed[1]
    assert {placed[0][f"p{i}"] for i in range(8)} <= ZONE_A
    assert {placed[0][f"q{i}"] for i in range(8)} <= ZONE_B


def test_shapes_are_kept_apart() -> None:
    """Pods of two shapes in turn: each shape's answers are its own."""
    env = _env()
    for i in range(10):
        want = "a" if i % 2 == 0 else "b"
        env.add(make_pod().name(f"p{i}").uid(f"p{i}-uid").label("want", want).req({"cpu": "1"}))
    env.run()
    for i in range(10):
        assert env.node_of(f"p{i}") in (ZONE_A if i % 2 == 0 else ZONE_B)


def test_a_changed_node_is_seen_by_the_next_pods() -> None:
    env = _env()
    _pods(env, 5, "a", "p")
    env.run()
    assert env.node_of("p0") == "n1"
    # n1 moves to zone b and loses its fast label; n2 becomes fast.
    n1 = env.store.get("Node", "", "n1")
    env.store.update(make_node().name("n1").capacity({"cpu": "64", "pods": "110"}).label("zone", "b").obj()
                     .with_changes({("metadata", "resourceVersion"): n1.meta.resource_version}))
    n2 = env.store.get("Node", "", "n2")
    env.store.update(make_node().name("n2").capacity({"cpu": "64", "pods": "110"}).label("zone", "a")
                     .label("fast", "yes").obj()
                     .with_changes({("metadata", "resourceVersion"): n2.meta.resource_version}))
    _pods(env, 5, "a", "q")
    env.run()
    assert env.node_of("q0") == "n2"
    assert {env.node_of(f"q{i}") for i in range(5)} <= {"n0", "n2"}


@pytest.mark.parametrize("memo", [True, False])
def test_a_taint_added_between_cycles_keeps_the_next_pods_off_the_node(memo: bool) -> None:
    """TaintToleration through the memo: a node tainted after the shape was kept is refused."""
    env = Env(options={"shape_memo": memo})
    env.add(*[make_node().name(f"n{i}").capacity({"cpu": "64", "pods": "110"}) for i in range(2)])
    for i in range(4):
        env.add(make_pod().name(f"p{i}").uid(f"p{i}-uid").req({"cpu": "1"}))
    env.run()
    n0: Any = env.store.get("Node", "", "n0")
    env.store.update(make_node().name("n0").capacity({"cpu": "64", "pods": "110"}).taint("dedicated", "x")
                     .obj().with_changes({("metadata", "resourceVersion"): n0.meta.resource_version}))
    for i in range(4, 10):
        env.add(make_pod().name(f"p{i}").uid(f"p{i}-uid").req({"cpu": "1"}))
    env.run()
    assert {env.node_of(f"p{i}") for i in range(4, 10)} == {"n1"}
