"""``kubesched simulate [PATH...] [--kubeconfig PATH | --from-cluster | --context NAME]
[--config FILE] [--seed N] [--feature-gates ...] [--kube-version X.Y] [-o table|wide|json|yaml]``.

Admits the manifests into an embedded store, schedules on a virtual clock until nothing more
can happen (telling its progress on stderr while it runs long), and reports each pod's node
(or upstream's failure message), the preemptions and each node's allocation. Exit codes: 0
when it ran, 2 on bad input (``--max-pods`` exceeded included), 1 with
``--fail-on-unschedulable`` when a pod our profiles serve is left without a node.
"""

from __future__ import annotations

import json
import math
import sys
import time
from enum import StrEnum
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..simulator import Simulation, Simulator
from ._console import out_console
from ._input_flags import INPUTS, InputArgs, input_flags
from ._inputs import EXIT_UNSCHEDULABLE, PATHS_ARGUMENT, STRICT_HELP, reported_as_bad_input
from ._main import app
from ._progress import PlainProgress, virtual_time
from ._render import render_simulation
from ._report import simulation_report, state_pieces

__all__ = ["SimulateOutput", "simulate"]


class SimulateOutput(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


@app.command("simulate")
@input_flags()
def simulate(
    paths: list[str] | None = PATHS_ARGUMENT,
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice (ties, preemption offset)."),
    output: SimulateOutput = typer.Option(SimulateOutput.table, "-o", "--output", help="Output format."),
    fail_on_unschedulable: bool = typer.Option(
        False, "--fail-on-unschedulable", help="Exit 1 when a pod is left without a node (for CI)."),
    inputs_args: InputArgs = INPUTS,
) -> None:
    """Schedule the manifests' pending pods on a virtual clock and report the outcome."""
    with reported_as_bad_input():
        release, inputs = inputs_args.load(paths, config, strict=strict)
        simulator = Simulator(inputs.loaded, inputs.config, seed, release.features)
    sim = _run(simulator)
    if output is SimulateOutput.json:
        sys.stdout.write(json.dumps(simulation_report(sim), indent=2) + "\n")
    elif output is SimulateOutput.yaml:
        sys.stdout.writelines(state_pieces(sim))
    else:
        render_simulation(out_console(), sim, wide=output is SimulateOutput.wide)
    if fail_on_unschedulable and sim.unplaced():
        raise typer.Exit(EXIT_UNSCHEDULABLE)


def _run(simulator: Simulator) -> Simulation:
    """Run, with a progress bar on stderr when it is a terminal, else a line every few seconds
    of a long run (``_progress``)."""
    err = Console(stderr=True)
    if not err.is_terminal:
        state = [0, 0]

        def line() -> str:
            done, total = state
            return (f"simulate: {done:,} pods scheduled, {max(total - done, 0):,} pending, "
                    f"virtual time {virtual_time(simulator.clock.now - simulator.start)}")

        tick = PlainProgress(line)

        def plain(done: int, total: int) -> None:
            state[0], state[1] = done, total
            tick()

        return simulator.run(plain)
    with Progress(TextColumn("scheduling"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[vt]}"), console=err, transient=True) as bar:
        task = bar.add_task("scheduling", total=None, vt="")
        shown = [-math.inf]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()  # every pod change calls: the bar is updated at its refresh rate
            if now - shown[0] < 1 / bar.live.refresh_per_second:
                return
            shown[0] = now
            bar.update(task, completed=done, total=total,
                       vt=f"virtual time {virtual_time(simulator.clock.now - simulator.start)}")

        return simulator.run(progress)
