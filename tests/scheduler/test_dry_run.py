"""The dry run of a scheduling cycle (``scheduler.DryRun``): the options explain, capacity and
the extender run it with, each changing only what it says."""

from __future__ import annotations

from typing import Any

from kubesched.framework import Code, Status
from kubesched.scheduler import DryRun, DryRunOptions, DryRunResult

from .env import BASIC, Env, plugin, profile
from .test_schedule_one import _node, _pod


def _dry_run(env: Env, name: str, options: DryRunOptions) -> DryRunResult:
    pod = env.pod(name)
    return DryRun(env.sched, env.sched.profiles[pod.scheduler_name], pod, options).run()


def _cluster(**extra: Any) -> Env:
    env = Env(profile(**extra))
    env.add(_node("small", cpu="1"), _node("mid", cpu="2"), _node("big", cpu="4"),
            _node("tainted", cpu="8").taint("dedicated", "gpu", "NoSchedule"), _pod("p", cpu="2"))
    return env


def test_every_node_gets_upstreams_deciding_status_with_or_without_records() -> None:
    recorded = _dry_run(_cluster(), "p", DryRunOptions(all_nodes=True, record=True))
    decided = _dry_run(_cluster(), "p", DryRunOptions(all_nodes=True))
    assert {n: (r.status.code, r.status.message()) for n, r in recorded.nodes.items()} == \
        {n: (r.status.code, r.status.message()) for n, r in decided.nodes.items()} == {
            # more cpu than the node has at all: unresolvable (NodeResourcesFit, v1.34 on)
            "small": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient cpu"),
            "mid": (Code.SUCCESS, ""), "big": (Code.SUCCESS, ""),
            "tainted": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")}
    # only a recording run keeps every Filter plugin's verdict (a rejected node's later plugins too)
    assert [v.plugin for v in recorded.nodes["small"].filters] == [
        "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodeResourcesFit"]
    assert all(not r.filters for r in decided.nodes.values())
    assert recorded.host == decided.host != ""
    assert sorted(ni.name for ni in recorded.feasible) == ["big", "mid"]


def test_the_sampled_cycle_rotates_as_the_scheduler_does_and_every_node_does_not() -> None:
    env = Env(profile(plugins=("PrioritySort", "NodeResourcesFit", "DefaultBinder")))
    env.add(*(_node(f"n{i:03}") for i in range(200)), _pod("p"))
    every = _dry_run(env, "p", DryRunOptions(all_nodes=True))
    assert len(every.nodes) == 200 and every.host
    assert env.sched.algorithm.next_start_node_index == 0
    sampled = _dry_run(env, "p", DryRunOptions())
    assert sampled.host and not sampled.nodes
    # numFeasibleNodesToFind(0, 200) = 100 nodes looked at, the next cycle starts after them
    assert env.sched.algorithm.next_start_node_index == 100


def test_assume_keeps_the_pod_where_it_goes_and_the_next_cycle_sees_it() -> None:
    env = Env(profile())
    env.add(_node("only", cpu="2"), _pod("a", cpu="2"), _pod("b", cpu="1"))
    first = _dry_run(env, "a", DryRunOptions(assume=True))
    assert first.host == "only" and first.status.is_success()
    assert env.sched.cache.is_assumed_pod(env.pod("a"))
    second = _dry_run(env, "b", DryRunOptions(assume=True))
    assert second.host == "" and second.fit_error is not None
    assert second.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert not env.sched.cache.is_assumed_pod(env.pod("b"))


def test_a_reserve_rejection_is_undone_and_reported_on_that_node() -> None:
    calls: list[str] = []
    reg = {"Res": plugin("Res", reserve=lambda self, st, pod, node: Status.of(Code.UNSCHEDULABLE, "no room"),
                         unreserve=lambda self, st, pod, node: calls.append(f"unreserve {pod.name} {node}"))}
    env = Env(profile(plugins=(*BASIC, "Res")), registry=reg)
    env.add(_node("only"), _pod("p"))
    out = _dry_run(env, "p", DryRunOptions(assume=True))
    assert out.host == "" and out.status.code == Code.UNSCHEDULABLE
    assert out.message == "0/1 nodes are available: 1 no room."
    assert calls == ["unreserve p only"]
    assert not env.sched.cache.is_assumed_pod(env.pod("p"))
    # without assume, Reserve never runs: the node is the answer
    calls.clear()
    assert _dry_run(env, "p", DryRunOptions()).host == "only" and calls == []
