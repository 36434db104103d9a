"""Scaling workloads down: which pods the controllers delete, and when, as upstream's do.

Driven through ``replay`` (a trace's ``scale``) and ``simulate`` (surplus pods in the input)."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from controllers._manifests import workload
from kubesched.api import Pod, format_time
from kubesched.api.start import DEFAULT_START
from kubesched.cli import app
from kubesched.cluster import WatchEvent
from kubesched.replay import Replay, read_trace

from ._traces import create, node, write_jsonl

T0 = DEFAULT_START


def template(app_label: str, cpu: str = "100m") -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": app_label}},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
    }


def selector(app_label: str) -> dict[str, Any]:
    return {"matchLabels": {"app": app_label}}


def _replay(
    tmp_path: Path,
    events: list[dict[str, Any]],
    cluster: Sequence[dict[str, Any]] = (),
    uids: dict[str, str] | None = None,
) -> tuple[Replay, list[tuple[float, str, str]]]:
    """Run the trace; return the replay and (time, "terminating" | "gone", pod name) in order
    (``uids``: filled with the pods' uids before the run)."""
    trace = read_trace([write_jsonl(tmp_path / "t.jsonl", events)])
    trace.cluster = [copy.deepcopy(o) for o in cluster]
    rep = Replay(trace)
    if uids is not None:
        uids.update({p.name: p.uid for p in rep.store.list("Pod")})
    log: list[tuple[float, str, str]] = []

    def watch(ev: WatchEvent) -> None:
        if ev.kind != "Pod":
            return
        if ev.new is None and ev.old is not None:
            log.append((rep.clock.now - rep.start, "gone", ev.old.meta.name))
        elif (
            isinstance(ev.new, Pod)
            and ev.new.is_terminating
            and not (ev.old is not None and ev.old.is_terminating)
        ):
            log.append((rep.clock.now - rep.start, "terminating", ev.new.meta.name))

    rep.store.subscribe(watch)
    rep.run()
    return rep, log


def _scale(t: float, kind: str, name: str, replicas: int) -> dict[str, Any]:
    return {"time": t, "op": "scale", "kind": kind, "name": name, "replicas": replicas}


def _bound(
    name: str,
    node_name: str,
    labels: dict[str, str],
    *,
    created: float = T0,
    annotations: dict[str, str] | None = None,
    grace: int = 0,
) -> dict[str, Any]:
    """A pod already running on ``node_name`` (an orphan its controller adopts)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": labels,
            "annotations": annotations or {},
            "creationTimestamp": format_time(created),
        },
        "spec": {
            "nodeName": node_name,
            "terminationGracePeriodSeconds": grace,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
        },
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _names(rep: Replay) -> list[str]:
    return sorted(p.name for p in rep.store.list("Pod") if not p.is_terminating)


# -- ReplicaSet ---------------------------------------------------------------------------------
def test_replica_set_scale_down_deletes_the_lowest_deletion_cost_first(tmp_path: Path) -> None:
    web = {"app": "web"}
    cost = "controller.kubernetes.io/pod-deletion-cost"
    rs = workload(
        "ReplicaSet", "web", {"replicas": 4, "selector": selector("web"), "template": template("web")}
    )
    pods = [
        _bound("a", "n1", web, annotations={cost: "10"}),
        _bound("b", "n1", web, annotations={cost: "-5"}),
        _bound("c", "n1", web),
        _bound("d", "n1", web, annotations={cost: "+7"}),
    ]  # "+7": invalid, 0
    rep, log = _replay(tmp_path, [_scale(10, "ReplicaSet", "web", 2)], [node("n1"), rs, *pods])
    assert _names(rep) == ["a", "c"] or _names(rep) == ["a", "d"]
    assert next(e for e in log if e[1] == "gone") == (10, "gone", "b")
    assert len([e for e in log if e[1] == "gone"]) == 2


def test_replica_set_deletes_unscheduled_pods_before_scheduled_ones(tmp_path: Path) -> None:
    # Room for two 1-cpu pods: the third stays pending and is the one the scale down removes,
    # although it is the newest of the three only by a random name, not by time.
    rs = workload(
        "ReplicaSet", "web", {"replicas": 3, "selector": selector("web"), "template": template("web", "1")}
    )
    events = [create(0, node("n1", cpu="2")), create(0, rs), _scale(10, "ReplicaSet", "web", 2)]
    rep, log = _replay(tmp_path, events)
    left = [p for p in rep.store.list("Pod")]
    assert len(left) == 2 and all(p.node_name == "n1" for p in left)
    [(t, what, _)] = log
    assert (t, what) == (10, "gone")  # unscheduled: removed at once


def test_replica_set_newer_pods_go_first_by_power_of_two_age(tmp_path: Path) -> None:
    # Creation times compared in log2 buckets of age (LogarithmicScaleDown): z (10 s old) is the
    # newest and goes first; x (1010 s old) and y (1000 s) share a bucket, so their uids decide
    # between them (x's is the smaller), not the 10 seconds that make x the older.
    web = {"app": "web"}
    rs = workload(
        "ReplicaSet", "web", {"replicas": 3, "selector": selector("web"), "template": template("web")}
    )
    pods = [
        _bound("x", "n1", web, created=T0 - 1010),
        _bound("y", "n1", web, created=T0 - 1000),
        _bound("z", "n1", web, created=T0 - 10),
    ]
    trace_uids: dict[str, str] = {}
    rep, log = _replay(
        tmp_path, [_scale(0, "ReplicaSet", "web", 1)], [node("n1"), rs, *pods], uids=trace_uids
    )
    assert trace_uids["x"] < trace_uids["y"]
    assert [name for _, _, name in log] == ["z", "x"]
    assert _names(rep) == ["y"]


def test_replica_set_deletes_pods_with_more_restarts_first(tmp_path: Path) -> None:
    # q's container restarted 3 times, r's sidecar twice, p never: q goes, then r.
    web = {"app": "web"}
    rs = workload(
        "ReplicaSet", "web", {"replicas": 3, "selector": selector("web"), "template": template("web")}
    )
    p, q, r = _bound("p", "n1", web), _bound("q", "n1", web), _bound("r", "n1", web)
    q["status"]["containerStatuses"] = [{"name": "c", "restartCount": 3}]
    r["spec"]["initContainers"] = [{"name": "proxy", "restartPolicy": "Always"}]
    r["status"]["initContainerStatuses"] = [{"name": "proxy", "restartCount": 2}]
    rep, log = _replay(tmp_path, [_scale(0, "ReplicaSet", "web", 1)], [node("n1"), rs, p, q, r])
    assert [name for _, _, name in log] == ["q", "r"]
    assert _names(rep) == ["p"]


def test_surplus_pods_in_the_input_are_deleted(tmp_path: Path) -> None:
    web = {"app": "web"}
    rs = workload(
        "ReplicaSet", "web", {"replicas": 1, "selector": selector("web"), "template": template("web")}
    )
    pods = [_bound("old", "n1", web, created=T0 - 3600), _bound("new", "n1", web, created=T0 - 60)]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([node("n1"), rs, *pods], sort_keys=False))
    result = CliRunner().invoke(app, ["simulate", str(path), "-o", "json"])
    assert result.exit_code == 0, result.output
    [status] = json.loads(result.stdout)["workloads"]
    assert status["pods"] == ["default/old"] and status["placed"] == 1


def test_replication_controller_scales_down(tmp_path: Path) -> None:
    rc = workload(
        "ReplicationController", "rc", {"replicas": 3, "selector": {"app": "rc"}, "template": template("rc")}
    )
    rep, log = _replay(
        tmp_path, [create(0, node("n1")), create(0, rc), _scale(5, "ReplicationController", "rc", 1)]
    )
    assert len(_names(rep)) == 1
    assert [(t, w) for t, w, _ in log] == [(5, "terminating"), (5, "terminating"), (35, "gone"), (35, "gone")]


# -- Deployment ---------------------------------------------------------------------------------
def _deployment(replicas: int, **spec: Any) -> dict[str, Any]:
    return workload(
        "Deployment",
        "web",
        {"replicas": replicas, "selector": selector("web"), "template": template("web"), **spec},
    )


def _owned_rs(
    name: str, replicas: int, tmpl: dict[str, Any], h: str, annotations: dict[str, str]
) -> dict[str, Any]:
    t = copy.deepcopy(tmpl)
    t["metadata"]["labels"]["pod-template-hash"] = h
    return workload(
        "ReplicaSet",
        name,
        {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web", "pod-template-hash": h}},
            "template": t,
        },
        labels={"app": "web", "pod-template-hash": h},
        annotations=annotations,
        ownerReferences=[{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "controller": True}],
    )


def test_deployment_scale_down_prefers_pods_doubled_up_on_a_node(tmp_path: Path) -> None:
    # One ReplicaSet; a and b share n1, c (the newest) is alone on n2: the pod deleted is on n1
    # (rank: related active pods on the same node), where creation time alone would pick c.
    dep = _deployment(3)
    rs = _owned_rs(
        "web-1", 3, dep["spec"]["template"], "h1", {"deployment.kubernetes.io/desired-replicas": "3"}
    )
    lab = {"app": "web", "pod-template-hash": "h1"}
    pods = [
        _bound("a", "n1", lab, created=T0 - 5000),
        _bound("b", "n1", lab, created=T0 - 5000),
        _bound("c", "n2", lab, created=T0 - 10),
    ]
    rep, _ = _replay(tmp_path, [_scale(10, "Deployment", "web", 2)], [node("n1"), node("n2"), dep, rs, *pods])
    assert rep.store.get("ReplicaSet", "default", "web-1").replicas == 2
    left = _names(rep)
    assert "c" in left and len(left) == 2


def test_deployment_scales_its_replica_sets_proportionally(tmp_path: Path) -> None:
    # Mid-rollout: new 6, old 4 of 10 (maxSurge 0). Scaling to 5 takes 3 from the new and 2 from
    # the old, as upstream's getReplicaSetFraction rounds 6*5/10 and 4*5/10.
    dep = _deployment(
        10, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    )
    ann = {"deployment.kubernetes.io/desired-replicas": "10", "deployment.kubernetes.io/max-replicas": "10"}
    new = _owned_rs("web-new", 6, dep["spec"]["template"], "new", ann)
    old = _owned_rs("web-old", 4, template("web", "200m"), "old", ann)
    events = [create(0, node("n1", cpu="8")), _scale(10, "Deployment", "web", 5)]
    rep, _ = _replay(tmp_path, events, [dep, new, old])
    store = rep.store
    assert store.get("ReplicaSet", "default", "web-new").replicas == 3
    assert store.get("ReplicaSet", "default", "web-old").replicas == 2
    per_rs: dict[str, int] = {}
    for p in store.list("Pod"):
        if not p.is_terminating:
            ref = p.meta.owner_references[0]["name"]
            per_rs[ref] = per_rs.get(ref, 0) + 1
    assert per_rs == {"web-new": 3, "web-old": 2}
    assert (
        store.get("ReplicaSet", "default", "web-old").meta.annotations[
            "deployment.kubernetes.io/desired-replicas"
        ]
        == "5"
    )


# -- StatefulSet --------------------------------------------------------------------------------
def _stateful(replicas: int, policy: str = "OrderedReady", **spec: Any) -> dict[str, Any]:
    return workload(
        "StatefulSet",
        "db",
        {
            "replicas": replicas,
            "selector": selector("db"),
            "serviceName": "db",
            "podManagementPolicy": policy,
            "template": template("db"),
            **spec,
        },
    )


def test_stateful_set_ordered_ready_deletes_the_highest_ordinal_one_at_a_time(tmp_path: Path) -> None:
    # Grace period 30 s: db-3 goes first, db-2 only once db-3 is gone, then db-1.
    events = [create(0, node("n1")), create(0, _stateful(4)), _scale(100, "StatefulSet", "db", 1)]
    rep, log = _replay(tmp_path, events)
    assert log == [
        (100, "terminating", "db-3"),
        (130, "gone", "db-3"),
        (130, "terminating", "db-2"),
        (160, "gone", "db-2"),
        (160, "terminating", "db-1"),
        (190, "gone", "db-1"),
    ]
    assert _names(rep) == ["db-0"]


def test_stateful_set_ordered_ready_deletes_the_lowest_unhealthy_pod_without_waiting(tmp_path: Path) -> None:
    # db-2 cannot be placed (the node is full) and is the lowest unhealthy condemned pod: it goes
    # at once, then db-1 (Running and Ready) with its 30 s grace period. With db-3 also pending,
    # db-3 (unhealthy, not the first unhealthy) would block the scale down, as upstream's does.
    db = {"app": "db"}
    sts = _stateful(3)
    sts["spec"]["template"] = template("db", "1")
    pods = [_bound("db-0", "n1", db, grace=30), _bound("db-1", "n1", db, grace=30)]
    for p in pods:
        p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    pending = _bound("db-2", "", db)
    del pending["spec"]["nodeName"], pending["status"]
    pending["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    cluster = [node("n1", cpu="2"), sts, *pods, pending]
    rep, log = _replay(tmp_path, [_scale(10, "StatefulSet", "db", 1)], cluster)
    assert log == [(10, "gone", "db-2"), (10, "terminating", "db-1"), (40, "gone", "db-1")]
    blocked = copy.deepcopy(pending)
    blocked["metadata"]["name"] = "db-3"
    (tmp_path / "b").mkdir()
    rep, log = _replay(tmp_path / "b", [_scale(10, "StatefulSet", "db", 1)], [*cluster, blocked])
    assert log == [] and _names(rep) == ["db-0", "db-1", "db-2", "db-3"]


def test_stateful_set_parallel_deletes_all_at_once(tmp_path: Path) -> None:
    events = [create(0, node("n1")), create(0, _stateful(3, "Parallel")), _scale(100, "StatefulSet", "db", 1)]
    _, log = _replay(tmp_path, events)
    assert log == [
        (100, "terminating", "db-2"),
        (100, "terminating", "db-1"),
        (130, "gone", "db-2"),
        (130, "gone", "db-1"),
    ]


def _claims(rep: Replay) -> list[str]:
    return sorted(c.meta.name for c in rep.store.list("PersistentVolumeClaim"))


def _with_claims(policy: dict[str, str] | None) -> dict[str, Any]:
    vct = [
        {
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }
    ]
    extra: dict[str, Any] = {"volumeClaimTemplates": vct}
    if policy:
        extra["persistentVolumeClaimRetentionPolicy"] = policy
    return _stateful(2, "Parallel", **extra)


def test_stateful_set_keeps_claims_on_scale_down_by_default(tmp_path: Path) -> None:
    events = [create(0, node("n1")), create(0, _with_claims(None)), _scale(10, "StatefulSet", "db", 1)]
    rep, _ = _replay(tmp_path, events)
    assert _names(rep) == ["db-0"]
    assert _claims(rep) == ["data-db-0", "data-db-1"]


def test_stateful_set_deletes_claims_when_scaled_with_policy_delete(tmp_path: Path) -> None:
    events = [
        create(0, node("n1")),
        create(0, _with_claims({"whenScaled": "Delete"})),
        _scale(10, "StatefulSet", "db", 1),
    ]
    rep, _ = _replay(tmp_path, events)
    assert _names(rep) == ["db-0"]
    assert _claims(rep) == ["data-db-0"]


# -- Job ----------------------------------------------------------------------------------------
def test_job_parallelism_lowered_deletes_pending_pods_first(tmp_path: Path) -> None:
    # Room for two of three 1-cpu pods; lowering parallelism to 2 removes the pending one,
    # to 1 then one running pod (30 s grace).
    tmpl = template("b", "1")
    tmpl["spec"]["restartPolicy"] = "Never"
    job = workload("Job", "batch", {"parallelism": 3, "completions": 10, "template": tmpl})
    events = [
        create(0, node("n1", cpu="2")),
        create(0, job),
        _scale(10, "Job", "batch", 2),
        _scale(20, "Job", "batch", 1),
    ]
    rep, log = _replay(tmp_path, events)
    assert [(t, w) for t, w, _ in log] == [(10, "gone"), (20, "terminating"), (50, "gone")]
    assert rep.store.get("Job", "default", "batch").parallelism == 1
    left = [p for p in rep.store.list("Pod")]
    assert len(left) == 1 and left[0].node_name == "n1"


def test_indexed_job_deletes_a_repeated_index_keeping_the_older_pod(tmp_path: Path) -> None:
    # Two running pods claim index 0 (adopted through a manual selector): the newer goes; then
    # index 1 gets its pod. Lowering parallelism to 1 removes one of the two left,
    tmpl = template("b")
    tmpl["spec"]["restartPolicy"] = "Never"
    job = workload(
        "Job",
        "b",
        {
            "parallelism": 2,
            "completions": 3,
            "completionMode": "Indexed",
            "manualSelector": True,
            "selector": selector("b"),
            "template": tmpl,
        },
    )
    index0 = {"batch.kubernetes.io/job-completion-index": "0"}
    older = _bound("b-0-old", "n1", {"app": "b"}, created=T0 - 600, annotations=index0)
    newer = _bound("b-0-new", "n1", {"app": "b"}, created=T0 - 60, annotations=index0)
    rep, log = _replay(tmp_path, [_scale(5, "Job", "b", 1)], [node("n1"), job, older, newer])
    # then b-0-old goes before b-1-*: its Ready condition has no transition time (the zero
    # time: "ready for empty time" first), b-1-*'s became Ready when bound
    assert log == [(0, "gone", "b-0-new"), (5, "gone", "b-0-old")]
    [left] = _names(rep)
    assert left.startswith("b-1-")
