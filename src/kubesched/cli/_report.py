"""The machine-readable outputs: simulate's JSON report and YAML state, explain's JSON.

Each builder returns plain dicts/lists (JSON-ready); the field names are a documented contract
(docs/contracts/simulate-json.md, explain-json.md), so change them only compatibly. The
writers ``kubesched ui`` serves too (explain's JSON, the end state as YAML) are the
simulator's, re-exported here.
"""

from __future__ import annotations

from typing import Any

from ..api import format_time
from ..api.loader import kind_of
from ..simulator import PodOutcome, Simulation, dump_yaml, explanation_to_dict, state_manifests, state_pieces

__all__ = ["dump_yaml", "explanation_to_dict", "simulation_report", "state_manifests", "state_pieces"]

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


def _manifest(sim: Simulation, first: Any) -> dict[str, Any]:
    """A generated object as it is at the end (as created, if it is gone), without its
    resourceVersion."""
    obj = sim.store.try_get(kind_of(first), first.meta.namespace, first.meta.name)
    d = (obj if obj is not None and obj.meta.uid == first.meta.uid else first).to_dict()
    meta = d.get("metadata")
    if isinstance(meta, dict):
        meta.pop("resourceVersion", None)
    return d


