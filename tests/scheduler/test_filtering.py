"""Node filtering inside schedule_one: nominated pods, percentageOfNodesToScore and the
rotation, the nominated-node fast path, an out-of-tree plugin from a config file, and a real
HTTP extender (findNodesThatFitPod, findNodesThatPassFilters, prioritizeNodes)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import Code, PostFilterResult, Status
from kubesched.framework.config import load_config
from kubesched.scheduler import Scheduler

from .env import BASIC, START, Env, Recorder, plugin, profile
from .extender_server import ExtenderBehaviour, running_extender
from .test_schedule_one import _node, _pod


@pytest.mark.parametrize(("incoming_priority", "fits"), [
    pytest.param(5, False, id="lower priority than the nominated pod: space is reserved"),
    pytest.param(10, False, id="equal priority: space is reserved"),
    pytest.param(20, True, id="higher priority: the nominated pod is ignored"),
])
@pytest.mark.parametrize("per_node", [False, True], ids=["batch", "per-node"])
def test_nominated_pods_reserve_space_for_equal_or_higher_priority(
        incoming_priority: int, fits: bool, per_node: bool) -> None:
    env = Env(options={"per_node_filters": per_node})
    env.add(_node("n0", cpu="2"))
    env.add(_pod("nominated", cpu="2", priority=10, scheduling_gates=["wait"]))
    s = env.sched
    s.queue.add_nominated_pod(env.pod("nominated"), PostFilterResult("n0"))
    env.add(_pod("incoming", cpu="1", priority=incoming_priority))
    env.run()
    assert (env.node_of("incoming") == "n0") is fits
    if not fits:
        assert env.scheduled_condition("incoming")["message"] == \
            "0/1 nodes are available: 1 Insufficient cpu."


@pytest.mark.parametrize(("incoming_priority", "fits"), [
    pytest.param(5, False, id="lower priority: space is reserved"),
    pytest.param(10, False, id="equal priority: space is reserved"),
    pytest.param(20, True, id="higher priority: the nominated pod is ignored"),
])
def test_nomination_from_the_store_reserves_space(incoming_priority: int, fits: bool) -> None:
    """The nomination arrives with the pod (status.nominatedNodeName); the nominated pod itself
    keeps failing (a PostFilter without a result keeps the nomination), yet holds its space."""
    def hold(self: Any, st: Any, pod: Any, nodes: Any) -> tuple[None, Status | None]:
        return None, (Status.of(Code.UNSCHEDULABLE, "held") if pod.name == "nominated" else None)

    reg = {"Hold": plugin("Hold", pre_filter=hold),
           "KeepNomination": plugin("KeepNomination", post_filter=lambda self, st, pod, m: (
               None, Status.of(Code.UNSCHEDULABLE, "no")))}
    env = Env(profile(plugins=(*BASIC, "Hold", "KeepNomination")), registry=reg)
    env.add(_node("n0", cpu="2"), _pod("nominated", cpu="2", priority=10, nominated_node_name="n0"))
    env.run()
    assert env.pod("nominated").nominated_node_name == "n0"
    env.add(_pod("incoming", cpu="1", priority=incoming_priority))
    env.run()
    assert (env.node_of("incoming") == "n0") is fits


def test_nominated_node_is_tried_first() -> None:
    rec = Recorder()
    reg = {"Rec": plugin("Rec", filter=lambda self, st, pod, ni: rec.add(ni.name, pod, 0) or None)}
    env = Env(profile(plugins=(*BASIC, "Rec")), registry=reg)
    env.add(*[_node(f"n{i}") for i in range(5)])
    env.add(_pod("p", nominated_node_name="n3"))
    env.run()
    assert env.node_of("p") == "n3"
    assert [c[0] for c in rec.calls] == ["n3"]


def _counting_env(n_nodes: int, pct: int | None, rejected: int = 0,
                  global_pct: int | None = None) -> tuple[Env, Recorder]:
    rec = Recorder()

    def filt(self: Any, st: Any, pod: Any, ni: Any) -> Any:
        rec.add(ni.name, pod, 0)
        return None

    extra = {} if pct is None else {"percentageOfNodesToScore": pct}
    top = {} if global_pct is None else {"percentageOfNodesToScore": global_pct}
    env = Env(profile(plugins=(*BASIC, "Count"), **extra), registry={"Count": plugin("Count", filter=filt)},
              **top)
    for i in range(n_nodes):
        b = _node(f"n{i:03d}")
        if i < rejected:
            b.taint("blocked", "x")
        env.add(b)
    return env, rec


def test_percentage_of_nodes_to_score_and_rotation() -> None:
    # 200 nodes at 50%: stop after 100 feasible nodes; the next cycle starts where this one stopped.
    env, rec = _counting_env(200, 50)
    s = env.sched
    env.add(_pod("a"))
    s.schedule_one()
    first = {c[0] for c in rec.calls}
    assert len(first) == 100 and s.algorithm.next_start_node_index == 100
    assert env.sched.cache.get_pod(env.pod("a")).node_name in first
    rec.calls.clear()
    env.add(_pod("b"))
    s.schedule_one()
    second = {c[0] for c in rec.calls}
    assert len(second) == 100 and not (first & second)
    assert s.algorithm.next_start_node_index == 0


def test_rotation_counts_rejected_nodes_as_processed() -> None:
    # Nodes rejected before the 100th feasible one count as processed (feasible + statuses).
    env, _rec = _counting_env(300, 10, rejected=10)  # 10% of 300 -> minimum 100
    s = env.sched
    env.add(_pod("a"))
    s.schedule_one()
    assert s.algorithm.next_start_node_index == 110


@pytest.mark.parametrize(("profile_pct", "global_pct", "want"), [
    pytest.param(None, 60, 120, id="global percentage"),
    pytest.param(70, 60, 140, id="profile percentage wins over the global one"),
    pytest.param(None, None, 100, id="adaptive: 50 - 200/125 = 49% of 200 = 98, at least 100"),
])
def test_percentage_global_and_profile(profile_pct: int | None, global_pct: int | None, want: int) -> None:
    env, rec = _counting_env(200, profile_pct, global_pct=global_pct)
    env.add(_pod("a"))
    env.sched.schedule_one()
    assert len({c[0] for c in rec.calls}) == want
    assert env.sched.algorithm.next_start_node_index == want


def test_adaptive_percentage_below_100_nodes_checks_all() -> None:
    env, rec = _counting_env(40, None)
    env.add(_pod("a"))
    env.sched.schedule_one()
    assert len({c[0] for c in rec.calls}) == 40


def test_out_of_tree_plugin_enabled_from_a_config_file(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_sched_plugins.py").write_text(textwrap.dedent('''
        from kubesched.framework import Code, PluginBase, Status

        class OnlyPicked(PluginBase):
            """Filter: only nodes labelled pick=me."""
            NAME = "OnlyPicked"

            def filter(self, state, pod, node_info):
                if node_info.node.labels.get("pick") != "me":
                    return Status.of(Code.UNSCHEDULABLE, "node(s) were not picked")
                return None
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg_file = tmp_path / "config.yaml"
    cfg_file.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
            "enabled": [{"name": n} for n in (*BASIC, "my_sched_plugins:OnlyPicked")],
            "disabled": [{"name": "*"}]}}}]}))
    cfg = load_config(cfg_file)
    clock = VirtualClock(START)
    store = MemoryStore(clock)
    for name, picked in (("a", False), ("b", True), ("c", False)):
        b = _node(name)
        if picked:
            b.label("pick", "me")
        store.create(b.obj())
    store.create(_pod("p").obj())
    sched = Scheduler(store, clock, cfg)
    sched.run_until_idle()
    assert store.get("Pod", "default", "p").node_name == "b"
    store.create(_pod("big", cpu="4").obj())  # b has 3 cpus left
    sched.run_until_idle()
    cond = store.get("Pod", "default", "big").condition("PodScheduled")
    assert cond["message"] == ("0/3 nodes are available: 1 Insufficient cpu, "
                               "2 node(s) were not picked.")


@pytest.mark.parametrize("favoured", ["n1", "n2"])
@pytest.mark.parametrize("cache_capable", [False, True], ids=["full-nodes", "nodeCacheCapable"])
def test_http_extender_filters_and_prioritizes(cache_capable: bool, favoured: str) -> None:
    # n1 and n2 tie on the plugins' scores: the extender's priorities (x weight 5 x 10) decide.
    other = "n2" if favoured == "n1" else "n1"
    b = ExtenderBehaviour(reject={"n0": "extender says no"}, scores={other: 2, favoured: 9})
    with running_extender(b) as url:
        ext = {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 5,
               "nodeCacheCapable": cache_capable}
        env = Env(extenders=[ext])
        env.add(*[_node(f"n{i}").label("kubernetes.io/hostname", f"n{i}") for i in range(3)], _pod("p"))
        env.run()
        assert env.node_of("p") == favoured
        # Only n0 fits the pod's plugins now: the extender rejects it.
        env.add(_pod("q", node_selector={"kubernetes.io/hostname": "n0"}))
        env.run()
    assert [v for v, _ in b.requests].count("filter") >= 2
    assert env.node_of("q") == ""
    msg = env.scheduled_condition("q")["message"]
    assert msg == ("0/3 nodes are available: 1 extender says no, "
                   "2 node(s) didn't match Pod's node affinity/selector.")


def test_ignorable_extender_errors_are_skipped() -> None:
    with running_extender(ExtenderBehaviour(fail_with=500)) as url:
        ext = {"urlPrefix": url, "filterVerb": "filter", "ignorable": True}
        env = Env(extenders=[ext])
        env.add(_node("n0"), _pod("p"))
        env.run()
    assert env.node_of("p") == "n0"


def test_failing_extender_is_a_scheduler_error() -> None:
    with running_extender(ExtenderBehaviour(fail_with=500)) as url:
        ext = {"urlPrefix": url, "filterVerb": "filter"}
        env = Env(extenders=[ext])
        env.add(_node("n0"), _pod("p"))
        env.run(until=START + 1)
    cond = env.scheduled_condition("p")
    assert cond["reason"] == "SchedulerError" and "code 500" in cond["message"]


def test_http_extender_takes_part_in_preemption() -> None:
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        ext = {"urlPrefix": url, "preemptVerb": "preempt", "nodeCacheCapable": True}
        env = Env(profile(plugins=(*BASIC, "DefaultPreemption")), extenders=[ext])
        env.add(_node("n0", cpu="1"), _pod("low", priority=1))
        env.run()
        env.add(_pod("high", priority=100).termination_grace_period(0))
        env.run()
    [(_, args)] = [r for r in b.requests if r[0] == "preempt"]
    assert args["NodeNameToMetaVictims"] == {"n0": {"Pods": [{"UID": "low-uid"}], "NumPDBViolations": 0}}
    assert env.node_of("high") == "n0"


def test_feasible_nodes_read_like_the_list_of_their_rows() -> None:
    """The batch pass's feasible nodes are a sequence over snapshot rows: length without
    building the list, then indexing, iteration and equality as the NodeInfo list."""
    import numpy as np

    from kubesched.cache import Snapshot
    from kubesched.scheduler._algorithm import FeasibleNodes

    snap = Snapshot.from_objects([_node(f"n{i}").obj() for i in range(5)])
    rows = np.array([3, 0, 4], dtype=np.int64)
    got = FeasibleNodes(snap.infos_array(), rows)
    assert len(got) == 3 and got._list is None
    want = [snap.node_info_list[i] for i in (3, 0, 4)]
    assert got[0] is want[0] and list(got) == want and got == want and got[1:] == want[1:]
    assert [ni.name for ni in got] == ["n3", "n0", "n4"]


def test_feasible_nodes_rows_are_read_without_the_list() -> None:
    """A snapshot-backed NodeView takes FeasibleNodes' rows as they are (PodTopologySpread's
    PreScore), and the same rows as for the equivalent NodeInfo list; another snapshot's
    NodeInfos are not mistaken for its rows."""
    import numpy as np

    from kubesched.cache import Snapshot
    from kubesched.plugins.helper._pod_index import NodeView
    from kubesched.scheduler._algorithm import FeasibleNodes

    snap = Snapshot.from_objects([_node(f"n{i}").obj() for i in range(6)])
    view = NodeView(snap.node_info_list, snap)
    rows = np.array([5, 1, 2], dtype=np.int64)
    feasible = FeasibleNodes(snap.infos_array(), rows)
    assert view.rows_of(feasible).tolist() == [5, 1, 2] and feasible._list is None
    assert sorted(view.rows_of(list(feasible)).tolist()) == [1, 2, 5]
    other = Snapshot.from_objects([_node(f"n{i}").obj() for i in range(6)])
    foreign = FeasibleNodes(other.infos_array(), rows)
    assert sorted(view.rows_of(foreign).tolist()) == [1, 2, 5]  # by name, not taken as rows
