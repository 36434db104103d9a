"""NodeResourcesBalancedAllocation (balanced_allocation_test.go) with the v1.36 formula
(kubernetes PR #135573): 50 + (50 + balance(with pod) - balance(without pod)) / 2; and, as an
older release (``--kube-version``), the balance with the pod alone and best-effort pods scored."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import KubeVersion, Node, Pod
from kubesched.plugins.noderesources import BalancedAllocation, NodeResourcesBalancedAllocationArgs
from kubesched.plugins.noderesources.balanced_allocation import (
    balanced_resource_row_scorer_before_135573,
    balanced_resource_score,
)
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle, score_all

GPU = "example.com/gpu"


def node(name: str, cpu: int, mem: int, gpu: int = 0) -> Node:
    cap: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem)}
    if gpu:
        cap[GPU] = str(gpu)
    return make_node().name(name).capacity(cap).obj()


def pod(cpu: int, mem: int, gpu: int = 0, node_name: str = "", name: str = "p") -> Pod:
    r: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem)}
    if gpu:
        r[GPU] = str(gpu)
    b = make_pod().name(name).uid(name).req(r)
    if node_name:
        b.node(node_name)
    return b.obj()


THREE = NodeResourcesBalancedAllocationArgs.from_dict(
    {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]}
)

CASES = [
    # node1: without pod fractions 0, 0 -> 100; with 0.75, 0.5 -> std 0.125 -> 87 -> 50 + (50+87-100)/2 = 68
    # node2: with 0.5, 0.5 -> 100 -> 50 + 50/2 = 75
    pytest.param(
        None,
        pod(3000, 5000),
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [],
        [68, 75],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    # existing cpu-only pod: without 0.6, 0 -> std 0.3 -> 70; with 0.6, 0.5 -> std 0.05 -> 95
    # -> 50 + (50 + 95 - 70)/2 = 50 + 37 = 87 (the pod improves the balance)
    pytest.param(
        None,
        pod(0, 10000),
        [node("node1", 10000, 20000)],
        [pod(6000, 0, node_name="node1", name="e")],
        [87],
        id="pod that improves the balance scores above 75",
    ),
    # the same node, pod worsens it: without 0.6, 0 -> 70; with 1.0 (capped from 1.2), 0 -> std 0.5 -> 50
    # -> 50 + (50 + 50 - 70)/2 = 65
    pytest.param(
        None,
        pod(6000, 0),
        [node("node1", 10000, 20000)],
        [pod(6000, 0, node_name="node1", name="e")],
        [65],
        id="fractions above 1 are capped",
    ),
    # three resources: with fractions .25, .2, .25 -> mean .2333, std 0.02357 -> 97; without 100
    # -> 50 + (50 + 97 - 100)/2 = 50 + 23 = 73
    pytest.param(
        THREE,
        pod(1000, 2000, gpu=1),
        [node("node1", 4000, 10000, gpu=4)],
        [],
        [73],
        id="more than two resources use the standard deviation",
    ),
    # gpu not requested: bypassed; cpu .25, memory .2 -> std .025 -> 97 -> 73
    pytest.param(
        THREE,
        pod(1000, 2000),
        [node("node1", 4000, 10000, gpu=4)],
        [],
        [73],
        id="not requested extended resource is bypassed",
    ),
    # Upstream's case (PR #135573). node1 holds a cpu-only pod filling its cpu: without the pod
    # fractions 1, 0 -> 50; with the memory-only pod 1, 1 -> 100 -> 50 + (50 + 100 - 50)/2 = 100.
    # node2 is empty: without 0, 0 -> 100; with 0, 1 -> 50 -> 50 + (50 + 50 - 100)/2 = 50.
    pytest.param(
        None,
        pod(0, 5000),
        [node("node1", 3000, 5000), node("node2", 3000, 5000)],
        [pod(3000, 0, node_name="node1", name="e")],
        [100, 50],
        id="resources requested, pods scheduled with resources, nodes to reach min/max score",
    ),
    # node without memory: only cpu counts -> std 0 both ways -> 75
    pytest.param(
        None, pod(1000, 2000), [node("node1", 4000, 0)], [], [75], id="single resource has no imbalance"
    ),
]


@pytest.mark.parametrize(("args", "p", "nodes", "existing", "want"), CASES)
def test_score(
    args: NodeResourcesBalancedAllocationArgs | None,
    p: Pod,
    nodes: list[Node],
    existing: list[Pod],
    want: list[int],
) -> None:
    assert score_all(BalancedAllocation(args), p, snapshot_of(nodes, existing)) == want


def test_best_effort_pod_is_skipped() -> None:
    best_effort = make_pod().name("p").container_image("img").obj()
    assert score_all(BalancedAllocation(), best_effort, snapshot_of([node("n", 1000, 1000)])) is None


def test_uses_plain_requests_not_scoring_defaults() -> None:
    # existing pod without requests counts 0 (not 100m / 200Mi) for BalancedAllocation:
    # without 0, 0 -> 100; with .25, .2 -> 97 -> 73
    existing = make_pod().name("e").uid("e").container_image("img").node("node1").obj()
    assert score_all(
        BalancedAllocation(), pod(1000, 2000), snapshot_of([node("node1", 4000, 10000)], [existing])
    ) == [73]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(1, 4).flatmap(
        lambda k: st.tuples(
            st.lists(st.lists(st.integers(0, 10**12), min_size=k, max_size=k), min_size=1, max_size=6),
            st.lists(st.lists(st.integers(1, 10**12), min_size=k, max_size=k), min_size=1, max_size=6),
        )
    )
)
def test_unmasked_fast_path_equals_masked_loop(data: tuple[list[list[int]], list[list[int]]]) -> None:
    # When every resource is present on every node the score takes a mask-free path; it must
    # give bit-for-bit what Go's per-node loop (the masked path, here with nothing masked) gives.
    used, caps = data
    n = min(len(used), len(caps))
    usage = np.array(used[:n], dtype=np.int64).T[None]  # [1, K, n]
    divisor = np.array(caps[:n], dtype=np.int64).T
    fast = balanced_resource_score(usage, divisor, None)
    masked = balanced_resource_score(usage, divisor, np.zeros(divisor.shape, dtype=bool))
    assert fast.tolist() == masked.tolist()


# -- Older releases (--kube-version) ---------------------------------------------------------
# Upstream's balanced_allocation_test.go cases on the release branches, where the score is the
# balance with the pod alone (before kubernetes PR #135573, v1.36) and, before PR #130260 (v1.33),
# best-effort pods are scored too.

def _as(release: str) -> FakeHandle:
    return FakeHandle(kube_version=KubeVersion.parse(release))


RELEASE_CASES = [
    # release-1.35: node1 cpu 3000/4000 = .75, memory 5000/10000 = .5 -> std .125 -> 87;
    # node2 .5, .5 -> std 0 -> 100
    pytest.param(
        "1.35", pod(3000, 5000), [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], [87, 100],
        id="1.35: nothing scheduled, resources requested, differently sized nodes",
    ),
    # release-1.35: node1 cpu (3000 + 3000)/10000 = .6, memory 5000/20000 = .25 -> std .175 -> 82;
    # node2 .6, (5000 + 5000)/50000 = .2 -> std .2 -> 80
    pytest.param(
        "1.35", pod(3000, 5000), [node("node1", 10000, 20000), node("node2", 10000, 50000)],
        [pod(3000, 0, node_name="node1", name="cpu-only"), pod(3000, 5000, node_name="node2", name="both")],
        [82, 80],
        id="1.35: resources requested, pods scheduled with resources, differently sized nodes",
    ),
    # release-1.32: a best-effort pod is scored: nothing requested anywhere -> std 0 -> 100
    pytest.param(
        "1.32", make_pod().name("p").container_image("img").obj(),
        [node("node1", 4000, 10000), node("node2", 4000, 10000)], [], [100, 100],
        id="1.32: nothing scheduled, nothing requested",
    ),
    # release-1.32: a best-effort pod scores the balance the node already has:
    # node1 cpu .75, memory 0 -> std .375 -> 62; node2 empty -> 100
    pytest.param(
        "1.32", make_pod().name("p").container_image("img").obj(),
        [node("node1", 4000, 10000), node("node2", 4000, 10000)],
        [pod(3000, 0, node_name="node1", name="e")], [62, 100],
        id="1.32: best-effort pod scored on the nodes' balance",
    ),
    # the same pod and nodes from 1.33: skipped at PreScore
    pytest.param(
        "1.33", make_pod().name("p").container_image("img").obj(),
        [node("node1", 4000, 10000), node("node2", 4000, 10000)],
        [pod(3000, 0, node_name="node1", name="e")], None,
        id="1.33: best-effort pod skipped",
    ),
    # the v1.36 formula from 1.36 on (the first case above): 68, 75
    pytest.param(
        "1.36", pod(3000, 5000), [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], [68, 75],
        id="1.36: the change in balance",
    ),
]


@pytest.mark.parametrize(("release", "p", "nodes", "existing", "want"), RELEASE_CASES)
def test_score_as_release(release: str, p: Pod, nodes: list[Node], existing: list[Pod],
                          want: list[int] | None) -> None:
    plugin = BalancedAllocation(None, _as(release))
    assert score_all(plugin, p, snapshot_of(nodes, existing)) == want


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 8000), st.integers(0, 16000)), min_size=1, max_size=5),
       st.integers(1, 4000), st.integers(1, 8000))
def test_row_scorer_before_135573_equals_the_batch_scorer(used: list[tuple[int, int]], cpu: int,
                                                          mem: int) -> None:
    # The per-row memo rescores changed rows with the row scorer: it must agree with the numpy one.
    nodes = [node(f"n{i}", 8000, 16000) for i in range(len(used))]
    existing = [pod(c, m, node_name=f"n{i}", name=f"e{i}") for i, (c, m) in enumerate(used)]
    snap = snapshot_of(nodes, existing)
    plugin = BalancedAllocation(None, _as("1.35"))
    want = score_all(plugin, pod(cpu, mem), snap)
    rows = [balanced_resource_row_scorer_before_135573([0, 1], [8000, 16000], [c, m], [cpu, mem])
            for c, m in used]
    assert rows == want
