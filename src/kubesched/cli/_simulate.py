"""``kubesched simulate [PATH...] [--kubeconfig PATH | --from-cluster | --context NAME]
[--config FILE] [--seed N] [--feature-gates ...] [-o table|wide|json|yaml]``.

Admits the manifests into an embedded store, schedules on a virtual clock until nothing more
can happen, and reports each pod's node (or upstream's failure message), the preemptions and
each node's allocation. Exit codes: 0 when it ran, 2 on bad input, 1 with
``--fail-on-unschedulable`` when a pod our profiles serve is left without a node.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..simulator import Simulation, Simulator
from ._console import out_console
from ._features import FEATURE_GATES_HELP, parse_feature_gates
from ._inputs import (
    CONTEXT_OPTION,
    EXIT_UNSCHEDULABLE,
    FROM_CLUSTER_OPTION,
    KUBECONFIG_OPTION,
    PATHS_ARGUMENT,
    STRICT_HELP,
    cluster_source,
    load_inputs,
    reported_as_bad_input,
)
from ._main import app
from ._render import render_simulation
from ._report import dump_yaml, simulation_report, state_manifests

__all__ = ["SimulateOutput", "simulate"]


class SimulateOutput(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


@app.command("simulate")
def simulate(
    paths: list[str] | None = PATHS_ARGUMENT,
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice (ties, preemption offset)."),
    output: SimulateOutput = typer.Option(SimulateOutput.table, "-o", "--output", help="Output format."),
    fail_on_unschedulable: bool = typer.Option(
        False, "--fail-on-unschedulable", help="Exit 1 when a pod is left without a node (for CI)."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kubeconfig: str | None = KUBECONFIG_OPTION,
    from_cluster: bool = FROM_CLUSTER_OPTION,
    context: str | None = CONTEXT_OPTION,
) -> None:
    """Schedule the manifests' pending pods on a virtual clock and report the outcome."""
    with reported_as_bad_input():
        features = parse_feature_gates(feature_gates)
        cluster = cluster_source(kubeconfig, from_cluster, context)
        inputs = load_inputs(paths, config, strict=strict, features=features, cluster=cluster)
        simulator = Simulator(inputs.loaded, inputs.config, seed, features)
    sim = _run(simulator)
    if output is SimulateOutput.json:
        sys.stdout.write(json.dumps(simulation_report(sim), indent=2) + "\n")
    elif output is SimulateOutput.yaml:
        sys.stdout.write(dump_yaml(state_manifests(sim)))
    else:
        render_simulation(out_console(), sim, wide=output is SimulateOutput.wide)
    if fail_on_unschedulable and sim.unplaced():
        raise typer.Exit(EXIT_UNSCHEDULABLE)


def _run(simulator: Simulator) -> Simulation:
    """Run, with a progress bar on stderr when it is a terminal."""
    err = Console(stderr=True)
    if not err.is_terminal:
        return simulator.run()
    with Progress(TextColumn("scheduling"), BarColumn(), MofNCompleteColumn(), console=err,
                  transient=True) as bar:
        task = bar.add_task("scheduling", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return simulator.run(progress)
