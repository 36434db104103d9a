"""``--feature-gates`` (kube-scheduler's flag, ``Name=true,Other=false``) and ``--kube-version``.

Feature gates are parsed as component-base's ``featureGate.Set`` parses them (comma-separated
``key=value``, values as Go's ``strconv.ParseBool``), with its dependency check (GangScheduling
needs GenericWorkload). ``--kube-version`` names the release kubesched behaves as (1.32 to the
newest); the gates are checked against it (a gate the release does not have cannot be enabled).
A bad value is bad input (exit code 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..api import NEWEST_KUBE_VERSION, OLDEST_KUBE_VERSION, KubeVersion
from ..framework import feature_dependency_errors, feature_gates_for, read_quantities_as
from ._params import parse_bool

__all__ = ["FEATURE_GATES_HELP", "KUBE_VERSION_HELP", "Release", "parse_feature_gates", "parse_kube_version",
           "parse_release"]

KUBE_VERSION_HELP: Final = (f"Behave as this Kubernetes release's kube-scheduler ({OLDEST_KUBE_VERSION} to "
                            f"{NEWEST_KUBE_VERSION}, e.g. 1.35 or v1.35.4; default {NEWEST_KUBE_VERSION}): "
                            "its "
                            "score formulas, default plugins and feature-gate defaults.")

FEATURE_GATES_HELP: Final = ("Feature gates as kube-scheduler's --feature-gates, e.g. "
                             "GenericWorkload=true,GangScheduling=true (gang scheduling).")

def parse_feature_gates(text: str | None) -> dict[str, bool]:
    """``A=true,B=false`` -> {"A": True, "B": False}; raises ValueError on a malformed entry."""
    gates: dict[str, bool] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(f"--feature-gates: missing bool value for {key or item}")
        try:
            gates[key] = parse_bool(value)
        except ValueError as exc:
            raise ValueError(f"--feature-gates: invalid value of {key}={value}, err: {exc}") from None
    errs = feature_dependency_errors(gates)
    if errs:
        raise ValueError("--feature-gates: " + "; ".join(errs))
    return gates


def parse_kube_version(text: str | None) -> KubeVersion | None:
    """``--kube-version``: None when not given; ValueError for a malformed or unsupported release."""
    if text is None:
        return None
    try:
        version = KubeVersion.parse(text)
    except ValueError as exc:
        raise ValueError(f"--kube-version: {exc}") from None
    if not version.supported():
        raise ValueError(f"--kube-version {text}: kubesched behaves as Kubernetes {OLDEST_KUBE_VERSION} "
                         f"to {NEWEST_KUBE_VERSION}")
    return version


@dataclass(frozen=True, slots=True)
class Release:
    """What ``--kube-version`` and ``--feature-gates`` asked for: the release (None: the
    newest, or the API server's where a command asks it) and the gates set explicitly."""

    kube_version: KubeVersion | None = None
    features: dict[str, bool] = field(default_factory=dict)


def parse_release(kube_version: str | None, feature_gates: str | None) -> Release:
    """Both flags, the gates checked against the release; raises ValueError. From here on the
    process reads out-of-range quantities as that release does (``read_quantities_as``: before
    any input is read; a live command whose release comes from the API server sets it again)."""
    version = parse_kube_version(kube_version)
    features = parse_feature_gates(feature_gates)
    try:
        feature_gates_for(version or NEWEST_KUBE_VERSION, features)  # a gate the release lacks
    except ValueError as exc:
        raise ValueError(f"--feature-gates: {exc}") from None
    read_quantities_as(version or NEWEST_KUBE_VERSION)
    return Release(version, features)
