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
from typing import Any, Literal

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
    """A cluster (manifests admitted before time 0) and the events to replay on it."""

    cluster: list[Mapping[str, Any]] = field(default_factory=list)
    events: Iterable[TraceEvent] = ()
    name: str = ""  # shown in progress bars, summaries and plot legends
