"""The Workload API of ``scheduling.k8s.io`` (v1alpha3 and v1beta1): Workload and PodGroup, and
a pod's ``spec.schedulingGroup``.

Mirrors staging/src/k8s.io/api/scheduling/v1alpha3/types.go (master 2026, KEP-4671 "gang
scheduling" and its successor, the Workload API with runtime PodGroup objects): a Workload
holds up to 8 ``podGroupTemplates``, each with a ``schedulingPolicy`` that is exactly one of
``basic`` (pod-by-pod scheduling) or ``gang`` (all-or-nothing, ``minCount`` >= 1); a PodGroup is
the runtime instance a controller creates from a template (``spec.workloadRef``), carrying its
own copy of the policy. A pod joins a group by naming it in ``spec.schedulingGroup.podGroupName``
(which replaced 1.35's ``spec.workloadRef`` in 1.36); the group object may appear after the pod.

Validated as the declarative validation of those types does on create (names as DNS labels or
subdomains, the unions, the list-map keys, ``minCount`` minimum, at most 8 templates).
CompositePodGroups (feature CompositePodGroup, alpha, off by default) are not read:
``compositePodGroupTemplates`` and ``parentCompositePodGroupName`` are refused as the API server
refuses them with the gate off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta
from ._util_validation import FieldErrors, is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "SCHEDULING_API_VERSIONS",
    "GangPolicy",
    "PodGroup",
    "Workload",
    "WorkloadPodGroupTemplate",
    "pod_group_name_of",
]

SCHEDULING_API_VERSIONS: Final = ("scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1")
"""The versions serving Workload and PodGroup (v1alpha3 first: what the Job controller writes)."""

WORKLOAD_MAX_POD_GROUP_TEMPLATES: Final = 8


@dataclass(frozen=True, slots=True)
class GangPolicy:
    """GangSchedulingPolicy: at least ``min_count`` pods must be placeable together."""

    min_count: int


def _meta(d: Mapping[str, Any]) -> ObjectMeta:
    meta = ObjectMeta.from_dict(f.mapping(d.get("metadata"), "metadata"))
    if not meta.name:
        raise ValueError("metadata.name: required")
    return meta


def _policy(v: Any, path: str, errs: FieldErrors) -> GangPolicy | None:
    """PodGroupSchedulingPolicy, a union of ``basic`` and ``gang``: exactly one must be set.
    Returns the gang policy (None for basic)."""
    m = f.mapping(v, path)
    basic = m.get("basic")
    gang = m.get("gang")
    if basic is not None:
        f.mapping(basic, f"{path}.basic")
    members = [k for k, x in (("basic", basic), ("gang", gang)) if x is not None]
    if not members:
        errs.invalid(path, "", "must specify one of: `basic`, `gang`")
        return None
    if len(members) > 1:
        errs.invalid(path, "{basic, gang}", "must specify exactly one of: `basic`, `gang`")
    if gang is None:
        return None
    g = f.mapping(gang, f"{path}.gang")
    if g.get("minCount") is None:
        errs.required(f"{path}.gang.minCount")
        return GangPolicy(1)
    n = f.int32(g.get("minCount"), f"{path}.gang.minCount")
    if n < 1:
        errs.invalid(f"{path}.gang.minCount", n, "must be greater than or equal to 1")
    return GangPolicy(n)


def _name(v: Any, path: str, errs: FieldErrors, label: bool) -> str:
    name = f.string(v, path)
    if not name:
        errs.required(path)
    else:
        errs.invalid_all(path, name, is_dns1123_label(name) if label else is_dns1123_subdomain(name))
    return name


def _forbid_composite(spec: Mapping[str, Any], key: str, errs: FieldErrors) -> None:
    if spec.get(key) not in (None, [], ""):
        errs.forbidden(f"spec.{key}", "disabled by feature-gate CompositePodGroup")


@dataclass(frozen=True, slots=True, eq=False)
class _Object(ManifestObject):
    raw: Mapping[str, Any]
    meta: ObjectMeta


@dataclass(frozen=True, slots=True)
class WorkloadPodGroupTemplate:
    name: str
    gang: GangPolicy | None
    raw: Mapping[str, Any]


@dataclass(frozen=True, slots=True, eq=False)
class Workload(_Object):
    """scheduling.k8s.io Workload: the templates of the pod groups a workload is made of."""

    pod_group_templates: tuple[WorkloadPodGroupTemplate, ...]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Workload:
        meta = _meta(d)
        spec = f.mapping(d.get("spec"), "spec")
        errs = FieldErrors()
        _forbid_composite(spec, "compositePodGroupTemplates", errs)
        ref = spec.get("controllerRef")
        if ref is not None:
            r = f.mapping(ref, "spec.controllerRef")
            for key in ("kind", "name"):
                if not f.string(r.get(key), f"spec.controllerRef.{key}"):
                    errs.required(f"spec.controllerRef.{key}")
        items = list(f.objects(spec.get("podGroupTemplates"), "spec.podGroupTemplates"))
        if not items and not spec.get("compositePodGroupTemplates"):
            errs.invalid("spec", "", "must specify one of: `compositePodGroupTemplates`, `podGroupTemplates`")
        if len(items) > WORKLOAD_MAX_POD_GROUP_TEMPLATES:
            errs.too_many("spec.podGroupTemplates", len(items), WORKLOAD_MAX_POD_GROUP_TEMPLATES)
        templates: list[WorkloadPodGroupTemplate] = []
        seen: set[str] = set()
        for t, tpath in items:
            name = _name(t.get("name"), f"{tpath}.name", errs, label=True)
            if name and name in seen:
                errs.duplicate(tpath, {"name": name})
            seen.add(name)
            if t.get("schedulingPolicy") is None:
                errs.required(f"{tpath}.schedulingPolicy")
                gang = None
            else:
                gang = _policy(t.get("schedulingPolicy"), f"{tpath}.schedulingPolicy", errs)
            templates.append(WorkloadPodGroupTemplate(name, gang, t))
        errs.raise_if_any()
        return Workload(d, meta, tuple(templates))

    def template(self, name: str) -> WorkloadPodGroupTemplate | None:
        return next((t for t in self.pod_group_templates if t.name == name), None)


@dataclass(frozen=True, slots=True, eq=False)
class PodGroup(_Object):
    """scheduling.k8s.io PodGroup: a runtime group of pods and its scheduling policy. ``gang``
    is None for the basic policy (each pod scheduled on its own)."""

    gang: GangPolicy | None
    workload_name: str
    template_name: str

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> PodGroup:
        meta = _meta(d)
        spec = f.mapping(d.get("spec"), "spec")
        errs = FieldErrors()
        _forbid_composite(spec, "parentCompositePodGroupName", errs)
        workload_name = template_name = ""
        ref = spec.get("workloadRef")
        if ref is not None:
            r = f.mapping(ref, "spec.workloadRef")
            workload_name = _name(r.get("workloadName"), "spec.workloadRef.workloadName", errs, label=False)
            template_name = _name(r.get("templateName"), "spec.workloadRef.templateName", errs, label=True)
        gang = None
        if spec.get("schedulingPolicy") is None:
            errs.required("spec.schedulingPolicy")
        else:
            gang = _policy(spec.get("schedulingPolicy"), "spec.schedulingPolicy", errs)
        errs.raise_if_any()
        return PodGroup(d, meta, gang, workload_name, template_name)


def pod_group_name_of(spec: Mapping[str, Any]) -> str:
    """A pod spec's ``schedulingGroup.podGroupName`` ("" without a group), validated as
    validatePodSchedulingGroup does: the union's one member set, a DNS subdomain."""
    sg = spec.get("schedulingGroup")
    if sg is None:
        return ""
    m = f.mapping(sg, "spec.schedulingGroup")
    name = f.string(m.get("podGroupName"), "spec.schedulingGroup.podGroupName")
    errs = FieldErrors()
    if not name:
        errs.invalid("spec.schedulingGroup", "", "must specify one of: `podGroupName`")
    else:
        errs.invalid_all("spec.schedulingGroup.podGroupName", name, is_dns1123_subdomain(name))
    errs.raise_if_any()
    return name
