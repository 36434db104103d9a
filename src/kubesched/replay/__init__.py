"""Replaying traces over time on the virtual clock (``kubesched replay`` / ``compare`` / ``sweep``).

Readers turn a trace (kubesched's own format, a snapshot plus arrivals, openb) into a
:class:`Trace`; :class:`Replay` applies it to the embedded store on the virtual clock while a
:class:`Recorder` samples metrics; :class:`RunSpec` describes one run as a value for pools.
"""

from ._arrival import ARRIVALS, Arrival, arrival_trace, read_snapshot
from ._demand import DEFAULT_DEMAND, Demand, ResourceDemand
from ._engine import DRAIN_RETRY_SECONDS, Replay, ReplayResult, replay
from ._formats import FORMATS, ReaderOptions, read_format
from ._metrics import BASE_COLUMNS, GPU_ALLOCATION, GPU_RESOURCE, MetricProvider, Recorder
from ._output import METRICS_CSV, SUMMARY_JSON, CsvSink, read_series, write_summary
from ._plot import PlotUnavailable, plot_runs, plot_sweep
from ._reader import TRACE_API_VERSION, TraceError, TraceFile, parse_event, read_trace
from ._runs import RunSpec, aggregate, config_labels, flatten, load_cluster, prepare, run_many, run_spec
from ._trace import OPERATIONS, ObjectRef, Operation, Trace, TraceEvent

__all__ = [
    "ARRIVALS",
    "BASE_COLUMNS",
    "DEFAULT_DEMAND",
    "DRAIN_RETRY_SECONDS",
    "FORMATS",
    "GPU_ALLOCATION",
    "GPU_RESOURCE",
    "METRICS_CSV",
    "OPERATIONS",
    "SUMMARY_JSON",
    "TRACE_API_VERSION",
    "Arrival",
    "CsvSink",
    "Demand",
    "MetricProvider",
    "ObjectRef",
    "Operation",
    "PlotUnavailable",
    "ReaderOptions",
    "Recorder",
    "Replay",
    "ReplayResult",
    "ResourceDemand",
    "RunSpec",
    "Trace",
    "TraceError",
    "TraceEvent",
    "TraceFile",
    "aggregate",
    "arrival_trace",
    "config_labels",
    "flatten",
    "load_cluster",
    "parse_event",
    "plot_runs",
    "plot_sweep",
    "prepare",
    "read_format",
    "read_series",
    "read_snapshot",
    "read_trace",
    "replay",
    "run_many",
    "run_spec",
    "write_summary",
]
