"""The input flags of ``simulate``, ``explain``, ``capacity`` and ``replay`` (and ``compare``,
``sweep``): one parameter group (:func:`input_flags`) and one preamble (:meth:`InputArgs.load`).

The group is the release (``--kube-version``, ``--feature-gates``), the input's size limit
(``--max-pods``) and the live cluster to read (``--kubeconfig``, ``--from-cluster``,
``--context``; the commands that read none leave them out). The preamble parses the release,
names the cluster and loads the inputs (:func:`~._inputs.load_inputs`), raising one of
``BAD_INPUT_ERRORS`` for the caller's ``reported_as_bad_input``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import typer

from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, Release, parse_release
from ._inputs import (
    CONTEXT_OPTION,
    DEFAULT_MAX_PODS,
    FROM_CLUSTER_OPTION,
    KUBECONFIG_OPTION,
    MAX_PODS_HELP,
    ClusterSource,
    Inputs,
    cluster_source,
    load_inputs,
)
from ._params import option_group

__all__ = ["INPUTS", "InputArgs", "input_flags"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class InputArgs:
    """The group's values as given on the command line."""

    kube_version: str | None
    feature_gates: str | None
    max_pods: int
    kubeconfig: str | None = None
    from_cluster: bool = False
    context: str | None = None

    def release(self) -> Release:
        """``--kube-version`` and ``--feature-gates``; ValueError when bad."""
        return parse_release(self.kube_version, self.feature_gates)

    def cluster(self) -> ClusterSource | None:
        """The live cluster the flags name, None when none does."""
        return cluster_source(self.kubeconfig, self.from_cluster, self.context)

    def load(self, paths: Sequence[str] | None, config: Path | None, *,
             strict: bool = False) -> tuple[Release, Inputs]:
        """The commands' preamble: the release, then the cluster's objects (if any) with the
        manifests of ``paths`` on top, at most ``--max-pods`` pods, and the configuration."""
        release = self.release()
        inputs = load_inputs(paths, config, strict=strict, features=release.features,
                             max_pods=self.max_pods, kube_version=release.kube_version,
                             cluster=self.cluster())
        return release, inputs


INPUTS: InputArgs = cast("InputArgs", object())
"""The default of a command's ``inputs_args`` parameter, which :func:`input_flags` replaces by the
group's options (the value the command gets is never this)."""


def input_flags(*, cluster: bool = True, max_pods_help: str = MAX_PODS_HELP) -> Callable[[F], F]:
    """Declare the group on a typer command in place of its ``inputs_args: InputArgs = INPUTS``
    parameter; ``cluster``: with the live-cluster options."""
    options: dict[str, tuple[Any, Any]] = {
        "feature_gates": (str | None, typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP)),
        "kube_version": (str | None, typer.Option(None, "--kube-version", help=KUBE_VERSION_HELP)),
        "max_pods": (int, typer.Option(DEFAULT_MAX_PODS, "--max-pods", min=1, help=max_pods_help)),
    }
    if cluster:
        options |= {
            "kubeconfig": (str | None, KUBECONFIG_OPTION),
            "from_cluster": (bool, FROM_CLUSTER_OPTION),
            "context": (str | None, CONTEXT_OPTION),
        }
    return option_group("inputs_args", InputArgs, options)
