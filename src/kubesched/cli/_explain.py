"""``kubesched explain [PATH...] [--kubeconfig PATH | --from-cluster | --context NAME]
--pod NAMESPACE/NAME|KIND/NAMESPACE/NAME [--config FILE] [-o text|json]``.

One scheduling cycle for a pending pod, changing nothing, reported per node and per plugin (see
:func:`kubesched.scheduler.explain`). A pod of the input is explained against the loaded state;
a pod a controller creates, and a workload, inside the simulation ``simulate`` runs, at the pod's
first scheduling attempt (see :mod:`kubesched.simulator`), with a note saying so. Exit codes: 0
when it ran (whether or not the pod fits), 2 on bad input or an unknown, bound or deleted pod.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path

import typer

from ..api import Pod
from ..cluster import MemoryStore
from ..controllers import WORKLOAD_KINDS, claims_waiting_for_binding, generate_claims, workload_kind
from ..scheduler import Explanation, SchedulerOptions, WaitingClaim
from ..scheduler import explain as explain_pod
from ..simulator import SimulatedExplanation, explain_simulated_pod, explain_workload
from ._console import out_console
from ._input_flags import INPUTS, InputArgs, input_flags
from ._inputs import PATHS_ARGUMENT, STRICT_HELP, Inputs, bad_input, reported_as_bad_input, start_time
from ._main import app
from ._render import render_explanation
from ._report import explanation_to_dict

__all__ = ["ExplainOutput", "explain"]


class ExplainOutput(StrEnum):
    text = "text"
    json = "json"


def _split_key(key: str) -> tuple[str | None, str, str]:
    """``--pod``: ``NAMESPACE/NAME`` (``NAME``: namespace default) -> (None, ns, name);
    ``KIND/NAMESPACE/NAME`` -> (the workload kind, ns, name), the kind as kubectl accepts it."""
    parts = key.split("/")
    if len(parts) == 1:
        parts = ["default", key]
    if len(parts) == 3 and all(parts):
        kind = workload_kind(parts[0])
        if kind is None:
            bad_input(ValueError(f"--pod {key!r}: unknown workload kind {parts[0]!r} "
                                 f"(one of {', '.join(WORKLOAD_KINDS)})"))
        return kind, parts[1], parts[2]
    if len(parts) != 2 or not all(parts):
        bad_input(ValueError(f"--pod {key!r}: want NAMESPACE/NAME or KIND/NAMESPACE/NAME"))
    return None, parts[0], parts[1]


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
    kind, namespace, name = _split_key(pod)
    simulated: SimulatedExplanation | None = None
    with reported_as_bad_input():
        release, inputs = inputs_args.load(paths, config, strict=strict)
        features = release.features
        if kind is not None:
            simulated = explain_workload(inputs.loaded, kind, namespace, name, config=inputs.config,
                                         seed=seed, features=features)
        elif not _is_loaded_pod(inputs, namespace, name):
            simulated = explain_simulated_pod(inputs.loaded, namespace, name, config=inputs.config,
                                              seed=seed, features=features)
        e = simulated.explanation if simulated is not None else _explain_loaded(
            inputs, namespace, name, seed, features)
    if output is ExplainOutput.json:
        sys.stdout.write(json.dumps(explanation_to_dict(e, simulated), indent=2) + "\n")
    else:
        render_explanation(out_console(), e, note=simulated.note if simulated is not None else None)


def _is_loaded_pod(inputs: Inputs, namespace: str, name: str) -> bool:
    return any(isinstance(o, Pod) and o.namespace == namespace and o.name == name
               for o in inputs.loaded.objects)


def _explain_loaded(inputs: Inputs, namespace: str, name: str, seed: int,
                    features: dict[str, bool]) -> Explanation:
    """A pod of the input, against the loaded state. No controller runs: the pod's
    ResourceClaims are generated from their templates first, as the resourceclaim controller
    would, and what the PersistentVolume controller would do with its unbound claims is only
    reported (that controller runs in simulations, not here)."""
    waiting: list[WaitingClaim] = []

    def prepare(store: MemoryStore) -> None:
        generate_claims(store, store.clock, seed)
        found = store.try_get("Pod", namespace, name)
        if isinstance(found, Pod):
            waiting.extend(WaitingClaim(c, m) for c, m in claims_waiting_for_binding(store, found))

    e = explain_pod(inputs.loaded.objects, namespace, name, config=inputs.config, seed=seed,
                    now=start_time(inputs.loaded.objects),
                    options=SchedulerOptions(features=features), prepare=prepare)
    e.waiting_claims = waiting
    return e
