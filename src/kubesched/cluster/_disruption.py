"""PodDisruptionBudget status, as the disruption controller keeps it (simulated).

Preemption reads ``status.disruptionsAllowed`` to count PDB violations
(pkg/scheduler/framework/preemption, filterPodsWithPDBViolation). In a real cluster the
disruption controller (pkg/controller/disruption/disruption.go) recomputes it whenever a
matching pod changes; in a simulation nothing else would, so after one preemption every later
one would still see the old budget. :func:`pdb_status` recomputes it the controller's way:

- the PDB's pods: those in its namespace its selector matches (policy/v1: an empty selector
  matches every pod, a missing one none);
- currentHealthy: those that are Ready and not terminating;
- expectedPods / desiredHealthy: ``minAvailable: N`` -> desired N, expected the matching pods;
  a percentage or ``maxUnavailable`` scales the *matching pod count* (upstream scales the owning
  controllers' replicas, which the store does not know), rounding up as
  intstr.GetScaledValueFromIntOrPercent(..., true) does;
- disruptionsAllowed = max(0, currentHealthy - desiredHealthy).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..api import Pod, PodDisruptionBudget

__all__ = ["pdb_status", "scaled_value"]


def scaled_value(v: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent with roundUp: ``"50%"`` of 3 -> 2; ints as is."""
    if isinstance(v, int):
        return v
    s = str(v)
    if s.endswith("%"):
        return math.ceil(int(s[:-1]) * total / 100)
    return int(s)


def pdb_status(pdb: PodDisruptionBudget, pods: Iterable[Pod]) -> dict[str, Any]:
    """The status fields the disruption controller would write for ``pdb`` given ``pods``."""
    sel = pdb.selector
    matching = [p for p in pods if p.namespace == pdb.namespace and sel is not None and sel.matches(p.labels)]
    healthy = sum(1 for p in matching if p.is_ready and not p.is_terminating)
    expected = desired = 0  # neither minAvailable nor maxUnavailable: nothing is protected
    if pdb.max_unavailable is not None:
        expected = len(matching)
        desired = max(0, expected - scaled_value(pdb.max_unavailable, expected))
    elif pdb.min_available is not None:
        expected = len(matching)
        desired = scaled_value(pdb.min_available, expected)
    status = dict(pdb.raw.get("status") or {})
    status.update(
        {
            "currentHealthy": healthy,
            "desiredHealthy": desired,
            "expectedPods": expected,
            "disruptionsAllowed": max(0, healthy - desired),
        }
    )
    return status
