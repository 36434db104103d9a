"""PodDisruptionBudget status, computed as the disruption controller would.

Mirrors getExpectedPodCount, countHealthyPods and updatePdbStatus in
pkg/controller/disruption/disruption.go (master 2026):

- ``minAvailable`` integer: desiredHealthy = minAvailable, expectedPods = matched pods;
- ``minAvailable`` percentage: desiredHealthy = ceil(pct * expected / 100);
- ``maxUnavailable`` (integer or percentage, a percentage rounded up as well):
  desiredHealthy = max(0, expected - maxUnavailable);
- neither: nothing expected, nothing allowed;
- currentHealthy: matched pods that are Ready and not terminating (pods listed in
  ``status.disruptedPods`` are not counted); a finished pod (Succeeded or Failed) is never
  healthy, whatever its conditions say (the kubelet sets Ready=False when a pod finishes; a
  hand-written manifest may not);
- disruptionsAllowed = currentHealthy - desiredHealthy, 0 when negative or nothing is expected.

Approximation: for percentages and ``maxUnavailable`` upstream takes the expected count from the
scale of the pods' controllers (ReplicaSet, StatefulSet, ...); kubesched does not read their
scale, so the expected count is always the number of pods the selector matches in the PDB's namespace
(what upstream uses for an integer ``minAvailable``).

The MemoryStore calls :func:`pdb_status` whenever pods change: a PDB created without a status
gets one and has it recomputed; a PDB created with a status (as in a dump of a real cluster)
keeps the status it was given, since nothing in a simulation knows better.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..api import Pod, PodDisruptionBudget, format_time

__all__ = ["PdbStatus", "compute_pdb_status", "pdb_selects", "pdb_status"]

DISRUPTION_ALLOWED = "DisruptionAllowed"
SUFFICIENT_PODS = "SufficientPods"
INSUFFICIENT_PODS = "InsufficientPods"


@dataclass(frozen=True, slots=True)
class PdbStatus:
    """The numbers of policy/v1 PodDisruptionBudgetStatus."""

    disruptions_allowed: int
    current_healthy: int
    desired_healthy: int
    expected_pods: int


def _scaled(value: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent with roundUp: a percentage of ``total``, rounded
    up; an integer (or a string of digits) as it is."""
    if isinstance(value, str):
        if value.endswith("%"):
            return math.ceil(int(value[:-1]) * total / 100)
        return int(value)
    return int(value)


def pdb_selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """The controller's pod list for a PDB: same namespace, selector matches (a missing selector
    selects nothing, an empty one every pod)."""
    return pod.namespace == pdb.namespace and pdb.selector is not None and pdb.selector.matches(pod.labels)


def compute_pdb_status(pdb: PodDisruptionBudget, pods: Iterable[Pod]) -> PdbStatus:
    """The status of ``pdb`` given every pod of the cluster (only the selected ones count)."""
    selected = [p for p in pods if pdb_selects(pdb, p)]
    expected = len(selected)
    desired = 0
    if pdb.max_unavailable is not None:
        desired = max(0, expected - _scaled(pdb.max_unavailable, expected))
    elif pdb.min_available is not None:
        desired = _scaled(pdb.min_available, expected)
    else:
        expected = 0  # neither field: getExpectedPodCount leaves both counts at zero
    healthy = sum(1 for p in selected
                  if not p.is_terminating and not p.is_terminal and p.name not in pdb.disrupted_pods
                  and p.is_ready)
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    return PdbStatus(allowed, healthy, desired, expected)


def pdb_status(pdb: PodDisruptionBudget, pods: Iterable[Pod], now: float | None = None) -> dict[str, Any]:
    """The ``status`` manifest the disruption controller writes for ``pdb`` given the pods of
    its namespace: the counts, ``observedGeneration``, the ``DisruptionAllowed`` condition
    (SufficientPods / InsufficientPods) and any ``disruptedPods`` already recorded. The
    condition's ``lastTransitionTime`` is kept while its status does not change, else set to
    ``now`` (left out when ``now`` is None)."""
    st = compute_pdb_status(pdb, pods)
    old = dict(pdb.raw.get("status") or {})
    allowed = st.disruptions_allowed > 0
    cond: dict[str, Any] = {"type": DISRUPTION_ALLOWED, "status": "True" if allowed else "False",
                            "reason": SUFFICIENT_PODS if allowed else INSUFFICIENT_PODS, "message": ""}
    if pdb.meta.generation:
        cond["observedGeneration"] = pdb.meta.generation
    prev = next((c for c in old.get("conditions") or [] if c.get("type") == DISRUPTION_ALLOWED), None)
    if prev is not None and prev.get("status") == cond["status"] and prev.get("lastTransitionTime"):
        cond["lastTransitionTime"] = prev["lastTransitionTime"]
    elif now is not None:
        cond["lastTransitionTime"] = format_time(now)
    conditions = [dict(c) for c in old.get("conditions") or [] if c.get("type") != DISRUPTION_ALLOWED]
    conditions.append(cond)
    out: dict[str, Any] = {
        "disruptionsAllowed": st.disruptions_allowed,
        "currentHealthy": st.current_healthy,
        "desiredHealthy": st.desired_healthy,
        "expectedPods": st.expected_pods,
        "conditions": conditions,
    }
    if pdb.meta.generation:
        out["observedGeneration"] = pdb.meta.generation
    if old.get("disruptedPods"):
        out["disruptedPods"] = old["disruptedPods"]
    return out
