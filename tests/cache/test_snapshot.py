"""Snapshot and its incremental update, after pkg/scheduler/backend/cache/cache_test.go
(TestSchedulerCache_UpdateSnapshot, TestNodeOperators) and snapshot_test.go; plus the
columnar arrays, which have no upstream counterpart: an incrementally updated snapshot must
equal one built from scratch after any sequence of cache operations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import (
    Cache,
    CacheError,
    ImageStateSummary,
    NodeColumns,
    NodeImages,
    NodeInfo,
    Snapshot,
    normalized_image_name,
)
from kubesched.clock import VirtualClock
from kubesched.testing.wrappers import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def _node(name: str, zone: str = "", cpu: str = "4", **extra: Any) -> Node:
    b = make_node().name(name).capacity({"cpu": cpu, "memory": "8Gi", **extra})
    if zone:
        b.label(ZONE, zone)
    return b.obj()


def _pod(name: str, node: str, cpu: str = "1", anti_zone: bool = False, claim: str = "") -> Pod:
    b = make_pod().name(name).uid(name).node(node).req({"cpu": cpu})
    if anti_zone:
        b.pod_anti_affinity_exists("app", ZONE)
    if claim:
        b.pvc(claim)
    return b.obj()


def _cache(*nodes: Node) -> Cache:
    c = Cache(VirtualClock())
    for n in nodes:
        c.add_node(n)
    return c


class _Counting:
    """Counts NodeColumns.fill_row and Snapshot.set_node_list calls on one snapshot."""

    def __init__(self, snap: Snapshot, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows: list[int] = []
        self.relists = 0
        orig_fill = NodeColumns.fill_row
        orig_set = Snapshot.set_node_list

        def fill(cols: NodeColumns, i: int, ni: NodeInfo, *a: Any) -> None:
            self.rows.append(i)
            orig_fill(cols, i, ni, *a)

        def relist(s: Snapshot, *a: Any) -> None:
            self.relists += 1
            orig_set(s, *a)

        monkeypatch.setattr(NodeColumns, "fill_row", fill)
        monkeypatch.setattr(Snapshot, "set_node_list", relist)

    def reset(self) -> None:
        self.rows.clear()
        self.relists = 0


def test_assume_touches_one_row_without_relisting(monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = [_node(f"n{i}", zone=f"z{i % 3}") for i in range(50)]
    cache = _cache(*nodes)
    snap = Snapshot()
    cache.update_snapshot(snap)
    before = snap.node_info_list
    count = _Counting(snap, monkeypatch)
    cache.assume_pod(_pod("p", "n7"))
    cache.update_snapshot(snap)
    assert count.rows == [snap.node_index["n7"]] and count.relists == 0
    assert snap.node_info_list is before
    assert snap.columns.requested[snap.node_index["n7"], 0] == 1000
    count.reset()
    cache.update_snapshot(snap)  # nothing changed: nothing touched
    assert count.rows == [] and count.relists == 0


def test_node_add_relists_and_refills_only_new_and_changed_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = _cache(*[_node(f"n{i}", zone=f"z{i % 2}") for i in range(6)])
    snap = Snapshot()
    cache.update_snapshot(snap)
    count = _Counting(snap, monkeypatch)
    cache.add_pod(_pod("p", "n1"))
    cache.add_node(_node("n6", zone="z2"))
    cache.update_snapshot(snap)
    assert count.relists == 1
    assert sorted(count.rows) == sorted([snap.node_index["n1"], snap.node_index["n6"]])
    assert [ni.name for ni in snap.node_info_list] == cache.node_tree_order()
    _assert_same(snap, _fresh(cache))


def test_node_list_follows_tree_zone_interleaving() -> None:
    cache = _cache(_node("a1", "a"), _node("a2", "a"), _node("b1", "b"), _node("c1", "c"), _node("b2", "b"))
    snap = Snapshot()
    cache.update_snapshot(snap)
    assert [ni.name for ni in snap.node_info_list] == ["a1", "b1", "c1", "a2", "b2"]
    assert snap.node_index == {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "b2": 4}


def test_zone_change_reorders_node_list() -> None:
    # Deviation from upstream (re-list on any tree change), see Cache.update_snapshot.
    a1, a2 = _node("a1", "a"), _node("a2", "a")
    cache = _cache(a1, a2, _node("b1", "b"))
    snap = Snapshot()
    cache.update_snapshot(snap)
    cache.update_node(a1, _node("a1", "b"))
    cache.update_snapshot(snap)
    assert [ni.name for ni in snap.node_info_list] == cache.node_tree_order() == ["a2", "b1", "a1"]
    _assert_same(snap, _fresh(cache))


def test_affinity_lists_follow_pods() -> None:
    # TestSchedulerCache_UpdateSnapshot "Add pods with affinity" / "Remove pod with affinity".
    cache = _cache(_node("n0"), _node("n1"))
    snap = Snapshot()
    cache.update_snapshot(snap)
    p = _pod("aff", "n1", anti_zone=True)
    cache.add_pod(p)
    cache.update_snapshot(snap)
    assert [ni.name for ni in snap.have_pods_with_affinity_list] == ["n1"]
    assert [ni.name for ni in snap.have_pods_with_required_anti_affinity_list] == ["n1"]
    assert [ni.name for ni in snap.have_pods_with_required_non_host_scoped_anti_affinity_list] == ["n1"]
    cache.remove_pod(p)
    cache.update_snapshot(snap)
    assert snap.have_pods_with_affinity_list == []
    assert snap.have_pods_with_required_anti_affinity_list == []


def test_affinity_lists_keep_node_list_order_when_updated_in_place() -> None:
    cache = _cache(*[_node(f"n{i}") for i in range(5)])
    snap = Snapshot()
    cache.update_snapshot(snap)
    for i, node in enumerate(("n3", "n1", "n4")):
        cache.add_pod(_pod(f"p{i}", node, anti_zone=True))
        cache.update_snapshot(snap)
    assert [ni.name for ni in snap.have_pods_with_affinity_list] == ["n1", "n3", "n4"]
    cache.remove_pod(_pod("p1", "n1", anti_zone=True))
    cache.update_snapshot(snap)
    assert [ni.name for ni in snap.have_pods_with_required_anti_affinity_list] == ["n3", "n4"]
    _assert_same(snap, _fresh(cache))


def test_pvc_used_by_pods() -> None:
    # IsPVCUsedByPods: only pods on live nodes count.
    cache = _cache(_node("n0"), _node("n1"))
    snap = Snapshot()
    cache.add_pod(_pod("a", "n0", claim="c1"))
    cache.add_pod(_pod("b", "n1", claim="c1"))
    cache.update_snapshot(snap)
    assert snap.is_pvc_used_by_pods("default/c1") and not snap.is_pvc_used_by_pods("default/c2")
    cache.remove_pod(_pod("a", "n0", claim="c1"))
    cache.update_snapshot(snap)
    assert snap.is_pvc_used_by_pods("default/c1")
    cache.remove_node(_node("n1"))  # b stays on a ghost: not in the snapshot any more
    cache.update_snapshot(snap)
    assert not snap.is_pvc_used_by_pods("default/c1")


def test_new_resource_name_grows_columns() -> None:
    cache = _cache(_node("n0"))
    snap = Snapshot()
    cache.update_snapshot(snap)
    cache.add_pod(make_pod().name("g").uid("g").node("n0").req({"example.com/gpu": "1"}).obj())
    cache.update_snapshot(snap)
    j = snap.columns.resource_index["example.com/gpu"]
    assert snap.columns.requested[0, j] == 1 and snap.columns.allocatable[0, j] == 0


def test_label_column_cache_survives_pod_changes_and_follows_label_changes() -> None:
    n0 = _node("n0", "a")
    cache = _cache(n0, _node("n1", "b"))
    snap = Snapshot()
    cache.update_snapshot(snap)
    first = snap.columns.label_column(ZONE)
    cache.add_pod(_pod("p", "n0"))
    cache.update_snapshot(snap)
    assert snap.columns.label_column(ZONE) is first
    cache.update_node(n0, _node("n0", "a", cpu="8"))  # new object, same labels
    cache.update_snapshot(snap)
    assert snap.columns.label_column(ZONE) is first
    relabeled = make_node().name("n0").capacity({"cpu": "8"}).labels({ZONE: "a", "x": "y"}).obj()
    cache.update_node(n0, relabeled)
    cache.update_snapshot(snap)
    codes, values = snap.columns.label_column("x")
    assert codes.tolist() == [0, -1] and values == ["y"]


def test_snapshot_from_objects() -> None:
    # NewSnapshot: image states counted over the given nodes.
    n0 = make_node().name("n0").images({"img:v1": 5}).obj()
    n1 = make_node().name("n1").images({"img:v1": 5, "other:v2": 7}).obj()
    snap = Snapshot.from_objects([n0, n1], [_pod("p", "n1"), _pod("lost", "nowhere")])
    assert [ni.name for ni in snap.node_info_list] == ["n0", "n1"]
    n1_info = snap.get("n1")
    assert n1_info is not None and [pi.pod.name for pi in n1_info.pods] == ["p"]
    assert n1_info.image_states["img:v1"].num_nodes == 2
    assert snap.get("nowhere") is None


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        pytest.param("nginx", "nginx:latest", id="no-tag"),
        pytest.param("nginx:1.25", "nginx:1.25", id="tag"),
        pytest.param("localhost:5000/nginx", "localhost:5000/nginx:latest", id="registry-port-no-tag"),
        pytest.param("gcr.io/a/b@sha256:abc", "gcr.io/a/b@sha256:abc", id="digest"),
    ],
)
def test_normalized_image_name(name: str, normalized: str) -> None:
    assert normalized_image_name(name) == normalized


def test_image_index_is_kept_across_cycles_and_follows_node_changes() -> None:
    # No upstream counterpart: the snapshot's image index (what ImageLocality's batch path
    # reads) is built once and then changes only where a node's image states do.
    cache = _cache(make_node().name("n0").images({"a:1": 100, "b:1": 7}).obj(),
                   make_node().name("n1").images({"a:1": 100}).obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    index = snap.columns.images()
    a = index.rows("a:1")
    assert a is not None and (a.rows.tolist(), a.num_nodes.tolist()) == ([0, 1], [2.0, 2.0])
    version = index.version

    cache.add_pod(_pod("p", "n0"))  # a scheduling cycle's change: no image state moves
    cache.update_snapshot(snap)
    assert snap.columns.images() is index and index.version == version and index.rows("a:1") is a

    cache.add_node(make_node().name("n2").images({"a:1": 100}).obj())
    cache.update_snapshot(snap)  # a new node: the node list is regathered, the index kept
    assert snap.columns.images() is index and index.version > version
    a = index.rows("a:1")
    # n0 and n1 did not change, so their snapshot copies keep the count they were taken with
    # (upstream's UpdateSnapshot clones only changed nodes); n2's copy counts three.
    assert a is not None and (a.rows.tolist(), a.num_nodes.tolist()) == ([0, 1, 2], [2.0, 2.0, 3.0])

    cache.remove_node(make_node().name("n0").obj())
    cache.update_snapshot(snap)
    a = index.rows("a:1")
    assert index.rows("b:1") is None  # only n0 had it
    assert a is not None and (a.rows.tolist(), a.num_nodes.tolist()) == ([0, 1], [2.0, 3.0])


def test_node_update_keeping_its_images_leaves_image_states_alone() -> None:
    # A status heartbeat (same images, new conditions) changes no image count: the snapshot
    # copy keeps its image states and the image index does not move.
    n0 = make_node().name("n0").images({"a:1": 100}).obj()
    cache = _cache(n0, make_node().name("n1").images({"a:1": 100}).obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    states = snap.node_info_list[0].image_states
    index = snap.columns.images()
    version = index.version
    beat = make_node().name("n0").images({"a:1": 100}).condition("Ready", "False").obj()
    cache.update_node(n0, beat)
    cache.update_snapshot(snap)
    assert snap.node_info_list[0].node is beat
    assert snap.node_info_list[0].image_states is states and index.version == version
    cache.update_node(beat, make_node().name("n0").images({"b:1": 5}).obj())  # new images
    cache.update_snapshot(snap)
    assert set(snap.node_info_list[0].image_states) == {"b:1"} and index.version > version
    assert cache.image_count() == 2


def test_image_index_follows_a_reordered_node_list() -> None:
    # A zone change re-orders the node list (the tree interleaves zones): built arrays move
    # their rows and stay in row order; a node gone leaves them.
    infos = []
    for i in range(6):
        ni = NodeInfo.of(make_node().name(f"n{i}").obj(), [])
        ni.image_states = {"a:1": ImageStateSummary(10 + i, 6)}
        if i % 2:
            ni.image_states = {**ni.image_states, "b:1": ImageStateSummary(5, 3)}
        infos.append(ni)
    index = NodeImages(infos)
    assert index.rows("a:1") is not None and index.rows("b:1") is not None  # built before the move
    src = [5, 2, 0, 3, 1]  # n4 gone
    moved = [infos[i] for i in src]
    index.relist(moved, np.array(src, dtype=np.int64))
    _assert_same_images(index, NodeImages(moved), moved)
    b = index.rows("b:1")
    assert b is not None and b.rows.tolist() == [0, 3, 4]  # n5, n3, n1


def test_inconsistent_snapshot_recovers_with_error() -> None:
    cache = _cache(_node("n0"))
    snap = Snapshot()
    cache.update_snapshot(snap)
    snap.node_info_list.append(snap.node_info_list[0])  # corrupt it
    with pytest.raises(CacheError, match="not consistent"):
        cache.update_snapshot(snap)
    assert [ni.name for ni in snap.node_info_list] == ["n0"]


def test_requested_beyond_int64_saturates_and_comes_back_exactly() -> None:
    """Three pods of 4Ei memory on one node: the NodeInfo keeps the exact sum (2^63 + 2^62), the
    column the int64 maximum; removing two pods brings the exact sum back (2^62)."""
    cache = _cache(_node("n0", memory="16Ei"))
    pods = [make_pod().name(f"p{i}").uid(f"p{i}").node("n0").req({"memory": "4Ei"}).obj()
            for i in range(3)]
    for p in pods:
        cache.add_pod(p)
    snap = Snapshot()
    cache.update_snapshot(snap)
    mem = snap.columns.resource_index["memory"]
    assert snap.columns.allocatable[0, mem] == 2**63 - 1  # 16Ei saturates (Value())
    assert snap.columns.requested[0, mem] == 2**63 - 1
    assert snap.node_info_list[0].requested["memory"] == 3 * 2**62
    cache.remove_pod(pods[0])
    cache.update_snapshot(snap)
    assert snap.columns.requested[0, mem] == 2**63 - 1  # 2^63: still beyond
    cache.remove_pod(pods[1])
    cache.update_snapshot(snap)
    assert snap.columns.requested[0, mem] == 2**62
    _assert_same(snap, _fresh(cache))


def test_a_failed_update_leaves_a_snapshot_the_next_update_rebuilds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever fails half-way through update_snapshot (here a column row), the next update
    leaves the snapshot equal to a fresh one: the scheduler keeps scheduling."""
    cache = _cache(*[_node(f"n{i}", zone=f"z{i % 2}") for i in range(4)])
    snap = Snapshot()
    cache.update_snapshot(snap)
    orig = NodeColumns.fill_row
    calls = {"n": 0}

    def failing(cols: NodeColumns, i: int, ni: NodeInfo, *a: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("boom")
        orig(cols, i, ni, *a)

    monkeypatch.setattr(NodeColumns, "fill_row", failing)
    cache.add_pod(_pod("p", "n1"))
    cache.add_node(_node("n4", zone="z0"))  # a relist: new rows and a refilled one
    with pytest.raises(RuntimeError, match="boom"):
        cache.update_snapshot(snap)
    cache.update_snapshot(snap)
    _assert_same(snap, _fresh(cache))
    calls["n"] = 0
    cache.assume_pod(_pod("q", "n2"))  # an in-place row write fails the same way
    with pytest.raises(RuntimeError, match="boom"):
        cache.add_pod(_pod("r", "n3"))
        cache.update_snapshot(snap)
    cache.update_snapshot(snap)
    _assert_same(snap, _fresh(cache))


# -- incremental == fresh, for any sequence of operations -----------------------------------


def _fresh(cache: Cache) -> Snapshot:
    s = Snapshot()
    cache.update_snapshot(s)
    return s


def _col(cols: NodeColumns, arr: np.ndarray, name: str) -> list[int]:
    j = cols.resource_index.get(name)
    return [0] * len(arr) if j is None else arr[:, j].tolist()


LABEL_KEYS = (ZONE, "kind", "absent")


def _assert_same(inc: Snapshot, fresh: Snapshot) -> None:
    names = [ni.name for ni in fresh.node_info_list]
    assert [ni.name for ni in inc.node_info_list] == names
    assert inc.node_index == fresh.node_index
    for a, b in zip(inc.node_info_list, fresh.node_info_list, strict=True):
        assert a.node is b.node
        assert [pi.pod.uid for pi in a.pods] == [pi.pod.uid for pi in b.pods]
        assert a.requested == b.requested and a.non_zero_requested == b.non_zero_requested
        assert a.allocatable == b.allocatable and a.used_ports == b.used_ports
        assert a.pvc_ref_counts == b.pvc_ref_counts and a.generation == b.generation
        assert {k: v.size for k, v in a.image_states.items()} == {
            k: v.size for k, v in b.image_states.items()}
    for attr in ("have_pods_with_affinity_list", "have_pods_with_required_anti_affinity_list",
                 "have_pods_with_required_non_host_scoped_anti_affinity_list"):
        assert [ni.name for ni in getattr(inc, attr)] == [ni.name for ni in getattr(fresh, attr)]
    assert inc._pvc_counts == fresh._pvc_counts
    ci, cf = inc.columns, fresh.columns
    for r in set(ci.resource_names) | set(cf.resource_names):
        for arr in ("allocatable", "requested", "non_zero_requested"):
            assert _col(ci, getattr(ci, arr), r) == _col(cf, getattr(cf, arr), r), (arr, r)
    assert ci.pod_count.tolist() == cf.pod_count.tolist()
    assert ci.generation.tolist() == cf.generation.tolist() == [ni.generation for ni in inc.node_info_list]
    assert ci.unschedulable.tolist() == cf.unschedulable.tolist()
    assert ci.has_node.tolist() == cf.has_node.tolist() == [ni.node is not None for ni in inc.node_info_list]
    assert [ci.taint_sets[t] for t in ci.taint_set_id] == [cf.taint_sets[t] for t in cf.taint_set_id]
    for key in LABEL_KEYS:
        (c1, v1), (c2, v2) = ci.label_column(key), cf.label_column(key)
        assert [v1[c] if c >= 0 else None for c in c1] == [v2[c] if c >= 0 else None for c in c2]
        assert sorted(v1) == sorted(set(v1)) == sorted(v2)
    _assert_same_images(ci.images(), NodeImages(inc.node_info_list), inc.node_info_list)
    # and each NodeInfo equals one aggregated from scratch from its node and pods
    for ni in inc.node_info_list:
        ref = NodeInfo.of(ni.node, [pi.pod for pi in ni.pods])
        assert _nonzero(ref.requested) == _nonzero(ni.requested)
        assert _nonzero(ref.non_zero_requested) == _nonzero(ni.non_zero_requested)
        # (used ports are a set upstream: removing one of two pods sharing a port frees it, so
        # they may differ from a from-scratch aggregation by design)
        assert ref.pvc_ref_counts == ni.pvc_ref_counts


def _assert_same_images(kept: NodeImages, fresh: NodeImages, infos: list[NodeInfo]) -> None:
    """The image index kept row by row equals one built now from the same NodeInfos (their
    own summaries: a node's counts may be stale in a snapshot, as upstream's are)."""
    names = {name for ni in infos for name in ni.image_states} | {"never:seen"}
    assert bool(kept) == bool(fresh) == any(ni.image_states for ni in infos)
    for name in sorted(names):
        a, b = kept.rows(name), fresh.rows(name)
        if b is None:
            assert a is None, name
            continue
        assert a is not None, name
        assert (a.rows.tolist(), a.size.tolist(), a.num_nodes.tolist()) == \
            (b.rows.tolist(), b.size.tolist(), b.num_nodes.tolist()), name
        for row, size, num in zip(b.rows.tolist(), b.size.tolist(), b.num_nodes.tolist(), strict=True):
            summary = infos[row].image_states[name]
            assert (summary.size, summary.num_nodes) == (size, num)


def _nonzero(rl: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in rl.items() if v}


NODE_NAMES = ("n0", "n1", "n2", "n3", "n4")
OPS = ("add_node", "update_node", "remove_node", "add_pod", "assume", "confirm", "forget",
       "remove_pod", "update_pod", "snapshot")


def _make_node(name: str, v: int) -> Node:
    b = make_node().name(name).capacity({"cpu": str(1 + v % 4), "memory": "4Gi",
                                         **({"example.com/gpu": str(v % 3)} if v % 2 else {})})
    if v % 3:
        b.label(ZONE, f"z{v % 3}")
    b.label("kind", "big" if v % 4 == 0 else "small")
    if v % 5 == 1:
        b.taint("dedicated", "x")
    if v % 7 == 2:
        b.unschedulable()
    if v % 2 == 0:
        b.images({f"img{v % 3}:v1": 100 + v, "shared:v1": 50})
    return b.obj()


def _make_pod(uid: str, node: str, v: int) -> Pod:
    b = make_pod().name(uid).uid(uid).node(node)
    b.req({"cpu": f"{100 * (v % 5)}m", **({"example.com/gpu": "1"} if v % 4 == 3 else {})})
    if v % 3 == 0:
        b.pod_anti_affinity_exists("app", ZONE if v % 2 else "kubernetes.io/hostname")
    if v % 5 == 2:
        b.pvc(f"claim{v % 2}")
    if v % 6 == 1:
        b.host_port(8000 + v % 2)
    return b.obj()


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 50), st.integers(0, 50)), max_size=40))
def test_incremental_snapshot_equals_fresh(ops: list[tuple[str, int, int]]) -> None:
    cache = Cache(VirtualClock())
    nodes: dict[str, Node] = {}
    pods: dict[str, tuple[Pod, bool]] = {}  # uid -> (pod, assumed)
    snap = Snapshot()
    snap.columns.images()  # kept from the start: every later change goes through it
    for n, (op, a, b) in enumerate(ops):
        name = NODE_NAMES[a % len(NODE_NAMES)]
        uids = sorted(pods)
        uid = uids[b % len(uids)] if uids else ""
        if op == "add_node" and name not in nodes:
            nodes[name] = _make_node(name, b)
            cache.add_node(nodes[name])
        elif op == "update_node" and name in nodes:
            new = _make_node(name, b)
            cache.update_node(nodes[name], new)
            nodes[name] = new
        elif op == "remove_node" and name in nodes:
            cache.remove_node(nodes.pop(name))
        elif op in ("add_pod", "assume"):
            p = _make_pod(f"p{n}", name, b)
            if op == "add_pod":
                cache.add_pod(p)
            else:
                cache.assume_pod(p)
            pods[p.uid] = (p, op == "assume")
        elif op == "confirm" and uid and pods[uid][1]:
            bound = _make_pod(uid, name, b)  # may land on another node than assumed
            cache.add_pod(bound)
            pods[uid] = (bound, False)
        elif op == "forget" and uid and pods[uid][1]:
            cache.forget_pod(pods.pop(uid)[0])
        elif op == "remove_pod" and uid and not pods[uid][1]:
            cache.remove_pod(pods.pop(uid)[0])
        elif op == "update_pod" and uid and not pods[uid][1]:
            old_pod = pods[uid][0]
            new_pod = _make_pod(uid, old_pod.node_name, b)
            cache.update_pod(old_pod, new_pod)
            pods[uid] = (new_pod, False)
        elif op == "snapshot":
            cache.update_snapshot(snap)
            _assert_same(snap, _fresh(cache))
            continue
        if a % 2:  # update after about half of the operations, batch the others
            cache.update_snapshot(snap)
            _assert_same(snap, _fresh(cache))
    cache.update_snapshot(snap)
    _assert_same(snap, _fresh(cache))
    assert cache.pod_count() == len(pods)
    assert sorted(ni.name for ni in snap.node_info_list) == sorted(nodes)
