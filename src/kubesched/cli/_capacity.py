"""``kubesched capacity PATH... --pod FILE | --workload KIND/NS/NAME | --add-nodes NODE_TEMPLATE``.

The cluster of the manifests is first brought to rest as ``simulate`` would (controllers and
scheduler on the virtual clock); then either copies of a pod (or the next replicas of a
workload) are placed one at a time until one fails, or the fewest nodes of a template that let
every pending pod schedule are searched for (both in :mod:`kubesched.simulator.capacity`; this
module parses the options and renders the answer). Exit codes: 0 with an answer, 2 on bad input.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..api import Pod
from ..api.loader import load_paths
from ..simulator import Simulator
from ..simulator.capacity import (
    LIMIT_REACHED,
    AddNodesResult,
    CapacityResult,
    count_copies,
    format_reasons,
    load_node_template,
    nodes_to_add,
    pod_copies,
    resolve_workload,
    workload_copies,
)
from ._console import add_column, out_console, print_table
from ._input_flags import INPUTS, InputArgs, input_flags
from ._inputs import PATHS_ARGUMENT, STRICT_HELP, reported_as_bad_input
from ._main import app

__all__ = ["CapacityOutput", "capacity", "load_pod_template"]


class CapacityOutput(StrEnum):
    table = "table"
    json = "json"


def load_pod_template(path: str) -> Pod:
    """The one Pod the file holds; ValueError naming the file otherwise."""
    loaded = load_paths([path], strict=True)
    if len(loaded.objects) != 1 or len(loaded.pods) != 1:
        kinds = ", ".join(f"{k} {n}" for k, n in loaded.counts().items()) or "nothing"
        raise ValueError(f"{path}: --pod must hold exactly one Pod (found {kinds})")
    pod: Pod = loaded.pods[0]
    return pod


@app.command("capacity")
@input_flags()
def capacity(
    paths: list[str] | None = PATHS_ARGUMENT,
    pod: str | None = typer.Option(None, "--pod", metavar="FILE", help="A file with the pod to copy."),
    workload: str | None = typer.Option(None, "--workload", metavar="KIND/NAMESPACE/NAME",
                                        help="Count the next replicas of this workload instead."),
    add_nodes: str | None = typer.Option(None, "--add-nodes", metavar="NODE_TEMPLATE",
                                         help="A file with one Node: how many such nodes to add so that "
                                              "every pending pod schedules."),
    limit: int | None = typer.Option(None, "--max", min=1, help="Stop after this many copies."),
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice."),
    output: CapacityOutput = typer.Option(CapacityOutput.table, "-o", "--output", help="Output format."),
    inputs_args: InputArgs = INPUTS,
) -> None:
    """How many more copies of a pod (or replicas of a workload) fit, or how many nodes to add."""
    with reported_as_bad_input():
        chosen = [name for name, v in (("--pod", pod), ("--workload", workload), ("--add-nodes", add_nodes))
                  if v is not None]
        if len(chosen) != 1:
            raise ValueError("give exactly one of --pod FILE, --workload KIND/NAMESPACE/NAME, "
                             f"--add-nodes NODE_TEMPLATE (got {', '.join(chosen) or 'none'})")
        if limit is not None and add_nodes is not None:
            raise ValueError("--max counts copies; it does not go with --add-nodes")
        release, inputs = inputs_args.load(paths, config, strict=strict)
        if add_nodes is not None:
            # Every simulation of the search admits the same input: bad input fails the first.
            template = load_node_template(add_nodes)
            found = nodes_to_add(inputs.loaded, template, inputs.config, seed, on_step=_step_reporter())
        else:
            simulator = Simulator(inputs.loaded, inputs.config, seed, release.features)
            pod_template = load_pod_template(pod) if pod is not None else None
    if add_nodes is not None:
        _print_add_nodes(found, template.name, output)
        return
    simulator.settle()
    simulator.controllers.close()
    rng = random.Random(f"capacity/{seed}")
    with reported_as_bad_input():
        if pod_template is not None:
            copies = pod_copies(simulator.store, pod_template, rng)
        else:
            assert workload is not None
            copies = workload_copies(simulator.store, resolve_workload(simulator.store, workload), rng)
        first = next(copies)
        if first.scheduler_name not in simulator.sched.profiles:
            raise ValueError(f"pod {first.key}: no profile of the configuration serves schedulerName "
                             f"{first.scheduler_name!r}")
    result = count_copies(simulator.sched, itertools.chain([first], copies), limit)
    simulator.sched.close()
    _print_count(result, output)


def _step_reporter() -> Callable[[int, bool], None] | None:
    """Each simulation of the search, told on stderr as it ends, when stderr is a terminal
    (a search over a large input takes a while)."""
    err = Console(stderr=True)
    if not err.is_terminal:
        return None

    def report(n: int, ok: bool) -> None:
        err.print(f"simulated with {n} node{'' if n == 1 else 's'} added: {'enough' if ok else 'not enough'}",
                  highlight=False, style="dim")

    return report


def _print_count(result: CapacityResult, output: CapacityOutput) -> None:
    if output is CapacityOutput.json:
        body = {"fits": result.fits, "placements": result.placements, "reasons": result.reasons}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
        return
    console = out_console()
    console.print(f"{result.fits} cop{'y' if result.fits == 1 else 'ies'} fit.", highlight=False)
    if result.placements:
        table = Table(title="Placements", title_justify="left")
        add_column(table, "NODE")
        add_column(table, "COPIES", justify="right")
        for node, n in result.placements.items():
            table.add_row(node, str(n))
        print_table(console, table)
    if result.stop == LIMIT_REACHED:
        console.print(f"Stopped: {result.message}.", highlight=False)
    elif result.reasons:
        console.print(Text("The next copy fails: ", style="bold") + Text(format_reasons(result.reasons)),
                      highlight=False)
    else:
        console.print(Text("The next copy fails: ", style="bold") + Text(result.message), highlight=False)


def _print_add_nodes(found: AddNodesResult, template: str, output: CapacityOutput) -> None:
    if output is CapacityOutput.json:
        body = {"nodesToAdd": found.nodes_to_add, "reasons": found.reasons}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
        return
    console = out_console()
    n = found.nodes_to_add
    if n == 0:
        console.print("Every pending pod schedules without new nodes.", highlight=False)
    elif n is not None:
        names = ", ".join(f"{template}-{i}" for i in range(1, n + 1)) if n <= 3 \
            else f"{template}-1 ... {template}-{n}"
        console.print(f"Add {n} node{'s' if n != 1 else ''} like {template} ({names}) so that every "
                      "pending pod schedules.", highlight=False)
    else:
        why = format_reasons(found.reasons) if found.reasons else found.message
        console.print(Text(f"No number of nodes like {template} is enough: with {found.upper} added, "
                           f"{found.blocked_pod} still fails: ", style="bold") + Text(why), highlight=False)
    steps = ", ".join(f"{k} {'enough' if ok else 'not enough'}" for k, ok in found.tried)
    bounds = f" (bounds from resources: {found.lower} to {found.upper})" if found.upper else ""
    console.print(f"Simulated with nodes added: {steps}{bounds}.", highlight=False)
