"""The resource-only dry run (DefaultPreemption's ``prepare_dry_run`` hook, per node and over
chunks of nodes) gives SelectVictimsOnNode's answer on every node it answers for: same victims in
the same order, same PDB violation count, same status (code, reasons, plugin). The reference is
the generic path, which runs the filter chain on a copy of each node."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod, PodDisruptionBudget
from kubesched.framework import Code, CycleState, NodeToStatus
from kubesched.plugins.defaultpreemption import NO_VICTIMS_REASON
from kubesched.testing.wrappers import make_node, make_pod

from ._sim import Sim

PLUGINS = ("PrioritySort", "NodeUnschedulable", "TaintToleration", "NodeResourcesFit",
           "DefaultPreemption", "DefaultBinder")


def _key(res: Any) -> tuple[Any, ...]:
    victims, violations, status = res
    return [p.uid for p in victims], violations, status.code, status.reasons, status.plugin


def dry_run_both(s: Sim, pod: Pod, pdbs: Sequence[PodDisruptionBudget] = ()
                 ) -> tuple[list[Any], list[Any]]:
    """(fast answers, generic answers) over the potential nodes, in snapshot order."""
    fwk, state, snap = s.pre_filtered(pod)
    m = NodeToStatus()
    for ni in snap.node_info_list:
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        if not status.is_success():
            m.set(ni.name, status)
    potential = [ni for ni in snap.node_info_list if m.get(ni.name).code == Code.UNSCHEDULABLE]
    plugin = s.plugin
    fast = plugin.prepare_dry_run(state, pod, list(pdbs), m, potential, 1)
    got = [fast(i, ni) if fast is not None else None for i, ni in enumerate(potential)]
    want = [plugin.select_victims_on_node(state.clone(), pod, ni.snapshot_copy(), list(pdbs))
            for ni in potential]
    return got, want


def assert_same(got: list[Any], want: list[Any]) -> int:
    """Every answer given equals the generic one; returns how many were given."""
    given_ = 0
    for g, w in zip(got, want, strict=True):
        if g is not None:
            given_ += 1
            assert _key(g) == _key(w)
    return given_


node_spec = st.tuples(st.sampled_from([2, 4, 8]), st.sampled_from([3, 110]), st.booleans())
pod_spec = st.tuples(st.integers(0, 5), st.integers(1, 3), st.integers(0, 4), st.integers(0, 20),
                     st.one_of(st.none(), st.integers(0, 3)), st.booleans())


def build(nodes: list[tuple[int, int, bool]], pods: list[tuple[int, int, int, int, int | None, bool]],
          nominated: list[tuple[int, int, int]]) -> Sim:
    s = Sim(plugins=PLUGINS)
    for i, (cpu, max_pods, tainted) in enumerate(nodes):
        b = make_node().name(f"n{i}").capacity({"cpu": str(cpu), "memory": "8Gi", "pods": str(max_pods)})
        if tainted and i > 0:
            b.taint("dedicated", "x")
        s.store.create(b.obj())
    for j, (node, cpu, mem_gi, prio, start, labelled) in enumerate(pods):
        if node >= len(nodes):
            continue
        pb = make_pod().name(f"p{j}").priority(prio).req({"cpu": str(cpu), "memory": f"{mem_gi}Gi"})
        if labelled:
            pb.label("app", "a")
        if start is not None:
            pb.start_time(float(start))
        s.store.create(pb.obj())
        s.store.bind("default", f"p{j}", f"n{node}")
    for k, (node, cpu, prio) in enumerate(nominated):
        if node < len(nodes):
            s.store.create(make_pod().name(f"nom{k}").priority(prio).req({"cpu": str(cpu)})
                           .nominated_node_name(f"n{node}").obj())
    return s


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(node_spec, min_size=1, max_size=6), st.lists(pod_spec, max_size=24),
       st.lists(st.tuples(st.integers(0, 5), st.integers(1, 2), st.integers(0, 20)), max_size=3),
       st.integers(1, 8), st.integers(0, 4), st.integers(1, 20), st.integers(-1, 2))
def test_fast_dry_run_matches_select_victims_on_node(
        nodes: list[tuple[int, int, bool]], pods: list[tuple[int, int, int, int, int | None, bool]],
        nominated: list[tuple[int, int, int]], cpu: int, mem_gi: int, priority: int,
        pdb_allowed: int) -> None:
    s = build(nodes, pods, nominated)
    pdbs = []
    if pdb_allowed >= 0:
        s.pdb("pdb", {"app": "a"}, min_available=1, status={"disruptionsAllowed": pdb_allowed})
        pdbs = list(s.store.list("PodDisruptionBudget"))
    pod = make_pod().name("incoming").uid("incoming").priority(priority).req(
        {"cpu": str(cpu), "memory": f"{mem_gi}Gi"}).obj()
    got, want = dry_run_both(s, pod, pdbs)
    assert assert_same(got, want) == len(got)  # this profile is all resource-only


def full_nodes(s: Sim, n: int = 6) -> None:
    for i in range(n):
        s.node(f"n{i}", cpu="4")
        for j in range(3):
            s.pod(f"low{i}-{j}", cpu="1", priority=j + (i % 3), node=f"n{i}", start=float(10 * j + i),
                  grace=0)


def test_chunks_answer_every_node_in_visiting_order() -> None:
    s = Sim(plugins=PLUGINS)
    full_nodes(s, 150)  # more nodes than the first chunk
    for i in range(150, 160):  # nodes whose pods all outrank the preemptor: no victims
        s.node(f"n{i}", cpu="4")
        s.pod(f"top{i}", cpu="2", priority=500, node=f"n{i}")
    got, want = dry_run_both(s, make_pod().name("hi").uid("hi").priority(100).req({"cpu": "3"}).obj())
    assert assert_same(got, want) == len(got) == 160
    assert sum(1 for w in want if w[2].reasons == (NO_VICTIMS_REASON,)) == 10


def test_cached_pod_arrays_follow_pod_changes() -> None:
    """The per-node pod arrays are reused across preemptions until the node changes: deleting a
    pod, adding one and changing a priority must all be seen."""
    s = Sim(plugins=PLUGINS)
    full_nodes(s)
    pod = make_pod().name("hi").uid("hi").priority(100).req({"cpu": "3"}).obj()
    got, want = dry_run_both(s, pod)
    assert assert_same(got, want) == len(got) > 0
    s.store.delete("Pod", "default", "low0-0")
    s.pod("late", cpu="1", priority=200, node="n1")
    s.store.delete("Pod", "default", "low2-1")
    s.pod("low2-1b", cpu="1", priority=150, node="n2")
    s.run(until=1)
    assert s.get("low0-0") is None and s.get("low2-1") is None
    got, want = dry_run_both(s, pod)
    assert assert_same(got, want) == len(got) > 0
    victims = {p.name for g in got if g is not None for p in g[0]}
    assert victims and not victims & {"low0-0", "low2-1", "low2-1b", "late"}
    # A new extended resource adds a column: cached arrays of the old layout are rebuilt.
    s.store.create(make_node().name("gpu").capacity(
        {"cpu": "4", "memory": "8Gi", "pods": "110", "example.com/gpu": "2"}).obj())
    s.store.create(make_pod().name("g0").priority(1).req({"cpu": "2", "example.com/gpu": "1"}).obj())
    s.store.bind("default", "g0", "gpu")
    got, want = dry_run_both(s, pod)
    assert assert_same(got, want) == len(got) > 0


def test_other_active_filters_leave_every_node_to_the_generic_path() -> None:
    """A filter that reads the pods on the node (here NodePorts, active for a pod with a host
    port) disables the model."""
    s = Sim(plugins=(*PLUGINS, "NodePorts"))
    full_nodes(s)
    pod = make_pod().name("hi").uid("hi").priority(100).req({"cpu": "3"}).host_port(8080).obj()
    got, want = dry_run_both(s, pod)
    assert got and all(g is None for g in got)
    assert any(w[2].is_success() for w in want)


def test_replaced_select_victims_on_node_is_respected() -> None:
    s = Sim(plugins=PLUGINS)
    full_nodes(s)
    plugin = s.plugin
    plugin.select_victims_on_node = lambda *args: ([], 0, plugin.select_victims_on_node)  # never called
    pod = make_pod().name("hi").uid("hi").priority(100).req({"cpu": "3"}).obj()
    assert plugin.prepare_dry_run(CycleState(), pod, [], NodeToStatus(), [], 1) is None


def test_full_run_same_nominations_and_victims_per_node_and_batch() -> None:
    """Whole preemptions through the scheduler: the batch mode (model) and the per-node mode
    (generic path) evict the same pods and place the preemptors on the same nodes."""
    outcomes = []
    for per_node in (False, True):
        s = Sim(plugins=PLUGINS, seed=3)
        s._options = dataclasses.replace(s._options, per_node_filters=per_node)
        full_nodes(s, 20)
        for k in range(8):
            s.pod(f"hi{k}", cpu="3", priority=100 + k)
        s.run(until=1)
        outcomes.append(([s.node_of(f"hi{k}") for k in range(8)],
                         sorted(e.involved_name for e in s.events("Preempted"))))
    assert outcomes[0] == outcomes[1]
    assert all(outcomes[0][0]) and outcomes[0][1]


def test_nominator_without_change_log_is_asked_node_by_node() -> None:
    """With a nominator that keeps no change log the batch dry run asks it per node (equal or
    higher priority pods added; a resource without a column leaves the node to the per-node
    model), with SelectVictimsOnNode's answers."""
    s = build([(4, 110, False)] * 4, [(i, 1, 1, 0, None, False) for i in range(4)] * 3,
              [(0, 1, 20), (1, 1, 0)])
    s.store.create(make_pod().name("gpu").priority(20).req({"cpu": "1", "example.com/gpu": "1"})
                   .nominated_node_name("n2").obj())
    fwk = s.scheduler.profiles["default-scheduler"]
    fwk._logging_nominator = None
    pod = make_pod().name("incoming").uid("incoming").priority(10).req({"cpu": "2"}).obj()
    got, want = dry_run_both(s, pod)
    assert assert_same(got, want) == 4
