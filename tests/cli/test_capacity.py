"""``kubesched capacity --pod / --workload``: how many copies fit, checked by hand on small
clusters, through the CLI (and the copies a workload's controller would make, through the
library)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api.loader import load_paths
from kubesched.cli import app
from kubesched.simulator import Simulator
from kubesched.simulator.capacity import resolve_workload, workload_copies

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workloads"


def node(name: str, cpu: str = "1", pods: str = "110", labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    res = {"cpu": cpu, "memory": "8Gi", "pods": pods}
    meta = {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}}
    d: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": meta,
                         "status": {"allocatable": res, "capacity": res}}
    if taints:
        d["spec"] = {"taints": taints}
    return d


def pod(name: str, cpu: str = "300m", node_name: str = "", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}], **spec}
    if node_name:
        body["nodeName"] = node_name
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def write(tmp_path: Path, name: str, objs: list[dict[str, Any]]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def capacity(*args: str) -> Any:
    return runner.invoke(app, ["capacity", *args])


def capacity_json(*args: str) -> dict[str, Any]:
    result = capacity(*args, "-o", "json")
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


@pytest.fixture
def two_nodes(tmp_path: Path) -> tuple[str, str]:
    cluster = write(tmp_path, "cluster.yaml", [node("n1", "1"), node("n2", "2")])
    return cluster, write(tmp_path, "pod.yaml", [pod("small")])


def test_copies_fill_each_node_until_cpu_runs_out(two_nodes: tuple[str, str]) -> None:
    # 300m copies: n1 holds floor(1000/300) = 3, n2 floor(2000/300) = 6; the tenth fits nowhere.
    cluster, small = two_nodes
    assert capacity_json(cluster, "--pod", small) == {
        "fits": 9, "placements": {"n1": 3, "n2": 6}, "reasons": {"Insufficient cpu": 2}}


def test_table_summarises_reasons_with_node_counts(tmp_path: Path) -> None:
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    cluster = write(tmp_path, "c.yaml", [node("n1", "1"), node("n2", "2"), node("n3", "8", taints=[taint])])
    small = write(tmp_path, "p.yaml", [pod("small")])
    result = capacity(cluster, "--pod", small)
    assert result.exit_code == 0, result.output
    assert "9 copies fit." in result.stdout
    assert "The next copy fails: Insufficient cpu (2 nodes), node(s) had untolerated taint(s) (1 node)" \
        in result.stdout
    assert capacity_json(cluster, "--pod", small)["reasons"] == {
        "Insufficient cpu": 2, "node(s) had untolerated taint(s)": 1}


def test_bound_and_pending_pods_of_the_input_count_first(tmp_path: Path) -> None:
    # n2 runs a 500m pod. The pending 1-cpu pod is scheduled first: LeastAllocated leaves n1
    # (1000 - 1000) / 1000 = 0% free and n2 (2000 - 1500) / 2000 = 25% free, so it goes to n2.
    # Then n1 holds 1000 / 300 = 3 copies and n2 500 / 300 = 1.
    cluster = write(tmp_path, "c.yaml", [node("n1", "1"), node("n2", "2"), pod("running", "500m", "n2"),
                                         pod("pending", "1")])
    small = write(tmp_path, "p.yaml", [pod("small")])
    assert capacity_json(cluster, "--pod", small) == {
        "fits": 4, "placements": {"n1": 3, "n2": 1}, "reasons": {"Insufficient cpu": 2}}


def test_max_stops_early_without_reasons(two_nodes: tuple[str, str]) -> None:
    cluster, small = two_nodes
    out = capacity_json(cluster, "--pod", small, "--max", "4")
    assert out["fits"] == 4 and sum(out["placements"].values()) == 4 and out["reasons"] == {}
    result = capacity(cluster, "--pod", small, "--max", "4")
    assert "Stopped: the limit of 4 copies was reached." in result.stdout


MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
"""


def test_copies_use_the_profile_from_config(tmp_path: Path) -> None:
    # Two equal nodes: LeastAllocated (the default) alternates, MostAllocated piles the copies
    # on whichever node got the first one.
    cluster = write(tmp_path, "c.yaml", [node("n1", "4"), node("n2", "4")])
    small = write(tmp_path, "p.yaml", [pod("small")])
    config = tmp_path / "most.yaml"
    config.write_text(MOST_ALLOCATED)
    spread = capacity_json(cluster, "--pod", small, "--max", "4")
    assert spread["placements"] == {"n1": 2, "n2": 2}
    packed = capacity_json(cluster, "--pod", small, "--max", "4", "--config", str(config))
    assert sorted(packed["placements"].values()) == [4]


def test_pod_count_limits_copies(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "8", pods="2"), node("n2", "8", pods="3")])
    small = write(tmp_path, "p.yaml", [pod("small")])
    assert capacity_json(cluster, "--pod", small) == {
        "fits": 5, "placements": {"n1": 2, "n2": 3}, "reasons": {"Too many pods": 2}}


def test_copies_see_each_other_through_anti_affinity(tmp_path: Path) -> None:
    # Required anti-affinity to its own label: one copy per node.
    cluster = write(tmp_path, "c.yaml", [node(f"n{i}", "4") for i in range(3)])
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "solo"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    p = pod("solo", affinity=anti)
    p["metadata"]["labels"] = {"app": "solo"}
    small = write(tmp_path, "p.yaml", [p])
    assert capacity_json(cluster, "--pod", small) == {
        "fits": 3, "placements": {"n0": 1, "n1": 1, "n2": 1},
        "reasons": {"node(s) didn't match pod anti-affinity rules": 3}}


def test_no_node_fits_even_one_copy(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "1")])
    big = write(tmp_path, "p.yaml", [pod("big", "2")])
    assert capacity_json(cluster, "--pod", big) == {
        "fits": 0, "placements": {}, "reasons": {"Insufficient cpu": 1}}


# -- workloads -------------------------------------------------------------------------------
def _deployment(replicas: int, anti: bool = True) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}]}
    if anti:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    meta = {"name": "web", "namespace": "default"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec}}}


def test_workload_replicas_count_after_its_own(tmp_path: Path) -> None:
    # 5 nodes, 3 replicas placed first (one per node), so 2 more fit, one per free node.
    cluster = write(tmp_path, "c.yaml", [*(node(f"n{i}", "4") for i in range(5)), _deployment(3)])
    out = capacity_json(cluster, "--workload", "Deployment/default/web")
    assert out["fits"] == 2 and sum(out["placements"].values()) == 2
    assert out["reasons"] == {"node(s) didn't match pod anti-affinity rules": 5}


def test_workload_copies_are_the_controllers_pods(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", [node("n1", "4"), _deployment(1, anti=False)])
    sim = Simulator(load_paths([path]))
    sim.settle()
    [rs] = sim.store.list("ReplicaSet")
    web = resolve_workload(sim.store, "deployment/default/web")
    copies = workload_copies(sim.store, web, random.Random(0))
    first, second = next(copies), next(copies)
    for p in (first, second):
        assert p.name.startswith(f"{rs.name}-") and len(p.name) == len(rs.name) + 6
        assert p.labels == {"app": "web", "pod-template-hash": rs.name.rsplit("-", 1)[1]}
        [ref] = p.meta.owner_references
        assert (ref["kind"], ref["name"], ref["controller"]) == ("ReplicaSet", rs.name, True)
        assert not p.node_name
    assert first.uid != second.uid and first.name != second.name
    assert len(sim.store.list("Pod")) == 1  # copies are never written to the store


def test_statefulset_copies_take_the_next_ordinals_and_their_claims() -> None:
    sim = Simulator(load_paths([str(EXAMPLES)]))
    sim.settle()
    db = resolve_workload(sim.store, "StatefulSet/default/db")
    copies = workload_copies(sim.store, db, random.Random(0))
    names = [next(copies).name for _ in range(3)]
    assert names == ["db-3", "db-4", "db-5"]
    claims = {c.name for c in sim.store.list("PersistentVolumeClaim")}
    assert {"data-db-3", "data-db-4", "data-db-5"} <= claims


def test_indexed_job_copies_take_the_next_indexes() -> None:
    # report is an Indexed Job of 6 completions: its copies are indexes 6, 7, ... with the
    # Job controller's labels, annotation and hostname.
    sim = Simulator(load_paths([str(EXAMPLES)]))
    sim.settle()
    report = resolve_workload(sim.store, "Job/default/report")
    copies = workload_copies(sim.store, report, random.Random(0))
    for index in (6, 7):
        p = next(copies)
        assert p.name.startswith(f"report-{index}-")
        assert p.labels["batch.kubernetes.io/job-completion-index"] == str(index)
        assert p.labels["batch.kubernetes.io/job-name"] == "report"
        assert p.raw["spec"]["hostname"] == f"report-{index}"
        [ref] = p.meta.owner_references
        assert (ref["kind"], ref["name"]) == ("Job", "report")


def test_examples_workloads_answers() -> None:
    out = capacity_json(str(EXAMPLES), "--workload", "StatefulSet/default/db")
    # db's anti-affinity: every worker already runs a db pod; the control plane is tainted.
    assert out == {"fits": 0, "placements": {},
                   "reasons": {"node(s) didn't match pod anti-affinity rules": 3,
                               "node(s) had untolerated taint(s)": 1}}


# -- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize(("ref", "message"), [
    ("Deployment/default/nope", "no Deployment default/nope in the input"),
    ("Widget/default/web", "unknown kind 'Widget'"),
    ("web", "expected KIND/NAMESPACE/NAME"),
    ("DaemonSet/default/web", "a DaemonSet runs one pod per node"),
])
def test_bad_workload_exits_2_naming_it(tmp_path: Path, ref: str, message: str) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "4"), _deployment(1)])
    result = capacity(cluster, "--workload", ref)
    assert result.exit_code == 2
    assert message in result.output and ref in result.output


def test_pod_file_must_hold_one_pod(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "4")])
    wrong = write(tmp_path, "wrong.yaml", [node("n2", "4")])
    result = capacity(cluster, "--pod", wrong)
    assert result.exit_code == 2
    assert "wrong.yaml: --pod must hold exactly one Pod (found Node 1)" in result.output


def test_exactly_one_question(two_nodes: tuple[str, str]) -> None:
    cluster, small = two_nodes
    for args in ([], ["--pod", small, "--workload", "Deployment/default/web"]):
        result = capacity(cluster, *args)
        assert result.exit_code == 2 and "give exactly one of" in result.output


def test_unknown_priority_class_is_refused(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "4")])
    p = pod("small", priorityClassName="gold")
    result = capacity(cluster, "--pod", write(tmp_path, "p.yaml", [p]))
    assert result.exit_code == 2 and "no PriorityClass with name gold" in result.output


def test_a_scheduler_name_no_profile_serves_is_refused(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "4")])
    p = pod("small", schedulerName="other-scheduler")
    result = capacity(cluster, "--pod", write(tmp_path, "p.yaml", [p]))
    assert result.exit_code == 2
    assert "pod default/small-0: no profile of the configuration serves schedulerName 'other-scheduler'" \
        in result.output


def test_a_cluster_without_nodes_fits_nothing(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [pod("running", "1")])
    small = write(tmp_path, "p.yaml", [pod("small")])
    assert capacity_json(cluster, "--pod", small) == {"fits": 0, "placements": {}, "reasons": {}}
    result = capacity(cluster, "--pod", small)
    assert "0 copies fit." in result.stdout
    assert "The next copy fails: no nodes available to schedule pods" in result.stdout
