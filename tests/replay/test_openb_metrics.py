"""The FGD paper's metrics on hand-made node states: typical pods, fragmentation, allocation."""

from __future__ import annotations

import numpy as np
import pytest

from kubesched.api.loader import parse_object
from kubesched.replay.openb import (
    FragModel,
    GpuMetrics,
    PodGpu,
    TypicalPod,
    arrived_gpu_demand,
    gpu_allocation,
    node_gpu_left,
    typical_pods,
)

SHARE = TypicalPod(cpu=1000, milli=500, count=1, spec="", freq=0.5)
WHOLE = TypicalPod(cpu=1000, milli=1000, count=1, spec="", freq=0.5)


def frag(typical: list[TypicalPod], cpu_left: int, left: list[int], model: str = "T4") -> float:
    m = FragModel(typical)
    rows = np.array([left + [-1] * (8 - len(left))], dtype=np.int64)
    return float(m.fragment(np.array([cpu_left]), rows, m.access([model]))[0])


def test_typical_pods_cover_95_percent_most_frequent_first() -> None:
    reqs = [PodGpu(1000, 500, 1)] * 60 + [PodGpu(2000, 1000, 1)] * 30 + [PodGpu(100, 0, 0)] * 6 \
        + [PodGpu(3000, 1000, 2)] * 4
    typ = typical_pods(reqs)
    # 60 + 30 = 90 < 95; + 6 = 96 >= 95: three shapes, renormalised over 96 pods
    assert [(t.cpu, t.milli, t.count) for t in typ] == [(1000, 500, 1), (2000, 1000, 1), (100, 0, 0)]
    assert [round(t.freq, 4) for t in typ] == [round(60 / 96, 4), round(30 / 96, 4), round(6 / 96, 4)]
    # equal counts: the greater shape first (sort.Reverse of PodResource.Less)
    tie = typical_pods([PodGpu(1000, 500, 1), PodGpu(2000, 500, 1)])
    assert [t.cpu for t in tie] == [2000, 1000]


def test_fragment_of_a_node_by_hand() -> None:
    # GPUs [300, 1000]: both pods fit (Q3) and cannot use the 300 left on GPU 0
    assert frag([SHARE, WHOLE], 8000, [300, 1000]) == pytest.approx(0.5 * 300 + 0.5 * 300)
    # [600, 600]: the share pod fits and can use both; the whole-GPU pod fits nowhere: all 1200
    assert frag([SHARE, WHOLE], 8000, [600, 600]) == pytest.approx(0.5 * 0 + 0.5 * 1200)
    # short of cpu: nothing can use the node (Q4)
    assert frag([SHARE, WHOLE], 500, [300, 1000]) == pytest.approx(1300)
    # a CPU-only typical pod counts all idle GPU milli as fragment
    cpu_only = TypicalPod(cpu=100, milli=0, count=0, spec="", freq=1.0)
    assert frag([cpu_only], 8000, [1000, 1000]) == pytest.approx(2000)
    # a pod restricted to another GPU model cannot use the node
    v100 = TypicalPod(cpu=1000, milli=500, count=1, spec="V100M16|V100M32", freq=1.0)
    assert frag([v100], 8000, [1000], model="T4") == pytest.approx(1000)
    assert frag([v100], 8000, [1000], model="V100M32") == 0.0
    # no GPU left, no fragment
    assert frag([SHARE, WHOLE], 8000, [0, 0]) == 0.0


def test_fragment_if_shared_equals_fragment_after_the_placement() -> None:
    m = FragModel([SHARE, WHOLE, TypicalPod(4000, 250, 1, "", 0.2)])
    left = np.array([[300, 1000, 750, 0, -1, -1, -1, -1]], dtype=np.int64)
    cpu = np.array([6000], dtype=np.int64)
    acc = m.access(["T4"])
    req = PodGpu(2000, 250, 1)
    got = m.fragment_if_shared(cpu, left, acc, req)[0]
    for g in range(8):
        if left[0, g] < req.milli:
            assert np.isnan(got[g])
            continue
        after = left.copy()
        after[0, g] -= req.milli
        assert got[g] == pytest.approx(m.fragment(cpu - req.cpu, after, acc)[0])


def test_allocation_and_arrived_demand() -> None:
    left = np.array([[1000, 500, -1, -1], [0, 0, 0, 0]], dtype=np.int64)
    assert gpu_allocation(left) == pytest.approx((6000 - 1500) / 6000)
    assert gpu_allocation(np.full((2, 4), -1, dtype=np.int64)) == 0.0
    assert arrived_gpu_demand([PodGpu(1, 500, 1), PodGpu(1, 1000, 4), PodGpu(1, 0, 0)]) == 4500


def test_node_state_derived_from_its_pods() -> None:
    pods = [(PodGpu(1, 300, 1), "a", "1"), (PodGpu(1, 1000, 2), "b", "2-3"), (PodGpu(1, 200, 1), "c", ""),
            (PodGpu(1, 0, 0), "d", "")]
    # c has no recorded GPU: Reserve's choice, else packed on the tightest GPU that fits
    chosen = node_gpu_left(4, pods, 6, lambda uid: [0] if uid == "c" else None)
    assert chosen.tolist() == [800, 700, 0, 0, -1, -1]
    assert node_gpu_left(4, pods, 6).tolist() == [1000, 500, 0, 0, -1, -1]


def test_gpu_metrics_follow_bindings() -> None:
    nodes = [parse_object({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {
        "alibabacloud.com/gpu-card-model": "T4"}}, "status": {"capacity": {
            "cpu": "8", "memory": "1Gi", "alibabacloud.com/gpu-count": "2"}}}) for n in ("a", "b")]
    m = GpuMetrics(nodes, [SHARE, WHOLE])
    assert m.allocation == 0.0 and m.frag_amount == 0.0
    m.arrive(PodGpu(1000, 700, 1))
    m.bind("a", PodGpu(1000, 700, 1), [0], 1000)
    assert m.arrived == 700 and m.allocation == pytest.approx(700 / 4000)
    # node a: GPUs [300, 1000], both typical pods fit and cannot use the 300
    assert m.frag_amount == pytest.approx(300) and m.frag_ratio == pytest.approx(300 / 3300)


def test_state_and_metrics_from_objects_agree_with_the_tracker() -> None:
    from kubesched.replay.openb import GPU_COUNT, GPU_INDEX, GPU_MILLI, gpu_metrics, gpu_state

    nodes = [parse_object({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {
        "alibabacloud.com/gpu-card-model": "T4"}}, "status": {"capacity": {
            "cpu": "8", "memory": "1Gi", GPU_COUNT: "2"}}}) for n in ("a", "b")]

    def bound(name: str, node: str, milli: int, index: str) -> object:
        return parse_object({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "namespace": "default", "annotations": {GPU_MILLI: str(milli), GPU_COUNT: "1",
                                                                  GPU_INDEX: index}},
            "spec": {"nodeName": node,
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}})

    pods = [bound("p", "a", 700, "0"), bound("q", "b", 200, "1")]
    state = gpu_state(nodes, pods)  # type: ignore[arg-type]
    assert state.left.tolist() == [[300, 1000], [1000, 800]] and state.cpu_left.tolist() == [7000, 7000]
    m = GpuMetrics(nodes, [SHARE, WHOLE])
    m.bind("a", PodGpu(1000, 700, 1), [0], 1000)
    m.bind("b", PodGpu(1000, 200, 1), [1], 1000)
    got = gpu_metrics(state, [SHARE, WHOLE])
    assert got["allocation"] == pytest.approx(m.allocation) == pytest.approx(900 / 4000)
    # a [300, 1000]: both typical pods fit, the 300 is theirs to waste -> 300;
    # b [1000, 800]: the share pod wastes nothing, the whole-GPU pod the 800 -> 0.5 * 800
    assert got["frag_amount"] == pytest.approx(m.frag_amount) == pytest.approx(300 + 400)
    assert got["frag_ratio"] == pytest.approx(m.frag_ratio) and got["capacity"] == 4000
