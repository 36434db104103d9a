"""The trace formats ``replay --format`` reads: a name -> reader table.

Mirrors the shape of upstream's plugin registry (pkg/scheduler/framework/plugins/registry.go):
a literal table of built-in readers, each taking the command line's paths and the generic
options. ``openb`` (the Alibaba GPU trace) lives in its own package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._arrival import Arrival, read_snapshot
from ._demand import ResourceDemand
from ._reader import read_trace
from ._trace import Trace
from .openb import read_openb

__all__ = ["FORMATS", "ReaderOptions", "read_format"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderOptions:
    """What the command line says about reading a trace (a reader ignores what it has no use
    for). ``demand``: a resource name for the arrived-demand notion (None: the reader's own,
    else requested cpu)."""

    seed: int = 0
    arrival: Arrival | None = None
    tune: float | None = None
    interval: float | None = None
    demand: str | None = None


Reader = Callable[[Sequence[str], ReaderOptions], Trace]


def _kubesched(paths: Sequence[str], opts: ReaderOptions) -> Trace:
    trace = read_trace(paths)
    if opts.demand:
        trace.demand = ResourceDemand(opts.demand)
    return trace


def _snapshot(paths: Sequence[str], opts: ReaderOptions) -> Trace:
    return read_snapshot(paths, arrival=opts.arrival or "input", seed=opts.seed, tune=opts.tune,
                         interval=opts.interval or 0.0,
                         demand=ResourceDemand(opts.demand) if opts.demand else None)


def _openb(paths: Sequence[str], opts: ReaderOptions) -> Trace:
    """``kubesched.replay.openb.read_openb(nodes_csv, pods_csv, ...)`` with the options it takes
    (seed, arrival, tune; an unset one keeps the reader's default); ``--demand`` replaces the
    reader's GPU demand for the arrived-demand axis."""
    if len(paths) != 2:
        raise ValueError(f"--format openb takes two files, NODES.csv and PODS.csv, got {len(paths)}")
    kwargs: dict[str, Any] = {"seed": opts.seed}
    if opts.arrival is not None:
        kwargs["arrival"] = opts.arrival
    if opts.tune is not None:
        kwargs["tune"] = opts.tune
    trace = read_openb(paths[0], paths[1], **kwargs)
    if opts.demand:
        trace.demand = ResourceDemand(opts.demand)
    return trace


FORMATS: Final[Mapping[str, Reader]] = {
    "kubesched": _kubesched,
    "snapshot": _snapshot,
    "openb": _openb,
}


def read_format(name: str, paths: Sequence[str], opts: ReaderOptions) -> Trace:
    """Read ``paths`` as format ``name``; ValueError for an unknown format or a bad trace."""
    reader = FORMATS.get(name)
    if reader is None:
        raise ValueError(f"unknown trace format {name!r} (known: {', '.join(FORMATS)})")
    return reader(paths, opts)
