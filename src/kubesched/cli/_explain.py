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
from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, parse_release
from ._inputs import (
    CONTEXT_OPTION,
    DEFAULT_MAX_PODS,
    FROM_CLUSTER_OPTION,
    KUBECONFIG_OPTION,
    MAX_PODS_HELP,
    PATHS_ARGUMENT,
    STRICT_HELP,
    cluster_source,
    load_inputs,
    reported_as_bad_input,
)
from ._main import app
from ._render import render_explanation

__all__ = ["ExplainOutput", "explain"]


class ExplainOutput(StrEnum):
    text = "text"
    json = "json"


@app.command("explain")
def explain(
    paths: list[str] | None = PATHS_ARGUMENT,
    pod: str = typer.Option(..., "--pod", help=(
        "The pending pod, as NAMESPACE/NAME (a pod a controller creates: its name as simulate "
        "prints it), or a workload as KIND/NAMESPACE/NAME, e.g. Deployment/default/web.")),
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for random choices (ties, preemption offset)."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kube_version: str | None = typer.Option(None, "--kube-version", help=KUBE_VERSION_HELP),
    output: ExplainOutput = typer.Option(ExplainOutput.text, "-o", "--output", help="Output format."),
    max_pods: int = typer.Option(DEFAULT_MAX_PODS, "--max-pods", min=1, help=MAX_PODS_HELP),
    kubeconfig: str | None = KUBECONFIG_OPTION,
    from_cluster: bool = FROM_CLUSTER_OPTION,
    context: str | None = CONTEXT_OPTION,
) -> None:
    """Explain, per node and per plugin, where a pending pod would go, or why nowhere."""
    with reported_as_bad_input():
        kind, namespace, name = split_pod_key(pod)
        release = parse_release(kube_version, feature_gates)
        features = release.features
        cluster = cluster_source(kubeconfig, from_cluster, context)
        inputs = load_inputs(paths, config, strict=strict, features=features, max_pods=max_pods,
                             kube_version=release.kube_version, cluster=cluster)
        e, simulated = explain_pod(inputs.loaded, kind, namespace, name, config=inputs.config, seed=seed,
                                   features=features)
    if output is ExplainOutput.json:
        sys.stdout.write(explanation_json(e, simulated))
    else:
        render_explanation(out_console(), e, note=simulated.note if simulated is not None else None)
