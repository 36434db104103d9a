"""SelectVictimsOnNode's rule, stated once for its three implementations.

Mirrors SelectVictimsOnNode, isPreemptionAllowed and filterPodsWithPDBViolation
(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, master 2026):

1. every pod the preemptor may preempt (:func:`potential_victims`: strictly lower priority,
   :func:`lower_priority`, and the plugin's IsEligiblePod hook) is removed from the node;
   none: the node is no candidate (:func:`no_victims_result`);
2. if the preemptor still does not fit, the node is no candidate;
3. the removed pods are added back one at a time (:func:`reprieve`), most important first
   (MoreImportantPod; by default ``framework.preemption.importance_key``), the ones whose
   eviction would violate a PodDisruptionBudget before the others
   (:func:`filter_pods_with_pdb_violation`); a pod the preemptor does not fit with stays
   removed: a victim.

The generic path (``DefaultPreemption.select_victims_on_node``, the filter chain on a copy of
the node), the per-node resource model (:mod:`._resource_victims`) and the batch one
(:mod:`._batch_victims`, the same steps over arrays: ``lower_priority`` and
``importance_columns`` vectorized, no PDBs) differ only in how they answer "does the pod fit".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from kubesched.framework import Code, Status
from kubesched.framework.preemption import importance_key

if TYPE_CHECKING:
    from kubesched.api import Pod, PodDisruptionBudget
    from kubesched.cache import NodeInfo, PodInfo

__all__ = ["NO_VICTIMS_REASON", "IsEligiblePodFn", "MoreImportantPodFn", "VictimsResult",
           "filter_pods_with_pdb_violation", "importance_sorter", "lower_priority", "no_victims_result",
           "potential_victims", "reprieve"]

NO_VICTIMS_REASON = "No preemption victims found for incoming pod"
_NO_VICTIMS = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS_REASON)

I64 = npt.NDArray[np.int64]

VictimsResult = tuple[list["Pod"], int, Status]
"""(victims, number of PDB violations, status): SelectVictimsOnNode's result."""

IsEligiblePodFn = Callable[["NodeInfo", "PodInfo", "Pod"], bool]
"""(node info, victim, preemptor) -> may the victim be preempted (besides lower priority)."""
MoreImportantPodFn = Callable[["Pod", "Pod"], bool]
"""(pod1, pod2) -> pod1 is more important (considered for preemption after pod2)."""

def no_victims_result() -> VictimsResult:
    """SelectVictimsOnNode's answer for a node without lower-priority (eligible) pods."""
    return [], 0, _NO_VICTIMS


@overload
def lower_priority(victim_priority: int, preemptor_priority: int) -> bool: ...
@overload
def lower_priority(victim_priority: I64, preemptor_priority: int) -> npt.NDArray[np.bool_]: ...
def lower_priority(victim_priority: int | I64,
                   preemptor_priority: int) -> bool | npt.NDArray[np.bool_]:
    """isPreemptionAllowed's priority half: only strictly lower priorities may be preempted
    (a scalar or, elementwise, an array of victim priorities)."""
    return victim_priority < preemptor_priority


def potential_victims(node_info: NodeInfo, preemptor: Pod, is_eligible: IsEligiblePodFn | None,
                      ) -> tuple[list[PodInfo], list[PodInfo]]:
    """The node's pods the preemptor may preempt and the others, in node order:
    isPreemptionAllowed (``is_eligible`` None: the default hook, every pod is eligible)."""
    prio = preemptor.priority_value
    potential: list[PodInfo] = []
    remaining: list[PodInfo] = []
    for pi in node_info.pods:
        if lower_priority(pi.pod.priority_value, prio) and (
                is_eligible is None or is_eligible(node_info, pi, preemptor)):
            potential.append(pi)
        else:
            remaining.append(pi)
    return potential, remaining


def filter_pods_with_pdb_violation(pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
                                   ) -> tuple[list[PodInfo], list[PodInfo]]:
    """filterPodsWithPDBViolation -> (violating, non-violating), order kept.

    Each matching PDB's ``status.disruptionsAllowed`` is decremented per pod (pods already in its
    ``disruptedPods`` do not count); a pod is violating once any of its PDBs goes below zero. A
    PDB with a missing or empty selector matches nothing here; a pod without labels matches none."""
    allowed = [pdb.disruptions_allowed or 0 for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pi in pod_infos:
        pod = pi.pod
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                sel = pdb.selector
                if sel is None or sel.is_empty or not sel.matches(pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue  # already processed by the API server: not a violation
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating


def importance_sorter(more_important: MoreImportantPodFn, default: bool,
                      now: float) -> Callable[[list[PodInfo]], None]:
    """Sorts pod infos most important first, in place and stably, by the plugin's
    MoreImportantPod hook. ``default``: the hook is the default MoreImportantPod, whose order is
    ``importance_key``'s: a key sort gives the same order as the comparison sort, much cheaper."""
    if default:
        def by_key(pis: list[PodInfo]) -> None:
            pis.sort(key=lambda pi: importance_key(pi.pod, now))
        return by_key
    key = _cmp_key(more_important)

    def by_cmp(pis: list[PodInfo]) -> None:
        pis.sort(key=key)
    return by_cmp


def _cmp_key(more_important: MoreImportantPodFn) -> Callable[[PodInfo], Any]:
    """A sort key over PodInfos putting the most important pods first (stable for equal ones)."""
    import functools

    def cmp(a: PodInfo, b: PodInfo) -> int:
        if more_important(a.pod, b.pod):
            return -1
        if more_important(b.pod, a.pod):
            return 1
        return 0

    return functools.cmp_to_key(cmp)


def reprieve(potential: list[PodInfo], pdbs: Sequence[PodDisruptionBudget],
             sort: Callable[[list[PodInfo]], None],
             keep: Callable[[PodInfo], bool]) -> tuple[list[PodInfo], int]:
    """Step 3 of the module docstring on the removed pods ``potential`` (sorted in place):
    ``keep(pi)`` adds the pod back and answers whether the preemptor still fits, taking it off
    again when not. Returns the victims (most important first) and how many of them violate a
    PDB. Errors ``keep`` raises propagate."""
    sort(potential)
    violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs) if pdbs else ([], potential)
    victims: list[PodInfo] = []
    num_violating = 0
    for group, counts in ((violating, True), (non_violating, False)):
        for pi in group:
            if not keep(pi):
                victims.append(pi)
                if counts:
                    num_violating += 1
    if violating and non_violating:
        sort(victims)
    return victims, num_violating
