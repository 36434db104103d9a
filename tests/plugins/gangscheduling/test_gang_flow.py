"""TestGangSchedulingFlow of gangscheduling_test.go (the pod-by-pod cases), ported: PreEnqueue
and Permit of one pod against pod groups, known members and pods already waiting on Permit."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from kubesched.api import Pod, PodGroup
from kubesched.cache import Cache
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import PODS_TO_ACTIVATE_KEY, Code, CycleState, Framework, PodsToActivate, Status
from kubesched.framework.config import default_config
from kubesched.plugins.registry import in_tree_registry
from kubesched.testing import make_pod

GATES = {"GenericWorkload": True, "GangScheduling": True}


def _group(name: str, min_count: int | None) -> PodGroup:
    policy = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return PodGroup.from_dict({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
                               "metadata": {"name": name, "namespace": "ns1"},
                               "spec": {"schedulingPolicy": policy}})


def _pod(name: str, group: str | None) -> Pod:
    b = make_pod().namespace("ns1").name(name).uid(name)
    return (b.pod_group(group) if group else b).obj()


PG1, PG2, PG3 = _group("pg1", 3), _group("pg2", 4), _group("pg3", None)
P1, P2, P3 = _pod("p1", "pg1"), _pod("p2", "pg1"), _pod("p3", "pg1")
P4, P5 = _pod("p4", "pg2"), _pod("p5", "pg2")
BASIC_POLICY_POD = _pod("basic-pod", "pg3")
NON_GANG_POD = _pod("non-gang", None)


@dataclass
class Case:
    name: str
    pod: Pod
    initial_pods: list[Pod] = field(default_factory=list)
    initial_pod_groups: list[PodGroup] = field(default_factory=list)
    pods_waiting_on_permit: list[Pod] = field(default_factory=list)
    want_pre_enqueue: Status | None = None
    want_permit: Status | None = None
    want_activated: list[str] = field(default_factory=list)
    want_allowed: list[str] = field(default_factory=list)


CASES = [
    Case("non-gang pod succeeds immediately", NON_GANG_POD, initial_pod_groups=[PG1, PG2, PG3]),
    Case("basic policy pod succeeds immediately", BASIC_POLICY_POD, initial_pod_groups=[PG1, PG2, PG3]),
    Case("gang pod fails PreEnqueue when pod group is not yet created", P1, initial_pods=[P2, P3, P4, P5],
         want_pre_enqueue=Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                    'waiting for pods\'s pod group "pg1" to appear in scheduling queue')),
    Case("gang pod fails PreEnqueue when quorum is not met", P1, initial_pods=[P2, P4, P5],
         initial_pod_groups=[PG1, PG2],
         want_pre_enqueue=Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                    "waiting for minCount pods from a gang to appear in scheduling queue")),
    # p1 assumed at Permit makes 2 of 3: it waits, and p3 (not assumed) is activated.
    Case("gang pod passes PreEnqueue, but waits at Permit", P1, initial_pods=[P2, P3, P4, P5],
         initial_pod_groups=[PG1, PG2], pods_waiting_on_permit=[P2, P4, P5],
         want_permit=Status.of(Code.WAIT, "waiting for minCount pods from a gang to be scheduled"),
         want_activated=["ns1/p3"]),
    Case("final gang pod arrives at Permit and allows all waiting pods from a gang", P1,
         initial_pods=[P2, P3, P4, P5], initial_pod_groups=[PG1, PG2],
         pods_waiting_on_permit=[P2, P3, P4, P5], want_allowed=["p2", "p3"]),
]


@pytest.mark.parametrize("tc", [pytest.param(c, id=c.name) for c in CASES])
def test_gang_scheduling_flow(tc: Case) -> None:
    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    store.load(list(tc.initial_pod_groups))
    cache = Cache(clock)
    fwk = Framework(default_config(GATES).profiles[0], in_tree_registry(GATES), clock=clock, store=store,
                    features=GATES)
    fwk.set_pod_group_states(cache.pod_groups)
    for p in [*tc.initial_pods, tc.pod]:
        cache.pod_groups.add_pod(p)
    pl = fwk.plugins_map["GangScheduling"]

    assert pl.pre_enqueue(tc.pod) == tc.want_pre_enqueue
    if tc.want_pre_enqueue is not None:
        return
    # Other pods already hit Permit and wait.
    for p in tc.pods_waiting_on_permit:
        assumed = p.with_changes({("spec", "nodeName"): "some-node"})
        cache.assume_pod(assumed)
        assert fwk.run_permit_plugins(CycleState(), assumed, "some-node").code == Code.WAIT
    state = CycleState()
    to_activate = PodsToActivate()
    state.write(PODS_TO_ACTIVATE_KEY, to_activate)
    pod = tc.pod.with_changes({("spec", "nodeName"): "some-node"})
    cache.assume_pod(pod)
    st, _ = pl.permit(state, pod, "some-node")
    assert st == tc.want_permit
    assert sorted(to_activate.map) == tc.want_activated
    for uid in tc.want_allowed:
        wp = fwk.get_waiting_pod(uid)
        assert wp is not None and wp.future.done() and wp.future.status().is_success()
    for p in (P4, P5):  # the other gang is left waiting
        wp = fwk.get_waiting_pod(p.uid)
        assert wp is None or not wp.future.done()
