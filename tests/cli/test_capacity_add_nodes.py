"""``kubesched capacity --add-nodes``: the fewest template nodes that let every pending pod
schedule, checked by hand and against a brute force over every count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kubesched.api import Node
from kubesched.api.loader import LoadedObjects, parse_object
from kubesched.cli import app
from kubesched.simulator import PREEMPTED, SCHEDULED, SCHEDULER_ERROR, UNSCHEDULABLE, Simulator
from kubesched.simulator.capacity import node_copies, nodes_to_add

from .test_capacity import EXAMPLES, node, pod, write

runner = CliRunner()


def add_nodes(*args: str) -> Any:
    return runner.invoke(app, ["capacity", *args])


def add_nodes_json(*args: str) -> dict[str, Any]:
    result = add_nodes(*args, "-o", "json")
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def template(name: str = "new", cpu: str = "2", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return node(name, cpu, labels=labels)


def test_full_cluster_needs_nodes_for_the_pending_pods(tmp_path: Path) -> None:
    # Two full 2-cpu nodes, five pending 1-cpu pods; a new 2-cpu node holds two: ceil(5/2) = 3.
    objs = [node("n1", "2"), node("n2", "2"), pod("busy-1", "2", "n1"), pod("busy-2", "2", "n2"),
            *(pod(f"p{i}", "1") for i in range(5))]
    cluster = write(tmp_path, "c.yaml", objs)
    tmpl = write(tmp_path, "t.yaml", [template()])
    assert add_nodes_json(cluster, "--add-nodes", tmpl) == {"nodesToAdd": 3, "reasons": {}}
    result = add_nodes(cluster, "--add-nodes", tmpl)
    assert "Add 3 nodes like new (new-1, new-2, new-3) so that every pending pod schedules." in result.stdout


def test_nothing_pending_needs_no_node(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "2"), pod("p", "1")])
    tmpl = write(tmp_path, "t.yaml", [template()])
    assert add_nodes_json(cluster, "--add-nodes", tmpl) == {"nodesToAdd": 0, "reasons": {}}


def test_no_number_is_enough_when_the_template_cannot_take_the_pod(tmp_path: Path) -> None:
    # The pod wants disk=ssd; the template has no such label. U = 1 pending pod -> 1 new node.
    cluster = write(tmp_path, "c.yaml", [node("n1", "2"), pod("p", "1", nodeSelector={"disk": "ssd"})])
    tmpl = write(tmp_path, "t.yaml", [template()])
    assert add_nodes_json(cluster, "--add-nodes", tmpl) == {
        "nodesToAdd": None, "reasons": {"node(s) didn't match Pod's node affinity/selector": 2}}
    result = add_nodes(cluster, "--add-nodes", tmpl)
    assert "No number of nodes like new is enough: with 1 added, default/p still fails: " \
           "node(s) didn't match Pod's node affinity/selector (2 nodes)" in result.stdout


def test_generated_nodes_are_named_after_the_template_with_their_hostname() -> None:
    tmpl = parse_object(template("pool", labels={"kubernetes.io/hostname": "pool", "zone": "a"}))
    assert isinstance(tmpl, Node)
    made = node_copies(tmpl, 2)
    assert [n.name for n in made] == ["pool-1", "pool-2"]
    assert [n.labels for n in made] == [{"kubernetes.io/hostname": "pool-1", "zone": "a"},
                                        {"kubernetes.io/hostname": "pool-2", "zone": "a"}]


def test_bad_templates_exit_2_naming_the_file(tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", [node("n1", "2"), node("new-1", "2")])
    for name, objs, message in [
        ("pod.yaml", [pod("p")], "pod.yaml: a node template must hold exactly one Node (found Pod 1)"),
        ("two.yaml", [template("a"), template("b")], "two.yaml: a node template must hold exactly one Node"),
        ("clash.yaml", [template()], "the new node new-1 would clash with a node of the input"),
    ]:
        result = add_nodes(cluster, "--add-nodes", write(tmp_path, name, objs))
        assert result.exit_code == 2, result.output
        assert message in result.output
    missing = add_nodes(cluster, "--add-nodes", str(tmp_path / "absent.yaml"))
    assert missing.exit_code == 2 and "absent.yaml" in missing.output


# -- against a brute force ---------------------------------------------------------------------
def _loaded(existing_free: list[int], pending: list[int]) -> LoadedObjects:
    """Nodes of 4 cpu with ``4 - free`` cpu bound on each, and pending pods of the given
    millicores."""
    objs: list[Any] = []
    for i, free in enumerate(existing_free):
        objs.append(parse_object(node(f"n{i}", "4")))
        if free < 4000:
            objs.append(parse_object(pod(f"busy-{i}", f"{4000 - free}m", f"n{i}")))
    objs += [parse_object(pod(f"p{i}", f"{m}m")) for i, m in enumerate(pending)]
    return LoadedObjects(objects=objs)


def _all_placed(loaded: LoadedObjects, tmpl: Node, n: int) -> bool:
    extra = node_copies(tmpl, n)
    sim = Simulator(LoadedObjects(objects=[*loaded.objects, *extra])).run()
    return all(p.status == SCHEDULED for p in sim.pods if p.pod.startswith("default/p"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(free=st.lists(st.sampled_from([0, 500, 1000, 2500]), min_size=1, max_size=3),
       pending=st.lists(st.sampled_from([300, 1000, 1700, 2600]), min_size=1, max_size=6),
       tmpl_cpu=st.sampled_from(["2", "3"]))
def test_search_agrees_with_brute_force(free: list[int], pending: list[int], tmpl_cpu: str) -> None:
    loaded = _loaded(free, pending)
    tmpl = parse_object(template("t", tmpl_cpu))
    assert isinstance(tmpl, Node)
    found = nodes_to_add(loaded, tmpl)
    limit = len(pending)
    brute = next((n for n in range(limit + 1) if _all_placed(loaded, tmpl, n)), None)
    assert found.nodes_to_add == brute, found.tried
    assert found.lower <= (brute if brute is not None else found.upper) <= found.upper or brute == 0


def test_a_good_first_guess_takes_three_simulations() -> None:
    # Ten full nodes (1 cpu free each: too little), ten pending 1500m pods; a 4-cpu template
    # holds two: the binpacking guess is 5, 5 suffices and 4 does not.
    loaded = _loaded([1000] * 10, [1500] * 10)
    tmpl = parse_object(template("t", "4"))
    assert isinstance(tmpl, Node)
    found = nodes_to_add(loaded, tmpl)
    assert found.nodes_to_add == 5
    assert found.tried == [(0, False), (5, True), (4, False)]
    # L: 10 x 3000m bound + 10 x 1500m pending - 10 x 4000m = 5000m short -> 2 nodes; U: 10 pods.
    assert (found.lower, found.upper) == (2, 10)


def _deployment(name: str, replicas: int, cpu: str, anti: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    if anti:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": name}}, "topologyKey": "kubernetes.io/hostname"}]}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def _daemonset(cpu: str) -> dict[str, Any]:
    spec = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    meta = {"name": "agent", "namespace": "default"}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": {"metadata": {"labels": {"app": "agent"}}, "spec": spec}}}


@pytest.mark.parametrize(("objs", "expected"), [
    # One replica per node (anti-affinity), 3 nodes: 5 replicas need 2 more nodes.
    pytest.param([node(f"n{i}", "4") for i in range(3)] + [_deployment("web", 5, "100m", anti=True)], 2,
                 id="anti-affinity-one-per-node"),
    # A 1-cpu DaemonSet pod on every node, new ones too: a new 2-cpu node holds one 1-cpu replica.
    pytest.param([node("n0", "2"), _daemonset("1"), _deployment("web", 4, "1")], 3,
                 id="daemonset-takes-room-on-new-nodes"),
    # The workload's pods never fit a template node: no number is enough.
    pytest.param([node("n0", "4"), _deployment("big", 2, "3")], None, id="too-big-for-the-template"),
])
def test_workloads_against_brute_force(objs: list[dict[str, Any]], expected: int | None) -> None:
    loaded = LoadedObjects(objects=[parse_object(o) for o in objs])
    tmpl = parse_object(template("t", "2"))
    assert isinstance(tmpl, Node)
    found = nodes_to_add(loaded, tmpl)
    assert found.nodes_to_add == expected, found.tried

    def ok(n: int) -> bool:
        sim = Simulator(LoadedObjects(objects=[*loaded.objects, *node_copies(tmpl, n)])).run()
        return not [p for p in sim.pods if p.status not in (SCHEDULED, "Bound")]

    brute = next((n for n in range(found.upper + 1) if ok(n)), None)
    assert brute == expected


def _job(parallelism: int, completions: int, cpu: str, seconds: int) -> dict[str, Any]:
    spec = {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "batch", "namespace": "default"},
            "spec": {"parallelism": parallelism, "completions": completions, "template": {
                "metadata": {"annotations": {"kubesched.io/run-seconds": str(seconds)}}, "spec": spec}}}


def _suffices(loaded: LoadedObjects, tmpl: Node, n: int) -> bool:
    """The simulation's own success: no pod left failing, none preempted."""
    sim = Simulator(LoadedObjects(objects=[*loaded.objects, *node_copies(tmpl, n)])).run()
    return not [p for p in sim.pods if p.status in (UNSCHEDULABLE, SCHEDULER_ERROR, PREEMPTED)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.lists(st.sampled_from(["2", "4"]), min_size=1, max_size=2),
       replicas=st.integers(0, 4), web_cpu=st.sampled_from(["500m", "1", "1500m"]),
       job=st.tuples(st.integers(1, 4), st.integers(0, 3), st.sampled_from(["700m", "1", "2"]),
                     st.sampled_from([60, 600])),
       agent_cpu=st.sampled_from([None, "100m", "500m"]), tmpl_cpu=st.sampled_from(["2", "3", "4"]))
def test_workloads_with_jobs_agree_with_brute_force(
        nodes: list[str], replicas: int, web_cpu: str, job: tuple[int, int, str, int],
        agent_cpu: str | None, tmpl_cpu: str) -> None:
    # Jobs whose pods finish (so they may run one after another), Deployments whose pods stay
    # and a DaemonSet whose pods land on the new nodes too: the answer is the first count of
    # new nodes that suffices, counting 0, 1, 2, ...
    parallelism, more, job_cpu, seconds = job
    objs = [node(f"n{i}", cpu) for i, cpu in enumerate(nodes)]
    objs += [_deployment("web", replicas, web_cpu), _job(parallelism, parallelism + more, job_cpu, seconds)]
    if agent_cpu is not None:
        objs.append(_daemonset(agent_cpu))
    loaded = LoadedObjects(objects=[parse_object(o) for o in objs])
    tmpl = parse_object(template("t", tmpl_cpu))
    assert isinstance(tmpl, Node)
    found = nodes_to_add(loaded, tmpl)
    # Every pod on its own new node is more than enough when any count is.
    brute = next((n for n in range(replicas + parallelism + 2) if _suffices(loaded, tmpl, n)), None)
    assert found.nodes_to_add == brute, found.tried
    if brute:
        assert found.lower <= brute <= found.upper, (found.lower, found.upper)


def test_job_pods_that_run_one_after_another_need_no_room_at_once() -> None:
    # One full 2-cpu node; a Job of four 2-cpu pods, all wanted at once, each running a minute.
    # One 2-cpu node runs them one after another: the lower bound must not ask for four.
    objs = [node("n0", "2"), pod("busy", "2", "n0"), _job(4, 4, "2", 60)]
    loaded = LoadedObjects(objects=[parse_object(o) for o in objs])
    tmpl = parse_object(template("t", "2"))
    assert isinstance(tmpl, Node)
    found = nodes_to_add(loaded, tmpl)
    assert found.nodes_to_add == 1, found.tried
    assert found.lower == 1


def test_readme_example_needs_two_nodes() -> None:
    # docs/commands/capacity.md's example: two new nodes suffice (the report Job's shards run
    # in turn), one does not.
    result = add_nodes(str(EXAMPLES), str(EXAMPLES.parent / "capacity" / "api.yaml"),
                       "--add-nodes", str(EXAMPLES.parent / "capacity" / "worker-template.yaml"))
    assert result.exit_code == 0, result.output
    assert "Add 2 nodes like worker-c (worker-c-1, worker-c-2) so that every pending pod schedules." \
        in result.stdout
    assert "1 not enough" in result.stdout
