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
from kubesched.simulator import Simulation

__all__ = [
    "check_capacity",
    "check_filters",
    "check_pending",
    "check_pod_affinity",
    "check_preemptions",
    "check_topology_spread",
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


WILDCARD_IPS = ("", "0.0.0.0")


def _ports_clash(a: Pod, b: Pod) -> bool:
    """Two pods want the same host port: same protocol and port, and the same IP or either on
    every address (HostPortInfo.CheckConflict)."""
    return any(p.protocol == q.protocol and p.host_port == q.host_port
               and (p.host_ip == q.host_ip or p.host_ip in WILDCARD_IPS or q.host_ip in WILDCARD_IPS)
               for p in a.host_ports for q in b.host_ports)


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
            if a.node_name == b.node_name and a.key < b.key and _ports_clash(a, b):
                out.append(f"{a.key} and {b.key} use the same host port on {a.node_name}")
            if _violates_anti_affinity(a, b, na, nb):
                out.append(f"{a.key} on {a.node_name} has required anti-affinity to {b.key} on {b.node_name}")
    return out


def check_pending(sim: Simulation) -> list[str]:
    """Every pod of our profile left without a node says why: PodScheduled=False with upstream's
    aggregated message over all nodes and a FailedScheduling event; a gated pod says it is
    gated; another scheduler's pod is left untouched. Every pod this run bound got the
    ``Scheduled`` event naming its node and lost its nomination (binding clears it, KEP-5278)."""
    out = []
    n = len(sim.store.list("Node"))
    events = sim.store.events()
    failed = {(e.involved_namespace, e.involved_name) for e in events if e.reason == "FailedScheduling"}
    assigned = {(e.involved_namespace, e.involved_name): e.message for e in events if e.reason == "Scheduled"}
    scheduled = _scheduled(sim)
    for pod in sim.store.list("Pod"):
        if pod.key in scheduled:
            want = f"Successfully assigned {pod.key} to {pod.node_name}"
            got = assigned.get((pod.namespace, pod.name))
            if got != want:
                out.append(f"{pod.key}: Scheduled event {got!r}, want {want!r}")
            if pod.nominated_node_name:
                out.append(f"{pod.key} bound to {pod.node_name} still nominated to {pod.nominated_node_name}")
        if pod.node_name:
            continue
        cond = pod.condition("PodScheduled") or {}
        if pod.scheduler_name not in sim.profiles:
            # The API server marks any gated pod on create, whatever its scheduler.
            if cond and not (pod.scheduling_gates and cond.get("reason") == GATED_REASON):
                out.append(f"{pod.key} of another scheduler got PodScheduled {dict(cond)}")
            continue
        if pod.scheduling_gates:
            # Never attempted; the API server (not the scheduler) marks it SchedulingGated.
            if cond.get("reason") != GATED_REASON:
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


def _nothing_left(sim: Simulation) -> bool:
    """No pod left the cluster during the run (no preemption, no graceful termination), so
    what the final state shows was there when each pod was placed."""
    return all(o.status not in ("Preempted", "Deleted", "Terminating") for o in sim.pods)


def _same_domain(key: str, na: Node, nb: Node) -> bool:
    return key in na.labels and na.labels.get(key) == nb.labels.get(key)


def check_pod_affinity(sim: Simulation) -> list[str]:
    """When no pod left, every pod this run bound with a required pod affinity term has a pod
    matching it in its topology domain (or is the first such pod and matches its own term)."""
    if not _nothing_left(sim):
        return []
    out = []
    nodes = _nodes(sim)
    scheduled = _scheduled(sim)
    live = _live_pods(sim)
    for pod in (p for p in live if p.key in scheduled and p.affinity is not None):
        for term in pod.affinity.pod_affinity_required if pod.affinity is not None else ():
            namespaces = term.namespaces or (pod.namespace,)
            sel = term.label_selector
            matching = [q for q in live if q is not pod and q.namespace in namespaces
                        and sel is not None and sel.matches(q.labels)]
            node = nodes[pod.node_name]
            here = [q for q in matching if _same_domain(term.topology_key, node, nodes[q.node_name])]
            self_match = pod.namespace in namespaces and sel is not None and sel.matches(pod.labels)
            if not here and not self_match:
                out.append(f"{pod.key} on {pod.node_name}: no pod matches its required affinity "
                           f"in {term.topology_key}")
    return out


def check_topology_spread(sim: Simulation, initial: list[Pod]) -> list[str]:
    """For a workload whose pods all share one DoNotSchedule constraint and node selection, none
    bound before the run and none gone since: the final skew is at most maxSkew (each placement
    kept its domain within maxSkew of the minimum then, and the minimum only grew)."""
    if not _nothing_left(sim):
        return []
    out = []
    nodes = _nodes(sim)
    everyone = sim.store.list("Pod")
    for pod in everyone:
        for c in pod.topology_spread_constraints:
            if c.when_unsatisfiable != "DoNotSchedule" or c.label_selector is None:
                continue
            sel = c.label_selector
            group = [q for q in everyone if q.namespace == pod.namespace and sel.matches(q.labels)]
            same = all(q.topology_spread_constraints == pod.topology_spread_constraints
                       and q.node_selector == pod.node_selector and q.affinity == pod.affinity for q in group)
            if not same or any(q.node_name and q.namespace == pod.namespace and sel.matches(q.labels)
                               for q in initial):
                continue
            required = pod.affinity.node_required if pod.affinity is not None else None
            counts: dict[str, int] = {}
            for n in nodes.values():
                if c.topology_key not in n.labels:
                    continue
                if any(n.labels.get(k) != v for k, v in pod.node_selector.items()):
                    continue
                if required is not None and not required.matches(n.name, n.labels):
                    continue
                counts.setdefault(n.labels[c.topology_key], 0)
            for q in group:
                if q.node_name and q.node_name in nodes:
                    domain = nodes[q.node_name].labels.get(c.topology_key)
                    if domain in counts:
                        counts[domain] += 1
            if counts and max(counts.values()) - min(counts.values()) > c.max_skew:
                out.append(f"{pod.key}'s workload skew on {c.topology_key} exceeds {c.max_skew}: {counts}")
    return out
