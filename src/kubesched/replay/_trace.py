"""The trace model every trace reader produces and the replay engine consumes.

A trace is a cluster to start from plus timed events on the virtual clock. Readers (kubesched's
own YAML / JSON Lines format, the openb CSVs, a snapshot plus an arrival order) differ only in how
they build these; the engine never knows which format a trace came from.

Events are an iterable, not a list, so that a reader may stream a very long trace with flat
memory; they must come in non-decreasing ``time`` order (readers sort or check it and name the
offending line).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ._demand import Demand
    from ._metrics import MetricProvider

__all__ = ["OPERATIONS", "ObjectRef", "Operation", "Trace", "TraceEvent"]

Operation = Literal["create", "delete", "update", "scale", "cordon", "uncordon", "drain"]
OPERATIONS: tuple[Operation, ...] = ("create", "delete", "update", "scale", "cordon", "uncordon", "drain")


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """What ``delete`` / ``scale`` / ``cordon`` / ``uncordon`` / ``drain`` act on."""

    kind: str
    name: str
    namespace: str = ""  # "" for cluster-scoped kinds (Node)


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One operation at one instant of the virtual clock (seconds from the trace's start).

    ``obj`` is the manifest for ``create`` / ``update``; ``ref`` names the object for the other
    operations; ``replicas`` is the new size for ``scale``. ``source`` is where the event came
    from ("FILE:LINE"), for error messages.
    """

    time: float
    op: Operation
    obj: Mapping[str, Any] | None = None
    ref: ObjectRef | None = None
    replicas: int | None = None
    source: str = ""


@dataclass(slots=True)
class Trace:
    """A cluster (manifests admitted before time 0) and the events to replay on it.

    A reader may also say how to measure it: ``demand`` is what "arrived demand" counts (the
    plots' second axis; requested cpu when None), ``metrics`` adds columns to the time series
    (fresh providers for each run: a reader builds a new Trace per run). ``events`` should be
    re-iterable (a list, or an object whose ``__iter__`` reads the file again): the replay
    checks every event before applying the first, so that a bad line is reported with
    nothing applied; a one-shot iterator is buffered for that.
    """

    cluster: list[Mapping[str, Any]] = field(default_factory=list)
    events: Iterable[TraceEvent] = ()
    name: str = ""  # shown in progress bars, summaries and plot legends
    demand: Demand | None = None
    metrics: list[MetricProvider] = field(default_factory=list)
