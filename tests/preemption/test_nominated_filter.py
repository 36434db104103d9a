"""Nodes carrying nominated pods in the batch Filter pass (``framework._nominated``).

The batch pass answers RunFilterPluginsWithNominatedPods for such nodes by re-running Fit on the
nodes' requests plus the nominated pods' when only Fit reads the pods on a node; the reference
is the per-node two-pass path, which clones the node and runs the whole filter chain. The
answers the pass keeps for the dry run (``GENominatedPods``) must be the queue's."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeBatch, NodeToStatus
from kubesched.framework._nominated import GE_NOMINATED_KEY, GENominatedPods, resource_only_filters
from kubesched.framework.preemption import (
    Victims,
    VictimsSummary,
    default_ordered_score_funcs,
    get_earliest_pod_start_time,
    pick_one_node_for_preemption,
)
from kubesched.plugins.defaultpreemption._batch_victims import _summaries
from kubesched.plugins.defaultpreemption._resource_victims import _nominated_lookup
from kubesched.testing.wrappers import make_node, make_pod

from ._sim import Sim

STATIC_FIRST = ("PrioritySort", "NodeUnschedulable", "TaintToleration", "NodeResourcesFit",
                "DefaultPreemption", "DefaultBinder")
FIT_FIRST = ("PrioritySort", "NodeResourcesFit", "NodeUnschedulable", "TaintToleration",
             "DefaultPreemption", "DefaultBinder")


def _key(st: Any) -> tuple[Any, ...]:
    return int(st.code), st.reasons, st.plugin if not st.is_success() else ""


def both_paths(s: Sim, pod: Pod) -> tuple[list[Any], list[Any], CycleState]:
    """(batch statuses, per-node statuses) of every node, in snapshot order, and the state."""
    fwk, state, snap = s.pre_filtered(pod)
    out = fwk.run_filter_plugins_batch_with_nominated_pods(state, pod, NodeBatch.all(snap))
    got = [_key(out.status(row)) for row in range(len(snap.node_info_list))]
    want = [_key(fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)) for ni in snap.node_info_list]
    return got, want, state


node_spec = st.tuples(st.sampled_from([2, 4]), st.sampled_from([2, 110]), st.integers(0, 2))
pod_spec = st.tuples(st.integers(0, 5), st.integers(1, 3), st.integers(0, 20))
nominated_spec = st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 4), st.integers(0, 20),
                           st.booleans())


def build(plugins: tuple[str, ...], nodes: list[tuple[int, int, int]], pods: list[tuple[int, int, int]],
          nominated: list[tuple[int, int, int, int, bool]]) -> Sim:
    s = Sim(plugins=plugins)
    for i, (cpu, max_pods, kind) in enumerate(nodes):
        b = make_node().name(f"n{i}").capacity({"cpu": str(cpu), "memory": "8Gi", "pods": str(max_pods)})
        if kind == 1:
            b.taint("dedicated", "x")
        elif kind == 2:
            b.unschedulable()
        s.store.create(b.obj())
    for j, (node, cpu, prio) in enumerate(pods):
        if node < len(nodes):
            s.store.create(make_pod().name(f"p{j}").priority(prio).req({"cpu": str(cpu)}).obj())
            s.store.bind("default", f"p{j}", f"n{node}")
    for k, (node, cpu, mem_gi, prio, gpu) in enumerate(nominated):
        if node < len(nodes):
            req = {"cpu": str(cpu), "memory": f"{mem_gi}Gi"}
            if gpu:
                req["example.com/gpu"] = "1"  # no column: the node takes the per-node path
            s.store.create(make_pod().name(f"nom{k}").priority(prio).req(req)
                           .nominated_node_name(f"n{node}").obj())
    return s


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.sampled_from([STATIC_FIRST, FIT_FIRST]), st.lists(node_spec, min_size=1, max_size=6),
       st.lists(pod_spec, max_size=16), st.lists(nominated_spec, max_size=6),
       st.integers(0, 20), st.integers(0, 4), st.booleans())
def test_batch_pass_equals_two_pass_per_node(
        plugins: tuple[str, ...], nodes: list[tuple[int, int, int]], pods: list[tuple[int, int, int]],
        nominated: list[tuple[int, int, int, int, bool]], prio: int, cpu: int, tolerate: bool) -> None:
    s = build(plugins, nodes, pods, nominated)
    b = make_pod().name("hi").uid("hi").priority(prio).req({"cpu": str(cpu), "memory": "1Gi"})
    if tolerate:
        b.toleration("dedicated", "x")
    got, want, _ = both_paths(s, b.obj())
    assert got == want


def test_the_shortcut_is_taken_only_for_fit_and_node_static_filters() -> None:
    s = Sim(plugins=(*STATIC_FIRST, "NodePorts"))
    s.node("n0", cpu="4")
    fwk = s.scheduler.profiles["default-scheduler"]
    state = CycleState()
    fwk.run_pre_filter_plugins(state, make_pod().name("a").req({"cpu": "1"}).obj())
    assert resource_only_filters(fwk, state)[0]  # NodePorts skipped: the pod has no host port
    state = CycleState()
    fwk.run_pre_filter_plugins(state, make_pod().name("b").req({"cpu": "1"}).host_port(80).obj())
    assert not resource_only_filters(fwk, state)[0]
    per_node = Sim(plugins=STATIC_FIRST)
    per_node._options = dataclasses.replace(per_node._options, per_node_filters=True)
    per_node.node("n0", cpu="4")
    fwk = per_node.scheduler.profiles["default-scheduler"]
    assert not resource_only_filters(fwk, CycleState())[0]


def test_kept_answers_are_the_queues_and_belong_to_one_pod() -> None:
    """The answers kept for the dry run equal the queue's (restricted to priority >= the pod's);
    a state holding another pod's answers, or one of another priority, is not read."""
    s = build(STATIC_FIRST, [(4, 110, 0)] * 4, [(i, 3, 0) for i in range(4)],
              [(0, 1, 0, 10, False), (1, 1, 0, 1, False), (1, 1, 0, 7, False)])
    pod = make_pod().name("hi").uid("hi").priority(5).req({"cpu": "1"}).obj()
    got, want, state = both_paths(s, pod)
    assert got == want
    seen = state.get(GE_NOMINATED_KEY)
    assert isinstance(seen, GENominatedPods) and seen.matches(pod) and seen.is_current()
    fwk = s.scheduler.profiles["default-scheduler"]
    nom = fwk.nominator()
    for ni in s.scheduler.snapshot.node_info_list:
        from_queue = [pi.pod.uid for pi in nom.nominated_pods_for_node(ni.name) if pi.pod.priority_value >= 5]
        assert [pi.pod.uid for pi in seen.pods(ni.name)] == from_queue
    lookup, _, kept = _nominated_lookup(fwk, state, pod)
    assert kept is seen
    assert [pi.pod.name for pi in lookup("n1")] == ["nom2"]
    # Another pod (or the same one with another priority) gets answers of its own.
    for other in (make_pod().name("x").uid("x").priority(0).obj(),
                  make_pod().name("hi").uid("hi").priority(0).obj()):
        assert not seen.matches(other)
        lookup, _, kept = _nominated_lookup(fwk, state, other)
        assert kept is not None and kept is not seen and kept.matches(other)
        assert sorted(pi.pod.name for pi in lookup("n1")) == ["nom1", "nom2"]


def test_kept_answers_follow_new_nominations() -> None:
    """A nomination after the pass makes the kept answers stale (not read); the next pass
    keeps fresh ones."""
    s = build(STATIC_FIRST, [(4, 110, 0)] * 3, [], [(0, 1, 0, 10, False)])
    pod = make_pod().name("hi").uid("hi").priority(5).req({"cpu": "1"}).obj()
    _, _, state = both_paths(s, pod)
    first = state.get(GE_NOMINATED_KEY)
    assert [pi.pod.name for pi in first.pods("n0")] == ["nom0"] and first.pods("n2") == []
    s.store.create(make_pod().name("late").priority(9).req({"cpu": "1"}).nominated_node_name("n2").obj())
    assert not first.is_current()
    fwk = s.scheduler.profiles["default-scheduler"]
    lookup, _, kept = _nominated_lookup(fwk, state, pod)  # built anew from the queue
    assert kept is not None and kept is not first and kept.is_current()
    assert [pi.pod.name for pi in lookup("n2")] == ["late"]
    s.scheduler._update_snapshot()
    snap = s.scheduler.snapshot
    fwk.run_filter_plugins_batch_with_nominated_pods(state, pod, NodeBatch.all(snap))
    second = state.get(GE_NOMINATED_KEY)
    assert second is not first and second.is_current()
    assert [pi.pod.name for pi in second.pods("n2")] == ["late"]


def test_dry_run_after_the_batch_pass_matches_the_generic_path() -> None:
    """The resource-only dry run reading the kept answers gives SelectVictimsOnNode's answers."""
    s = build(STATIC_FIRST, [(4, 110, i % 2) for i in range(6)],
              [(i % 6, 1 + i % 2, i % 3) for i in range(18)],
              [(0, 2, 0, 10, False), (3, 1, 0, 0, False), (4, 1, 0, 10, True)])
    pod = make_pod().name("hi").uid("hi").priority(5).req({"cpu": "2"}).obj()
    _, _, state = both_paths(s, pod)
    fwk = s.scheduler.profiles["default-scheduler"]
    snap = s.scheduler.snapshot
    m = NodeToStatus()
    for ni in snap.node_info_list:
        st_ = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        if not st_.is_success():
            m.set(ni.name, st_)
    potential = [ni for ni in snap.node_info_list if m.get(ni.name).code == 2]
    assert potential
    plugin = s.plugin
    fast = plugin.prepare_dry_run(state, pod, [], m, potential, 1)
    assert fast is not None
    for i, ni in enumerate(potential):
        g = fast(i, ni)
        w = plugin.select_victims_on_node(state.clone(), pod, ni.snapshot_copy(), [])
        if g is not None:
            assert ([p.uid for p in g[0]], g[1], _key(g[2])) == ([p.uid for p in w[0]], w[1], _key(w[2]))


victim_st = st.tuples(st.integers(-3, 3), st.one_of(st.none(), st.integers(0, 3).map(float)))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.lists(victim_st, max_size=4), min_size=1, max_size=6), st.integers(0, 4).map(float))
def test_victims_summaries_equal_reading_the_pods(groups: list[list[tuple[int, float | None]]],
                                                  now: float) -> None:
    """The batch dry run's summaries give pickOneNodeForPreemption the numbers it would read
    from the pods, and the same choice."""
    prio = np.array([p for g in groups for p, _ in g], dtype=np.int64)
    start = np.array([np.nan if t is None else t for g in groups for _, t in g], dtype=np.float64)
    sums = [VictimsSummary(*sm) for sm in _summaries(prio, start, np.array([len(g) for g in groups],
                                                                         dtype=np.int64))]
    pods = [[make_pod().name(f"v{i}-{j}").priority(p).obj() for j, (p, _) in enumerate(g)]
            for i, g in enumerate(groups)]
    pods = [[dataclasses.replace(pod, start_time=t) for pod, (_, t) in zip(ps, g, strict=True)]
            for ps, g in zip(pods, groups, strict=True)]
    plain = {f"n{i}": Victims(ps) for i, ps in enumerate(pods) if ps}
    assert len(sums) == len(plain)
    for sm, v in zip(sums, plain.values(), strict=True):
        prios = [p.priority_value for p in v.pods]
        assert (sm.first_priority, sm.priority_sum, sm.num_victims) == (prios[0], sum(prios), len(prios))
        assert sm.earliest(now) == get_earliest_pod_start_time(
            Victims(sorted(v.pods, key=lambda p: -p.priority_value)), now)
    if plain:
        with_summary = {n: Victims(v.pods, 0, sm) for (n, v), sm in zip(plain.items(), sums, strict=True)}
        assert pick_one_node_for_preemption(with_summary, None, now) == pick_one_node_for_preemption(
            plain, default_ordered_score_funcs(plain, now), now)
        # A summary that does not describe its list (a changed list) is not used.
        stale = {n: Victims(v.pods[:1], 0, v.summary) for n, v in with_summary.items()}
        fresh = {n: Victims(v.pods[:1]) for n, v in with_summary.items()}
        assert (pick_one_node_for_preemption(stale, None, now)
                == pick_one_node_for_preemption(fresh, None, now))
