"""The controllers inside ``kubesched simulate``: what each creates, named and labelled as
upstream's controller would, and how the scheduler then places it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from kubesched.cli import app
from kubesched.controllers import compute_hash

from ._manifests import (
    SUFFIX,
    generated,
    node,
    pods_of,
    runner,
    selector,
    simulate_json,
    template,
    workload,
    write,
)


# -- Deployment -> ReplicaSet -> pods -------------------------------------------------------
def test_deployment_creates_a_replica_set_named_by_the_template_hash_and_its_pods(tmp_path: Path) -> None:
    web = workload(
        "Deployment", "web", {"replicas": 3, "selector": selector("web"), "template": template("web")}
    )
    report = simulate_json(write(tmp_path, [node("n1"), web]))
    [rs] = generated(report, "ReplicaSet")
    h = compute_hash(web["spec"]["template"], None)
    assert rs["metadata"]["name"] == f"web-{h}"
    assert rs["metadata"]["labels"] == {"app": "web", "pod-template-hash": h}
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "web", "pod-template-hash": h}}
    assert rs["spec"]["replicas"] == 3
    [ref] = rs["metadata"]["ownerReferences"]
    assert (
        ref["kind"] == "Deployment"
        and ref["name"] == "web"
        and ref["controller"] is True
        and ref["blockOwnerDeletion"] is True
    )
    pods = generated(report, "Pod")
    assert len(pods) == 3
    for p in pods:
        assert re.fullmatch(f"web-{h}-{SUFFIX}", p["metadata"]["name"])
        assert p["metadata"]["generateName"] == f"web-{h}-"
        assert p["metadata"]["labels"] == {"app": "web", "pod-template-hash": h}
        assert p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        assert p["metadata"]["ownerReferences"][0]["name"] == f"web-{h}"
    assert {p["pod"] for p in pods_of(report, "Deployment default/web")} == {
        f"default/{p['metadata']['name']}" for p in pods
    }
    assert report["workloads"] == [
        {
            "kind": "Deployment",
            "namespace": "default",
            "name": "web",
            "wanted": 3,
            "placed": 3,
            "pods": sorted(f"default/{p['metadata']['name']}" for p in pods),
        }
    ]


def test_collision_count_changes_the_replica_set_name(tmp_path: Path) -> None:
    web = workload("Deployment", "web", {"selector": selector("web"), "template": template("web")})
    web["status"] = {"collisionCount": 2}
    [rs] = generated(simulate_json(write(tmp_path, [node("n1"), web])), "ReplicaSet")
    assert rs["metadata"]["name"] == f"web-{compute_hash(web['spec']['template'], 2)}"


def test_names_are_deterministic_with_the_seed(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            node("n1"),
            workload(
                "ReplicaSet", "rs", {"replicas": 4, "selector": selector("a"), "template": template("a")}
            ),
        ],
    )
    names = [
        sorted(p["metadata"]["name"] for p in generated(simulate_json(path, "--seed", s), "Pod"))
        for s in ("1", "1", "2")
    ]
    assert names[0] == names[1] != names[2]
    assert all(re.fullmatch(f"rs-{SUFFIX}", n) for n in names[0])


def test_replication_controller_creates_its_replicas(tmp_path: Path) -> None:
    rc = workload("ReplicationController", "legacy", {"replicas": 2, "template": template("legacy")})
    report = simulate_json(write(tmp_path, [node("n1"), rc]))
    pods = generated(report, "Pod")
    assert len(pods) == 2
    assert all(
        p["metadata"]["ownerReferences"][0]
        == {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "name": "legacy",
            "uid": p["metadata"]["ownerReferences"][0]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
        for p in pods
    )


# -- adoption -------------------------------------------------------------------------------
def _pod(name: str, labels: dict[str, str], owner: dict[str, str] | None = None) -> dict[str, object]:
    meta: dict[str, object] = {"name": name, "namespace": "default", "labels": labels}
    if owner is not None:
        meta["ownerReferences"] = [{**owner, "controller": True}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }


def test_pods_in_the_input_are_adopted_not_duplicated(tmp_path: Path) -> None:
    rs = workload("ReplicaSet", "rs", {"replicas": 3, "selector": selector("a"), "template": template("a")})
    owned = _pod("rs-owned", {"app": "a"}, {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs"})
    orphan = _pod("rs-orphan", {"app": "a"})
    other = _pod("other", {"app": "a"}, {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "else"})
    path = write(tmp_path, [node("n1"), rs, owned, orphan, other])
    result = runner.invoke(app, ["simulate", str(path), "-o", "yaml"])
    assert result.exit_code == 0, result.output
    pods = {d["metadata"]["name"]: d for d in yaml.safe_load_all(result.stdout) if d["kind"] == "Pod"}
    assert len(pods) == 4  # the two it owns, one created, the other controller's pod
    assert pods["rs-orphan"]["metadata"]["ownerReferences"][0]["name"] == "rs"  # adopted (AdoptPod)
    assert pods["other"]["metadata"]["ownerReferences"][0]["name"] == "else"


def test_statefulset_adopts_an_existing_ordinal(tmp_path: Path) -> None:
    sts = workload(
        "StatefulSet",
        "db",
        {
            "replicas": 2,
            "podManagementPolicy": "Parallel",
            "selector": selector("db"),
            "template": template("db"),
        },
    )
    report = simulate_json(write(tmp_path, [node("n1"), sts, _pod("db-0", {"app": "db"})]))
    assert [p["metadata"]["name"] for p in generated(report, "Pod")] == ["db-1"]


# -- StatefulSet ------------------------------------------------------------------------------
def _statefulset(policy: str | None, replicas: int = 3, **spec: object) -> dict[str, object]:
    s: dict[str, object] = {
        "replicas": replicas,
        "serviceName": "db",
        "selector": selector("db"),
        "template": template("db", cpu="1"),
    }
    if policy:
        s["podManagementPolicy"] = policy
    return workload("StatefulSet", "db", {**s, **spec})


def test_statefulset_pods_have_ordinal_names_labels_and_claims(tmp_path: Path) -> None:
    claim = {
        "metadata": {"name": "data", "labels": {"tier": "storage"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    sts = _statefulset("Parallel", 2, volumeClaimTemplates=[claim])
    report = simulate_json(write(tmp_path, [node("n1"), sts]))
    pods = generated(report, "Pod")
    assert [p["metadata"]["name"] for p in pods] == ["db-0", "db-1"]
    for i, p in enumerate(pods):
        labels = p["metadata"]["labels"]
        assert labels["statefulset.kubernetes.io/pod-name"] == f"db-{i}"
        assert labels["apps.kubernetes.io/pod-index"] == str(i)
        assert re.fullmatch(f"db-{SUFFIX[:-3]}{{1,10}}", labels["controller-revision-hash"])
        assert p["spec"]["hostname"] == f"db-{i}" and p["spec"]["subdomain"] == "db"
        assert p["spec"]["volumes"] == [
            {"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{i}"}}
        ]
    claims = generated(report, "PersistentVolumeClaim")
    assert [c["metadata"]["name"] for c in claims] == ["data-db-0", "data-db-1"]
    assert claims[0]["metadata"]["labels"] == {"tier": "storage", "app": "db"}


def test_ordered_ready_creates_the_next_pod_only_when_the_previous_runs(tmp_path: Path) -> None:
    # Room for one 1-cpu pod: db-0 runs, db-1 waits unschedulable, db-2 is never created.
    report = simulate_json(write(tmp_path, [node("n1", cpu="1500m"), _statefulset(None)]))
    assert [(p["pod"], p["status"]) for p in pods_of(report, "StatefulSet default/db")] == [
        ("default/db-0", "Scheduled"),
        ("default/db-1", "Unschedulable"),
    ]
    assert report["workloads"][0]["placed"] == 1 and report["workloads"][0]["wanted"] == 3


def test_parallel_creates_every_pod_at_once(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1", cpu="1500m"), _statefulset("Parallel")]))
    assert [(p["pod"], p["status"]) for p in pods_of(report, "StatefulSet default/db")] == [
        ("default/db-0", "Scheduled"),
        ("default/db-1", "Unschedulable"),
        ("default/db-2", "Unschedulable"),
    ]


def test_ordinals_start(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1"), _statefulset(None, 2, ordinals={"start": 5})]))
    assert [p["metadata"]["name"] for p in generated(report, "Pod")] == ["db-5", "db-6"]


# -- DaemonSet ------------------------------------------------------------------------------
def test_daemonset_runs_where_the_controller_would_choose(tmp_path: Path) -> None:
    nodes = [
        node("plain"),
        node("tainted", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        node("prefer", taints=[{"key": "dedicated", "value": "gpu", "effect": "PreferNoSchedule"}]),
        node(
            "cordoned",
            unschedulable=True,
            taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}],
        ),
        node("pressure", taints=[{"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}]),
        node("other-zone", labels={"zone": "b"}),
    ]
    ds = workload(
        "DaemonSet",
        "agent",
        {
            "selector": selector("agent"),
            "template": template("agent", nodeSelector={"kubernetes.io/os": "linux"}),
        },
    )
    for n in nodes:
        if n["metadata"]["name"] != "other-zone":
            n["metadata"]["labels"]["kubernetes.io/os"] = "linux"
    report = simulate_json(write(tmp_path, [*nodes, ds]))
    pods = generated(report, "Pod")
    by_node = {
        p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ][0]["matchFields"][0]["values"][0]: p
        for p in pods
    }
    assert sorted(by_node) == ["cordoned", "plain", "prefer", "pressure"]
    p = by_node["plain"]
    assert re.fullmatch(f"agent-{SUFFIX}", p["metadata"]["name"])
    assert p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["plain"]}]}
        ]
    }
    assert [(t["key"], t["effect"]) for t in p["spec"]["tolerations"]] == [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]
    assert p["metadata"]["labels"]["pod-template-generation"] == "1"
    assert p["metadata"]["labels"]["controller-revision-hash"] == compute_hash(ds["spec"]["template"], None)
    # Each pod lands on its node, the cordoned one included (its taint is tolerated).
    placed = {o["pod"]: o["node"] for o in report["pods"]}
    assert all(placed[f"default/{q['metadata']['name']}"] == n for n, q in by_node.items())
    assert report["workloads"][0]["wanted"] == 4 and report["workloads"][0]["placed"] == 4


def test_host_network_daemon_pods_tolerate_network_unavailable(tmp_path: Path) -> None:
    ds = workload(
        "DaemonSet", "cni", {"selector": selector("cni"), "template": template("cni", hostNetwork=True)}
    )
    n = node("n1", taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}])
    [p] = generated(simulate_json(write(tmp_path, [n, ds])), "Pod")
    assert ("node.kubernetes.io/network-unavailable", "NoSchedule") in [
        (t["key"], t["effect"]) for t in p["spec"]["tolerations"]
    ]


# -- Job --------------------------------------------------------------------------------------
def _job(completions: int | None, parallelism: int | None, run: str | None = "100", **spec: object) -> dict:
    t = template("", cpu="1", restartPolicy="Never")
    t["metadata"] = {"annotations": {"kubesched.io/run-seconds": run}} if run is not None else {}
    s: dict[str, object] = {"template": t, **spec}
    if completions is not None:
        s["completions"] = completions
    if parallelism is not None:
        s["parallelism"] = parallelism
    return workload("Job", "crunch", s)


def test_job_completions_free_capacity_on_the_clock(tmp_path: Path) -> None:
    # One 1-cpu pod fits at a time; each runs 100 s: three completions take 300 s.
    report = simulate_json(write(tmp_path, [node("n1", cpu="1"), _job(3, 3)]))
    pods = pods_of(report, "Job default/crunch")
    assert len(pods) == 3 and all(p["status"] == "Succeeded" for p in pods)
    assert report["summary"]["simulatedSeconds"] >= 300
    assert report["workloads"][0]["placed"] == 3 and report["workloads"][0]["wanted"] == 3


def test_job_pods_without_a_run_time_run_for_ever(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1", cpu="1"), _job(3, 3, run=None)]))
    statuses = sorted(p["status"] for p in pods_of(report, "Job default/crunch"))
    assert statuses == ["Scheduled", "Unschedulable", "Unschedulable"]


def test_job_parallelism_bounds_active_pods_and_labels_them(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1", cpu="8"), _job(5, 2, run=None)]))
    pods = generated(report, "Pod")
    assert len(pods) == 2
    uid = pods[0]["metadata"]["ownerReferences"][0]["uid"]
    for p in pods:
        assert re.fullmatch(f"crunch-{SUFFIX}", p["metadata"]["name"])
        assert p["metadata"]["labels"] == {
            "batch.kubernetes.io/controller-uid": uid,
            "batch.kubernetes.io/job-name": "crunch",
            "controller-uid": uid,
            "job-name": "crunch",
        }
        assert p["metadata"]["finalizers"] == ["batch.kubernetes.io/job-tracking"]


def test_indexed_job_names_and_index(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1", cpu="8"), _job(3, 3, completionMode="Indexed")]))
    pods = sorted(generated(report, "Pod"), key=lambda p: p["metadata"]["name"])
    for i, p in enumerate(pods):
        assert re.fullmatch(f"crunch-{i}-{SUFFIX}", p["metadata"]["name"])
        assert p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == str(i)
        assert p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == str(i)
        assert p["spec"]["hostname"] == f"crunch-{i}"


def test_suspended_job_creates_nothing(tmp_path: Path) -> None:
    report = simulate_json(write(tmp_path, [node("n1"), _job(3, 3, suspend=True)]))
    assert generated(report, "Pod") == []


# -- output ---------------------------------------------------------------------------------
def test_yaml_output_round_trips_without_creating_anything(tmp_path: Path) -> None:
    docs = [
        node("n1", cpu="8"),
        workload(
            "Deployment", "web", {"replicas": 2, "selector": selector("web"), "template": template("web")}
        ),
        _statefulset(None, 2),
        _job(2, 1, completionMode="Indexed"),
        workload("DaemonSet", "agent", {"selector": selector("agent"), "template": template("agent")}),
    ]
    first = runner.invoke(app, ["simulate", str(write(tmp_path, docs)), "-o", "yaml"])
    assert first.exit_code == 0, first.output
    again = simulate_json(write(tmp_path, list(yaml.safe_load_all(first.stdout)), "again.yaml"))
    assert again["generated"] == []
    assert [(w["name"], w["placed"], w["wanted"]) for w in again["workloads"]] == [
        ("web", 2, 2),
        ("db", 2, 2),
        ("agent", 1, 1),
        ("crunch", 2, 2),
    ]


def test_table_groups_pods_by_workload(tmp_path: Path) -> None:
    web = workload(
        "Deployment", "web", {"replicas": 2, "selector": selector("web"), "template": template("web")}
    )
    result = runner.invoke(app, ["simulate", str(write(tmp_path, [node("n1"), web]))])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Workloads (placed / wanted)" in out
    assert re.search(r"Deployment default/web\s+│\s+2 │\s+2 │", out)
    assert len(re.findall(r"│ Deployment default/web\s+│ default/web-", out)) == 2


def test_the_workloads_example_places_everything() -> None:
    example = Path(__file__).resolve().parent.parent.parent / "examples" / "workloads"
    report = simulate_json(example, "--seed", "1")
    assert [(w["kind"], w["name"], w["placed"], w["wanted"]) for w in report["workloads"]] == [
        ("Deployment", "web", 4, 4),
        ("StatefulSet", "db", 3, 3),
        ("DaemonSet", "node-exporter", 3, 3),
        ("Job", "report", 6, 6),
        ("Job", "train", 3, 3),
    ]
    # The report's shards run 600 s in two waves; the last training workers start when the
    # first wave ends and run 900 s.
    assert report["summary"]["simulatedSeconds"] == 1500
    claims = generated(report, "PersistentVolumeClaim")
    assert [c["status"]["phase"] for c in claims] == ["Bound"] * 3


def _train_start_times(report: dict[str, Any]) -> list[str]:
    return sorted(p["status"]["startTime"] for p in generated(report, "Pod")
                  if p["metadata"]["name"].startswith("train-"))


def test_the_workloads_example_gang_starts_whole_with_the_gates_on() -> None:
    example = Path(__file__).resolve().parent.parent.parent / "examples" / "workloads"
    # Gates off: one worker starts at once and idles until the others find room at 600 s.
    plain = simulate_json(example, "--seed", "1")
    assert _train_start_times(plain) == ["2026-01-01T00:00:00Z", "2026-01-01T00:10:00Z",
                                         "2026-01-01T00:10:00Z"]
    gates = "GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true"
    gang = simulate_json(example, "--seed", "1", "--feature-gates", gates)
    # The pod-group cycle holds no room for a gang that does not fit whole: at 600 s the two
    # pending report shards (each fits alone) take the freed room, and the three workers start
    # together when the last shards finish at 1200 s.
    assert _train_start_times(gang) == ["2026-01-01T00:20:00Z"] * 3
    # With WorkloadWithJob every root Job gets a group: the report Job a basic one.
    policies = {pg["spec"]["workloadRef"]["templateName"]: pg["spec"]["schedulingPolicy"]
                for pg in generated(gang, "PodGroup")}
    assert policies == {"train-pgt-0": {"gang": {"minCount": 3}}, "report-pgt-0": {"basic": {}}}


def test_ordered_ready_waits_min_ready_seconds_between_pods(tmp_path: Path) -> None:
    # Each pod is created once its predecessor has been Ready for 30 s: db-1 at +30 s, db-2 at +60 s.
    report = simulate_json(write(tmp_path, [node("n1"), _statefulset(None, 3, minReadySeconds=30)]))
    assert [p["status"] for p in pods_of(report, "StatefulSet default/db")] == ["Scheduled"] * 3
    created = [p["metadata"]["creationTimestamp"] for p in generated(report, "Pod")]
    assert report["startTime"] == "2026-01-01T00:00:00Z"
    assert created == ["2026-01-01T00:00:00Z", "2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"]


def test_replica_set_annotations_and_a_paused_deployment(tmp_path: Path) -> None:
    web = workload(
        "Deployment",
        "web",
        {"replicas": 10, "selector": selector("web"), "template": template("web")},
        annotations={"team": "shop", "kubectl.kubernetes.io/last-applied-configuration": "{}"},
    )
    [rs] = generated(simulate_json(write(tmp_path, [node("n1", cpu="8"), web])), "ReplicaSet")
    # maxSurge 25% of 10, rounded up: 3.
    assert rs["metadata"]["annotations"] == {
        "team": "shop",
        "deployment.kubernetes.io/desired-replicas": "10",
        "deployment.kubernetes.io/max-replicas": "13",
        "deployment.kubernetes.io/revision": "1",
    }
    paused = {**web, "spec": {**web["spec"], "paused": True}}
    assert simulate_json(write(tmp_path, [node("n1"), paused], "paused.yaml"))["generated"] == []


def test_a_dumped_job_adopts_its_pods_by_its_selector(tmp_path: Path) -> None:
    uid = "0b6f1c2e-0000-4000-8000-000000000001"
    job = _job(3, 3, run=None, selector={"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})
    labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "crunch"}
    running = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "crunch-abcde", "namespace": "default", "labels": labels},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]},
    }
    report = simulate_json(write(tmp_path, [node("n1", cpu="8"), job, running]))
    assert len(generated(report, "Pod")) == 2  # the dumped pod counts as one of the three
