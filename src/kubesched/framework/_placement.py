"""The pod-group scheduling cycle's framework types: PlacementProgress and the
PlacementFeasible extension point.

Mirrors pkg/scheduler/framework (master 2026, KEP-4671's pod-group scheduling cycle): the
cycle asks the PlacementFeasible plugins, before its first pod and after each one, whether the
group can still meet its constraints given how many of its pods are placed (``scheduled``:
already assumed or bound, plus those placed in this cycle) and how many are still to be tried
(``remaining``). Success: the group is feasible; Wait: go on, but it is not feasible yet;
Unschedulable: stop, it cannot become feasible in this cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..api import PodGroup
    from ._status import Status

__all__ = ["PlacementFeasiblePlugin", "PlacementProgress"]


@dataclass(slots=True)
class PlacementProgress:
    """framework.PlacementProgress: the group's pods still to evaluate and those placed."""

    remaining: int
    scheduled: int


@runtime_checkable
class PlacementFeasiblePlugin(Protocol):
    """framework.PlacementFeasiblePlugin."""

    def name(self) -> str: ...

    def placement_feasible(self, pod_group: PodGroup, progress: PlacementProgress) -> Status | None: ...
