"""Each default plugin deciding real placements: the public Scheduler with the default profile
(no configuration file), on small clusters, and the aggregated FailedScheduling message a pod
gets when no node fits (schedule_one.go FitError, as ``kubectl describe pod`` shows it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pytest

from kubesched.testing.wrappers import NodeBuilder, PodBuilder

from ._cluster import HOSTNAME, ZONE, Cluster, node, pod

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
MB = 1024 * 1024


def _anti(name: str) -> PodBuilder:
    return pod(name).label("app", "web").pod_anti_affinity_in("app", HOSTNAME, ["web"])


def _spread(name: str) -> PodBuilder:
    return pod(name).label("app", "db").spread_constraint(
        1, ZONE, "DoNotSchedule", {"matchLabels": {"app": "db"}}
    )


@dataclass(frozen=True)
class Case:
    nodes: tuple[NodeBuilder, ...]
    pods: tuple[PodBuilder, ...]
    want: Mapping[str, str] = field(default_factory=dict)
    """pod -> node it must be bound to ("" : still pending)."""
    message: tuple[str, str] | None = None
    """(pod, its exact PodScheduled=False message)."""
    check: Callable[[dict[str, str]], bool] | None = None
    """A property of all the placements, where ties make the exact nodes random."""


CASES = [
    pytest.param(
        Case((node("n1").taint("dedicated", "gpu"), node("n2")), (pod("p"),), {"p": "n2"}),
        id="TaintToleration-untolerated-noschedule-taint",
    ),
    pytest.param(
        Case(
            (node("n1").taint("dedicated", "gpu"), node("n2").taint("dedicated", "gpu")),
            (pod("p"),),
            {"p": ""},
            ("p", f"0/2 nodes are available: 2 node(s) had untolerated taint(s). "
                  f"no new claims to deallocate, preemption: "
                  f"0/2 nodes are available: 2 {NOT_HELPFUL}."),
        ),
        id="TaintToleration-all-nodes-tainted",
    ),
    pytest.param(
        Case((node("n1").taint("dedicated", "gpu"), node("n2")),
             (pod("p").toleration("dedicated", "gpu", "NoSchedule", "Equal"), pod("q")),
             {"q": "n2"}, check=lambda got: got["p"] in ("n1", "n2")),
        id="TaintToleration-tolerated-taint",
    ),
    pytest.param(
        Case((*(node(f"n{i}").taint("dedicated", "gpu", "PreferNoSchedule") for i in range(3)), node("n3")),
             (pod("p"),), {"p": "n3"}),
        id="TaintToleration-score-prefer-no-schedule",
    ),
    pytest.param(
        Case((node("n1").unschedulable(), node("n2")), (pod("p"),), {"p": "n2"}),
        id="NodeUnschedulable-cordoned-node",
    ),
    pytest.param(
        Case((node("n1"), node("n2").label("disk", "ssd")), (pod("p").node_selector({"disk": "ssd"}),),
             {"p": "n2"}),
        id="NodeAffinity-node-selector",
    ),
    pytest.param(
        Case(
            (node("n1"), node("n2")),
            (pod("p").node_selector({"disk": "ssd"}),),
            {"p": ""},
            ("p", f"0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
                  f"no new claims to deallocate, "
                  f"preemption: 0/2 nodes are available: 2 {NOT_HELPFUL}."),
        ),
        id="NodeAffinity-no-node-matches",
    ),
    pytest.param(
        Case(
            (node("n0"), node("n1"), node("n2"), node("n3").label("disk", "ssd")),
            (pod("p").preferred_node_affinity(
                10, {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}),),
            {"p": "n3"},
        ),
        id="NodeAffinity-preferred-term",
    ),
    pytest.param(
        Case(
            (node("n0"), node("n1"), node("n2")),
            tuple(_anti(f"p{i}") for i in range(4)),
            {"p3": ""},
            ("p3", f"0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. "
                   f"no new claims to deallocate, "
                   f"preemption: 0/3 nodes are available: 3 {NO_VICTIMS}."),
            check=lambda got: sorted(got[f"p{i}"] for i in range(3)) == ["n0", "n1", "n2"],
        ),
        id="InterPodAffinity-anti-affinity-one-per-node",
    ),
    pytest.param(
        Case((node("n1"), node("n2")),
             (pod("db").label("app", "db").node_selector({HOSTNAME: "n2"}),
              pod("web").pod_affinity_in("app", HOSTNAME, ["db"])),
             {"db": "n2", "web": "n2"}),
        id="InterPodAffinity-required-affinity-follows-pod",
    ),
    pytest.param(
        Case(
            (node("a1", zone="a"), node("a2", zone="a"), node("b1", zone="b"), node("b2", zone="b")),
            tuple(_spread(f"p{i}") for i in range(4)),
            check=lambda got: sorted(n[0] for n in got.values()) == ["a", "a", "b", "b"],
        ),
        id="PodTopologySpread-zones-max-skew-1",
    ),
    pytest.param(
        Case(
            # zone b counts as a domain although its only node is tainted (nodeTaintsPolicy Ignore)
            (node("a1", zone="a"), node("b1", zone="b").taint("dedicated", "gpu")),
            (_spread("p0"), _spread("p1")),
            {"p0": "a1", "p1": ""},
            ("p1", f"0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, "
                   f"1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: "
                   f"0/2 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}."),
        ),
        id="PodTopologySpread-skew-would-exceed",
    ),
    pytest.param(
        Case(
            (node("n0"), node("n1")),
            tuple(pod(f"p{i}").host_port(8080) for i in range(3)),
            {"p2": ""},
            ("p2", f"0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. "
                   f"no new claims to deallocate, "
                   f"preemption: 0/2 nodes are available: 2 {NO_VICTIMS}."),
            check=lambda got: {got["p0"], got["p1"]} == {"n0", "n1"},
        ),
        id="NodePorts-host-port-once-per-node",
    ),
    pytest.param(
        Case(
            (node("n1", cpu="2", memory="2Gi"), node("n2", cpu="2", memory="2Gi")),
            tuple(pod(name, cpu="1500m") for name in ("a", "b", "c")),
            {"c": ""},
            ("c", f"0/2 nodes are available: 2 Insufficient cpu. "
                  f"no new claims to deallocate, preemption: 0/2 nodes are available: "
                  f"2 {NO_VICTIMS}."),
            check=lambda got: {got["a"], got["b"]} == {"n1", "n2"},
        ),
        id="NodeResourcesFit-cpu-exhausted",
    ),
    pytest.param(
        Case(
            (node("small", cpu="1", memory="1Gi"), node("big", cpu="2", memory="2Gi").taint("t", "x")),
            (pod("p", cpu="2"),),
            {"p": ""},
            # Insufficient cpu beyond the node's whole allocatable is unresolvable (PR #131345).
            ("p", f"0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
                  f"no new claims to deallocate, "
                  f"preemption: 0/2 nodes are available: 2 {NOT_HELPFUL}."),
        ),
        id="NodeResourcesFit-request-above-allocatable-unresolvable",
    ),
    pytest.param(
        Case(
            (node("busy"), node("idle")),
            (pod("old", cpu="2", memory="2Gi").node_selector({HOSTNAME: "busy"}), pod("new")),
            {"old": "busy", "new": "idle"},
        ),
        id="NodeResourcesFit-least-allocated-spreads",
    ),
    pytest.param(
        Case(
            # 500 MiB x 1/4 of the nodes = 125 MiB -> (125 - 23) * 100 / (1000 - 23) = 10
            (node("n0"), node("n1"), node("n2"), node("n3").images({"registry.k8s.io/big:v1": 500 * MB})),
            (pod("p").container_image("registry.k8s.io/big:v1"),),
            {"p": "n3"},
        ),
        id="ImageLocality-node-with-image",
    ),
    pytest.param(
        Case((node("n1"),), (pod("p").scheduling_gates(["example.com/wait"]),), {"p": ""}),
        id="SchedulingGates-gated-pod-waits",
    ),
    pytest.param(
        # created first but popped second: activeQ orders by priority before time
        Case((node("n1", cpu="1", memory="1Gi"),), (pod("low").priority(1), pod("high").priority(100)),
             {"high": "n1", "low": ""}),
        id="PrioritySort-higher-priority-first",
    ),
    pytest.param(
        # LeastAllocated ties (A: cpu 4/4 -> 0, memory 2/4 -> 50; B: 3/4 -> 25, 3/4 -> 25: both 25).
        # Balance: A (.5, .25) 87 -> (1, .5) 75: 50 + (50 + 75 - 87)/2 = 69;
        #          B (.25, .5) 87 -> (.75, .75) 100: 50 + (50 + 100 - 87)/2 = 81.
        Case(
            (node("A"), node("B")),
            (pod("ea", cpu="2", memory="1Gi").node_selector({HOSTNAME: "A"}),
             pod("eb", cpu="1", memory="2Gi").node_selector({HOSTNAME: "B"}),
             pod("p", cpu="2", memory="1Gi")),
            {"p": "B"},
        ),
        id="NodeResourcesBalancedAllocation-more-balanced-node",
    ),
]


@pytest.mark.parametrize("case", CASES)
def test_default_profile_placements(case: Case) -> None:
    c = Cluster().add(*case.nodes, *case.pods)
    c.run()
    got = c.placements()
    for name, want in case.want.items():
        assert got[name] == want, (name, got)
    if case.check is not None:
        assert case.check(got), got
    if case.message is not None:
        name, msg = case.message
        assert c.failure(name) == msg


def test_gated_pod_has_no_scheduling_attempt() -> None:
    c = Cluster().add(node("n1"), pod("p").scheduling_gates(["example.com/wait"]))
    summary = c.run()
    assert summary.attempts == 0 and c.node_of("p") == ""


def test_pvc_bound_to_zonal_pv() -> None:
    """VolumeZone (and VolumeBinding): the pod goes to the zone of its bound volume."""
    c = Cluster().load("zonal-volume.yaml")
    c.add(node("a1", zone="zone-a"), node("a2", zone="zone-a"), node("b1", zone="zone-b"))
    c.add(pod("p").pvc("data"))
    c.run()
    assert c.node_of("p") == "b1"


def test_pvc_bound_to_zonal_pv_without_node_in_zone() -> None:
    c = Cluster().load("zonal-volume.yaml")
    c.add(node("a1", zone="zone-a"), pod("p").pvc("data"))
    c.run()
    assert c.failure("p") == (
        "0/1 nodes are available: 1 node(s) had no available volume zone. "
        "no new claims to deallocate, preemption: "
        f"0/1 nodes are available: 1 {NOT_HELPFUL}."
    )


def test_read_write_once_pod_claim_used_once() -> None:
    """VolumeRestrictions: a ReadWriteOncePod claim in use rejects every node."""
    c = Cluster().load("read-write-once-pod.yaml")
    c.add(node("n1"), node("n2"), pod("a").pvc("single"), pod("b").pvc("single"))
    c.run()
    assert c.node_of("a") != "" and c.node_of("b") == ""
    assert c.failure("b") == (
        "0/2 nodes are available: 2 node(s) unavailable due to PersistentVolumeClaim with "
        "ReadWriteOncePod access mode already in-use by another pod. "
        "no new claims to deallocate, preemption: "
        f"0/2 nodes are available: 2 {NO_VICTIMS}."
    )


def test_csi_attach_limit() -> None:
    """NodeVolumeLimits: the node's CSINode allows one volume of the driver."""
    c = Cluster().load("attach-limits.yaml")
    c.add(node("n1"), pod("a").pvc("claim-1"), pod("b").pvc("claim-2"))
    c.run()
    assert c.placements() == {"a": "n1", "b": ""}
    assert c.failure("b") == (
        "0/1 nodes are available: 1 node(s) exceed max volume count. "
        "no new claims to deallocate, preemption: "
        f"0/1 nodes are available: 1 {NO_VICTIMS}."
    )


def test_same_seed_same_placements() -> None:
    """Ties are broken by the scheduler's seeded random source: a rerun places pods alike."""

    def run() -> dict[str, str]:
        c = Cluster(seed=7).add(*(node(f"n{i}") for i in range(4)), *(pod(f"p{i}") for i in range(8)))
        c.run()
        return c.placements()

    assert run() == run()
