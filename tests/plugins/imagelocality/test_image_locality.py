"""ImageLocality (image_locality_test.go): spread-scaled image sizes, thresholds, names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.framework import Code, CycleState, NodeBatch
from kubesched.plugins.imagelocality import ImageLocality, normalized_image_name
from kubesched.plugins.imagelocality.image_locality import calculate_priority
from kubesched.testing import make_node, make_pod

from .._harness import FakeHandle, score_all
from ..strategies import Cluster, clusters, incoming_pods, snapshot_of

MB = 1024 * 1024


def node(name: str, images: dict[str, int]) -> Node:
    return make_node().name(name).images({k: v * MB for k, v in images.items()}).obj()


def pod(*images: str, init: tuple[str, ...] = ()) -> Pod:
    b = make_pod().name("p")
    for im in images:
        b.container_image(im)
    d = b.to_dict()
    if init:
        d["spec"]["initContainers"] = [{"name": f"i{i}", "image": im} for i, im in enumerate(init)]
    return Pod.from_dict(d)


NODE_403002000 = {"gcr.io/40:latest": 40, "gcr.io/300:latest": 300, "gcr.io/2000:latest": 2000}
NODE_25010 = {"gcr.io/250:latest": 250, "gcr.io/10:latest": 10}

CASES = [
    # machine1: 40MB * 1/2 = 20MB < 23MB -> 0; machine2: nothing -> 0
    pytest.param(
        pod("gcr.io/40", "gcr.io/140"),
        [NODE_403002000, NODE_25010],
        [0, 0],
        id="two images spread on two nodes, prefer the larger image one",
    ),
    # machine1: 100 * (300MB/2 - 23MB) / (2 * 1000MB - 23MB) = 100*127/1977 = 6
    # machine2: 100 * (250MB/2 - 23MB) / 1977MB = 100*102/1977 = 5
    pytest.param(
        pod("gcr.io/300", "gcr.io/250"),
        [NODE_403002000, NODE_25010],
        [6, 5],
        id="two images on one node, prefer this node",
    ),
    # machine1: 2000MB/2 = 1000MB = the one-container max -> 100
    pytest.param(pod("gcr.io/2000"), [NODE_403002000, NODE_25010], [100, 0], id="if exceed limit, use limit"),
    # gcr.io/10 is on both nodes (spread 1): 10MB < 23MB -> 0; gcr.io/300 on one of two: see above
    pytest.param(
        pod("gcr.io/10", "gcr.io/300:latest"),
        [NODE_403002000, NODE_25010],
        [6, 0],
        id="untagged names are normalized to :latest",
    ),
    # a tag other than latest does not match
    pytest.param(
        pod("gcr.io/300:v1"), [NODE_403002000, NODE_25010], [0, 0], id="different tag does not match"
    ),
    # image on all 3 nodes: 300MB * 3/3 -> 100 * (300-23)/(1000-23) = 27700/977 = 28
    pytest.param(
        pod("gcr.io/300"),
        [{"gcr.io/300:latest": 300}] * 3,
        [28, 28, 28],
        id="image present on every node is not scaled down",
    ),
    # init containers count, and they raise the max threshold: 100 * (150-23)/(2000-23) = 6
    pytest.param(
        pod("gcr.io/none", init=("gcr.io/300",)),
        [NODE_403002000, NODE_25010],
        [6, 0],
        id="init container images count",
    ),
]


@pytest.mark.parametrize(("p", "images", "want"), CASES)
def test_score(p: Pod, images: list[dict[str, int]], want: list[int]) -> None:
    snap = snapshot_of([node(f"machine{i + 1}", im) for i, im in enumerate(images)], [])
    assert score_all(ImageLocality(handle=FakeHandle(snap)), p, snap) == want  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("gcr.io/10", "gcr.io/10:latest"),
        ("gcr.io/10:v1", "gcr.io/10:v1"),
        ("localhost:5000/img", "localhost:5000/img:latest"),
        ("img@sha256:abc", "img@sha256:abc"),
    ],
)
def test_normalized_image_name(name: str, want: str) -> None:
    assert normalized_image_name(name) == want


def test_score_without_handle_is_error() -> None:
    snap = snapshot_of([node("n", {})], [])
    _, st = ImageLocality().score(CycleState(), pod("x"), snap.node_info_list[0])
    assert st is not None and st.code == Code.ERROR


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cluster=clusters(), p=incoming_pods())
def test_batch_agrees(cluster: Cluster, p: Pod) -> None:
    snap = cluster.snapshot()
    score_all(ImageLocality(handle=FakeHandle(snap)), p, snap)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(sums=st.lists(st.integers(0, 6000 * MB), min_size=1, max_size=8), containers=st.integers(0, 5))
def test_calculate_priority_is_one_rule_for_a_node_and_a_batch(sums: list[int], containers: int) -> None:
    per_node = [calculate_priority(s, containers) for s in sums]
    assert calculate_priority(np.array(sums, dtype=np.int64), containers).tolist() == per_node
    assert all(0 <= s <= 100 for s in per_node) or containers == 0


@pytest.mark.parametrize(("sum_scores", "containers", "want"), [
    pytest.param(23 * MB - 1, 1, 0, id="below the minimum"),
    pytest.param(23 * MB, 1, 0, id="at the minimum"),
    pytest.param(1000 * MB, 1, 100, id="at one container's maximum"),
    pytest.param(1500 * MB, 2, 74, id="two containers: 100*(1500-23)/(2000-23) = 74.7, truncated"),
])
def test_calculate_priority_thresholds(sum_scores: int, containers: int, want: int) -> None:
    assert calculate_priority(sum_scores, containers) == want


# -- the batch path over a snapshot the cache keeps up to date ---------------------------------

# Images as kubelets report them: several names each (tags, digests), sizes around the thresholds
# and far above them; a name may be reported with another size by another node (the cache keeps
# the first size it saw).
POOL: tuple[tuple[tuple[str, ...], int], ...] = (
    (("reg.io/app@sha256:aa11", "reg.io/app:v1"), 300 * MB),
    (("reg.io/app:latest", "reg.io/app@sha256:bb22"), 150 * MB + 1),
    (("reg.io/big:latest",), 2500 * MB),
    (("reg.io/small:1", "reg.io/small@sha256:cc33", "reg.io/small:latest"), 23 * MB),
    (("docker.io/library/busybox:latest",), 23 * MB - 1),
    (("reg.io/mid:2.0",), 700 * MB + 7),
    (("reg.io/huge:1",), 2**45 + 12345),
)
POD_POOL = ("reg.io/app:v1", "reg.io/app", "reg.io/app@sha256:bb22", "reg.io/big", "reg.io/small:1",
            "docker.io/library/busybox", "reg.io/mid:2.0", "reg.io/huge:1", "reg.io/none")
NODE_NAMES = ("n0", "n1", "n2", "n3", "n4", "n5")


def _image_node(name: str, images: list[int], size_bump: int) -> Node:
    return Node.from_dict({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "status": {"capacity": {"cpu": "4", "pods": "32"}, "images": [
            {"names": list(POOL[i][0]), "sizeBytes": POOL[i][1] + size_bump * i} for i in images]},
    })


IMAGE_SET = st.lists(st.integers(0, len(POOL) - 1), max_size=5, unique=True)
OP = st.tuples(st.sampled_from(("add", "update", "remove", "bind")), st.integers(0, len(NODE_NAMES) - 1),
               IMAGE_SET, st.integers(0, 3))
POD = st.tuples(st.lists(st.sampled_from(POD_POOL), min_size=1, max_size=4),
                st.lists(st.sampled_from(POD_POOL), max_size=2))


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(initial=st.lists(IMAGE_SET, min_size=1, max_size=len(NODE_NAMES)),
       ops=st.lists(OP, min_size=1, max_size=25), pods=st.lists(POD, min_size=1, max_size=3),
       subset_seed=st.integers(0, 2**16))
def test_batch_agrees_with_per_node_as_the_cache_changes(
    initial: list[list[int]], ops: list[tuple[str, int, list[int], int]],
    pods: list[tuple[list[str], list[str]]], subset_seed: int,
) -> None:
    """One plugin and one snapshot across many cycles (as the scheduler keeps them): nodes come,
    change their images, go, and receive pods (which refreshes their copies' stale counts);
    after each change every pod scores the same on both paths, on a random subset of nodes."""
    cache = Cache(VirtualClock())
    snap = Snapshot()
    plugin = ImageLocality(handle=FakeHandle(snap))  # type: ignore[arg-type]
    nodes = {NODE_NAMES[i]: _image_node(NODE_NAMES[i], images, 0) for i, images in enumerate(initial)}
    for n in nodes.values():
        cache.add_node(n)
    rng = np.random.default_rng(subset_seed)
    scored = [pod(*containers, init=tuple(init)) for containers, init in pods]
    for step, (op, i, images, bump) in enumerate([("bind", 0, [], 0), *ops]):
        name = NODE_NAMES[i]
        if op == "add" and name not in nodes:
            nodes[name] = _image_node(name, images, bump)
            cache.add_node(nodes[name])
        elif op == "update" and name in nodes:
            new = _image_node(name, images, bump)
            cache.update_node(nodes[name], new)
            nodes[name] = new
        elif op == "remove" and name in nodes:
            cache.remove_node(nodes.pop(name))
        elif op == "bind" and name in nodes:
            cache.add_pod(make_pod().name(f"b{step}").uid(f"b{step}").node(name).obj())
        cache.update_snapshot(snap)
        if not snap.num_nodes():
            continue
        size = int(rng.integers(1, snap.num_nodes() + 1))
        rows = np.sort(rng.choice(snap.num_nodes(), size=size, replace=False)).astype(np.int64)
        batch = NodeBatch(snap, rows)
        for p in scored:
            got, st_ = plugin.score_batch(CycleState(), p, batch)
            assert st_ is None
            want = [plugin.score(CycleState(), p, ni)[0] for ni in batch.node_infos()]
            assert got.tolist() == want, (p.images, batch.names())
