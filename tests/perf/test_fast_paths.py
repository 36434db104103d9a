"""The shortcuts taken for speed give the same answers as the long way round."""

from __future__ import annotations

import numpy as np

from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.framework import BatchFilterResult, Code, NodeBatch
from kubesched.framework._results import FilterOutcome
from kubesched.plugins.helper import ValueCodes
from kubesched.queue import Nominator
from kubesched.testing.wrappers import make_node, make_pod, snapshot_of


def test_snapshot_records_the_nodes_its_last_update_rewrote() -> None:
    cache = Cache(VirtualClock())
    for name in ("a", "b", "c"):
        cache.add_node(make_node().name(name).capacity({"cpu": "4", "pods": "10"}).obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    gen = snap.generation
    cache.add_pod(make_pod().name("p").node("b").req({"cpu": "1"}).obj())
    cache.update_snapshot(snap)
    prev, rewritten = snap.last_update
    assert prev == gen and [ni.name for ni in rewritten] == ["b"]
    assert rewritten[0] is snap.node_info_list[snap.node_index["b"]]
    cache.update_snapshot(snap)  # nothing changed
    assert snap.last_update == (snap.generation, [])


def test_snapshot_node_names_follow_the_node_list() -> None:
    snap = snapshot_of([make_node().name(n).obj() for n in ("x", "y")])
    assert snap.node_names == [ni.name for ni in snap.node_info_list]
    batch = NodeBatch(snap, np.array([1, 0], dtype=np.int64))
    assert batch.names() == ["y", "x"]


def test_filter_outcome_statuses_are_shared_but_equal_per_reason() -> None:
    snap = snapshot_of([make_node().name(f"n{i}").obj() for i in range(4)])
    out = FilterOutcome.empty(NodeBatch.all(snap))
    res = BatchFilterResult(np.array([2, 2, 0, 3], dtype=np.int8), np.array([1, 1, 0, 2], dtype=np.int32),
                            [(), ("too big",), ("never",)])
    out.record("Fit", res, np.arange(4, dtype=np.int64))
    s0, s1, s3 = out.status(0), out.status(1), out.status(3)
    assert s0 is s1 and s0.reasons == ("too big",) and s0.plugin == "Fit"
    assert s3.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and s3.reasons == ("never",)
    assert out.status(2).is_success()


def test_value_codes_array_places_each_count_at_its_value_code() -> None:
    values = ["z1", "z2", "z3"]
    arr = ValueCodes().array("zone", values, {"z3": 5, "z1": 2, "elsewhere": 9})
    assert arr.tolist() == [2, 0, 5, 0]  # trailing 0 for "no label" (code -1)
    assert ValueCodes().array("zone", values, {}).tolist() == [0, 0, 0, 0]


def test_nominator_node_names() -> None:
    nom = Nominator()
    assert nom.node_names() == set()
    pod = make_pod().name("p").obj()
    from kubesched.framework import PostFilterResult

    nom.add_nominated_pod(pod, PostFilterResult("n1", "ModeOverride"))
    assert nom.node_names() == {"n1"}
    nom.delete_nominated_pod_if_exists(pod)
    assert nom.node_names() == set()


def test_snapshot_rows_by_identity_follow_relists() -> None:
    cache = Cache(VirtualClock())
    cache.add_node(make_node().name("a").obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    cache.add_node(make_node().name("b").obj())
    cache.update_snapshot(snap)
    assert snap.row_of_id == {id(ni): i for i, ni in enumerate(snap.node_info_list)}
    copy = snap.node_info_list[0].snapshot_copy()
    assert id(copy) not in snap.row_of_id  # a copy is not the snapshot's node


class _Handle:
    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap

    def snapshot(self) -> Snapshot:
        return self.snap


def test_image_locality_follows_nodes_gaining_and_losing_images() -> None:
    from kubesched.framework import CycleState
    from kubesched.plugins.imagelocality import ImageLocality

    cache = Cache(VirtualClock())
    bare = [make_node().name(n).obj() for n in ("a", "b")]
    for n in bare:
        cache.add_node(n)
    snap = Snapshot()
    plugin = ImageLocality(handle=_Handle(snap))  # type: ignore[arg-type]
    pod = make_pod().name("p").container_image("nginx:1.0").obj()

    def both_paths() -> tuple[list[int], list[int]]:
        cache.update_snapshot(snap)
        batch, _ = plugin.score_batch(CycleState(), pod, NodeBatch.all(snap))
        per_node = [plugin.score(CycleState(), pod, ni)[0] for ni in snap.node_info_list]
        return batch.tolist(), per_node

    first = both_paths()
    assert first[0] == first[1] == [0, 0]
    with_image = make_node().name("b").images({"nginx:1.0": 900 * 1024 * 1024}).obj()
    cache.update_node(bare[1], with_image)
    batch, per_node = both_paths()
    assert batch == per_node and batch[snap.node_index["b"]] > 0
    cache.update_node(with_image, bare[1])
    assert both_paths() == first
