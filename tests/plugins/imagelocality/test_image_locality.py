"""ImageLocality (image_locality_test.go): spread-scaled image sizes, thresholds, names."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kubesched.api import Node, Pod
from kubesched.framework import Code, CycleState
from kubesched.plugins.imagelocality import ImageLocality, normalized_image_name
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
