"""SchedulingGates: keeps gated pods out of activeQ (PreEnqueue).

Mirrors pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (master 2026).
A pod with ``spec.schedulingGates`` is rejected with UnschedulableAndUnresolvable and the gate
names formatted as Go's ``%v`` of a string slice (``[a b]``); it is retried when an update of
that very pod removes its gates (UpdatePodSchedulingGatesEliminated).
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    PluginBase,
    QueueingHint,
    Status,
)
from kubesched.plugins.names import SCHEDULING_GATES

__all__ = ["NAME", "SchedulingGates", "gates_message"]

NAME = SCHEDULING_GATES


def gates_message(gates: tuple[str, ...]) -> str:
    """The PreEnqueue rejection's message: ``waiting for scheduling gates: [a b]``."""
    return f"waiting for scheduling gates: [{' '.join(gates)}]"


class SchedulingGates(PluginBase):
    NAME = NAME

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.scheduling_gates:
            return None
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, gates_message(pod.scheduling_gates))

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                self.is_schedulable_after_update_pod_scheduling_gates_eliminated,
            )
        ]

    def is_schedulable_after_update_pod_scheduling_gates_eliminated(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Only an update of the gated pod itself can ungate it."""
        if not isinstance(new_obj, Pod) or new_obj.uid != pod.uid:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
