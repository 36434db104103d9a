"""A Job's Workload and PodGroup (feature WorkloadWithJob): what the Job controller creates so
that the scheduler can place the Job's pods as one group.

Mirrors pkg/controller/job/job_scheduling_manager.go (master 2026). With the WorkloadWithJob
and GenericWorkload gates on (off by default, as upstream), getManagementMode decides:

- a Job whose pod template names a PodGroup (``schedulingGroup``) brings its own: nothing is
  managed, and the pods keep the template's group;
- a **root** Job (no controller owner) gets both objects, whether or not it sets
  ``spec.scheduling``: a Workload ``<job>-<hash of the Job's uid>`` controlled by the Job
  (``spec.controllerRef`` to it), with one PodGroupTemplate ``<job>-pgt-0`` whose policy is
  the Job's ``spec.scheduling.schedulingPolicy`` (a gang's unset ``minCount`` defaults to the
  Job's parallelism: defaultMinCountForJob), **basic** when the Job does not ask for one; and a
  PodGroup ``<workload>-<template>-<hash of both names>`` controlled by the Job and owned by
  the Workload, its ``workloadRef`` naming both and its policy copied from the template;
- a Job controlled by a parent (a JobSet) is managed only when the parent delegated its
  PodGroup with the ``scheduling.k8s.io/group-template-name`` annotation: the Job then gets a
  PodGroup (controlled by the Job, not owned by the Workload) from that template of the
  parent's Workload (the one whose ``spec.controllerRef`` names the parent); otherwise none.

Objects are created only for a Job that never started (isNewJob: no pod, no startTime, no
succeeded or failed pod, no Suspended condition); an existing one is reused. A changed gang
size is propagated (syncGangMinCount): a root Job's recompiled ``minCount`` (its parallelism
when unset) to its Workload and PodGroup, a delegated Job's PodGroup following its parent's
template. Each pod the controller creates names the PodGroup in ``spec.schedulingGroup``.
Names use fnv32a and SafeEncodeString as upstream; the Workload's hash input is the text
go-spew prints for the uid (``(types.UID)"<uid>"``, DeepHashObject).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from ..api import SCHEDULING_API_VERSIONS, Job, Pod, PodGroup, Workload, WorkloadPodGroupTemplate
from ._context import Context
from ._names import fnv32a, safe_encode_string
from ._pods import controller_ref, owner_reference

__all__ = ["GROUP_TEMPLATE_NAME_ANNOTATION", "WORKLOAD_WITH_JOB", "ensure_pod_group", "management_mode",
           "pod_group_name", "workload_name"]

WORKLOAD_WITH_JOB: Final = "WorkloadWithJob"
GENERIC_WORKLOAD: Final = "GenericWorkload"
GROUP_TEMPLATE_NAME_ANNOTATION: Final = "scheduling.k8s.io/group-template-name"
"""GroupTemplateNameAnnotation: on a child Job, the parent Workload's template its PodGroup
comes from (the parent delegates the PodGroup to the Job controller)."""
MANAGE_NONE: Final = "none"
MANAGE_BOTH: Final = "both"
MANAGE_POD_GROUP_ONLY: Final = "podGroupOnly"
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


def management_mode(job: Job, features: Mapping[str, bool]) -> str:
    """getManagementMode: MANAGE_NONE, MANAGE_BOTH (a root Job) or MANAGE_POD_GROUP_ONLY (a
    child Job whose parent delegated its PodGroup)."""
    if not (features.get(WORKLOAD_WITH_JOB, False) and features.get(GENERIC_WORKLOAD, False)):
        return MANAGE_NONE
    if (job.template.get("spec") or {}).get("schedulingGroup"):
        return MANAGE_NONE
    if controller_ref(job) is None:
        return MANAGE_BOTH
    if GROUP_TEMPLATE_NAME_ANNOTATION in job.meta.annotations:
        return MANAGE_POD_GROUP_ONLY
    return MANAGE_NONE


def is_new_job(job: Job, pods: list[Pod]) -> bool:
    """isNewJob: the Job never started, so objects may be created for it."""
    status = job.raw.get("status") or {}
    if pods or status.get("startTime") or status.get("succeeded") or status.get("failed"):
        return False
    return not any(c.get("type") == "Suspended" for c in status.get("conditions") or ())


def ensure_pod_group(ctx: Context, job: Job, pods: list[Pod]) -> str:
    """ensureWorkloadAndPodGroup: the name of the Job's PodGroup ("" when it has none)."""
    mode = management_mode(job, ctx.features)
    if mode == MANAGE_NONE:
        return ""
    new_job = is_new_job(job, pods)
    if mode == MANAGE_POD_GROUP_ONLY:
        return _delegated_pod_group(ctx, job, new_job)
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
    groups = _pod_groups_of(ctx, job, wl)
    if len(groups) > 1:
        return ""
    if groups:
        pg: PodGroup | None = groups[0]
    elif new_job:
        pg = ctx.create(PodGroup.from_dict(_pod_group_manifest(job, wl, wl.pod_group_templates[0], True)))
    else:
        pg = None
    _sync_gang_min_count(ctx, job, wl, pg)
    return str(pg.name) if pg is not None else ""


def _pod_groups_of(ctx: Context, job: Job, wl: Workload) -> list[PodGroup]:
    return [g for g in ctx.store.list("PodGroup", job.namespace)
            if isinstance(g, PodGroup) and _controlled_by(g, job) and g.workload_name == wl.name]


def _delegated_pod_group(ctx: Context, job: Job, new_job: bool) -> str:
    """getOrCreateDelegatedPodGroup: the PodGroup of a child Job, from the template its parent
    named, in the parent's Workload; none while that Workload or template is missing."""
    parent = controller_ref(job) or {}
    group, _, _version = str(parent.get("apiVersion", "")).rpartition("/")
    wl = next((w for w in ctx.store.list("Workload", job.namespace) if isinstance(w, Workload)
               and _names_controller(w, group, str(parent.get("kind", "")), str(parent.get("name", "")))),
              None)
    if wl is None:
        return ""
    tpl = wl.template(job.meta.annotations[GROUP_TEMPLATE_NAME_ANNOTATION])
    if tpl is None:
        return ""
    pg = next(iter(_pod_groups_of(ctx, job, wl)), None)
    if pg is None and new_job:
        pg = ctx.create(PodGroup.from_dict(_pod_group_manifest(job, wl, tpl, False)))
    if pg is None:
        return ""
    # The parent's template is the source of truth: follow its gang size.
    if tpl.gang is not None and pg.gang is not None and pg.gang.min_count != tpl.gang.min_count:
        _set_min_count(ctx, pg, tpl.gang.min_count)
    return str(pg.name)


def _names_controller(wl: Workload, group: str, kind: str, name: str) -> bool:
    ref = (wl.raw.get("spec") or {}).get("controllerRef") or {}
    return ref.get("apiGroup", "") == group and ref.get("kind") == kind and ref.get("name") == name


def _sync_gang_min_count(ctx: Context, job: Job, wl: Workload, pg: PodGroup | None) -> None:
    """syncGangMinCount: a resized gang (its recompiled minCount) reaches the Workload's single
    template and the PodGroup; basic policies have nothing to follow."""
    gang = _policy(job).get("gang")
    if gang is None:
        return
    want = int(gang["minCount"])
    templates = wl.pod_group_templates
    if len(templates) == 1 and templates[0].gang is not None and templates[0].gang.min_count != want:
        raw = copy.deepcopy(dict(wl.raw))
        raw["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] = want
        ctx.store.update(Workload.from_dict(raw))
    if pg is not None and pg.gang is not None and pg.gang.min_count != want:
        _set_min_count(ctx, pg, want)


def _set_min_count(ctx: Context, pg: PodGroup, min_count: int) -> None:
    """patchPodGroupMinCount: minCount is the one mutable field of the policy."""
    raw = copy.deepcopy(dict(pg.raw))
    raw["spec"]["schedulingPolicy"]["gang"]["minCount"] = min_count
    ctx.store.update(PodGroup.from_dict(raw))


def _workload_manifest(job: Job) -> dict[str, Any]:
    return {
        "apiVersion": _API_VERSION, "kind": "Workload",
        "metadata": {"name": workload_name(job), "namespace": job.namespace,
                     "ownerReferences": [owner_reference(job)]},
        "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job", "name": job.name},
                 "podGroupTemplates": [{"name": template_name(job), "schedulingPolicy": _policy(job)}]},
    }


def _pod_group_manifest(job: Job, wl: Workload, tpl: WorkloadPodGroupTemplate,
                        link_workload_owner: bool) -> dict[str, Any]:
    """createPodGroup: controlled by the Job; owned by the Workload too for a root Job (a
    delegated Job's Workload belongs to its parent alone)."""
    owners = [owner_reference(job)]
    if link_workload_owner:
        owners.append({"apiVersion": _API_VERSION, "kind": "Workload", "name": wl.name, "uid": wl.meta.uid})
    return {
        "apiVersion": _API_VERSION, "kind": "PodGroup",
        "metadata": {"name": pod_group_name(wl.name, tpl.name), "namespace": job.namespace,
                     "ownerReferences": owners},
        "spec": {"workloadRef": {"workloadName": wl.name, "templateName": tpl.name},
                 "schedulingPolicy": copy.deepcopy(dict(tpl.raw.get("schedulingPolicy") or {}))},
    }
