"""What the API server's validation refuses on create, for the kinds the loader reads.

Mirrors, master 2026: ``ValidateObjectMeta`` (staging/src/k8s.io/apimachinery/pkg/api/validation/
objectmeta.go) with each kind's name function (pkg/apis/core/validation/validation.go:
``ValidatePodName``, ``ValidateNodeName``, ``ValidateNamespaceName``,
``ValidatePersistentVolumeName``, ``ValidatePersistentVolumeClaimName``,
``ValidateClassName``; pkg/apis/scheduling, policy and storage validation for PriorityClass,
PodDisruptionBudget, StorageClass and CSINode), the name formats of
k8s.io/apimachinery/pkg/util/validation (``IsDNS1123Label``, ``IsDNS1123Subdomain``, and
``IsDNS1035Label`` for a Service, ``ValidateServiceName``) and the
one PodSpec rule a scheduler input cannot do without (``spec.containers: Required value``).

Every error of an object is reported at once, as a ``field.ErrorList`` aggregate is, joined by
``; `` on one line. The parsers (``from_dict``) check types; this checks values a well-typed
manifest can still get wrong. It runs in the loader only: test builders and the store's own
edits make objects that never went through an API server's create.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from ._fields import FieldValueError, go_value
from ._objects import PodDisruptionBudget
from ._pod import Pod
from ._util_validation import is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, regex_error

__all__ = ["validate_object"]

_NAME_RULES: Final[dict[str, Callable[[str], list[str]]]] = {
    "Namespace": is_dns1123_label,  # ValidateNamespaceName
    "Service": is_dns1035_label,  # ValidateServiceName
}
"""Kinds whose names are not DNS-1123 subdomains; every other kind's name is one (Pod, Node,
PriorityClass, PodDisruptionBudget, PV, PVC, StorageClass, CSINode, and the workload
controllers: ReplicationController, ReplicaSet, StatefulSet)."""


def _invalid(path: str, value: Any, detail: str) -> str:
    return f"{path}: Invalid value: {go_value(value, limit=300)}: {detail}"


def _meta_errors(obj: Any, name_fn: Callable[[str], list[str]]) -> list[str]:
    """ValidateObjectMeta: the name by the kind's rule, the namespace (of a namespaced object,
    the loader has defaulted it) as a DNS-1123 label (ValidateNamespaceName)."""
    name, namespace = obj.meta.name, obj.meta.namespace
    errs = [_invalid("metadata.name", name, msg) for msg in name_fn(name)]
    if namespace:
        errs += [_invalid("metadata.namespace", namespace, msg) for msg in is_dns1123_label(namespace)]
    return errs


_PERCENT_RE: Final = re.compile(r"^[0-9]+%$")


def _int_or_percent_errors(path: str, v: int | str | None) -> list[str]:
    """ValidatePositiveIntOrPercent and IsNotMoreThan100Percent (pkg/apis/apps/validation): a
    non-negative integer, or a percentage string of at most 100%."""
    if v is None:
        return []
    if isinstance(v, str):
        if not _PERCENT_RE.match(v):
            msg = "a valid percent string must be a numeric string followed by an ending '%'"
            return [_invalid(path, v, regex_error(msg, "[0-9]+%", "1%", "93%"))]
        return [_invalid(path, v, "must not be greater than 100%")] if int(v[:-1]) > 100 else []
    return [_invalid(path, v, "must be greater than or equal to 0")] if v < 0 else []


def _pdb_spec_errors(pdb: PodDisruptionBudget) -> list[str]:
    """ValidatePodDisruptionBudgetSpec (pkg/apis/policy/validation/validation.go)."""
    return (_int_or_percent_errors("spec.minAvailable", pdb.min_available)
            + _int_or_percent_errors("spec.maxUnavailable", pdb.max_unavailable))


def validate_object(obj: Any) -> None:
    """Raise FieldValueError listing every field the API server would refuse in ``obj`` (a
    parsed object of one of the loader's kinds); nothing when it is valid."""
    errs = _meta_errors(obj, _NAME_RULES.get(type(obj).__name__, is_dns1123_subdomain))
    if isinstance(obj, Pod) and not obj.containers:
        errs.append("spec.containers: Required value")  # validateContainers (ValidatePodSpec)
    if isinstance(obj, PodDisruptionBudget):
        errs += _pdb_spec_errors(obj)
    if errs:
        raise FieldValueError("; ".join(errs))
