"""Over time: a trace replayed on the virtual clock, its metrics as series for the page's charts
and its ``summary.json`` figures.

The run is ``kubesched replay``'s (:func:`kubesched.replay.prepare` with a :class:`RunSpec`, then
:meth:`Replay.run <kubesched.replay.Replay.run>`); only the sink differs: instead of a CSV file,
rows go to a :class:`SeriesSink` that keeps at most ``max_points`` of them in memory (every k-th
row, k doubling as the run grows, and always the last), so that a million-event trace charts in
a browser from a flat amount of memory, as :func:`kubesched.replay.read_series` does for a CSV.

Traces are named, never given as paths in a request: the ones ``kubesched ui`` was started with
and the example bundled in this package (:func:`bundled_traces`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence, Sized
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Final

from ..framework.config import SchedulerConfig
from ..replay import BASE_COLUMNS, ReaderOptions, RunSpec, prepare

__all__ = ["CHARTS", "SeriesSink", "Timeline", "TraceInput", "bundled_traces",
           "run_timeline"]

DEFAULT_MAX_POINTS: Final = 2000

CHARTS: Final[Mapping[str, str]] = {
    "allocation": "allocation:",
    "pending": "pending",
    "latency": "latency",
}
"""Chart name -> the prefix of the columns it draws: allocation (requested over allocatable,
per resource), pending pods (and unschedulable ones), latency percentiles."""

_CHART_COLUMNS: Final[Mapping[str, tuple[str, ...]]] = {
    "pending": ("pending", "unschedulable"),
    "latency": ("latencyP50", "latencyP90", "latencyP99"),
}


@dataclass(frozen=True, slots=True)
class TraceInput:
    """A trace the page may replay: its ``name`` (what requests use), its reader ``format``, its
    files and the cluster manifests at time 0 (both server-side paths)."""

    name: str
    format: str
    paths: tuple[str, ...]
    cluster: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "format": self.format}


def bundled_traces() -> list[TraceInput]:
    """The example trace shipped in the package (``examples/replay`` of the source tree: four
    nodes, a Deployment under a PDB, batch pods arriving and a node drained)."""
    root = files(__package__).joinpath("examples", "replay")
    return [TraceInput("example: replay", "kubesched", (str(root.joinpath("trace.jsonl")),),
                       (str(root.joinpath("cluster.yaml")),))]



class SeriesSink:
    """Replay rows kept in memory, at most about ``max_points``: every ``stride``-th row, the
    stride doubling (and every other kept row dropped) whenever the limit is passed; the last
    row is always kept apart, so the chart ends where the run ended."""

    def __init__(self, max_points: int = DEFAULT_MAX_POINTS) -> None:
        if max_points < 2:
            raise ValueError(f"max_points must be at least 2, got {max_points}")
        self.max_points = max_points
        self.rows: list[list[float]] = []
        self.last: list[float] | None = None
        self.stride = 1
        self.seen = 0

    def __call__(self, row: Sequence[float]) -> None:
        values = [float(v) for v in row]
        if self.seen % self.stride == 0:
            self.rows.append(values)
            if len(self.rows) > self.max_points:
                self.rows = self.rows[::2]
                self.stride *= 2
        self.seen += 1
        self.last = values

    def series(self) -> list[list[float]]:
        """The rows kept, ending with the last row seen."""
        if self.last is None:
            return []
        if self.rows and self.rows[-1] is self.last:
            return list(self.rows)
        return [*self.rows, self.last]


@dataclass(slots=True)
class Timeline:
    """A replay's series (``columns`` and, per column, its values) and its summary."""

    trace: str
    columns: list[str]
    rows: list[list[float]]
    summary: dict[str, Any]
    label: str = ""
    """Which run this is when several are compared (``A``, ``B``)."""

    def column(self, name: str) -> list[float | None]:
        i = self.columns.index(name)
        return [_finite(r[i]) for r in self.rows]

    def charts(self) -> dict[str, list[str]]:
        """Chart name -> the columns it draws (those this run has)."""
        out = {}
        for chart, prefix in CHARTS.items():
            cols = _CHART_COLUMNS.get(chart) or tuple(c for c in self.columns if c.startswith(prefix))
            out[chart] = [c for c in cols if c in self.columns]
        return out

    def to_dict(self) -> dict[str, Any]:
        charts = self.charts()
        shown = dict.fromkeys(["time", *(c for cols in charts.values() for c in cols)])
        return {"trace": self.trace, "label": self.label, "charts": charts, "points": len(self.rows),
                "series": {c: self.column(c) for c in shown},
                "summary": _json_safe(self.summary)}


def _finite(v: float) -> float | None:
    """JSON has no NaN: a value not yet known (a latency before any pod is bound) is null."""
    return v if math.isfinite(v) else None


def _json_safe(v: Any) -> Any:
    if isinstance(v, float):
        return _finite(v)
    if isinstance(v, Mapping):
        return {str(k): _json_safe(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_json_safe(x) for x in v]
    return v


ProgressFn = Callable[[int, int, float], None]
"""(trace events applied, trace events in all, virtual seconds) -> None."""


def run_timeline(trace: TraceInput, config: SchedulerConfig | None = None, *, seed: int = 0,
                 until: float | None = None, max_points: int = DEFAULT_MAX_POINTS,
                 progress: ProgressFn | None = None, max_pods: int | None = None,
                 label: str = "") -> Timeline:
    """Replay ``trace`` under ``config`` (None: kube-scheduler's defaults), as ``kubesched
    replay`` does with the same seed (``label``: this run's name among runs compared, as
    ``kubesched compare`` labels each configuration's). Raises TraceError/ValueError on a bad
    trace, before anything runs."""
    spec = RunSpec(paths=trace.paths, format=trace.format, options=ReaderOptions(seed=seed),
                   cluster=trace.cluster, label=config.source if config is not None and config.source
                   else "default", seed=seed, until=until, max_pods=max_pods)
    sink = SeriesSink(max_points)
    rep = prepare(spec, sink, config=config)
    events = rep.trace.events
    # A file-backed trace re-reads its file: counting it is a read without scheduling, cheap
    # next to the run, and gives the page a bar with an end.
    total = len(events) if isinstance(events, Sized) else sum(1 for _ in events)

    def tell(done: int, virtual: float) -> None:
        if progress is not None:
            progress(done, total, virtual)

    result = rep.run(tell)
    columns = list(result.columns) or list(BASE_COLUMNS)
    return Timeline(trace.name, columns, sink.series(), result.summary, label)
