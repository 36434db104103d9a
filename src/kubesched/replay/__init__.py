"""Replaying traces over time on the virtual clock (``kubesched replay`` / ``compare`` / ``sweep``)."""

from ._demand import DEFAULT_DEMAND, Demand, ResourceDemand
from ._metrics import BASE_COLUMNS, GPU_ALLOCATION, MetricProvider, Recorder
from ._trace import OPERATIONS, ObjectRef, Operation, Trace, TraceEvent

__all__ = [
    "BASE_COLUMNS",
    "DEFAULT_DEMAND",
    "GPU_ALLOCATION",
    "OPERATIONS",
    "Demand",
    "MetricProvider",
    "ObjectRef",
    "Operation",
    "Recorder",
    "ResourceDemand",
    "Trace",
    "TraceEvent",
]
