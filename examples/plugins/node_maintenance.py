"""An out-of-tree Filter plugin: keep pods off nodes labelled as under maintenance.

It shows how a plugin builds a ``Status``: a rejection with one reason, an error wrapped with
``as_status``, and success as ``None``. Enable it by import path
(``node_maintenance:NodeMaintenance``); see README.md next to this file.
"""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import Code, CycleState, PluginBase, Status, as_status

MAINTENANCE_LABEL = "example.com/maintenance"

UNDER_MAINTENANCE = "node(s) were under maintenance"
"""The reason, phrased like upstream's (``node(s) ...``): the scheduler's FailedScheduling
message counts nodes per reason, e.g. ``0/3 nodes are available: 2 node(s) were under
maintenance, 1 Insufficient cpu.``"""


class NodeMaintenance(PluginBase):
    """Rejects nodes labelled ``example.com/maintenance=true``; ``false`` or no label passes.

    Without ``events_to_register()`` a pod this plugin rejected is retried on every cluster
    event (the safe default), e.g. when the label is removed."""

    NAME = "NodeMaintenance"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        value = node.labels.get(MAINTENANCE_LABEL) if node is not None else None
        if value is None or value == "false":
            return None  # None is Success
        if value == "true":
            # One reason: a plain string. Several: a list, or Status.of(code, "a", "b").
            # UnschedulableAndUnresolvable: evicting pods from this node would not help, so
            # preemption does not consider it; Code.UNSCHEDULABLE would let it try.
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, UNDER_MAINTENANCE)
        # Something the plugin cannot judge: an Error status. The pod is retried with backoff
        # and reported with the error's text (SchedulerError), never as unschedulable.
        return as_status(ValueError(f"node {node_info.name}: label {MAINTENANCE_LABEL}={value!r}: "
                                    "want true or false"))
