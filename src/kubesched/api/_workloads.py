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

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta
from ._selectors import LabelSelector

__all__ = ["ReplicaSet", "ReplicationController", "Service", "StatefulSet"]


def _meta(d: Mapping[str, Any]) -> ObjectMeta:
    meta = ObjectMeta.from_dict(f.mapping(d.get("metadata"), "metadata"))
    if not meta.name:
        raise ValueError("metadata.name: required")
    return meta


def _spec(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return f.mapping(d.get("spec"), "spec")


def _selector_map(value: Any, path: str) -> dict[str, str] | None:
    """A ``map[string]string`` selector: None when absent (a Service without a selector selects
    no pod, which an empty map would not say)."""
    return None if value is None else f.string_map(value, path)


def _template_labels(spec: Mapping[str, Any]) -> dict[str, str] | None:
    """``spec.template.metadata.labels`` (None without a template)."""
    template = spec.get("template")
    if template is None:
        return None
    md = f.mapping(f.mapping(template, "spec.template").get("metadata"), "spec.template.metadata")
    return f.string_map(md.get("labels"), "spec.template.metadata.labels")


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
        return Service(d, _meta(d), _selector_map(_spec(d).get("selector"), "spec.selector"))


@dataclass(frozen=True, slots=True, eq=False)
class ReplicationController(_Object):
    """v1 ReplicationController. Its selector is a plain label map; when absent or empty the API
    server defaults it to the template's labels (SetDefaults_ReplicationController), and a
    controller without either is invalid (``spec.selector: Required value``)."""

    selector: Mapping[str, str]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ReplicationController:
        spec = _spec(d)
        selector = _selector_map(spec.get("selector"), "spec.selector")
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
