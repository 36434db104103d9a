"""Builders shared by the queue tests: pods, a PrioritySort-like less, toy plugins."""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    Code,
    EventResource,
    QueuedPodInfo,
    QueueingHint,
    Status,
)
from kubesched.queue import PriorityQueue, QueueingHintEntry

NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
PVC_ADD = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)
GATES_ELIMINATED = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)


def make_pod(name: str, priority: int = 0, *, namespace: str = "ns", uid: str = "",
             labels: dict[str, str] | None = None, gates: tuple[str, ...] = (),
             nominated: str = "", node: str = "", cpu: str = "",
             affinity: dict[str, Any] | None = None, tolerate: str = "") -> Pod:
    spec: dict[str, Any] = {"priority": priority, "containers": [{"name": "c"}]}
    if cpu:
        spec["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    if node:
        spec["nodeName"] = node
    if affinity:
        spec["affinity"] = affinity
    if tolerate:
        spec["tolerations"] = [{"key": tolerate, "operator": "Exists"}]
    return Pod.from_dict({
        "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}",
                     "labels": labels or {}},
        "spec": spec,
        "status": {"nominatedNodeName": nominated} if nominated else {},
    })


def priority_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """PrioritySort.Less: higher priority first, then earlier timestamp."""
    pa, pb = a.pod.priority_value, b.pod.priority_value
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class GatePlugin:
    """SchedulingGates-like PreEnqueue plugin: pods with gates wait."""

    def name(self) -> str:
        return "SchedulingGates"

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if pod.scheduling_gates:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates")
        return None


def new_queue(clock: VirtualClock, hints: list[QueueingHintEntry] | None = None,
              **kwargs: Any) -> PriorityQueue:
    hint_list = hints if hints is not None else [QueueingHintEntry(NODE_ADD, "fooPlugin")]
    return PriorityQueue(clock, priority_less, {"default-scheduler": [GatePlugin()]},
                         {"default-scheduler": [*hint_list,
                                                QueueingHintEntry(GATES_ELIMINATED, "SchedulingGates")]},
                         **kwargs)


def fail(q: PriorityQueue, pod: Pod, *plugins: str, pending: tuple[str, ...] = ()) -> QueuedPodInfo:
    """Pop ``pod`` (must be the head) and requeue it as rejected by ``plugins``."""
    p = q.pop()
    assert p is not None and p.pod.uid == pod.uid, (p, pod)
    p.unschedulable_plugins = set(plugins)
    p.pending_plugins = set(pending)
    assert q.add_unschedulable_if_not_present(p, q.scheduling_cycle) is None
    return p


def names(pods: list[Pod]) -> list[str]:
    return [p.name for p in pods]


def queue_skip(pod: Any, old: Any, new: Any) -> QueueingHint:
    return QueueingHint.QUEUE_SKIP


def queue(pod: Any, old: Any, new: Any) -> QueueingHint:
    return QueueingHint.QUEUE


def boom(pod: Any, old: Any, new: Any) -> QueueingHint:
    raise RuntimeError("hint failed")


def priority_key(p: QueuedPodInfo) -> tuple[int, float]:
    """The sort key equivalent to ``priority_less``."""
    return (-p.pod.priority_value, p.timestamp)
