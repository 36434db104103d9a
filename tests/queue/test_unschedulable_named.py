"""UnschedulablePods.named: the parked pods an event naming some pods may move (the named ones
and those any event moves), found without a scan, in the order a scan gives them."""

from __future__ import annotations

from queue_helpers import make_pod

from kubesched.framework import QueuedPodInfo
from kubesched.queue._unschedulable_pods import UnschedulablePods


def _parked(name: str, rejected: bool) -> QueuedPodInfo:
    return QueuedPodInfo(make_pod(name), unschedulable_plugins={"DynamicResources"} if rejected else set())


def test_named_finds_the_named_and_the_loose_pods_in_parking_order() -> None:
    pods = UnschedulablePods(lambda p: not p.unschedulable_plugins)
    infos = [_parked(f"p{i}", rejected=i != 7) for i in range(40)]
    for p in infos:
        pods.add_or_update(p)
    pods.delete("ns/p3")
    got = pods.named([infos[30].pod.uid, infos[2].pod.uid, infos[3].pod.uid, "no-such-uid"])
    assert [p.pod.name for p in got] == ["p2", "p7", "p30"]  # p7 has no rejecting plugin
    # Re-parking keeps a pod's place (a dict update), as iteration does.
    pods.add_or_update(infos[2])
    assert [p.pod.name for p in pods.named([infos[2].pod.uid])] == ["p2", "p7"]
    assert [p.pod.name for p in pods][:3] == ["p0", "p1", "p2"]


def test_named_scans_when_most_pods_are_asked_for() -> None:
    pods = UnschedulablePods(lambda p: not p.unschedulable_plugins)
    infos = [_parked(f"p{i}", rejected=True) for i in range(4)]
    for p in infos:
        pods.add_or_update(p)
    assert [p.pod.name for p in pods.named([infos[1].pod.uid])] == ["p0", "p1", "p2", "p3"]
