"""Properties of SelectVictimsOnNode over random nodes (NodeResourcesFit only): the pod fits
once the victims are gone, every victim has a lower priority, and the set is minimal in the
greedy sense (putting any single victim back makes the pod not fit again)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.cache import PodInfo
from kubesched.framework import CycleState
from kubesched.testing.wrappers import make_pod
from preemption._sim import Sim

pods_on_node = st.lists(st.tuples(st.integers(1, 4), st.integers(0, 20)), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(pods_on_node, st.integers(1, 8), st.integers(0, 20))
def test_select_victims_on_node_properties(existing: list[tuple[int, int]], cpu: int, priority: int) -> None:
    s = Sim()
    s.node("n1", cpu="8")
    used = 0
    for i, (c, p) in enumerate(existing):
        if used + c > 8:
            break
        used += c
        s.pod(f"p{i}", cpu=str(c), priority=p, node="n1")
    pod = make_pod().name("incoming").priority(priority).req({"cpu": str(cpu)}).obj()
    sched = s.scheduler
    sched._update_snapshot()
    fwk = sched.profiles["default-scheduler"]
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    found = sched.snapshot.get("n1")
    assert found is not None
    ni = found.snapshot_copy()
    victims, violations, status = s.plugin.select_victims_on_node(state, pod, ni, [])
    if not status.is_success():
        return
    assert violations == 0  # no PDBs
    assert all(v.priority_value < priority for v in victims)
    assert fwk.run_filter_plugins(state, pod, ni).is_success()  # ni is the node without the victims
    for v in victims:
        trial = ni.snapshot_copy()
        trial.add_pod_info(PodInfo(v))
        assert not fwk.run_filter_plugins(state, pod, trial).is_success()
