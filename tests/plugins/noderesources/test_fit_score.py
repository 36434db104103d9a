"""NodeResourcesFit scoring strategies (least_allocated_test.go, most_allocated_test.go,
requested_to_capacity_ratio_test.go), per-node and batch, with hand arithmetic."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Node, Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.plugins.noderesources import Fit, NodeResourcesFitArgs
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import score_all

GPU = "intel.com/foo"


def node(name: str, cpu: int, mem: int, **extra: int) -> Node:
    cap: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem)}
    if extra.get("gpu"):
        cap[GPU] = str(extra["gpu"])
    return make_node().name(name).capacity(cap).obj()


def pod(*containers: tuple[int, int], node_name: str = "", name: str = "p", gpu: int = 0) -> Pod:
    b = make_pod().name(name).uid(name)
    for cpu, mem in containers:
        r: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem)}
        if gpu:
            r[GPU] = str(gpu)
        b.req(r)
    if node_name:
        b.node(node_name)
    return b.obj()


def strategy(
    type_: str, resources: list[dict[str, Any]] | None = None, shape: list[tuple[int, int]] | None = None
) -> Fit:
    s: dict[str, Any] = {"type": type_}
    if resources is not None:
        s["resources"] = resources
    if shape is not None:
        s["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": sc} for u, sc in shape]}
    return Fit(NodeResourcesFitArgs.from_dict({"scoringStrategy": s}))


CPU_AND_MEMORY = ((1000, 2000), (2000, 3000))  # 3000m cpu, 5000 memory
CPU_ONLY = ((1000, 0), (2000, 0))  # memory explicitly 0: no scoring default

LEAST = [
    # no containers: nothing requested, even with the non-zero defaults -> 100 on both
    pytest.param(
        pod(),
        [node("node1", 4000, 10000), node("node2", 4000, 10000)],
        [],
        [100, 100],
        id="nothing scheduled, nothing requested",
    ),
    # node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 -> (25+50)/2 = 37
    # node2: cpu (6000-3000)*100/6000 = 50, memory 50 -> 50
    pytest.param(
        pod(*CPU_AND_MEMORY),
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [],
        [37, 50],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    # node1: cpu (10000-6000)*100/10000 = 40, memory (20000-5000)*100/20000 = 75 -> 57
    # node2: cpu 40, memory (50000-10000)*100/50000 = 80 -> 60
    pytest.param(
        pod(*CPU_AND_MEMORY),
        [node("node1", 10000, 20000), node("node2", 10000, 50000)],
        [pod(*CPU_ONLY, node_name="node1", name="e1"), pod(*CPU_AND_MEMORY, node_name="node2", name="e2")],
        [57, 60],
        id="resources requested, pods scheduled with resources",
    ),
    # cpu 3000+3000 > 4000 -> 0; memory (10000-5000)*100/10000 = 50 -> 25
    pytest.param(
        pod(*CPU_AND_MEMORY),
        [node("node1", 4000, 10000)],
        [pod(*CPU_ONLY, node_name="node1", name="e")],
        [25],
        id="requested resources exceed node capacity",
    ),
    # a container without requests counts 100m / 200Mi:
    # cpu (4000-100)*100/4000 = 97, memory 200Mi > 10000 -> 0; (97+0)/2 = 48
    pytest.param(
        make_pod().name("p").container_image("img").obj(),
        [node("node1", 4000, 10000)],
        [],
        [48],
        id="non-zero defaults for missing requests",
    ),
    # zero allocatable: both resources skipped -> 0
    pytest.param(pod(*CPU_AND_MEMORY), [node("node1", 0, 0)], [], [0], id="zero node resources"),
]


@pytest.mark.parametrize(("p", "nodes", "existing", "want"), LEAST)
def test_least_allocated(p: Pod, nodes: list[Node], existing: list[Pod], want: list[int]) -> None:
    assert score_all(Fit(), p, snapshot_of(nodes, existing)) == want


def test_least_allocated_weights() -> None:
    # node1: cpu 25 (weight 3), memory 50 (weight 1) -> (75+50)/4 = 31
    pl = strategy("LeastAllocated", [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}])
    assert score_all(pl, pod(*CPU_AND_MEMORY), snapshot_of([node("node1", 4000, 10000)])) == [31]


MOST = [
    # node1: cpu 3000*100/4000 = 75, memory 5000*100/10000 = 50 -> 62; node2: 50, 50 -> 50
    pytest.param(
        pod(*CPU_AND_MEMORY),
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [],
        [62, 50],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    # node1: cpu 6000*100/10000 = 60, memory 5000*100/20000 = 25 -> 42
    # node2: cpu 60, memory 10000*100/50000 = 20 -> 40
    pytest.param(
        pod(*CPU_AND_MEMORY),
        [node("node1", 10000, 20000), node("node2", 10000, 50000)],
        [pod(*CPU_ONLY, node_name="node1", name="e1"), pod(*CPU_AND_MEMORY, node_name="node2", name="e2")],
        [42, 40],
        id="resources requested, pods scheduled with resources",
    ),
    # cpu 6000 capped at 4000 -> 100; memory 50 -> 75
    pytest.param(
        pod(*CPU_AND_MEMORY),
        [node("node1", 4000, 10000)],
        [pod(*CPU_ONLY, node_name="node1", name="e")],
        [75],
        id="requested resources capped at capacity",
    ),
]


@pytest.mark.parametrize(("p", "nodes", "existing", "want"), MOST)
def test_most_allocated(p: Pod, nodes: list[Node], existing: list[Pod], want: list[int]) -> None:
    assert score_all(strategy("MostAllocated"), p, snapshot_of(nodes, existing)) == want


def test_extended_resource_bypassed_when_not_requested() -> None:
    resources = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 1}]
    nodes = [node("node1", 4000, 10000, gpu=4)]
    # requested: cpu 1000*100/4000 = 25, memory 2000*100/10000 = 20, gpu 2*100/4 = 50 -> 95/3 = 31
    assert score_all(
        strategy("MostAllocated", resources), pod(*CPU_AND_MEMORY[:1], gpu=2), snapshot_of(nodes)
    ) == [(25 + 20 + 50) // 3]
    # not requested: gpu skipped -> cpu 1000*100/4000 = 25, memory 2000*100/10000 = 20 -> 22
    assert score_all(strategy("MostAllocated", resources), pod(*CPU_AND_MEMORY[:1]), snapshot_of(nodes)) == [
        22
    ]


def test_column_plan_follows_new_resources_and_nodes() -> None:
    # The batch path memoizes, per pod requests, which snapshot columns to read; a resource
    # first seen on an updated node (a column added in place) and added nodes (new columns)
    # must show at once.
    resources = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 3}]
    fit = strategy("MostAllocated", resources)
    p = pod(*CPU_AND_MEMORY[:1], gpu=2)
    cache = Cache(VirtualClock())
    plain = node("node1", 4000, 10000)
    cache.add_node(plain)
    snap = Snapshot()
    cache.update_snapshot(snap)
    # no node has the gpu resource: only cpu 25 and memory 20 count -> 45/2 = 22
    assert score_all(fit, p, snap) == [22]
    cache.update_node(plain, node("node1", 4000, 10000, gpu=4))
    cache.update_snapshot(snap)
    # cpu 25, memory 20, gpu 2*100/4 = 50 with weight 3 -> (25 + 20 + 150) / 5 = 39
    assert score_all(fit, p, snap) == [39]
    cache.add_node(node("node2", 4000, 10000))
    cache.update_snapshot(snap)
    assert score_all(fit, p, snap) == [39, 22]


RTCR = [
    # shape (0,10),(100,0) scaled to (0,100),(100,0): utilization u scores 100 - u
    # node1: cpu 75 -> 25, memory 50 -> 50 -> round(37.5) = 38; node2: 50, 50 -> 50
    pytest.param(
        [(0, 10), (100, 0)],
        pod(*CPU_AND_MEMORY),
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [38, 50],
        id="resources requested, differently sized nodes, least requested shape",
    ),
    # bin packing (0,0),(100,10): node1 cpu 75, memory 50 -> round(62.5) = 63; node2 50 -> 50
    pytest.param(
        [(0, 0), (100, 10)],
        pod(*CPU_AND_MEMORY),
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [63, 50],
        id="bin packing shape",
    ),
    # nothing requested: utilization 0 -> shape score 0 for both resources -> no weight counted -> 0
    pytest.param(
        [(0, 0), (100, 10)],
        pod(),
        [node("node1", 4000, 10000)],
        [0],
        id="zero resource scores are not counted",
    ),
    # cpu only requested: cpu 3000*100/4000 = 75 -> 75; memory 0 -> score 0, not counted -> 75
    pytest.param(
        [(0, 0), (100, 10)],
        pod(*CPU_ONLY),
        [node("node1", 4000, 10000)],
        [75],
        id="only positive resource scores are averaged",
    ),
    # over capacity: utilization taken as 100
    pytest.param(
        [(0, 0), (50, 10), (100, 0)],
        pod((5000, 0)),
        [node("node1", 4000, 10000)],
        [0],
        id="over capacity uses max utilization",
    ),
]


@pytest.mark.parametrize(("shape", "p", "nodes", "want"), RTCR)
def test_requested_to_capacity_ratio(
    shape: list[tuple[int, int]], p: Pod, nodes: list[Node], want: list[int]
) -> None:
    assert score_all(strategy("RequestedToCapacityRatio", shape=shape), p, snapshot_of(nodes)) == want


def test_requested_to_capacity_ratio_extended_resource() -> None:
    pl = strategy("RequestedToCapacityRatio", [{"name": GPU, "weight": 1}], shape=[(0, 0), (100, 10)])
    nodes = [node("node1", 4000, 10000, gpu=4), node("node2", 4000, 10000, gpu=8)]
    # gpu 2/4 -> 50, 2/8 -> 25
    assert score_all(pl, pod((0, 0), gpu=2), snapshot_of(nodes)) == [50, 25]
    # not requested: bypassed, weight sum 0 -> 0
    assert score_all(pl, pod((0, 0)), snapshot_of(nodes)) == [0, 0]
