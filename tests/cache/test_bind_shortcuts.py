"""The cache's binding shortcuts give what the long way round gives.

- ``Cache.add_pod`` of an assumed pod swaps the PodInfo in place (``NodeInfo.replace_pod``,
  ``PodInfo.rebound``) instead of removePod + addPod: the NodeInfo must end the same.
- ``Cache.update_snapshot`` replays a big node's logged pod-list changes onto the snapshot's own
  list (``NodeInfo.update_into``) instead of copying the list: the snapshot must equal a fresh
  copy of the cache after any sequence of operations, and must not change with the cache
  between updates.

The log thresholds are lowered in the property tests so that short sequences cross them, trim
the log and fall back to copying.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Cache, NodeInfo, PodInfo, Snapshot, _node_info
from kubesched.clock import VirtualClock
from kubesched.testing.wrappers import make_node, make_pod

NODES = ("n0", "n1")


def _node(name: str) -> Node:
    return make_node().name(name).capacity({"cpu": "64", "memory": "64Gi", "pods": "500"}).obj()


def _pod(uid: str, node: str, v: int) -> Pod:
    b = make_pod().name(uid).uid(uid).node(node).req({"cpu": f"{100 * (v % 4)}m"})
    if v % 7 == 3:
        b.pod_anti_affinity_exists("app", "kubernetes.io/hostname")
    if v % 5 == 2:
        b.pvc(f"claim{v % 2}")
    if v % 6 == 1:
        b.host_port(8000 + v % 2)
    return b.obj()


def _bound(pod: Pod, rv: int) -> Pod:
    """What the store's bind makes of a pod: status, nodeName and resourceVersion edits."""
    return pod.with_changes({("status", "phase"): "Running", ("metadata", "resourceVersion"): str(rv),
                             ("spec", "nodeName"): pod.node_name})


def _state(ni: NodeInfo) -> tuple[object, ...]:
    return (ni.node, [(pi.pod.uid, pi.pod.meta.resource_version) for pi in ni.pods],
            [pi.pod.uid for pi in ni.pods_with_affinity],
            [pi.pod.uid for pi in ni.pods_with_required_anti_affinity],
            [pi.pod.uid for pi in ni.pods_with_required_non_host_scoped_anti_affinity],
            dict(ni.requested), dict(ni.non_zero_requested), ni.used_ports.items(), dict(ni.pvc_ref_counts))


def _pod_info_fields(pi: PodInfo) -> tuple[object, ...]:
    return (pi.pod, pi.resource, pi.non0, pi.pvc_keys, pi.has_affinity, pi.has_required_anti_affinity,
            pi.has_required_non_host_scoped_anti_affinity)


@contextmanager
def _small_logs(min_pods: int = 1, keep: int = 3) -> Iterator[None]:
    saved = _node_info._LOG_MIN_PODS, _node_info._LOG_KEEP
    _node_info._LOG_MIN_PODS, _node_info._LOG_KEEP = min_pods, keep
    try:
        yield
    finally:
        _node_info._LOG_MIN_PODS, _node_info._LOG_KEEP = saved


OPS = ("assume", "confirm", "forget", "add", "remove", "snapshot", "snapshot2")


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 30), st.integers(0, 30)), max_size=80))
def test_confirm_and_logged_snapshot_equal_the_long_way(ops: list[tuple[str, int, int]]) -> None:
    _run(ops)


@pytest.mark.parametrize("seed", range(4))
def test_long_random_sequences(seed: int) -> None:
    rng = random.Random(seed)
    weights = (4, 3, 1, 1, 2, 3, 1)
    _run([(rng.choices(OPS, weights)[0], rng.randrange(31), rng.randrange(31)) for _ in range(400)])


def _run(ops: list[tuple[str, int, int]]) -> None:
    """Apply ``ops`` to a cache taking the shortcuts and to one taking the long way, checking
    after each op that they agree and that snapshots change only when updated."""
    with _small_logs():
        fast, slow = Cache(VirtualClock()), Cache(VirtualClock())
        for nd in map(_node, NODES):
            fast.add_node(nd)
            slow.add_node(nd)
        snaps = (Snapshot(), Snapshot())
        seen: dict[int, list[tuple[object, ...]]] = {}  # snapshot index -> its state when updated
        pods: dict[str, tuple[Pod, bool]] = {}
        for i, (op, a, b) in enumerate(ops):
            uids = sorted(pods)
            uid = uids[b % len(uids)] if uids else ""
            node = NODES[a % len(NODES)]
            if op in ("assume", "add"):
                p = _pod(f"p{i}", node, b)
                for c in (fast, slow):
                    (c.assume_pod if op == "assume" else c.add_pod)(p)
                pods[p.uid] = (p, op == "assume")
            elif op == "confirm" and uid and pods[uid][1]:
                p = _bound(pods[uid][0], i)
                fast.add_pod(p)
                slow._update_pod(pods[uid][0], p)  # the long way: removePod + addPod
                pods[uid] = (p, False)
            elif op == "forget" and uid and pods[uid][1]:
                for c in (fast, slow):
                    c.forget_pod(pods[uid][0])
                del pods[uid]
            elif op == "remove" and uid and not pods[uid][1]:
                for c in (fast, slow):
                    c.remove_pod(pods[uid][0])
                del pods[uid]
            elif op.startswith("snapshot"):
                k = int(op == "snapshot2")
                fast.update_snapshot(snaps[k])
                for ni in snaps[k].node_info_list:
                    assert _state(ni) == _state(fast.get_node_info(ni.name))
                    assert ni.generation == fast._nodes[ni.name].generation
                seen[k] = [_state(ni) for ni in snaps[k].node_info_list]
            # the confirm shortcut leaves the same NodeInfos and pod states as the long way
            for n in NODES:
                assert _state(fast._nodes[n]) == _state(slow._nodes[n])
            assert list(fast._pod_states) == list(slow._pod_states)
            assert fast._assumed == slow._assumed
            # a snapshot changes only when it is updated
            for k, want in seen.items():
                assert [_state(ni) for ni in snaps[k].node_info_list] == want


def test_snapshot_pod_list_is_not_shared_with_the_cache() -> None:
    with _small_logs():
        cache = Cache(VirtualClock())
        cache.add_node(_node("n0"))
        for i in range(5):
            cache.add_pod(_pod(f"a{i}", "n0", 0))
        snap = Snapshot()
        cache.update_snapshot(snap)
        cache.assume_pod(_pod("b", "n0", 0))
        cache.update_snapshot(snap)  # replayed from the log
        ni = snap.get("n0")
        assert ni is not None
        before = [pi.pod.uid for pi in ni.pods]
        assert ni.pods is not cache._nodes["n0"].pods
        assumed = cache.get_pod(_pod("b", "n0", 0))
        assert assumed is not None
        cache.add_pod(_bound(assumed, 7))
        cache.remove_pod(_pod("a0", "n0", 0))
        assert [pi.pod.uid for pi in ni.pods] == before  # stale until updated
        cache.update_snapshot(snap)
        assert [pi.pod.uid for pi in ni.pods] == [pi.pod.uid for pi in cache._nodes["n0"].pods]
        assert [pi.pod.meta.resource_version for pi in ni.pods if pi.pod.uid == "b"] == ["7"]


def test_log_trimmed_past_a_snapshot_falls_back_to_a_copy() -> None:
    with _small_logs(min_pods=1, keep=2):
        cache = Cache(VirtualClock())
        cache.add_node(_node("n0"))
        cache.add_pod(_pod("a", "n0", 0))
        snap = Snapshot()
        cache.update_snapshot(snap)
        for i in range(10):
            cache.add_pod(_pod(f"b{i}", "n0", 0))
        log = cache._nodes["n0"]._log
        ni = snap.get("n0")
        assert log is not None and ni is not None and log.since(ni.generation) is None
        old_list = ni.pods
        cache.update_snapshot(snap)
        assert ni.pods is not old_list  # copied, not replayed
        assert [pi.pod.uid for pi in ni.pods] == ["a", *(f"b{i}" for i in range(10))]


@given(st.integers(0, 30), st.booleans())
def test_rebound_pod_info_equals_a_fresh_one(v: int, reparse: bool) -> None:
    pod = _pod("p", "n0", v)
    PodInfo(pod)  # computes the pod's cached requests, as the scheduling cycle does
    prev = PodInfo(pod)
    bound = Pod.from_dict(dict(pod.raw)) if reparse else _bound(pod, 3)
    assert _pod_info_fields(prev.rebound(bound)) == _pod_info_fields(PodInfo(bound))
