"""The scheduling cycle's failures: ErrNoNodesAvailable and the FitError built on one node.

Mirrors pkg/scheduler/schedule_one.go (master 2026). The types of a diagnosis (NodeToStatus,
Diagnosis, FitError) live in the framework, as upstream's framework/types.go.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..framework import Code, Diagnosis, FitError, Status

if TYPE_CHECKING:
    from ..api import Pod

__all__ = ["NoNodesAvailableError", "PodGroupFitError", "excluded_by_pre_filter", "fit_error_for_single_node",
           "go_set_list", "status_with_fit_error"]


class NoNodesAvailableError(Exception):
    """ErrNoNodesAvailable: the snapshot has no node at all."""

    def __init__(self) -> None:
        super().__init__("no nodes available to schedule pods")


class PodGroupFitError(Exception):
    """podGroupFitError: why a pod group's scheduling cycle failed as a whole. Its text is the
    deciding status's message (``minCount (3) cannot be satisfied: 1 scheduled, 1 remaining``);
    it carries the plugins that rejected the group or any of its pods, so that each pod of the
    group waits for an event any of them registered (a sibling's ``Insufficient cpu`` is the
    whole group's reason to wait)."""

    def __init__(self, status: Status, unschedulable_plugins: set[str]) -> None:
        super().__init__(status.message())
        self.status = status
        self.unschedulable_plugins = set(unschedulable_plugins)


def go_set_list(s: set[str]) -> str:
    """fmt %v of sets.List(s): ``[a b c]``."""
    return "[" + " ".join(sorted(s)) + "]"


def excluded_by_pre_filter(plugins: set[str]) -> Status:
    """The status of a node that PreFilter's node set left out (findNodesThatFitPod):
    ``node(s) didn't satisfy plugin(s) [A B]``, UnschedulableAndUnresolvable. The one
    builder of that message, for the scheduling cycle and every dry run."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  (f"node(s) didn't satisfy plugin(s) {go_set_list(plugins)}",))


def status_with_fit_error(code: Code, err: FitError) -> Status:
    """``NewStatus(code).WithError(fitErr)``: the status message is the FitError text."""
    return Status(code, (err.error(),), error=err)


def fit_error_for_single_node(pod: Pod, node_name: str, status: Status,
                              record: Callable[[Diagnosis, Status], None] | None = None) -> FitError:
    """The FitError upstream builds when Reserve, Permit or WaitOnPermit rejects the pod on its
    chosen node (NumAllNodes 1, that node's status, the rejecting plugin recorded)."""
    d = Diagnosis()
    d.node_to_status.set(node_name, status)
    (record or Diagnosis.add_plugin_status)(d, status)
    return FitError(pod, 1, d)
