"""The trace flags of ``replay``, ``compare``, ``sweep`` and ``ui``: one parameter group
(:func:`trace_flags`), declared and read once.

The group says how a trace is read and run: its reader (``--format``) and the cluster at time 0
(``--cluster``); for the commands that run it from the command line, how far (``--until``),
the reader's options (``--arrival``, ``--tune``, ``--interval``, ``--demand``), how often a
metrics row is written (``--sample-every``) and the FGD simulator's loop
(``--drop-unschedulable``). :meth:`TraceArgs.spec` turns the values into the library's
:class:`~kubesched.replay.RunSpec`, the one place the commands build it. ``ui`` offers its trace
beside its own inputs, so its flags carry a ``trace-`` prefix (``--trace PATH``,
``--trace-format``, ``--trace-cluster``) and it runs the trace from the page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar, cast

import typer

from ..replay import FORMATS, ReaderOptions, RunSpec
from ._params import option_group

__all__ = ["TRACE", "Arrival", "TraceArgs", "trace_flags"]

F = TypeVar("F", bound=Callable[..., Any])


class Arrival(StrEnum):
    input = "input"
    shuffled = "shuffled"


@dataclass(frozen=True, slots=True)
class TraceArgs:
    """The group's values as given on the command line."""

    format: str
    cluster: list[str] | None
    files: list[str] | None = None
    """``ui``'s ``--trace`` files (the other commands take them as arguments)."""
    until: float | None = None
    arrival: Arrival | None = None
    tune: float | None = None
    interval: float | None = None
    demand: str | None = None
    sample_every: float | None = None
    drop_unschedulable: bool = False

    def reader(self, seed: int) -> ReaderOptions:
        """The reader's options, with the run's ``seed`` (a shuffled arrival's)."""
        return ReaderOptions(seed=seed, arrival=self.arrival.value if self.arrival else None,
                             tune=self.tune, interval=self.interval, demand=self.demand)

    def spec(self, paths: Sequence[str], *, seed: int, config: str | None, label: str, out: str | None,
             release: dict[str, Any]) -> RunSpec:
        """One run of the trace in ``paths``: under ``config`` (labelled ``label``) with ``seed``,
        written to ``out``; ``release``: RunSpec's release and size fields."""
        return RunSpec(paths=tuple(paths), format=self.format, options=self.reader(seed),
                       cluster=tuple(self.cluster or ()), config=config, label=label, seed=seed,
                       until=self.until, sample_every=self.sample_every,
                       drop_unschedulable=self.drop_unschedulable, out=out, **release)


TRACE: TraceArgs = cast("TraceArgs", object())
"""The default of a command's ``trace_args`` parameter, which :func:`trace_flags` replaces by the
group's options (the value the command gets is never this)."""


def _run_options() -> dict[str, tuple[Any, Any]]:
    """The options of a run from the command line."""
    return {
        "until": (float | None, typer.Option(
            None, "--until", help="Stop at this many seconds of virtual time.")),
        "arrival": (Arrival | None, typer.Option(
            None, "--arrival", help="Arrival order of a snapshot's pending pods (format 3).")),
        "tune": (float | None, typer.Option(
            None, "--tune", help="Pods arrive until their demand is this multiple of the capacity.")),
        "interval": (float | None, typer.Option(
            None, "--interval", help="Seconds between arrivals (format 3; default 0).")),
        "demand": (str | None, typer.Option(
            None, "--demand", help="Resource counted as demand (default: the reader's, else cpu).")),
        "sample_every": (float | None, typer.Option(
            None, "--sample-every",
            help="A metrics row every N virtual seconds (default: a row at every change).")),
        "drop_unschedulable": (bool, typer.Option(
            False, "--drop-unschedulable",
            help="The FGD simulator's loop (openb, --arrival shuffled): one pod at a time, one that fits "
                 "nowhere dropped, never retried.")),
    }


def trace_flags(*, ui: bool = False) -> Callable[[F], F]:
    """Declare the group on a typer command in place of its ``trace_args: TraceArgs = TRACE``
    parameter. ``ui``: ``ui``'s flags (``--trace PATH``, ``--trace-format``, ``--trace-cluster``),
    without the run's options (the page sets them)."""
    if not ui:
        return option_group("trace_args", TraceArgs, {
            "format": (str, typer.Option("kubesched", "--format",
                                         help=f"Trace format: {', '.join(FORMATS)}.")),
            "cluster": (list[str] | None, typer.Option(
                None, "--cluster", help="The cluster at time 0 (any input simulate takes); repeatable.")),
            **_run_options(),
        })
    return option_group("trace_args", TraceArgs, {
        "files": (list[str] | None, typer.Option(
            None, "--trace", metavar="PATH",
            help="A trace the Over time page replays (as `kubesched replay PATH...`); repeatable.")),
        "format": (str, typer.Option("kubesched", "--trace-format",
                                     help=f"The --trace files' format: {', '.join(FORMATS)}.")),
        "cluster": (list[str] | None, typer.Option(
            None, "--trace-cluster", metavar="PATH",
            help="The trace's cluster at time 0 (as replay --cluster); repeatable.")),
    })
