"""``kubesched capacity --add-nodes``: the fewest template nodes that let every pending pod
schedule, checked by hand and against a brute force over every count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kubesched.api import Node
from kubesched.api.loader import LoadedObjects, parse_object
from kubesched.cli import app
from kubesched.cli._capacity_nodes import node_copies, nodes_to_add
from kubesched.cli._simulation import SCHEDULED, Simulator

from .test_capacity import node, pod, write

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
