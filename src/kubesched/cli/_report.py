"""The machine-readable outputs: simulate's JSON report and YAML state, explain's JSON.

Each builder returns plain dicts/lists (JSON-ready); the field names are a documented contract
(docs/contracts/simulate-json.md, explain-json.md), so change them only compatibly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from ..api import format_time
from ..api.loader import KINDS, kind_of
from ..plugins.dynamicresources import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from ..scheduler import Explanation, NodeExplanation
from ..simulator import PodOutcome, SimulatedExplanation, Simulation

__all__ = ["dump_yaml", "explanation_to_dict", "simulation_report", "state_manifests"]

REPORT_KIND = "SimulationReport"


def simulation_report(sim: Simulation) -> dict[str, Any]:
    """simulate ``-o json``. Resource amounts are integers: cpu in millicores, memory and
    storage in bytes, everything else (pods, extended resources) as counts."""
    run = sim.run
    scheduled = sim.scheduled()
    return {
        "kind": REPORT_KIND,
        "seed": sim.seed,
        "startTime": format_time(sim.start),
        "endTime": format_time(sim.end),
        "summary": {
            "pods": len(sim.pods),
            "bound": sim.count("Bound"),
            "scheduled": len(scheduled),
            "finished": sum(1 for p in scheduled if p.finished),
            "unschedulable": len(sim.unplaced()),
            "preempted": sim.count("Preempted"),
            "preemptions": len(sim.preemptions),
            "attempts": run.attempts,
            "simulatedSeconds": round(sim.end - sim.start, 3),
        },
        "pods": [_pod_entry(sim, p) for p in sim.pods],
        "workloads": [
            {"kind": w.kind, "namespace": w.namespace, "name": w.name, "wanted": w.wanted,
             "placed": w.placed, "pods": list(w.pods)}
            for w in sim.workloads
        ],
        "generated": [_manifest(sim, o) for o in sim.generated],
        "preemptions": [
            {"victim": e.victim, "preemptor": e.preemptor, "node": e.node, "time": format_time(e.time)}
            for e in sim.preemptions
        ],
        "nodes": [
            {"name": n.name,
             "resources": {k: {"requested": n.requested[k], "allocatable": n.allocatable[k]}
                           for k in n.requested}}
            for n in sim.nodes
        ],
    }


def _pod_entry(sim: Simulation, p: PodOutcome) -> dict[str, Any]:
    """One pod of the report; ``workload`` (``Kind namespace/name``) only for a pod a workload
    controls."""
    out: dict[str, Any] = {"pod": p.pod, "node": p.node or None, "status": p.status, "priority": p.priority,
                           "nominatedNode": p.nominated_node or None, "message": p.message}
    workload = sim.pod_workload.get(p.pod)
    if workload is not None:
        out["workload"] = workload
    if p.devices:
        out["devices"] = [{"claim": d.claim, "request": d.request, "driver": d.driver, "pool": d.pool,
                           "device": d.device} for d in p.devices]
    return out


def state_manifests(sim: Simulation) -> list[dict[str, Any]]:
    """simulate ``-o yaml``: every object of the input and every object the controllers (or
    the scheduler: the claims of extended resources backed by DRA) created, as it is at the
    end (bound pods with ``spec.nodeName``, conditions and
    ``status.nominatedNodeName``; victims gone), in dependency order, without
    ``metadata.resourceVersion`` (it belongs to this run's store). Feeding it back admits the
    same cluster, and the controllers find nothing left to create."""
    out = []
    keep = sim.input_ids | sim.generated_ids
    for kind in KINDS:
        for obj in sim.store.list(kind):
            created_by_scheduler = kind == "ResourceClaim" and bool(
                obj.meta.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION))
            if (kind_of(obj), obj.meta.namespace, obj.meta.name) not in keep and not created_by_scheduler:
                continue  # the store's bootstrap objects (system classes, namespaces)
            d = obj.to_dict()
            meta = d.get("metadata")
            if isinstance(meta, dict):
                meta.pop("resourceVersion", None)
            out.append(d)
    return out


def _manifest(sim: Simulation, first: Any) -> dict[str, Any]:
    """A generated object as it is at the end (as created, if it is gone), without its
    resourceVersion."""
    obj = sim.store.try_get(kind_of(first), first.meta.namespace, first.meta.name)
    d = (obj if obj is not None and obj.meta.uid == first.meta.uid else first).to_dict()
    meta = d.get("metadata")
    if isinstance(meta, dict):
        meta.pop("resourceVersion", None)
    return d


def dump_yaml(docs: Iterable[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(list(docs), sort_keys=False, default_flow_style=False, explicit_start=True)


# -- explain ---------------------------------------------------------------------------------
def explanation_to_dict(e: Explanation, simulated: SimulatedExplanation | None = None) -> dict[str, Any]:
    """explain ``-o json``: the documented contract (docs/contracts/explain-json.md); ``simulated``:
    where in the simulation the pod was explained (``simulation``; null for a pod of the input)."""
    pf, pe = e.post_filter, e.pre_enqueue
    return {
        "pod": e.pod,
        "profile": e.profile,
        "preEnqueue": None if pe is None else {
            "plugin": pe.plugin, "code": str(pe.code), "reasons": list(pe.reasons)},
        "nodes": [_node(n) for n in e.nodes],
        "selectedNode": e.selected_node,
        "tiedNodes": list(e.tied_nodes),
        "postFilter": None if pf is None else {
            "plugin": pf.plugin, "nominatedNode": pf.nominated_node, "victims": list(pf.victims),
            "message": pf.message},
        "message": e.message,
        "waitingClaims": [{"claim": w.claim, "message": w.message} for w in e.waiting_claims],
        "simulation": None if simulated is None else {
            "createdBy": simulated.created_by, "time": simulated.time, "attempted": simulated.attempted,
            "workload": simulated.workload, "firstAttemptFailed": simulated.first_attempt_failed,
            "podGroup": simulated.pod_group, "note": simulated.note},
    }


def _node(n: NodeExplanation) -> dict[str, Any]:
    return {
        "name": n.name,
        "filters": [{"plugin": f.plugin, "code": str(f.code), "reasons": list(f.reasons)} for f in n.filters],
        "feasible": n.feasible,
        "scores": [{"plugin": s.plugin, "raw": s.raw, "normalized": s.normalized, "weight": s.weight,
                    "weighted": s.weighted} for s in n.scores],
        "totalScore": n.total_score,
        "devices": list(n.devices),
    }
