"""The objects whose selectors define a pod's default topology spreading: Service (v1),
ReplicationController (v1), ReplicaSet (apps/v1) and StatefulSet (apps/v1).

The scheduler reads nothing of them but their selector: upstream's PodTopologySpread merges the
selectors of the Services selecting a pod and of its controlling owner into the selector of the
default constraints (``helper.DefaultSelector``, pkg/scheduler/framework/plugins/helper/spread.go).
Each kind keeps its manifest in ``raw`` (so it round-trips unchanged) and parses its metadata and
its selector, validated as the API server validates that field (pkg/apis/core/validation and
pkg/apis/apps/validation, ``ValidateReplicationControllerSpec`` / ``ValidateReplicaSetSpec`` /
``ValidateStatefulSetSpec``). Nothing else is read: controllers are not simulated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._meta import ManifestObject, ObjectMeta
from ._selectors import LabelSelector

__all__ = ["ReplicaSet", "ReplicationController", "Service", "StatefulSet"]


def _meta(d: Mapping[str, Any]) -> ObjectMeta:
    md = d.get("metadata") or {}
    if not isinstance(md, Mapping):
        raise ValueError("metadata: must be a mapping")
    meta = ObjectMeta.from_dict(md)
    if not meta.name:
        raise ValueError("metadata.name: required")
    return meta


def _spec(d: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = d.get("spec")
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise ValueError(f"spec: must be a mapping, got {type(spec).__name__}")
    return spec


def _string_map(value: Any, path: str) -> dict[str, str] | None:
    """A ``map[string]string`` field: None when absent; the API server's decoding refuses a
    value that is not a string (``version: 1`` unquoted, a list, ...)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: must be a mapping of strings, got {type(value).__name__}")
    out: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise ValueError(f"{path}: {k!r}: {v!r}: keys and values must be strings")
        out[k] = v
    return out


def _template_labels(spec: Mapping[str, Any]) -> dict[str, str] | None:
    """``spec.template.metadata.labels`` (None without a template)."""
    template = spec.get("template")
    if template is None:
        return None
    if not isinstance(template, Mapping):
        raise ValueError("spec.template: must be a mapping")
    md = template.get("metadata") or {}
    if not isinstance(md, Mapping):
        raise ValueError("spec.template.metadata: must be a mapping")
    return _string_map(md.get("labels"), "spec.template.metadata.labels") or {}


@dataclass(frozen=True, slots=True, eq=False)
class _Object(ManifestObject):
    raw: Mapping[str, Any]
    meta: ObjectMeta


@dataclass(frozen=True, slots=True, eq=False)
class Service(_Object):
    """v1 Service. ``selector`` None (absent) selects no pod, as GetPodServices skips it (an
    empty map selects every pod of the namespace)."""

    selector: Mapping[str, str] | None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Service:
        return Service(d, _meta(d), _string_map(_spec(d).get("selector"), "spec.selector"))


@dataclass(frozen=True, slots=True, eq=False)
class ReplicationController(_Object):
    """v1 ReplicationController. Its selector is a plain label map; when absent or empty the API
    server defaults it to the template's labels (SetDefaults_ReplicationController), and a
    controller without either is invalid (``spec.selector: Required value``)."""

    selector: Mapping[str, str]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ReplicationController:
        spec = _spec(d)
        selector = _string_map(spec.get("selector"), "spec.selector")
        labels = _template_labels(spec)
        if not selector:
            selector = dict(labels or {})
        if not selector:
            raise ValueError("spec.selector: Required value")
        if labels is not None and any(labels.get(k) != v for k, v in selector.items()):
            raise ValueError("spec.template.metadata.labels: Invalid value: "
                             "`selector` does not match template `labels`")
        return ReplicationController(d, _meta(d), selector)


def _apps_selector(spec: Mapping[str, Any], noun: str) -> LabelSelector:
    """ValidateReplicaSetSpec / ValidateStatefulSetSpec on ``spec.selector``: required, a valid
    label selector, not empty (upstream's message says ``deployment`` for a ReplicaSet too), and
    matching the template's labels when a template is given."""
    raw = spec.get("selector")
    if raw is None:
        raise ValueError("spec.selector: Required value")
    try:
        selector = LabelSelector.from_dict(raw)
    except ValueError as exc:
        raise ValueError(f"spec.selector: {exc}") from exc
    assert selector is not None
    if selector.is_empty:
        raise ValueError(f"spec.selector: Invalid value: empty selector is invalid for {noun}")
    labels = _template_labels(spec)
    if labels is not None and not selector.matches(labels):
        raise ValueError("spec.template.metadata.labels: Invalid value: "
                         "`selector` does not match template `labels`")
    return selector


@dataclass(frozen=True, slots=True, eq=False)
class ReplicaSet(_Object):
    """apps/v1 ReplicaSet: its label selector."""

    selector: LabelSelector

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ReplicaSet:
        return ReplicaSet(d, _meta(d), _apps_selector(_spec(d), "deployment"))


@dataclass(frozen=True, slots=True, eq=False)
class StatefulSet(_Object):
    """apps/v1 StatefulSet: its label selector."""

    selector: LabelSelector

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> StatefulSet:
        return StatefulSet(d, _meta(d), _apps_selector(_spec(d), "statefulset"))
