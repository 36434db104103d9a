"""``kubesched validate PATH... [--config FILE]``: load and admit manifests, print a summary.

Everything is loaded into a fresh embedded store exactly as ``simulate`` would (loader, then
admission, all or nothing), so a manifest that validates is one the scheduler accepts. Bad
input prints the one error naming file, document and object, and exits with code 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ..api import Node, Pod
from ..api.loader import LoadedObjects
from ..clock import VirtualClock
from ..cluster import MemoryStore
from ._console import add_column, out_console, print_table
from ._inputs import STRICT_HELP, load_inputs, reported_as_bad_input, start_time
from ._main import app
from ._units import column_formatter

__all__ = ["ClusterSummary", "summarize", "validate"]


@dataclass
class ClusterSummary:
    """What ``validate`` reports: counts per kind, pods by state, resources per node total."""

    counts: dict[str, int]
    bound_pods: int = 0
    pending_pods: int = 0
    terminating_pods: int = 0
    finished_pods: int = 0  # Succeeded or Failed: they hold no resources
    allocatable: dict[str, int] = field(default_factory=dict)
    requested: dict[str, int] = field(default_factory=dict)  # by bound, non-finished pods
    pending_requested: dict[str, int] = field(default_factory=dict)


def summarize(loaded: LoadedObjects, pods: list[Pod], nodes: list[Node]) -> ClusterSummary:
    """Totals over the admitted objects (pods after priority admission)."""
    s = ClusterSummary(counts=loaded.counts())
    for n in nodes:
        for k, v in n.allocatable.items():
            s.allocatable[k] = s.allocatable.get(k, 0) + v
    for p in pods:
        if p.is_terminal:
            s.finished_pods += 1
            continue
        if p.is_terminating:
            s.terminating_pods += 1
        target = s.requested if p.node_name else s.pending_requested
        if p.node_name:
            s.bound_pods += 1
        else:
            s.pending_pods += 1
        for k, v in p.requests.items():
            target[k] = target.get(k, 0) + v
        target["pods"] = target.get("pods", 0) + 1
    return s


def _render(console: Console, s: ClusterSummary) -> None:
    kinds = Table(title="Objects", show_header=True)
    add_column(kinds, "kind")
    add_column(kinds, "count", justify="right")
    for k, n in s.counts.items():
        kinds.add_row(k, str(n))
    print_table(console, kinds)
    console.print(
        f"pods: {s.bound_pods} bound, {s.pending_pods} pending"
        + (f", {s.terminating_pods} terminating" if s.terminating_pods else "")
        + (f", {s.finished_pods} finished" if s.finished_pods else "")
    )
    res = Table(title="Resources", show_header=True)
    for col in ("resource", "allocatable", "requested (bound)", "requested (pending)"):
        add_column(res, col, justify="left" if col == "resource" else "right")
    names = sorted(set(s.allocatable) | set(s.requested) | set(s.pending_requested))
    for name in names:
        amounts = [d.get(name, 0) for d in (s.allocatable, s.requested, s.pending_requested)]
        fmt = column_formatter(name, amounts)  # a resource's amounts are a row here
        res.add_row(name, *(fmt(a) for a in amounts))
    print_table(console, res)


@app.command("validate")
def validate(
    paths: list[str] = typer.Argument(..., help="Manifest files or directories; '-' reads stdin."),
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file to check."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
) -> None:
    """Load and admit manifests as the scheduler would; print a summary or the error."""
    with reported_as_bad_input():
        inputs = load_inputs(paths, config, strict=strict)
        clock = VirtualClock(start_time(inputs.loaded.objects))
        store = MemoryStore(clock)
        store.load(inputs.loaded)
    pods: list[Any] = store.list("Pod")
    nodes: list[Any] = store.list("Node")
    _render(out_console(), summarize(inputs.loaded, pods, nodes))
