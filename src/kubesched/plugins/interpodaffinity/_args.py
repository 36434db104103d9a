"""InterPodAffinityArgs, with v1 defaults and validation.

Mirrors staging/src/k8s.io/kube-scheduler/config/v1 InterPodAffinityArgs (defaults.go:
hardPodAffinityWeight 1) and pkg/scheduler/apis/config/validation/validation_pluginargs.go
ValidateInterPodAffinityArgs (weight within [0, 100]).
"""

from __future__ import annotations

import dataclasses

from ...framework import ArgsError, PluginArgs

__all__ = ["MAX_HARD_POD_AFFINITY_WEIGHT", "MIN_HARD_POD_AFFINITY_WEIGHT", "InterPodAffinityArgs"]

MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100


@dataclasses.dataclass(frozen=True, kw_only=True)
class InterPodAffinityArgs(PluginArgs):
    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False

    def validate(self) -> None:
        w = self.hard_pod_affinity_weight
        if isinstance(w, bool) or not isinstance(w, int):
            raise ArgsError(f"hardPodAffinityWeight: Invalid value: {w!r}: must be an integer")
        if not MIN_HARD_POD_AFFINITY_WEIGHT <= w <= MAX_HARD_POD_AFFINITY_WEIGHT:
            raise ArgsError(f"hardPodAffinityWeight: Invalid value: {w}: not in valid range "
                            f"[{MIN_HARD_POD_AFFINITY_WEIGHT}, {MAX_HARD_POD_AFFINITY_WEIGHT}]")
        if not isinstance(self.ignore_preferred_terms_of_existing_pods, bool):
            raise ArgsError("ignorePreferredTermsOfExistingPods: Invalid value: must be a boolean")
