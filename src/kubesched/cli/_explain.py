"""``kubesched explain [PATH...] [--kubeconfig PATH | --from-cluster | --context NAME]
--pod NAMESPACE/NAME|KIND/NAMESPACE/NAME [--config FILE] [-o text|json]``.

One scheduling cycle for a pending pod, changing nothing, reported per node and per plugin (see
:func:`kubesched.scheduler.explain`). A pod of the input is explained against the loaded state;
a pod a controller creates, and a workload, inside the simulation ``simulate`` runs, at the pod's
first scheduling attempt (see :mod:`kubesched.simulator`), with a note saying so. Exit codes: 0
when it ran (whether or not the pod fits), 2 on bad input or an unknown, bound or deleted pod.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from ..simulator import explain_pod, explanation_json, split_pod_key
from ._console import out_console
from ._input_flags import INPUTS, InputArgs, input_flags
from ._inputs import PATHS_ARGUMENT, STRICT_HELP, reported_as_bad_input
from ._main import app
from ._render import render_explanation

__all__ = ["ExplainOutput", "explain"]


class ExplainOutput(StrEnum):
    text = "text"
    json = "json"


@app.command("explain")
@input_flags()
def explain(
    paths: list[str] | None = PATHS_ARGUMENT,
    pod: str = typer.Option(..., "--pod", help=(
        "The pending pod, as NAMESPACE/NAME (a pod a controller creates: its name as simulate "
        "prints it), or a workload as KIND/NAMESPACE/NAME, e.g. Deployment/default/web.")),
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for random choices (ties, preemption offset)."),
    output: ExplainOutput = typer.Option(ExplainOutput.text, "-o", "--output", help="Output format."),
    inputs_args: InputArgs = INPUTS,
) -> None:
    """Explain, per node and per plugin, where a pending pod would go, or why nowhere."""
    with reported_as_bad_input():
        kind, namespace, name = split_pod_key(pod)
        release, inputs = inputs_args.load(paths, config, strict=strict)
        e, simulated = explain_pod(inputs.loaded, kind, namespace, name, config=inputs.config, seed=seed,
                                   features=release.features)
    if output is ExplainOutput.json:
        sys.stdout.write(explanation_json(e, simulated))
    else:
        render_explanation(out_console(), e, note=simulated.note if simulated is not None else None)
