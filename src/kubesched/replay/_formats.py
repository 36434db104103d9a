"""The trace formats ``replay --format`` reads: a name -> reader table.

Mirrors the shape of upstream's plugin registry (pkg/scheduler/framework/plugins/registry.go):
a literal table of built-in readers, each taking the command line's paths and the generic
options. ``openb`` (the Alibaba GPU trace) lives in its own package, imported on first use.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._arrival import Arrival, read_snapshot
from ._demand import ResourceDemand
from ._reader import read_trace
from ._trace import Trace

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
    """``kubesched.replay.openb.read_openb(nodes_csv, pods_csv, ...)``, handed the options its
    signature names (seed, arrival, tune, interval)."""
    try:
        read_openb = importlib.import_module(f"{__package__}.openb").read_openb
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--format openb: the openb reader is not available ({exc})") from None
    if len(paths) != 2:
        raise ValueError(f"--format openb takes two files, NODES.csv and PODS.csv, got {len(paths)}")
    params = inspect.signature(read_openb).parameters
    given: Mapping[str, Any] = {"seed": opts.seed, "arrival": opts.arrival, "tune": opts.tune,
                                "interval": opts.interval}
    kwargs = {k: v for k, v in given.items() if v is not None and k in params}
    trace: Trace = read_openb(paths[0], paths[1], **kwargs)
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
