"""What "demand" means when pods arrive: the notion behind ``--tune`` and the arrived-demand axis.

The FGD simulator (Weng et al., USENIX ATC '23) replays openb pods until their summed GPU
request reaches a multiple of the cluster's GPU capacity, and plots allocation against that
ratio. Which quantity counts as demand is the only part specific to GPUs, so it is a small
protocol: a trace reader that knows better (the openb reader's GPU notion) hands its own
:class:`Demand` to the trace; everything else uses :class:`ResourceDemand` over one resource
name, requested cpu by default.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..api import Node, Pod

__all__ = ["DEFAULT_DEMAND", "Demand", "ResourceDemand"]


@runtime_checkable
class Demand(Protocol):
    """How much a pod asks for, and how much the cluster offers, in one unit.

    ``name`` labels plots and tables (``cpu``, ``gpu``); ``of_pod`` is one pod's demand (its
    requests, not what it uses); ``capacity`` the cluster's total over its nodes."""

    @property
    def name(self) -> str: ...

    def of_pod(self, pod: Pod) -> float: ...

    def capacity(self, nodes: Iterable[Node]) -> float: ...


@dataclass(frozen=True, slots=True)
class ResourceDemand:
    """Demand as the requests of one resource against the nodes' allocatable (``cpu`` in
    millicores, ``memory`` in bytes, an extended resource in its units)."""

    resource: str = "cpu"

    @property
    def name(self) -> str:
        return self.resource

    def of_pod(self, pod: Pod) -> float:
        return float(pod.requests.get(self.resource, 0))

    def capacity(self, nodes: Iterable[Node]) -> float:
        return float(sum(n.allocatable.get(self.resource, 0) for n in nodes))


DEFAULT_DEMAND: Demand = ResourceDemand("cpu")
