"""``kubesched explain PATH... --pod NAMESPACE/NAME [--config FILE] [-o text|json]``.

One scheduling cycle for a pending pod against the loaded state, changing nothing, reported
per node and per plugin (see :func:`kubesched.scheduler.explain`). Exit codes: 0 when it ran
(whether or not the pod fits), 2 on bad input or an unknown, bound or deleted pod.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path

import typer

from ..controllers import generate_claims
from ..scheduler import explain as explain_pod
from ._console import out_console
from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, parse_release
from ._inputs import STRICT_HELP, bad_input, load_inputs, reported_as_bad_input, start_time
from ._main import app
from ._render import render_explanation
from ._report import explanation_to_dict

__all__ = ["ExplainOutput", "explain"]


class ExplainOutput(StrEnum):
    text = "text"
    json = "json"


def _split_key(key: str) -> tuple[str, str]:
    ns, sep, name = key.partition("/")
    if not sep:
        return "default", key
    if not ns or not name or "/" in name:
        bad_input(ValueError(f"--pod {key!r}: want NAMESPACE/NAME"))
    return ns, name


@app.command("explain")
def explain(
    paths: list[str] = typer.Argument(..., help="Manifest files or directories; '-' reads stdin."),
    pod: str = typer.Option(..., "--pod", help="The pending pod, as NAMESPACE/NAME."),
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for random choices (ties, preemption offset)."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kube_version: str | None = typer.Option(None, "--kube-version", help=KUBE_VERSION_HELP),
    output: ExplainOutput = typer.Option(ExplainOutput.text, "-o", "--output", help="Output format."),
) -> None:
    """Explain, per node and per plugin, where a pending pod would go, or why nowhere."""
    namespace, name = _split_key(pod)
    with reported_as_bad_input():
        release = parse_release(kube_version, feature_gates)
        inputs = load_inputs(paths, config, strict=strict, features=release.features,
                             kube_version=release.kube_version)
        e = explain_pod(inputs.loaded.objects, namespace, name, config=inputs.config, seed=seed,
                        now=start_time(inputs.loaded.objects),
                        prepare=lambda store: generate_claims(store, store.clock, seed))
    if output is ExplainOutput.json:
        sys.stdout.write(json.dumps(explanation_to_dict(e), indent=2) + "\n")
    else:
        render_explanation(out_console(), e)
