"""Pod update classification, hint-map building, deterministic heap ties."""

from __future__ import annotations

import pytest
from queue_helpers import make_pod

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueuedPodInfo,
)
from kubesched.queue import QueueingHintEntry, build_queueing_hint_map, pod_scheduling_properties_change
from kubesched.queue._heap import KeyedHeap

_U = EventResource.UNSCHEDULED_POD


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(make_pod("p", labels={"a": "1"}), make_pod("p", labels={"a": "2"}),
                 [ClusterEvent(_U, ActionType.UPDATE_POD_LABEL)], id="label change"),
    pytest.param(make_pod("p", cpu="2"), make_pod("p", cpu="1"),
                 [ClusterEvent(_U, ActionType.UPDATE_POD_SCALE_DOWN)], id="scale down"),
    pytest.param(make_pod("p", cpu="1"), make_pod("p", cpu="2"),
                 [ClusterEvent(_U, ActionType.UPDATE)], id="scale up is a generic update"),
    pytest.param(make_pod("p", gates=("g",)), make_pod("p"),
                 [ClusterEvent(_U, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)],
                 id="gates eliminated"),
    pytest.param(make_pod("p"), make_pod("p", tolerate="k"),
                 [ClusterEvent(_U, ActionType.UPDATE_POD_TOLERATION)], id="toleration added"),
    pytest.param(make_pod("p", labels={"a": "1"}), make_pod("p", labels={"a": "2"}, tolerate="k"),
                 [ClusterEvent(_U, ActionType.UPDATE_POD_LABEL),
                  ClusterEvent(_U, ActionType.UPDATE_POD_TOLERATION)],
                 id="several changes"),
    pytest.param(make_pod("p", node="n1", labels={"a": "1"}), make_pod("p", node="n1"),
                 [ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_LABEL)], id="assigned pod"),
])
def test_pod_scheduling_properties_change(old: Pod, new: Pod, want: list[ClusterEvent]) -> None:
    assert pod_scheduling_properties_change(new, old) == want


class _WithEvents:
    def name(self) -> str:
        return "WithEvents"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]


class _WithoutEvents:
    def name(self) -> str:
        return "Legacy"


def test_build_queueing_hint_map() -> None:
    m = build_queueing_hint_map({"p1": [_WithEvents(), _WithoutEvents(), _WithEvents()]})
    entries = m["p1"]
    assert entries[0] == QueueingHintEntry(ClusterEvent(EventResource.NODE, ActionType.ADD), "WithEvents")
    # A plugin without EnqueueExtensions cares about every event of every resource.
    legacy = {e.event.resource for e in entries if e.plugin == "Legacy"}
    assert EventResource.NODE in legacy and EventResource.POD in legacy
    assert all(e.event.action == ActionType.ALL for e in entries if e.plugin == "Legacy")
    assert sum(e.plugin == "WithEvents" for e in entries) == 1


def test_heap_ties_pop_in_insertion_order() -> None:
    h: KeyedHeap[QueuedPodInfo] = KeyedHeap(lambda p: p.pod.key, lambda a, b: False)
    for i in (3, 1, 2, 0):
        h.add_or_update(QueuedPodInfo(make_pod(f"p{i}")))
    h.delete("ns/p1")
    assert [h.pop().pod.name for _ in range(3)] == ["p3", "p2", "p0"]  # type: ignore[union-attr]
    assert h.pop() is None


def test_heap_update_with_an_unchanged_sort_key_keeps_order() -> None:
    """An updated item keeps its tie order while its old slot is still in the heap; with a
    sort key the two slots must never compare their entries (which carry no ``less``)."""
    h: KeyedHeap[QueuedPodInfo] = KeyedHeap(lambda p: p.pod.key, lambda a, b: False, sort_key=lambda p: 0)
    for i in range(4):
        h.add_or_update(QueuedPodInfo(make_pod(f"p{i}")))
    h.add_or_update(QueuedPodInfo(make_pod("p1")))
    h.add_or_update(QueuedPodInfo(make_pod("p1")))
    assert [h.pop().pod.name for _ in range(4)] == ["p0", "p1", "p2", "p3"]  # type: ignore[union-attr]
