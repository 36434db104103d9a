"""Priority admission: PriorityClass validation and resolving a pod's priority.

Mirrors plugin/pkg/admission/priority/admission.go (the Priority admission plugin),
pkg/apis/scheduling/validation/validation.go (ValidatePriorityClass) and
pkg/apis/scheduling/types.go (the reserved values), master 2026.

One deliberate difference: manifests describe objects *as a cluster stores them* (a
``kubectl get -o yaml`` dump), so a pod that already carries ``spec.priority`` and no
``priorityClassName`` is taken as already admitted and keeps its priority, where a fresh
create on a real API server would be compared to the default class. Loading a dump
(``stored=True``) goes one step further: a pod with ``spec.priority`` whose class is not in the
input (``kubectl get pods`` without ``priorityclasses``) keeps its priority too, and the store
warns about it (:class:`AdmissionWarning`) instead of refusing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from ._objects import PriorityClass
from ._pod import Pod
from ._raw import Path

__all__ = [
    "DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_CLUSTER_CRITICAL",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_NODE_CRITICAL",
    "AdmissionError",
    "AdmissionWarning",
    "admit_pod",
    "admit_pod_changes",
    "default_priority_class",
    "system_priority_classes",
    "validate_priority_class",
]

HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY: Final = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_CLUSTER_CRITICAL: Final = "system-cluster-critical"
SYSTEM_NODE_CRITICAL: Final = "system-node-critical"
SYSTEM_PRIORITY_CLASS_PREFIX: Final = "system-"
DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS: Final = 0

_SYSTEM_VALUES: Final = {
    SYSTEM_CLUSTER_CRITICAL: SYSTEM_CRITICAL_PRIORITY,
    SYSTEM_NODE_CRITICAL: SYSTEM_CRITICAL_PRIORITY + 1000,
}
_SYSTEM_DESCRIPTIONS: Final = {
    SYSTEM_CLUSTER_CRITICAL: "Used for system critical pods that must run in the cluster, "
    "but can be moved to another node if necessary.",
    SYSTEM_NODE_CRITICAL: "Used for system critical pods that must not be moved from their current node.",
}


class AdmissionError(ValueError):
    """An object the API server's admission or validation would refuse (HTTP 403/422)."""


class AdmissionWarning(UserWarning):
    """Admission accepted an object but has something to say about it, as the API server's
    ``Warning`` response header does (kubectl prints it as ``Warning: ...``)."""


def system_priority_classes() -> tuple[PriorityClass, ...]:
    """The two built-in classes every cluster has (scheduling.SystemPriorityClasses)."""
    return tuple(
        PriorityClass.from_dict(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "description": _SYSTEM_DESCRIPTIONS[name],
                "preemptionPolicy": "PreemptLowerPriority",
            }
        )
        for name, value in _SYSTEM_VALUES.items()
    )


def _known_system_class_error(pc: PriorityClass) -> str | None:
    """scheduling.IsKnownSystemPriorityClass: name, value and globalDefault must all match."""
    if pc.name not in _SYSTEM_VALUES:
        return f"{pc.name} is not a known system priority class"
    if pc.value != _SYSTEM_VALUES[pc.name]:
        return f"value of {pc.name} PriorityClass must be {_SYSTEM_VALUES[pc.name]}"
    if pc.global_default:
        return f"globalDefault of {pc.name} PriorityClass must be false"
    return None


def validate_priority_class(
    pc: PriorityClass, existing: Iterable[PriorityClass] = (), update: bool = False
) -> None:
    """ValidatePriorityClass plus the admission plugin's globalDefault check; raises AdmissionError.

    ``existing`` are the classes already stored (built-ins included). A ``system-`` name must be
    one of the built-ins with its exact value; a user class may not exceed 1e9; at most one class
    is ``globalDefault`` (an update of the current default itself is fine).
    """
    if pc.name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        err = _known_system_class_error(pc)
        if err is not None:
            raise AdmissionError(
                f"PriorityClass {pc.name}: priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' "
                f"prefix are reserved for system use only. error: {err}"
            )
    elif pc.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        raise AdmissionError(
            f"PriorityClass {pc.name}: value: maximum allowed value of a user defined priority is "
            f"{HIGHEST_USER_DEFINABLE_PRIORITY}"
        )
    if pc.global_default:
        dpc = default_priority_class(existing)
        if dpc is not None and (not update or dpc.name != pc.name):
            raise AdmissionError(
                f"PriorityClass {dpc.name} is already marked as default. Only one default can exist"
            )


def default_priority_class(classes: Iterable[PriorityClass]) -> PriorityClass | None:
    """getDefaultPriorityClass: the globalDefault class; if a race left several, the lowest value."""
    out: PriorityClass | None = None
    for pc in classes:
        if pc.global_default and (out is None or pc.value < out.value):
            out = pc
    return out


def admit_pod(pod: Pod, classes: Mapping[str, PriorityClass], *, stored: bool = False) -> Pod:
    """The Priority admission plugin's admitPod for a pod being created; raises AdmissionError.

    ``priorityClassName`` resolves to ``spec.priority`` and ``spec.preemptionPolicy``; no class
    takes the globalDefault class (its name, value and policy), else priority 0 and
    PreemptLowerPriority. A pod whose own priority or policy disagrees with the class is refused.
    A pod with ``spec.priority`` and no class is an already-admitted pod: kept as it is. With
    ``stored`` (a pod from a dump), so is a pod with ``spec.priority`` naming a class that is not
    in ``classes``: the dump left its class out, the pod was admitted when it was created.
    """
    changes = admit_pod_changes(pod, classes, stored=stored)
    return pod.with_changes(changes) if changes else pod


def admit_pod_changes(pod: Pod, classes: Mapping[str, PriorityClass], *,
                      stored: bool = False) -> dict[Path, object]:
    """:func:`admit_pod` as the edits it makes (empty when it keeps the pod as it is), for a
    store that applies them in one derived copy with its own."""
    if not pod.priority_class_name and pod.priority is not None:
        return {}
    if pod.priority_class_name:
        pc = classes.get(pod.priority_class_name)
        if pc is None and stored and pod.priority is not None:
            return {}
        if pc is None:
            raise AdmissionError(
                f"pod {pod.key}: no PriorityClass with name {pod.priority_class_name} was found"
            )
        class_name, priority, policy = pc.name, pc.value, pc.preemption_policy
    else:
        dpc = default_priority_class(classes.values())
        if dpc is None:
            class_name, priority, policy = (
                "",
                DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS,
                "PreemptLowerPriority",
            )
        else:
            class_name, priority, policy = dpc.name, dpc.value, dpc.preemption_policy
    if pod.priority is not None and pod.priority != priority:
        raise AdmissionError(
            f"pod {pod.key}: the integer value of priority ({pod.priority}) must not be provided in pod "
            f"spec; priority admission controller computed {priority} from the given PriorityClass name"
        )
    if pod.preemption_policy is not None and pod.preemption_policy != policy:
        raise AdmissionError(
            f"pod {pod.key}: the string value of PreemptionPolicy ({pod.preemption_policy}) must not be "
            f"provided in pod spec; priority admission controller computed {policy} from the given "
            "PriorityClass name"
        )
    changes: dict[Path, object] = {
        ("spec", "priority"): priority,
        ("spec", "preemptionPolicy"): policy,
    }
    if class_name:
        changes[("spec", "priorityClassName")] = class_name
    return changes
