"""DefaultPreemptionArgs, with v1 defaults and validation.

Mirrors staging/src/k8s.io/kube-scheduler/config/v1 DefaultPreemptionArgs (defaults.go:
minCandidateNodesPercentage 10, minCandidateNodesAbsolute 100) and
ValidateDefaultPreemptionArgs in pkg/scheduler/apis/config/validation/validation_pluginargs.go
(master 2026): the percentage within [0, 100], the absolute number >= 0, not both zero.
"""

from __future__ import annotations

import dataclasses

from ...framework import ArgsError, PluginArgs

__all__ = ["DefaultPreemptionArgs"]


def _check_int(path: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ArgsError(f"{path}: Invalid value: {v!r}: must be an integer")
    return v


@dataclasses.dataclass(frozen=True, kw_only=True)
class DefaultPreemptionArgs(PluginArgs):
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100

    def validate(self) -> None:
        pct = _check_int("minCandidateNodesPercentage", self.min_candidate_nodes_percentage)
        absolute = _check_int("minCandidateNodesAbsolute", self.min_candidate_nodes_absolute)
        errs: list[str] = []
        if not 0 <= pct <= 100:
            errs.append(f"minCandidateNodesPercentage: Invalid value: {pct}: not in valid range [0, 100]")
        if absolute < 0:
            errs.append(f"minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)")
        if pct == 0 and absolute == 0:
            errs.append("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time "
                        "as minCandidateNodesAbsolute")
            errs.append("minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time "
                        "as minCandidateNodesPercentage")
        if len(errs) == 1:
            raise ArgsError(errs[0])
        if errs:  # utilerrors.NewAggregate
            raise ArgsError("[" + ", ".join(errs) + "]")
