"""What-if: manifests typed in the page on top of the inputs, simulated and compared."""

from __future__ import annotations

import pytest

from kubesched.ui import WHATIF_SOURCE, InputProblems, diff_placements, overlay, parse_manifests, run_whatif

from ._fixtures import WEIGHTS, load, pod


@pytest.fixture(scope="module")
def base():  # type: ignore[no-untyped-def]
    return load(WEIGHTS)


def test_added_pod_is_simulated_and_listed(base) -> None:  # type: ignore[no-untyped-def]
    w = run_whatif(base, pod("extra", "200m"))
    assert w.added == ["Pod default/extra"] and w.replaced == []
    changes = {c.pod: c for c in w.changes}
    assert set(changes) == {"default/extra"}
    assert changes["default/extra"].change == "added"
    assert changes["default/extra"].after is not None and changes["default/extra"].after.node
    d = w.to_dict()
    assert d["pending"] == {"before": 0, "after": 0}
    assert d["scheduled"] == {"before": 1, "after": 2}
    assert d["pods"] == 3


def test_an_object_of_the_same_name_replaces_the_inputs(base) -> None:  # type: ignore[no-untyped-def]
    # web asks for more cpu than either node has left: it is left pending.
    w = run_whatif(base, pod("web", "4100m"))
    assert w.replaced == ["Pod default/web"] and w.added == []
    (change,) = w.changes
    assert (change.pod, change.change) == ("default/web", "unplaced")
    assert change.after is not None and "Insufficient cpu" in change.after.message
    assert w.to_dict()["pending"] == {"before": 0, "after": 1}


def test_adding_a_node_moves_nothing_that_already_fits_but_counts(base) -> None:  # type: ignore[no-untyped-def]
    node = """apiVersion: v1
kind: Node
metadata:
  name: node-c
status:
  allocatable: {cpu: '1', memory: 1Gi, pods: '10'}
"""
    w = run_whatif(base, node + "---\n" + pod("big", "2"))
    assert w.added == ["Node node-c", "Pod default/big"]
    assert any(p.pod == "default/big" and p.node for p in w.after.pods)


def test_empty_text_changes_nothing(base) -> None:  # type: ignore[no-untyped-def]
    w = run_whatif(base, "  \n")
    assert w.changes == [] and w.added == [] and w.replaced == []


def _problems(base, text: str):  # type: ignore[no-untyped-def]
    with pytest.raises(InputProblems) as err:
        run_whatif(base, text)
    return err.value


def test_malformed_yaml_is_one_problem_on_its_line(base) -> None:  # type: ignore[no-untyped-def]
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n  labels: {}\n"
    e = _problems(base, text)
    (p,) = e.problems
    assert p.message.startswith(f"{WHATIF_SOURCE}: malformed YAML")
    assert p.line == 5  # where the parser gave up on the flow sequence opened on line 4
    assert e.to_dict()["what"] == "manifests"


def test_an_invalid_object_is_placed_on_its_documents_line(base) -> None:  # type: ignore[no-untyped-def]
    text = pod("ok") + "---\n" + pod("bad", "lots")
    (p,) = _problems(base, text).problems
    assert p.line == 12  # the second document starts after the first's 11 lines and the '---'
    assert p.object == "Pod bad"
    assert f"{WHATIF_SOURCE}: document 2 (Pod bad): spec.containers[0].resources.requests.cpu" in p.message


def test_an_object_admission_refuses_is_placed_on_its_line(base) -> None:  # type: ignore[no-untyped-def]
    text = pod("ok") + "---\n" + pod("orphan", extra="\n  priorityClassName: nope")
    (p,) = _problems(base, text).problems
    assert p.line == 12 and p.object == "Pod default/orphan"
    assert "no PriorityClass with name nope was found" in p.message


def test_an_item_of_a_list_is_placed_on_its_own_line(base) -> None:  # type: ignore[no-untyped-def]
    text = ("apiVersion: v1\nkind: List\nitems:\n"
            "- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c}]}}\n"
            "- {apiVersion: v1, kind: Pod, metadata: {name: b}}\n")
    (p,) = _problems(base, text).problems
    assert p.line == 5 and "document 1, item 2" in p.message


def test_a_duplicate_in_the_text_names_both_places(base) -> None:  # type: ignore[no-untyped-def]
    (p,) = _problems(base, pod("twice") + "---\n" + pod("twice")).problems
    assert "duplicate object" in p.message and p.line == 12


def test_overlay_keeps_the_inputs_order_and_origins(base) -> None:  # type: ignore[no-untyped-def]
    added = parse_manifests(pod("web", "1") + "---\n" + pod("new"))
    loaded, new, replaced = overlay(base, added)
    names = [o.meta.name for o in loaded.objects]
    assert names == [o.meta.name for o in base.objects] + ["new"]
    assert (new, replaced) == (["Pod default/new"], ["Pod default/web"])
    web = next(o for o in loaded.objects if o.meta.name == "web")
    assert loaded.origin_of(web) == f"{WHATIF_SOURCE}: document 1"


def test_diff_placements_of_identical_runs_is_empty(base) -> None:  # type: ignore[no-untyped-def]
    w = run_whatif(base, "")
    assert diff_placements(w.before.pods, w.after.pods) == []
