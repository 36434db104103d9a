"""The nominator (nominator.go; TestPriorityQueue_*NominatedPod* in scheduling_queue_test.go)."""

from __future__ import annotations

from queue_helpers import make_pod, names, new_queue

from kubesched.api import Pod
from kubesched.cache import PodInfo
from kubesched.clock import VirtualClock
from kubesched.framework import PostFilterResult
from kubesched.queue import MODE_NOOP, MODE_OVERRIDE, Nominator


def _pods(infos: list[PodInfo]) -> list[str]:
    return [i.pod.name for i in infos]


def test_add_nominated_pod_modes() -> None:
    n = Nominator()
    a = make_pod("a", nominated="node1")
    n.add_nominated_pod(a)  # no info: ModeNoop, the pod's own nominatedNodeName
    n.add_nominated_pod(make_pod("b"), PostFilterResult("node1", MODE_OVERRIDE))
    n.add_nominated_pod(make_pod("c", nominated="node2"), PostFilterResult("node1", MODE_NOOP))
    assert names(n.nominated_pods("node1")) == ["a", "b"]
    assert names(n.nominated_pods("node2")) == ["c"]
    # Re-adding moves a pod rather than duplicating it; an empty node clears it.
    n.add_nominated_pod(a, PostFilterResult("node2", MODE_OVERRIDE))
    assert names(n.nominated_pods("node1")) == ["b"] and names(n.nominated_pods("node2")) == ["c", "a"]
    n.add_nominated_pod(a, PostFilterResult("", MODE_OVERRIDE))
    assert n.nominated_node(a) is None


def test_add_nominated_pod_skips_deleted_or_bound_pods() -> None:
    store: dict[str, Pod] = {"ns/bound": make_pod("bound", node="node9")}
    n = Nominator(lambda ns, name: store.get(f"{ns}/{name}"))
    n.add_nominated_pod(make_pod("gone", nominated="node1"))
    n.add_nominated_pod(make_pod("bound", nominated="node1"))
    assert n.nominated_pods("node1") == []


def test_update_nominated_pod_keeps_in_memory_nomination() -> None:
    # An update that neither sets nor clears nominatedNodeName keeps the reserved node.
    n = Nominator()
    old = make_pod("p")
    n.add_nominated_pod(old, PostFilterResult("node1", MODE_OVERRIDE))
    new = make_pod("p", labels={"x": "y"})
    n.update_nominated_pod(old, new)
    assert n.nominated_pods("node1") == [new]
    # An update that sets a node moves the nomination; one that clears it drops it.
    moved = make_pod("p", nominated="node2")
    n.update_nominated_pod(new, moved)
    assert n.nominated_pods("node1") == [] and n.nominated_pods("node2") == [moved]
    n.update_nominated_pod(moved, make_pod("p"))
    assert n.nominated_pods("node2") == []


def test_priority_queue_nominated_pods_for_node() -> None:
    # TestPriorityQueue_NominatedPodsForNode: pods added with nominatedNodeName are nominated;
    # the queue hands back its current version of each pod.
    clock = VirtualClock()
    q = new_queue(clock)
    a, b = make_pod("a", 2, nominated="node1"), make_pod("b", 1, nominated="node1")
    q.add(a)
    q.add(b)
    q.add(make_pod("c"))
    assert _pods(q.nominated_pods_for_node("node1")) == ["a", "b"]
    q.update(b, make_pod("b", 7, nominated="node1"))
    infos = q.nominated_pods_for_node("node1")
    assert [i.pod.priority for i in infos] == [2, 7]
    q.delete_nominated_pod_if_exists(a)
    assert _pods(q.nominated_pods_for_node("node1")) == ["b"]
    q.add_nominated_pod(PodInfo(make_pod("c")), PostFilterResult("node2", MODE_OVERRIDE))
    assert _pods(q.nominated_pods_for_node("node2")) == ["c"]


def test_priority_queue_update_nominated_pod_for_node() -> None:
    # TestPriorityQueue_UpdateNominatedPodForNode: an update clearing the nomination drops it.
    clock = VirtualClock()
    q = new_queue(clock)
    old = make_pod("p", nominated="node1")
    q.add(old)
    q.update(old, make_pod("p", nominated="node2"))
    assert q.nominated_pods_for_node("node1") == [] and _pods(q.nominated_pods_for_node("node2")) == ["p"]


def test_nominated_pod_infos_are_reused_until_the_pod_changes() -> None:
    q = new_queue(VirtualClock())
    b = make_pod("b", 1, nominated="node1")
    q.add(b)
    first = q.nominated_pods_for_node("node1")
    assert q.nominated_pods_for_node("node1")[0] is first[0]  # same version: same PodInfo
    updated = make_pod("b", 7, nominated="node1")
    assert updated.uid == b.uid
    q.update(b, updated)
    again = q.nominated_pods_for_node("node1")
    assert again[0] is not first[0] and again[0].pod is updated and again[0].pod.priority == 7
