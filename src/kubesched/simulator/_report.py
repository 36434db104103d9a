"""What the front ends write out, once for all of them: ``explain -o json`` (a documented
contract, docs/contracts/explain-json.md: change it only compatibly), the end state of a
simulation as manifests (``simulate -o yaml``) and a snapshot of the input (``kubesched
snapshot``), each as the loader reads it back. The CLI prints them; ``kubesched ui`` serves the
same bytes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from ..api import DELETE, dumps_json_indented, with_paths
from ..api.loader import KINDS, ApiObject, LoadedObjects, kind_of
from ..plugins.dynamicresources import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from ..scheduler import Explanation, NodeExplanation
from ._explain import SimulatedExplanation
from ._simulation import Simulation
from ._yaml_out import dump_yaml, yaml_pieces

__all__ = ["dump_yaml", "explanation_json", "explanation_to_dict", "snapshot_pieces", "snapshot_text",
           "state_manifests", "state_pieces"]


def state_manifests(sim: Simulation) -> list[dict[str, Any]]:
    """simulate ``-o yaml``: every object of the input and every object the controllers (or
    the scheduler: the claims of extended resources backed by DRA) created, as it is at the
    end (bound pods with ``spec.nodeName``, conditions and
    ``status.nominatedNodeName``; victims gone), in dependency order, without
    ``metadata.resourceVersion`` (it belongs to this run's store). Feeding it back admits the
    same cluster, and the controllers find nothing left to create. Deep copies: the caller may
    change them."""
    return [copy.deepcopy(_state_manifest(obj)) for obj in _state_objects(sim)]


def state_pieces(sim: Simulation) -> Iterator[str]:
    """:func:`state_manifests` as :func:`dump_yaml` writes them, a piece at a time
    (:func:`~._yaml_out.yaml_pieces`), from the objects as they are (no copies: the writer
    only reads them)."""
    return yaml_pieces(_state_manifest(obj) for obj in _state_objects(sim))


def _state_objects(sim: Simulation) -> list[ApiObject]:
    out: list[ApiObject] = []
    keep = sim.input_ids | sim.generated_ids
    for kind in KINDS:
        for obj in sim.store.list(kind):
            created_by_scheduler = kind == "ResourceClaim" and bool(
                obj.meta.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION))
            if (kind_of(obj), obj.meta.namespace, obj.meta.name) not in keep and not created_by_scheduler:
                continue  # the store's bootstrap objects (system classes, namespaces)
            out.append(obj)
    return out


def _state_manifest(obj: ApiObject) -> dict[str, Any]:
    """``obj``'s manifest without ``metadata.resourceVersion``: a copy of the dicts on that
    path only (the rest shared with the object's, never changed in place)."""
    raw = obj.raw
    meta = raw.get("metadata")
    if isinstance(meta, dict) and "resourceVersion" in meta:
        return with_paths(raw, {("metadata", "resourceVersion"): DELETE})
    return raw if type(raw) is dict else dict(raw)


def snapshot_pieces(loaded: LoadedObjects) -> Iterator[str]:
    """The objects as one multi-document YAML stream, in dependency order (kinds in KINDS
    order, each kind in input order), as the loader reads it back: ``kubesched snapshot``, a
    piece at a time (:func:`~._yaml_out.yaml_pieces`)."""
    order = {k: i for i, k in enumerate(KINDS)}
    objects = sorted(loaded.objects, key=lambda o: order[kind_of(o)])  # stable: input order
    # Each manifest as read (``raw``: never changed in place), not a deep copy (``to_dict``):
    # the writer only reads it, and copying 50,000 pods costs as much as writing them.
    return yaml_pieces(o.raw if type(o.raw) is dict else dict(o.raw) for o in objects)


def snapshot_text(loaded: LoadedObjects) -> str:
    """:func:`snapshot_pieces` joined."""
    return "".join(snapshot_pieces(loaded))


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


def explanation_json(e: Explanation, simulated: SimulatedExplanation | None = None) -> str:
    """``explain -o json``'s text, as printed (indented, one newline at the end). Without
    ``simulated`` the document holds no float: :func:`~kubesched.api.dumps_json_indented` may write it."""
    doc = explanation_to_dict(e, simulated)
    return (json.dumps(doc, indent=2) if simulated is not None else dumps_json_indented(doc)) + "\n"
