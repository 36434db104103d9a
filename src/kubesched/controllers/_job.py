"""The Job controller: pods until the completions are reached, at most ``parallelism`` at once.

Mirrors pkg/controller/job/job_controller.go ``manageJob`` (master 2026) and the Job strategy's
``generateSelector`` (pkg/registry/batch/job/strategy.go): without ``manualSelector`` the
selector is ``batch.kubernetes.io/controller-uid: <job uid>`` and the pods carry
``batch.kubernetes.io/controller-uid``, ``batch.kubernetes.io/job-name`` and their legacy twins
``controller-uid`` and ``job-name``. NonIndexed: active pods are brought to
min(parallelism, completions - succeeded) (parallelism until one succeeds when completions is
unset). Indexed: the lowest indexes neither succeeded nor running get a pod named
``<job>-<index>-<5 random characters>`` with the ``batch.kubernetes.io/job-completion-index``
annotation and label and hostname ``<job>-<index>``. When more pods are active than wanted
(``spec.parallelism`` lowered, as a trace's ``scale`` of a Job does) the surplus is deleted,
chosen by ``activePodsForRemoval`` (an Indexed Job's pods with a repeated or invalid index
first, then the ActivePods order: unscheduled, Pending, not Ready, ... first). Pods carry the
``batch.kubernetes.io/job-tracking`` finalizer, as upstream's. Failed pods, backoffLimit,
status updates and TTL are out of scope. How long a pod runs is the simulated kubelet's
business (see _kubelet.py). With the WorkloadWithJob gate a Job first gets its Workload and
PodGroup (_job_scheduling.py), and its pods join that group. A Job whose ``spec.managedBy``
names another controller than ``kubernetes.io/job-controller`` is left alone
(managedByExternalController, JobManagedBy: GA).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..api import INDEXED, Job, Pod
from ._context import Context
from ._job_scheduling import ensure_pod_group
from ._pods import claim, is_active, pod_manifest
from ._ranking import rank_for_deletion

__all__ = ["COMPLETION_INDEX", "JOB_CONTROLLER_NAME", "JobController"]

JOB_CONTROLLER_NAME: Final = "kubernetes.io/job-controller"
"""batch.JobControllerName: the ``spec.managedBy`` value (or its absence) this controller owns."""

CONTROLLER_UID: Final = "batch.kubernetes.io/controller-uid"
JOB_NAME: Final = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID: Final = "controller-uid"
LEGACY_JOB_NAME: Final = "job-name"
COMPLETION_INDEX: Final = "batch.kubernetes.io/job-completion-index"
TRACKING_FINALIZER: Final = "batch.kubernetes.io/job-tracking"
MAX_POD_CREATE_DELETE_PER_SYNC: Final = 500


def generated_labels(job: Job) -> dict[str, str]:
    """The labels generateSelector adds to the template (none with manualSelector)."""
    if job.manual_selector:
        return {}
    uid = job.meta.uid
    return {CONTROLLER_UID: uid, JOB_NAME: job.name, LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: job.name}


def _selects(job: Job, labels: Mapping[str, str]) -> bool:
    """The Job's selector when the manifest has one (a dump carries the generated one), else the
    one generateSelector would write."""
    if job.selector is not None:
        return job.selector.matches(labels)
    return labels.get(CONTROLLER_UID) == job.meta.uid


def _index(pod: Pod) -> int | None:
    """getCompletionIndex: the annotation's value (else the label's), when a valid integer."""
    text = pod.meta.annotations.get(COMPLETION_INDEX) or pod.labels.get(COMPLETION_INDEX)
    return int(text) if text is not None and text.isdigit() else None


def managed_by_external_controller(job: Job) -> bool:
    """managedByExternalController: ``spec.managedBy`` set to another controller (MultiKueue,
    ...), which then creates the pods; syncJob skips such a Job."""
    managed_by = (job.raw.get("spec") or {}).get("managedBy")
    return managed_by is not None and managed_by != JOB_CONTROLLER_NAME


class JobController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def pods(self, job: Job) -> list[Pod]:
        return claim(self.ctx.store, job, "Pod", lambda labels: _selects(job, labels))

    def sync(self, job: Job) -> None:
        """syncJob / manageJob: delete the active pods beyond what is wanted, else create
        the missing ones."""
        if job.suspend or managed_by_external_controller(job):
            return
        pods = self.pods(job)
        group = ensure_pod_group(self.ctx, job, pods)
        active = [p for p in pods if is_active(p)]
        succeeded = [p for p in pods if p.phase == "Succeeded"]
        indexed = job.completion_mode == INDEXED
        if job.completions is None:
            want = len(active) if succeeded else job.parallelism  # after a success: leave them be
        else:
            done = len({_index(p) for p in succeeded} - {None}) if indexed else len(succeeded)
            want = max(0, min(job.parallelism, job.completions - done))
        remove = self._for_removal(job, active, max(0, len(active) - want))[:MAX_POD_CREATE_DELETE_PER_SYNC]
        if remove:
            for pod in remove:
                self.ctx.delete(pod)
            return
        if indexed:
            self._indexed(job, active, succeeded, group)
            return
        base = f"{job.name}-"
        for _ in range(want - len(active)):
            self._create(job, self.ctx.unique_name("Pod", job.namespace, base), base, None, group)

    @staticmethod
    def _for_removal(job: Job, active: list[Pod], at_least: int) -> list[Pod]:
        """activePodsForRemoval: for an Indexed Job first the pods without a valid index or
        with one beyond completions, and all but one of each repeated index (the one kept is
        the last in ActivePods order); then, while short of ``at_least``, the rest in
        ActivePods order (unscheduled, Pending, not Ready, ... first)."""
        rm: list[Pod] = []
        left = active
        if job.completion_mode == INDEXED:
            assert job.completions is not None
            left = []
            by_index: dict[int, list[Pod]] = {}
            for p in active:
                ix = _index(p)
                if ix is None or ix >= job.completions:
                    rm.append(p)
                else:
                    by_index.setdefault(ix, []).append(p)
            for ix in sorted(by_index):
                same = rank_for_deletion(by_index[ix])
                rm += same[:-1]
                left.append(same[-1])
        if len(rm) < at_least:
            rm += rank_for_deletion(left)[:at_least - len(rm)]
        return rm

    def _indexed(self, job: Job, active: list[Pod], succeeded: list[Pod], group: str) -> None:
        assert job.completions is not None
        busy = {_index(p) for p in active} | {_index(p) for p in succeeded}
        room = job.parallelism - len(active)
        for index in range(job.completions):
            if room <= 0:
                return
            if index in busy:
                continue
            base = f"{job.name}-{index}-"
            self._create(job, self.ctx.unique_name("Pod", job.namespace, base), base, index, group)
            room -= 1

    def _create(self, job: Job, name: str, base: str, index: int | None, group: str) -> None:
        labels = generated_labels(job)
        annotations = {}
        if index is not None:
            labels[COMPLETION_INDEX] = annotations[COMPLETION_INDEX] = str(index)
        d = pod_manifest(job.template, job, name, generate_name=base, labels=labels, annotations=annotations)
        d["metadata"]["finalizers"] = [*d["metadata"].get("finalizers", []), TRACKING_FINALIZER]
        if index is not None:
            d["spec"]["hostname"] = f"{job.name}-{index}"
        if group:
            d["spec"]["schedulingGroup"] = {"podGroupName": group}
        self.ctx.create(Pod.from_dict(d))

    @staticmethod
    def wanted(job: Job) -> int:
        return job.completions if job.completions is not None else job.parallelism
