"""The batch filter/score path agrees with the per-node path, node by node."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework import CycleState, NodeBatch
from kubesched.plugins.imagelocality import ImageLocality
from kubesched.plugins.names import IMAGE_LOCALITY
from kubesched.testing import make_node, make_pod, snapshot_of

from ._toys import CpuFit, OddName, ZoneLabel, framework, pset

ZONES = ["a", "b", "bad1", "bad2", ""]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    nodes=st.lists(
        st.tuples(st.integers(0, 8), st.integers(0, 8), st.sampled_from(ZONES)), min_size=1, max_size=12
    ),
    pod_cpu=st.integers(0, 6),
    order=st.permutations(["CpuFit", "ZoneLabel", "OddName"]),
    subset_seed=st.integers(0, 2**16),
)
def test_filter_batch_equals_per_node(
    nodes: list[tuple[int, int, str]], pod_cpu: int, order: list[str], subset_seed: int
) -> None:
    built, pods = [], []
    for i, (cap, used, zone) in enumerate(nodes):
        b = make_node().name(f"n{i}").capacity({"cpu": str(cap)})
        if zone:
            b = b.label("zone", zone)
        built.append(b.obj())
        if used:
            pods.append(make_pod().name(f"x{i}").uid(f"x{i}").node(f"n{i}").req({"cpu": str(used)}).obj())
    snap = snapshot_of(built, pods)
    pod = make_pod().name("p").uid("p").req({"cpu": str(pod_cpu)}).obj()
    rng = np.random.default_rng(subset_seed)
    idx = np.sort(rng.choice(len(built), size=rng.integers(1, len(built) + 1), replace=False)).astype(
        np.int64
    )
    batch = NodeBatch(snap, idx)
    fast = framework([CpuFit, ZoneLabel, OddName], filter=pset(*order), snapshot=snap)
    slow = framework([CpuFit, ZoneLabel, OddName], filter=pset(*order), snapshot=snap, per_node=True)
    out_fast = fast.run_filter_plugins_batch(CycleState(), pod, batch)
    out_slow = slow.run_filter_plugins_batch(CycleState(), pod, batch)
    for row, ni in enumerate(batch.node_infos()):
        want = slow.run_filter_plugins(CycleState(), pod, ni)
        assert out_fast.status(row) == want, ni.name
        assert out_slow.status(row) == want
        assert int(out_fast.codes[row]) == int(want.code)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(nodes=st.lists(st.tuples(st.integers(1, 8), st.integers(0, 8)), min_size=1, max_size=10))
def test_score_batch_equals_per_node(nodes: list[tuple[int, int]]) -> None:
    built = [make_node().name(f"n{i}").capacity({"cpu": str(c)}).obj() for i, (c, _) in enumerate(nodes)]
    pods = [
        make_pod().name(f"x{i}").uid(f"x{i}").node(f"n{i}").req({"cpu": str(min(u, c))}).obj()
        for i, (c, u) in enumerate(nodes)
        if u
    ]
    snap = snapshot_of(built, pods)
    pod = make_pod().name("p").uid("p").obj()
    fast = framework([CpuFit], score=pset(("CpuFit", 2)), snapshot=snap)
    slow = framework([CpuFit], score=pset(("CpuFit", 2)), snapshot=snap, per_node=True)
    a, sa = fast.run_score_plugins(CycleState(), pod, NodeBatch.all(snap))
    b, sb = slow.run_score_plugins(CycleState(), pod, snap.node_info_list)
    assert sa.is_success() and sb.is_success() and a is not None and b is not None
    assert a.totals.tolist() == b.totals.tolist()
    assert a.raw.tolist() == b.raw.tolist()


MI = 2**20
IMAGE_POOL = (("reg.io/a:1", 300 * MI), ("reg.io/b:latest", 1200 * MI), ("reg.io/c@sha256:c0", 60 * MI))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    nodes=st.lists(st.lists(st.sampled_from(IMAGE_POOL), max_size=3, unique=True), min_size=1, max_size=10),
    pod_images=st.lists(st.sampled_from(["reg.io/a:1", "reg.io/b", "reg.io/c@sha256:c0", "reg.io/d"]),
                        min_size=1, max_size=3),
)
def test_image_locality_score_batch_equals_per_node(nodes: list[list[tuple[str, int]]],
                                                     pod_images: list[str]) -> None:
    """The in-tree ImageLocality through the runtime: batch path (the snapshot's image index)
    and per-node path (each node's image states) give the same raw and weighted scores."""
    snap = snapshot_of([make_node().name(f"n{i}").images(dict(im)).obj() for i, im in enumerate(nodes)])
    b = make_pod().name("p").uid("p")
    for image in pod_images:
        b = b.container_image(image)
    pod = b.obj()
    fast = framework([ImageLocality], score=pset((IMAGE_LOCALITY, 2)), snapshot=snap)
    slow = framework([ImageLocality], score=pset((IMAGE_LOCALITY, 2)), snapshot=snap, per_node=True)
    a, sa = fast.run_score_plugins(CycleState(), pod, NodeBatch.all(snap))
    c, sc = slow.run_score_plugins(CycleState(), pod, snap.node_info_list)
    assert sa.is_success() and sc.is_success() and a is not None and c is not None
    assert a.raw.tolist() == c.raw.tolist() and a.totals.tolist() == c.totals.tolist()
