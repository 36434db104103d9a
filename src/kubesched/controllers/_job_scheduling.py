"""A Job's Workload and PodGroup (feature WorkloadWithJob): what the Job controller creates so
that the scheduler can place the Job's pods as one gang.

Mirrors pkg/controller/job/job_scheduling_manager.go (master 2026) for a root Job (no
controller owner) with ``spec.scheduling`` and a pod template without its own
``schedulingGroup`` (a template naming a PodGroup brings its own: the controller then manages
nothing, and the pods keep the template's group):

- a Workload ``<job>-<hash of the Job's uid>`` controlled by the Job (``spec.controllerRef``
  to it), with one PodGroupTemplate ``<job>-pgt-0`` whose policy is the Job's
  ``spec.scheduling.schedulingPolicy`` (a gang's unset ``minCount`` defaults to the Job's
  parallelism: defaultMinCountForJob), basic when the policy is omitted;
- a PodGroup ``<workload>-<template>-<hash of both names>`` controlled by the Job and owned by
  the Workload, its ``workloadRef`` naming both and its policy copied from the template;
- each pod the controller creates names the PodGroup in ``spec.schedulingGroup``.

Both objects are created only for a Job that has no pod yet (isNewJob); an existing one is
reused. Names use fnv32a and SafeEncodeString as upstream; the Workload's hash input is the
text go-spew prints for the uid (``(types.UID)"<uid>"``, DeepHashObject). The managed-by
annotation upstream adds is left out. Later minCount changes (syncGangMinCount) are out of
scope, as every workload update is here.
"""

from __future__ import annotations

from typing import Any, Final

from ..api import Job, Pod, PodGroup, Workload
from ..api._scheduling_group import SCHEDULING_API_VERSIONS
from ._context import Context
from ._names import fnv32a, safe_encode_string
from ._pods import controller_ref, owner_reference

__all__ = ["ensure_pod_group", "pod_group_name", "workload_name"]

DNS1123_SUBDOMAIN_MAX_LENGTH: Final = 253
_API_VERSION: Final = SCHEDULING_API_VERSIONS[0]


def workload_name(job: Job) -> str:
    """computeWorkloadName: ``<job name, cut>-<hash of its uid>``."""
    h = safe_encode_string(str(fnv32a(f'(types.UID)"{job.meta.uid}"'.encode())))
    return f"{job.name[:DNS1123_SUBDOMAIN_MAX_LENGTH - len(h) - 1]}-{h}"


def template_name(job: Job) -> str:
    """podGroupTemplateName: the Job's single template."""
    return f"{job.name}-pgt-0"


def pod_group_name(workload: str, template: str) -> str:
    """computePodGroupName: ``<workload>-<template>-<hash>``, both names cut to fit a DNS
    subdomain, each getting at least half of the room."""
    h = safe_encode_string(str(fnv32a(workload.encode() + template.encode())))
    room = DNS1123_SUBDOMAIN_MAX_LENGTH - len(h) - 2
    wl, tpl = workload, template
    if len(wl) + len(tpl) > room:
        half = room // 2
        if len(wl) <= half:
            tpl = tpl[:room - len(wl)]
        elif len(tpl) <= half:
            wl = wl[:room - len(tpl)]
        else:
            wl, tpl = wl[:room - half], tpl[:half]
    return f"{wl}-{tpl}-{h}"


def _controlled_by(obj: Any, job: Job) -> bool:
    ref = controller_ref(obj)
    return ref is not None and ref.get("kind") == "Job" and ref.get("name") == job.name and (
        not ref.get("uid") or not job.meta.uid or ref.get("uid") == job.meta.uid)


def _policy(job: Job) -> dict[str, Any]:
    """The template's schedulingPolicy (buildWorkloadItem + defaultMinCountForJob)."""
    s = job.scheduling
    if s is None or not s.gang:
        return {"basic": {}}
    return {"gang": {"minCount": s.min_count if s.min_count is not None else job.parallelism}}


def manages_pod_group(job: Job) -> bool:
    """shouldManageWorkloadForJob, for Jobs that ask for it (``spec.scheduling``)."""
    if job.scheduling is None or controller_ref(job) is not None:
        return False
    return not (job.template.get("spec") or {}).get("schedulingGroup")


def ensure_pod_group(ctx: Context, job: Job, pods: list[Pod]) -> str:
    """ensureWorkloadAndPodGroup: the name of the Job's PodGroup ("" when it has none)."""
    if not manages_pod_group(job):
        return ""
    new_job = not pods
    ns = job.namespace
    workloads = [w for w in ctx.store.list("Workload", ns) if _controlled_by(w, job)]
    if len(workloads) > 1:
        return ""  # ambiguous: default scheduling
    if workloads:
        wl = workloads[0]
    elif new_job:
        wl = ctx.create(Workload.from_dict(_workload_manifest(job)))
    else:
        return ""
    groups = [g for g in ctx.store.list("PodGroup", ns)
              if _controlled_by(g, job) and isinstance(g, PodGroup) and g.workload_name == wl.name]
    if len(groups) > 1:
        return ""
    if groups:
        return str(groups[0].name)
    if not new_job:
        return ""
    return str(ctx.create(PodGroup.from_dict(_pod_group_manifest(job, wl))).name)


def _workload_manifest(job: Job) -> dict[str, Any]:
    return {
        "apiVersion": _API_VERSION, "kind": "Workload",
        "metadata": {"name": workload_name(job), "namespace": job.namespace,
                     "ownerReferences": [owner_reference(job)]},
        "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job", "name": job.name},
                 "podGroupTemplates": [{"name": template_name(job), "schedulingPolicy": _policy(job)}]},
    }


def _pod_group_manifest(job: Job, wl: Workload) -> dict[str, Any]:
    tpl = wl.pod_group_templates[0]
    owners = [owner_reference(job),
              {"apiVersion": _API_VERSION, "kind": "Workload", "name": wl.name, "uid": wl.meta.uid}]
    return {
        "apiVersion": _API_VERSION, "kind": "PodGroup",
        "metadata": {"name": pod_group_name(wl.name, tpl.name), "namespace": job.namespace,
                     "ownerReferences": owners},
        "spec": {"workloadRef": {"workloadName": wl.name, "templateName": tpl.name},
                 "schedulingPolicy": dict(tpl.raw.get("schedulingPolicy") or {})},
    }
