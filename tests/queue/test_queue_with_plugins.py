"""The queue driven by the in-tree PrioritySort and SchedulingGates plugins and a hint map
built from events_to_register(), as the scheduler wires it."""

from __future__ import annotations

from queue_helpers import make_pod, names

from kubesched.clock import VirtualClock
from kubesched.plugins.queuesort import PrioritySort
from kubesched.plugins.schedulinggates import SchedulingGates
from kubesched.queue import PriorityQueue, build_queueing_hint_map


def test_gated_pod_is_ungated_by_its_own_update_only() -> None:
    clock = VirtualClock()
    gates = SchedulingGates()
    q = PriorityQueue(clock, PrioritySort().less, {"default-scheduler": [gates]},
                      build_queueing_hint_map({"default-scheduler": [gates]}))
    a, b = make_pod("a", gates=("g",)), make_pod("b", gates=("g",))
    q.add(a)
    q.add(b)
    assert q.pending_pod_counts()["gated"] == 2
    # Another pod's ungating is not an event for "b" (the hint checks the pod's uid).
    ungated_a = make_pod("a")
    q.update(a, ungated_a)
    assert names(q.pods_in_active_q()) == ["a"]
    assert q.pending_pod_counts() == {"active": 1, "backoff": 0, "unschedulable": 0, "gated": 1}
    q.update(b, make_pod("b", labels={"still": "gated"}, gates=("g",)))
    assert q.pending_pod_counts()["gated"] == 1
    q.update(b, make_pod("b"))
    assert names(q.pods_in_active_q()) == ["a", "b"]
