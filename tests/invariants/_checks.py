"""Invariants every finished simulation must satisfy, whatever the input.

Each check returns the violations it found as readable strings (empty: it holds), so that a
failing hypothesis example prints every broken rule at once. Only rules that later events cannot
invalidate are checked against the final state: nodes never change in a generated cluster, and
pods leave only through preemption or graceful termination.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubesched.api import Node, Pod
from kubesched.api._selectors import LabelSelector, Taint, tolerations_tolerate_taint
from kubesched.cli._simulation import Simulation

__all__ = [
    "check_capacity",
    "check_filters",
    "check_pending",
    "check_preemptions",
    "outcome_signature",
]

UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
GATED_REASON = "SchedulingGated"


def _nodes(sim: Simulation) -> dict[str, Node]:
    return {n.name: n for n in sim.store.list("Node")}


def _live_pods(sim: Simulation) -> list[Pod]:
    return [p for p in sim.store.list("Pod") if p.node_name and not p.is_terminal]


def _scheduled(sim: Simulation) -> set[str]:
    return {o.pod for o in sim.pods if o.status == "Scheduled"}


def _usage(pods: Iterable[Pod]) -> dict[str, int]:
    used: dict[str, int] = {}
    for p in pods:
        for k, v in p.requests.items():
            used[k] = used.get(k, 0) + v
        used["pods"] = used.get("pods", 0) + 1
    return used


def _over(used: Mapping[str, int], alloc: Mapping[str, int]) -> list[str]:
    return [f"{k} {v} > {alloc.get(k, 0)}" for k, v in sorted(used.items()) if v > alloc.get(k, 0)]


def check_capacity(sim: Simulation, initial: list[Pod]) -> list[str]:
    """No node's summed requests exceed its allocatable: counting every pod on it when the input
    did not overcommit it, else only the pods this run bound."""
    out = []
    scheduled = _scheduled(sim)
    live = _live_pods(sim)
    for name, node in _nodes(sim).items():
        was = [p for p in initial if p.node_name == name and not p.is_terminal]
        counted = [p for p in live if p.node_name == name]
        if _over(_usage(was), node.allocatable):
            counted = [p for p in counted if p.key in scheduled]
        for problem in _over(_usage(counted), node.allocatable):
            out.append(f"node {name} overcommitted: {problem} ({sorted(p.key for p in counted)})")
    return out


def _anti_affinity_terms(pod: Pod) -> tuple[Any, ...]:
    aff = pod.affinity
    return aff.pod_anti_affinity_required if aff is not None else ()


def _violates_anti_affinity(a: Pod, b: Pod, na: Node, nb: Node) -> bool:
    """a's required anti-affinity terms select b in a shared topology domain."""
    for term in _anti_affinity_terms(a):
        key = term.topology_key
        if key not in na.labels or na.labels.get(key) != nb.labels.get(key):
            continue
        namespaces = term.namespaces or (a.namespace,)
        sel: LabelSelector | None = term.label_selector
        if b.namespace in namespaces and sel is not None and sel.matches(b.labels):
            return True
    return False


def check_filters(sim: Simulation) -> list[str]:
    """Every pod this run bound passes, on the final state, the filters nothing later can
    invalidate: node exists, cordon and NoSchedule/NoExecute taints tolerated, node selector and
    required node affinity, host ports and required anti-affinity (both directions, against pods
    that were there before or came after it)."""
    out = []
    nodes = _nodes(sim)
    scheduled = _scheduled(sim)
    live = _live_pods(sim)
    for pod in (p for p in live if p.key in scheduled):
        node = nodes.get(pod.node_name)
        if node is None:
            out.append(f"{pod.key} bound to missing node {pod.node_name}")
            continue
        if node.unschedulable and not tolerations_tolerate_taint(pod.tolerations, UNSCHEDULABLE_TAINT):
            out.append(f"{pod.key} on cordoned node {node.name}")
        for taint in node.taints:
            if taint.effect != "PreferNoSchedule" and not tolerations_tolerate_taint(pod.tolerations, taint):
                out.append(f"{pod.key} on {node.name} with untolerated taint {taint}")
        if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
            out.append(f"{pod.key} on {node.name}: nodeSelector {dict(pod.node_selector)} not matched")
        required = pod.affinity.node_required if pod.affinity is not None else None
        if required is not None and not required.matches(node.name, node.labels):
            out.append(f"{pod.key} on {node.name}: required node affinity not matched")
    for a in live:
        for b in live:
            if a is b or (a.key not in scheduled and b.key not in scheduled):
                continue
            na, nb = nodes.get(a.node_name), nodes.get(b.node_name)
            if na is None or nb is None:
                continue
            if a.node_name == b.node_name and a.key < b.key:
                clash = {(p.protocol, p.host_ip, p.host_port) for p in a.host_ports} & \
                        {(p.protocol, p.host_ip, p.host_port) for p in b.host_ports}
                if clash:
                    out.append(f"{a.key} and {b.key} share host port(s) {sorted(clash)} on {a.node_name}")
            if _violates_anti_affinity(a, b, na, nb):
                out.append(f"{a.key} on {a.node_name} has required anti-affinity to {b.key} on {b.node_name}")
    return out


def check_pending(sim: Simulation) -> list[str]:
    """Every pod of our profile left without a node says why: PodScheduled=False with upstream's
    aggregated message over all nodes and a FailedScheduling event; a gated pod says it is
    gated; another scheduler's pod is left untouched."""
    out = []
    n = len(sim.store.list("Node"))
    failed = {(e.involved_namespace, e.involved_name) for e in sim.store.events()
              if e.reason == "FailedScheduling"}
    for pod in sim.store.list("Pod"):
        if pod.node_name:
            continue
        cond = pod.condition("PodScheduled") or {}
        if pod.scheduler_name not in sim.profiles:
            if cond:
                out.append(f"{pod.key} of another scheduler got PodScheduled {dict(cond)}")
            continue
        if pod.scheduling_gates:
            # Never attempted; the API server (not the scheduler) may mark it SchedulingGated.
            if cond and cond.get("reason") != GATED_REASON:
                out.append(f"{pod.key} is gated but PodScheduled is {dict(cond)}")
            continue
        msg = str(cond.get("message") or "")
        if cond.get("status") != "False" or not msg.startswith(f"0/{n} nodes are available"):
            out.append(f"{pod.key} pending with PodScheduled {dict(cond)}")
        if (pod.namespace, pod.name) not in failed:
            out.append(f"{pod.key} pending without a FailedScheduling event")
    return out


def check_preemptions(sim: Simulation, initial: list[Pod]) -> list[str]:
    """Every victim had a lower priority than its preemptor, and no pod with
    preemptionPolicy=Never preempted."""
    out = []
    by_key = {p.key: p for p in initial}
    for pe in sim.preemptions:
        victim, preemptor = by_key.get(pe.victim), by_key.get(pe.preemptor)
        if victim is None or preemptor is None:
            out.append(f"unknown pods in preemption {pe}")
            continue
        if victim.priority_value >= preemptor.priority_value:
            out.append(f"{pe.preemptor} (priority {preemptor.priority_value}) preempted {pe.victim} "
                       f"(priority {victim.priority_value})")
        if preemptor.preemption_policy == "Never":
            out.append(f"{pe.preemptor} has preemptionPolicy=Never and preempted {pe.victim}")
    return out


def outcome_signature(sim: Simulation) -> tuple[Any, ...]:
    """Everything a run decided: placements, statuses, messages, preemptions and events."""
    events = tuple((e.involved_namespace, e.involved_name, e.reason, e.message, e.count)
                   for e in sim.store.events())
    return (tuple((o.pod, o.node, o.status, o.nominated_node, o.message) for o in sim.pods),
            tuple(sim.preemptions), events, sim.end)
