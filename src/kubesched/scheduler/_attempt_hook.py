"""AttemptHook: what a caller is told of each scheduling attempt, and how it stops the run there.

Upstream has no such hook: kube-scheduler runs until it is killed. A simulation can stop at a
chosen attempt instead: ``kubesched explain`` runs the same simulation as ``simulate`` up to the
first scheduling attempt of a pod a controller created, and explains that attempt with the
dry-run cycle on the state of that moment. The hook sees each popped pod before its cycle runs
and each failed attempt (handleSchedulingFailure), nothing else; it never changes a decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..framework import QueuedPodInfo, Status

__all__ = ["AttemptHook"]


class AttemptHook(Protocol):
    """Set as ``Scheduler.cycles.attempt_hook`` (None: no hook, the default)."""

    def before_attempt(self, pinfo: QueuedPodInfo) -> bool:
        """A pod was popped for a scheduling attempt (its cycle, or its pod group's cycle, not
        yet run; a pod skipped as deleted or assumed is not an attempt). True stops the run
        loops before that cycle: ``Scheduler.cycles.stopped_before`` holds the pod, still popped
        (``stopped_pod_group``: the PodGroup whose cycle it was in, None for a pod's own), and
        the scheduler runs no more cycles (it is then fit for a dry run only). A pod group's
        pods are told of one after the other, before their group's cycle."""
        ...

    def attempt_failed(self, pinfo: QueuedPodInfo, status: Status) -> None:
        """The attempt of ``pinfo`` failed (scheduling or binding cycle): ``status`` is what
        the FailedScheduling event and the PodScheduled condition report."""
        ...
