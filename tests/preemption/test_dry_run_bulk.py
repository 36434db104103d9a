"""The dry run deciding runs of nodes at once (``DecidedNodes``) and remembering the nodes
without victims per pod shape across preemptions (``KnownAnswers``).

The reference is the per-node Evaluator loop over the generic SelectVictimsOnNode: the same
candidates (nodes, victims, in order) and the same statuses for the nodes it visited, after
any changes to pods, nodes and nominations between two preemptions of the same shape."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.framework import Code, NodeBatch, NodeToStatus
from kubesched.framework.preemption import DecidedNodes
from kubesched.testing.wrappers import make_node, make_pod

from ._sim import Sim

PLUGINS = ("PrioritySort", "NodeUnschedulable", "TaintToleration", "NodeResourcesFit",
           "DefaultPreemption", "DefaultBinder")


class _Generic:
    """The plugin without its dry-run hook: the Evaluator's per-node loop on node copies."""

    def __init__(self, plugin: Any) -> None:
        self._plugin = plugin

    def select_victims_on_node(self, *args: Any) -> Any:
        return self._plugin.select_victims_on_node(*args)


def dry_run(s: Sim, pod: Pod, generic: bool, num_candidates: int) -> tuple[list[Any], dict[str, Any]]:
    """One preemption's dry run after the batch Filter pass: (candidates, statuses)."""
    fwk, state, snap = s.pre_filtered(pod)
    out = fwk.run_filter_plugins_batch_with_nominated_pods(state, pod, NodeBatch.all(snap))
    m = NodeToStatus()
    for row, ni in enumerate(snap.node_info_list):
        st_ = out.status(row)
        if not st_.is_success():
            m.set(ni.name, st_)
    potential = [ni for ni in snap.node_info_list if m.get(ni.name).code == Code.UNSCHEDULABLE]
    plugin = s.plugin
    ev = plugin.evaluator
    if generic:
        saved = ev.interface
        ev.interface = _Generic(plugin)
        try:
            cands, statuses, _ = ev.dry_run_preemption(state, pod, potential, [], 1, num_candidates, m)
        finally:
            ev.interface = saved
    else:
        cands, statuses, _ = ev.dry_run_preemption(state, pod, potential, [], 1, num_candidates, m)
    got = [(c.name, [p.uid for p in c.victims.pods], c.victims.num_pdb_violations) for c in cands]
    return got, {name: (int(st_.code), st_.reasons, st_.plugin) for name, st_ in statuses.items()}


node_spec = st.tuples(st.sampled_from([2, 4]), st.integers(0, 3), st.booleans())
change_spec = st.tuples(st.integers(0, 3), st.integers(0, 9), st.integers(0, 12))


def build(nodes: list[tuple[int, int, bool]]) -> Sim:
    s = Sim(plugins=PLUGINS)
    for i, (cpu, low, high) in enumerate(nodes):
        s.store.create(make_node().name(f"n{i}").capacity({"cpu": str(cpu), "memory": "8Gi",
                                                           "pods": "110"}).obj())
        for j in range(low):
            s.pod(f"low{i}-{j}", cpu="1", priority=j, node=f"n{i}", start=float(i + j), grace=0)
        if high:
            s.pod(f"high{i}", cpu="1", priority=50, node=f"n{i}", grace=0)
    return s


def change(s: Sim, op: tuple[int, int, int], k: int, n: int) -> None:
    """0: a nominated pod on a node; 1: delete a node's first pod; 2: a new low pod; 3: a new
    high pod (each on node ``op[1] % n``)."""
    kind, node, prio = op
    name = f"n{node % n}"
    if kind == 0:
        s.store.create(make_pod().name(f"nom{k}").priority(prio + 5).req({"cpu": "1"})
                       .nominated_node_name(name).obj())
    elif kind == 1:
        on = [p for p in s.store.list("Pod") if p.node_name == name]
        if on:
            s.store.delete("Pod", on[0].namespace, on[0].name, 0)
    else:  # every other new pod not started: victim order then depends on the clock
        s.pod(f"new{k}", cpu="1", priority=prio if kind == 2 else 60, node=name,
              start=float(k) if k % 2 else None, grace=0)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(st.lists(node_spec, min_size=1, max_size=10), st.lists(change_spec, max_size=6),
       st.integers(1, 4), st.integers(1, 3))
def test_bulk_and_known_answers_equal_the_per_node_loop(
        nodes: list[tuple[int, int, bool]], changes: list[tuple[int, int, int]], num_candidates: int,
        cpu: int) -> None:
    s = build(nodes)

    def pod(name: str) -> Pod:  # same shape each time: the known failures apply
        return make_pod().name(name).uid(name).priority(10).req({"cpu": str(cpu)}).obj()

    first = pod("first")
    assert dry_run(s, first, False, num_candidates) == dry_run(s, first, True, num_candidates)
    for k, op in enumerate(changes):
        change(s, op, k, len(nodes))
    s.clock.advance(7.0)
    second = pod("second")
    assert dry_run(s, second, False, num_candidates) == dry_run(s, second, True, num_candidates)


def test_known_answers_are_reused_and_forgotten_when_a_node_changes() -> None:
    s = build([(2, 0, True)] * 3 + [(4, 3, False)])  # n0-n2: no victims; n3: victims
    first = make_pod().name("a").uid("a").priority(10).req({"cpu": "2"}).obj()
    got, statuses = dry_run(s, first, False, 3)
    assert [name for name, _, _ in got] == ["n3"] and set(statuses) == {"n0", "n1", "n2"}
    shape = next(iter(s.plugin._known_answers._shapes.values()))
    rows = s.scheduler.snapshot.node_index
    assert all(shape.generation[rows[f"n{i}"]] >= 0 for i in range(3))
    # n1 gets a low-priority pod it could now evict: its kept failure no longer holds.
    s.store.delete("Pod", "default", "high1", 0)
    s.pod("low-new", cpu="1", priority=0, node="n1", grace=0)
    second = make_pod().name("b").uid("b").priority(10).req({"cpu": "2"}).obj()
    assert dry_run(s, second, False, 3) == dry_run(s, second, True, 3)
    got, _ = dry_run(s, second, False, 3)
    assert sorted(name for name, _, _ in got) == ["n1", "n3"]
    # The kept victims of n3 are read again, n1's were decided anew and kept.
    assert set(shape.victims) == {rows["n1"], rows["n3"]} and not shape.failed[rows["n1"]]


def test_decided_nodes_record_only_up_to_the_stop() -> None:
    import numpy as np

    ok = NodeToStatus()
    failed = np.array([True, False, True, True])
    names = np.array(["a", "b", "c", "d"], dtype=object)
    keys = np.zeros(4, dtype=np.intp)
    st0 = NodeToStatus().absent_nodes_status()
    d = DecidedNodes(10, 14, failed, names, keys, [st0])
    assert d.undecided(10) == [11] and d.undecided(12) == []
    d.record(10, 13, ok)
    assert sorted(name for name, _ in ok.items()) == ["a", "c"]
    assert d.is_failed(13) and d.status(13) is st0
