"""The scheduler cache, after pkg/scheduler/backend/cache/cache_test.go (plus the expiry cases
of older releases, for the opt-in ``ttl``)."""

from __future__ import annotations

import pytest

from kubesched.api import Node, Pod
from kubesched.cache import Cache, CacheError, ImageStateSummary, NodeInfo, Snapshot, compare
from kubesched.clock import VirtualClock
from kubesched.testing.wrappers import make_node, make_pod

TTL = 10.0


def _pod(name: str, node: str = "node", cpu: str = "100m", mem: str = "500", port: int = 0,
         phase: str = "") -> Pod:
    """One container with ``cpu``/``mem`` requests (omitted when empty) and a host port."""
    c: dict[str, object] = {"name": "c", "image": "pause"}
    req = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v}
    if req:
        c["resources"] = {"requests": req}
    if port:
        c["ports"] = [{"containerPort": port, "hostPort": port, "protocol": "TCP", "hostIP": "127.0.0.1"}]
    b = make_pod().name(name).uid(name).namespace("test-ns").node(node).container(c)
    if phase:
        b.phase(phase)
    return b.obj()


def _node(name: str = "node", cpu: str = "1", images: dict[str, int] | None = None,
          zone: str = "") -> Node:
    b = make_node().name(name).capacity({"cpu": cpu, "memory": "1Gi"})
    if images:
        b.images(images)
    if zone:
        b.label("topology.kubernetes.io/zone", zone)
    return b.obj()


def _new_cache(ttl: float = 0.0) -> tuple[Cache, VirtualClock]:
    clock = VirtualClock()
    return Cache(clock, ttl=ttl), clock


def _names(ni: NodeInfo) -> list[str]:
    return [pi.pod.name for pi in ni.pods]


# -- assume / forget ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pods", "cpu", "nz_cpu", "ports"),
    [
        pytest.param([_pod("test", port=80)], 100, 100, 1, id="assumed-one-pod"),
        pytest.param([_pod("test-1", port=80), _pod("test-2", cpu="200m", port=8080)], 300, 300, 2,
                     id="assumed-two-pods"),
        pytest.param([_pod("test-nonzero", cpu="", mem="")], 0, 100, 0, id="assumed-pod-with-no-requests"),
    ],
)
def test_assume_pod_scheduled(pods: list[Pod], cpu: int, nz_cpu: int, ports: int) -> None:
    # TestAssumePodScheduled: assumed pods count on the node; forgetting them undoes it.
    cache, _ = _new_cache()
    for p in pods:
        cache.assume_pod(p)
        assert cache.is_assumed_pod(p)
    ni = cache.get_node_info("node")
    assert ni.requested.get("cpu", 0) == cpu
    assert ni.non_zero_requested["cpu"] == nz_cpu
    assert len(ni.used_ports) == ports
    for p in pods:
        cache.forget_pod(p)
    with pytest.raises(CacheError):  # the node-less NodeInfo is gone with its last pod
        cache.get_node_info("node")
    assert cache.node_count() == 0 and cache.pod_count() == 0


def test_assume_twice_is_an_error() -> None:
    cache, _ = _new_cache()
    cache.assume_pod(_pod("p"))
    with pytest.raises(CacheError, match="can't be assumed"):
        cache.assume_pod(_pod("p"))


def test_forget_pod_validates_node_and_state() -> None:
    # TestForgetPod + validateAssumedPod.
    cache, _ = _new_cache()
    cache.forget_pod(_pod("unknown"))  # no longer in the cache: fine
    cache.assume_pod(_pod("p", node="a"))
    with pytest.raises(CacheError, match="was assumed on b but assigned to a"):
        cache.forget_pod(_pod("p", node="b"))
    cache.add_pod(_pod("q", node="a"))
    with pytest.raises(CacheError, match="is not assumed"):
        cache.forget_pod(_pod("q", node="a"))
    cache.forget_pod(_pod("p", node="a"))
    assert not cache.is_assumed_pod(_pod("p", node="a"))
    assert cache.get_pod(_pod("p")) is None
    assert _names(cache.get_node_info("a")) == ["q"]


# -- expiry (opt-in ttl) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("finished", "advance", "expired"),
    [
        pytest.param({"test-1": 0.0}, TTL + 1, ["test-1"], id="assumed-pod-would-expire"),
        pytest.param({"test-1": 0.0, "test-2": TTL / 2}, TTL + 1, ["test-1"],
                     id="first-one-would-expire-second-would-not"),
        pytest.param({}, 3 * TTL, [], id="assumed-pod-would-not-expire-before-binding-finishes"),
    ],
)
def test_expire_pod(finished: dict[str, float], advance: float, expired: list[str]) -> None:
    # TestExpirePod: only pods whose binding finished expire, ttl after finish_binding.
    cache, clock = _new_cache(TTL)
    pods = {n: _pod(n) for n in ("test-1", "test-2", "test-3")}
    for p in pods.values():
        cache.assume_pod(p)
    for name, at in sorted(finished.items(), key=lambda kv: kv[1]):
        clock.run(until=at)
        cache.finish_binding(pods[name])
    clock.run(until=advance)
    for name, p in pods.items():
        assert (cache.get_pod(p) is None) is (name in expired), name


def test_default_ttl_never_expires() -> None:
    # Newest upstream: assumed pods never expire (durationToExpireAssumedPod = 0, issue 106361).
    cache, clock = _new_cache()
    p = _pod("p")
    cache.assume_pod(p)
    cache.finish_binding(p)
    clock.run(until=1e6)
    assert cache.cleanup_assumed_pods() == []
    assert cache.is_assumed_pod(p)


def test_cleanup_assumed_pods_expires_strictly_after_deadline() -> None:
    cache, _ = _new_cache(TTL)
    p = _pod("p")
    cache.assume_pod(p)
    cache.finish_binding(p)
    assert cache.cleanup_assumed_pods(now=TTL) == []
    assert cache.cleanup_assumed_pods(now=TTL + 0.5) == [p]
    assert cache.pod_count() == 0


def test_on_expired_callback() -> None:
    seen: list[str] = []
    clock = VirtualClock()
    cache = Cache(clock, ttl=TTL, on_expired=lambda pod: seen.append(pod.name))
    cache.assume_pod(_pod("p"))
    cache.finish_binding(_pod("p"))
    clock.run()
    assert seen == ["p"]


def test_add_pod_will_confirm() -> None:
    # TestAddPodWillConfirm: the added pod stays; the other assumed pod expires.
    cache, clock = _new_cache(TTL)
    p1, p2 = _pod("test-1", port=80), _pod("test-2", port=8080)
    for p in (p1, p2):
        cache.assume_pod(p)
        cache.finish_binding(p)
    cache.add_pod(p1)
    assert not cache.is_assumed_pod(p1)
    clock.run(until=TTL + 1)
    assert _names(cache.get_node_info("node")) == ["test-1"]


def test_add_pod_always_updates_pod_info() -> None:
    # TestAddPodAlwaysUpdatesPodInfoInNodeInfo: the bound object replaces the assumed one.
    cache, _ = _new_cache()
    assumed = _pod("p")
    bound = _pod("p", phase="Running")
    cache.assume_pod(assumed)
    cache.add_pod(bound)
    assert cache.get_pod(assumed) is bound
    assert cache.get_node_info("node").pods[0].pod is bound


def test_add_pod_will_replace_assumed_on_another_node() -> None:
    # TestAddPodWillReplaceAssumed: assumed on assumed-node-1, bound to actual-node.
    cache, _ = _new_cache()
    cache.add_node(_node("assumed-node-1"))
    cache.add_node(_node("actual-node"))
    cache.assume_pod(_pod("test-1", node="assumed-node-1"))
    cache.add_pod(_pod("test-1", node="actual-node", cpu="200m"))
    assert _names(cache.get_node_info("assumed-node-1")) == []
    ni = cache.get_node_info("actual-node")
    assert _names(ni) == ["test-1"] and ni.requested["cpu"] == 200


def test_add_pod_after_expiration() -> None:
    # TestAddPodAfterExpiration: an expired assumed pod is added back when the store reports it.
    cache, clock = _new_cache(TTL)
    p = _pod("test")
    cache.assume_pod(p)
    cache.finish_binding(p)
    clock.run(until=TTL + 1)
    assert cache.pod_count() == 0
    cache.add_pod(p)
    assert _names(cache.get_node_info("node")) == ["test"]


def test_add_pod_twice_is_an_error() -> None:
    cache, _ = _new_cache()
    cache.add_pod(_pod("p"))
    with pytest.raises(CacheError, match="already in added state"):
        cache.add_pod(_pod("p"))


def test_expire_add_update_pod() -> None:
    # TestExpireAddUpdatePod: expire, add, then update works as for a plain added pod.
    cache, clock = _new_cache(TTL)
    p, p2 = _pod("test"), _pod("test", cpu="200m", mem="1Ki")
    cache.assume_pod(p)
    cache.finish_binding(p)
    clock.run(until=TTL + 1)
    cache.add_pod(p)
    cache.update_pod(p, p2)
    assert cache.get_node_info("node").requested == {"cpu": 200, "memory": 1024}


# -- add / update / remove pods --------------------------------------------------------------


def test_update_pod() -> None:
    # TestUpdatePod: updates swap requested resources back and forth.
    cache, _ = _new_cache()
    a, b = _pod("test", port=80), _pod("test", cpu="200m", mem="1Ki", port=8080)
    cache.add_pod(a)
    for old, new, cpu in ((a, b, 200), (b, a, 100)):
        cache.update_pod(old, new)
        ni = cache.get_node_info("node")
        assert ni.requested["cpu"] == cpu
        assert ni.used_ports.items() == [("127.0.0.1", "TCP", 80 if new is a else 8080)]


@pytest.mark.parametrize(
    ("assume", "error"),
    [
        pytest.param(False, "not added to scheduler cache", id="not-added"),
        pytest.param(True, "should not be updated", id="assumed"),
    ],
)
def test_update_pod_errors(assume: bool, error: str) -> None:
    cache, _ = _new_cache()
    p = _pod("p")
    if assume:
        cache.assume_pod(p)
    with pytest.raises(CacheError, match=error):
        cache.update_pod(p, p)


def test_update_pod_to_another_node_is_corruption() -> None:
    cache, _ = _new_cache()
    cache.add_pod(_pod("p", node="a"))
    with pytest.raises(CacheError, match="corrupted"):
        cache.update_pod(_pod("p", node="a"), _pod("p", node="b"))


def test_ephemeral_storage_resource() -> None:
    # TestEphemeralStorageResource.
    cache, _ = _new_cache()
    p = make_pod().name("p").uid("p").node("node").req({"ephemeral-storage": "500"}).obj()
    cache.add_pod(p)
    ni = cache.get_node_info("node")
    assert ni.requested["ephemeral-storage"] == 500
    cache.remove_pod(p)
    assert cache.node_count() == 0


def test_remove_pod() -> None:
    # TestRemovePod: the node stays (it exists), its pod is gone.
    cache, _ = _new_cache()
    node = _node("node-1")
    cache.add_node(node)
    p = _pod("test", node="node-1", port=80)
    cache.add_pod(p)
    cache.remove_pod(p)
    ni = cache.get_node_info("node-1")
    assert ni.node is node and ni.pods == [] and len(ni.used_ports) == 0
    with pytest.raises(CacheError, match="not found in scheduler cache"):
        cache.remove_pod(p)


def test_remove_pod_with_empty_node_name_uses_cached_node() -> None:
    # A missed delete event leaves the informer's last state, possibly without nodeName.
    cache, _ = _new_cache()
    cache.add_pod(_pod("p", node="n1"))
    cache.remove_pod(make_pod().name("p").uid("p").namespace("test-ns").obj())
    assert cache.pod_count() == 0
    cache.add_pod(_pod("q", node="n1"))
    with pytest.raises(CacheError, match="corrupted"):
        cache.remove_pod(_pod("q", node="n2"))


# -- nodes ------------------------------------------------------------------------------------


def test_node_operators_and_ghost_node() -> None:
    # TestNodeOperators: add, update, remove (a ghost remains while pods are there).
    cache, _ = _new_cache()
    node = _node("test-node", cpu="2")
    p = _pod("pod1", node="test-node", cpu="1")
    cache.add_pod(p)
    cache.add_node(node)
    ni = cache.get_node_info("test-node")
    assert ni.allocatable["cpu"] == 2000 and ni.requested["cpu"] == 1000
    assert cache.node_tree_order() == ["test-node"]

    updated = _node("test-node", cpu="4")
    cache.update_node(node, updated)
    assert cache.get_node_info("test-node").allocatable["cpu"] == 4000

    snap = Snapshot()
    cache.update_snapshot(snap)
    assert snap.num_nodes() == 1
    cache.remove_node(updated)
    ghost = cache.get_node_info("test-node")
    assert ghost.node is None and _names(ghost) == ["pod1"]
    assert cache.node_count() == 1 and cache.node_tree_order() == []
    cache.update_snapshot(snap)
    assert snap.num_nodes() == 0 and snap.get("test-node") is None
    cache.remove_pod(p)
    assert cache.node_count() == 0
    with pytest.raises(CacheError, match="not found"):
        cache.remove_node(updated)


def test_image_states_count_nodes() -> None:
    # addNodeImageStates / removeNodeImageStates and the snapshot's ImageStateSummary.
    cache, _ = _new_cache()
    n1 = _node("n1", images={"gcr.io/10:v1": 10, "gcr.io/200:v1": 200})
    n2 = _node("n2", images={"gcr.io/10:v1": 10})
    cache.add_node(n1)
    cache.add_node(n2)
    assert cache.image_count() == 2
    snap = Snapshot()
    cache.update_snapshot(snap)
    n1_info, n2_info = snap.get("n1"), snap.get("n2")
    assert n1_info is not None and n2_info is not None
    assert n1_info.image_states == {"gcr.io/10:v1": ImageStateSummary(10, 2),
                                    "gcr.io/200:v1": ImageStateSummary(200, 1)}
    assert n2_info.image_states == {"gcr.io/10:v1": ImageStateSummary(10, 2)}
    cache.remove_node(n2)
    assert cache.image_count() == 2
    cache.update_node(n1, _node("n1", images={"gcr.io/10:v1": 10}))
    assert cache.image_count() == 1
    cache.update_snapshot(snap)
    assert snap.get("n1").image_states == {"gcr.io/10:v1": ImageStateSummary(10, 1)}  # type: ignore[union-attr]


def test_image_counts_of_unchanged_nodes_are_as_of_their_last_copy() -> None:
    # Upstream copies ImageStates (with the node count of the moment) only for changed nodes.
    cache, _ = _new_cache()
    cache.add_node(_node("n1", images={"img:v1": 1}))
    snap = Snapshot()
    cache.update_snapshot(snap)
    cache.add_node(_node("n2", images={"img:v1": 1}))
    cache.update_snapshot(snap)
    assert snap.get("n2").image_states["img:v1"].num_nodes == 2  # type: ignore[union-attr]
    assert snap.get("n1").image_states["img:v1"].num_nodes == 1  # type: ignore[union-attr]


def test_dump_and_counts() -> None:
    # TestDump.
    cache, _ = _new_cache()
    cache.add_node(_node("a"))
    cache.assume_pod(_pod("p1", node="a"))
    cache.add_pod(_pod("p2", node="b"))
    d = cache.dump()
    assert set(d.nodes) == {"a", "b"} and d.assumed_pods == frozenset({"p1"})
    assert cache.node_count() == 2 and cache.pod_count() == 2 and cache.assumed_pod_count() == 1
    assert cache.sizes() == {"assumed_pods": 1, "pods": 2, "nodes": 2}


def test_compare_finds_missed_and_redundant() -> None:
    # debugger/comparer_test.go: store vs cache, pending pods count as known.
    cache, _ = _new_cache()
    a, b = _node("a"), _node("b")
    cache.add_node(a)
    cache.add_pod(_pod("in-cache", node="a"))
    cache.add_pod(_pod("deleted", node="a"))
    pending, lost = _pod("pending", node=""), _pod("lost", node="a")
    diff = compare(cache, [a, b], [_pod("in-cache", node="a"), pending, lost], pending_pods=[pending])
    assert diff.missed_nodes == ("b",) and diff.redundant_nodes == ()
    assert diff.missed_pods == ("lost",) and diff.redundant_pods == ("deleted",)
    assert not diff.consistent
