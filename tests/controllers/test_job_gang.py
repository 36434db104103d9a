"""A Job with ``spec.scheduling`` (WorkloadWithJob): the Job controller creates its Workload and
PodGroup as job_scheduling_manager.go names them, its pods join the group, and with the gang
gates on ``simulate`` places the Job whole or not at all."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kubesched.cli import app
from kubesched.controllers._job_scheduling import pod_group_name
from kubesched.controllers._names import fnv32a, safe_encode_string

from ._manifests import generated, node, runner, simulate_json, template, workload, write

GATES = ("--feature-gates", "GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true")


def gang_job(cpu: str, scheduling: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    tpl = template("train", cpu=cpu, restartPolicy="Never")
    return workload("Job", "train", {
        "parallelism": 3, "completions": 3, "template": tpl,
        "scheduling": scheduling if scheduling is not None else {"schedulingPolicy": {"gang": {}}},
        **spec,
    }, uid="job-uid-1")


def test_job_gets_a_workload_and_a_pod_group_named_as_upstream(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), gang_job("1")]), *GATES)
    [wl] = generated(report, "Workload")
    [pg] = generated(report, "PodGroup")
    h = safe_encode_string(str(fnv32a(b'(types.UID)"job-uid-1"')))
    assert wl["metadata"]["name"] == f"train-{h}"
    assert wl["spec"]["controllerRef"] == {"apiGroup": "batch", "kind": "Job", "name": "train"}
    # minCount unset: the Job's parallelism (defaultMinCountForJob).
    assert wl["spec"]["podGroupTemplates"] == [
        {"name": "train-pgt-0", "schedulingPolicy": {"gang": {"minCount": 3}}}]
    assert [r["kind"] for r in wl["metadata"]["ownerReferences"]] == ["Job"]
    assert pg["metadata"]["name"] == pod_group_name(wl["metadata"]["name"], "train-pgt-0")
    assert re.fullmatch(rf"train-{h}-train-pgt-0-[a-z0-9]+", pg["metadata"]["name"])
    ref = {"workloadName": wl["metadata"]["name"], "templateName": "train-pgt-0"}
    assert pg["spec"] == {"workloadRef": ref, "schedulingPolicy": {"gang": {"minCount": 3}}}
    owners = pg["metadata"]["ownerReferences"]
    assert [(r["kind"], r.get("controller", False)) for r in owners] == [("Job", True), ("Workload", False)]
    pods = generated(report, "Pod")
    assert len(pods) == 3
    assert all(p["spec"]["schedulingGroup"] == {"podGroupName": pg["metadata"]["name"]} for p in pods)
    assert report["summary"]["scheduled"] == 3


def test_a_gang_job_that_does_not_fit_whole_places_no_pod(tmp_path: Path) -> None:
    # Three 3-cpu pods on two 4-cpu nodes: two would fit alone, the gang never does.
    path = write(tmp_path, [node("n1"), node("n2"), gang_job("3")])
    report = simulate_json(path, *GATES)
    assert report["summary"]["scheduled"] == 0
    msgs = sorted(p["message"] for p in report["pods"])
    # Newest upstream's pod-group cycle: the two that fitted carry the group's reason.
    assert msgs[0].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert msgs[1:] == ["minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"] * 2
    # The same Job without the gates: two pods run (the third waits).
    plain = simulate_json(path)
    assert plain["summary"]["scheduled"] == 2


def test_a_basic_policy_job_schedules_pod_by_pod(tmp_path: Path) -> None:
    job = gang_job("3", scheduling={"schedulingPolicy": {"basic": {}}})
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), job]), *GATES)
    [pg] = generated(report, "PodGroup")
    assert pg["spec"]["schedulingPolicy"] == {"basic": {}}
    assert report["summary"]["scheduled"] == 2


def test_an_explicit_min_count_below_parallelism_lets_part_of_the_job_run(tmp_path: Path) -> None:
    job = gang_job("3", scheduling={"schedulingPolicy": {"gang": {"minCount": 2}}})
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), job]), *GATES)
    assert report["summary"]["scheduled"] == 2


def test_a_template_naming_its_own_pod_group_is_left_alone(tmp_path: Path) -> None:
    job = gang_job("1")
    job["spec"]["template"]["spec"]["schedulingGroup"] = {"podGroupName": "mine"}
    pg = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "mine", "namespace": "default"},
          "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}}
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), pg, job]), *GATES)
    assert generated(report, "Workload") == [] and generated(report, "PodGroup") == []
    assert all(p["spec"]["schedulingGroup"] == {"podGroupName": "mine"} for p in generated(report, "Pod"))
    assert report["summary"]["scheduled"] == 3


def test_a_bad_job_scheduling_policy_is_bad_input(tmp_path: Path) -> None:
    job = gang_job("1", scheduling={"schedulingPolicy": {"gang": {"minCount": 0}}})
    result = runner.invoke(app, ["simulate", str(write(tmp_path, [node("n1"), job])), *GATES])
    assert result.exit_code == 2
    assert "Job default/train" in result.output
    assert "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or " \
           "equal to 1" in result.output


# -- the Job controller of newest upstream with WorkloadWithJob (getManagementMode) -----------
def plain_job(name: str = "batch", **meta: Any) -> dict[str, Any]:
    tpl = template(name, cpu="1", restartPolicy="Never")
    return workload("Job", name, {"parallelism": 2, "completions": 2, "template": tpl},
                    uid=f"{name}-uid", **meta)


def test_without_workload_with_job_the_controller_creates_no_workload(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), gang_job("1")]),
                           "--feature-gates", "GenericWorkload=true,GangScheduling=true")
    assert generated(report, "Workload") == [] and generated(report, "PodGroup") == []
    assert all("schedulingGroup" not in p["spec"] for p in generated(report, "Pod"))


def test_every_root_job_gets_a_basic_workload(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1"), plain_job()]), *GATES)
    [wl] = generated(report, "Workload")
    assert wl["spec"]["podGroupTemplates"] == [{"name": "batch-pgt-0", "schedulingPolicy": {"basic": {}}}]
    [pg] = generated(report, "PodGroup")
    assert pg["spec"]["schedulingPolicy"] == {"basic": {}}
    assert all(p["spec"]["schedulingGroup"] == {"podGroupName": pg["metadata"]["name"]}
               for p in generated(report, "Pod"))
    assert report["summary"]["scheduled"] == 2


JOBSET_OWNER = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js",
                "uid": "js-uid", "controller": True}
PARENT_WORKLOAD = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
                   "metadata": {"name": "js-wl", "namespace": "default"},
                   "spec": {"controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "js"},
                            "podGroupTemplates": [{"name": "workers",
                                                   "schedulingPolicy": {"gang": {"minCount": 2}}}]}}


def test_a_child_job_is_left_to_its_parent_unless_it_delegates(tmp_path: Path) -> None:
    child = plain_job("child", ownerReferences=[JOBSET_OWNER])
    report = simulate_json(write(tmp_path, [node("n1"), PARENT_WORKLOAD, child]), *GATES)
    assert generated(report, "Workload") == [] and generated(report, "PodGroup") == []


def test_a_delegated_child_job_gets_a_pod_group_from_its_parents_template(tmp_path: Path) -> None:
    child = plain_job("child", ownerReferences=[JOBSET_OWNER],
                      annotations={"scheduling.k8s.io/group-template-name": "workers"})
    report = simulate_json(write(tmp_path, [node("n1"), PARENT_WORKLOAD, child]), *GATES)
    assert generated(report, "Workload") == []  # the parent's Workload is used
    [pg] = generated(report, "PodGroup")
    assert pg["metadata"]["name"] == pod_group_name("js-wl", "workers")
    assert pg["spec"] == {"workloadRef": {"workloadName": "js-wl", "templateName": "workers"},
                          "schedulingPolicy": {"gang": {"minCount": 2}}}
    # Controlled by the Job only: the Workload belongs to the parent.
    owners = pg["metadata"]["ownerReferences"]
    assert [(r["kind"], r.get("controller", False)) for r in owners] == [("Job", True)]
    assert report["summary"]["scheduled"] == 2


def test_a_resized_gang_job_moves_min_count_on_its_workload_and_pod_group() -> None:
    from kubesched.api import Job
    from kubesched.clock import VirtualClock
    from kubesched.cluster import MemoryStore
    from kubesched.controllers import ControllerManager

    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    store.load([Job.from_dict(gang_job("1"))])
    gates = {"GenericWorkload": True, "WorkloadWithJob": True}
    manager = ControllerManager(store, clock, 0, features=gates)
    manager.sync_all()
    [wl], [pg] = store.list("Workload"), store.list("PodGroup")
    assert wl.pod_group_templates[0].gang.min_count == 3 and pg.gang.min_count == 3
    job = store.get("Job", "default", "train")
    raw = dict(job.raw)
    raw["spec"] = {**raw["spec"], "parallelism": 2}
    store.update(Job.from_dict(raw))
    manager.sync_all()
    [wl], [pg] = store.list("Workload"), store.list("PodGroup")
    # minCount unset on the Job: its parallelism, followed on resize (syncGangMinCount).
    assert wl.pod_group_templates[0].gang.min_count == 2 and pg.gang.min_count == 2


def test_a_job_managed_by_another_controller_is_left_alone(tmp_path: Path) -> None:
    job = gang_job("1", managedBy="kueue.x-k8s.io/multikueue")
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), job]), *GATES)
    assert generated(report, "Pod") == [] and generated(report, "Workload") == []
    # Naming the built-in controller is the same as leaving the field unset.
    job = gang_job("1", managedBy="kubernetes.io/job-controller")
    report = simulate_json(write(tmp_path, [node("n1"), node("n2"), job]), *GATES)
    assert len(generated(report, "Pod")) == 3 and len(generated(report, "Workload")) == 1
