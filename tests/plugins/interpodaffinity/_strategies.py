"""Hypothesis strategies for random clusters with inter-pod affinity and topology spreading.

Nodes come from the shared ``node_manifests`` (hostname always, zone/region sometimes, taints);
pods get random labels, namespaces, (anti-)affinity terms and spread constraints over a small
pool of keys and values so that matches and collisions are frequent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Snapshot
from kubesched.testing import snapshot_of

from ..strategies import HOSTNAME, REGION, ZONE, node_manifests, tolerations

__all__ = ["SpreadCluster", "affinity_clusters", "affinity_pods"]

TOPOLOGY_KEYS = (HOSTNAME, ZONE, REGION)
APPS = ("a", "b", "c")
NAMESPACES = ("default", "other")


@st.composite
def selectors(draw: st.DrawFn) -> dict[str, Any] | None:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return None
    if kind == 1:
        return {}
    if kind == 2:
        values = draw(st.lists(st.sampled_from(APPS), min_size=1, max_size=2))
        return {"matchExpressions": [{"key": "app", "operator": draw(st.sampled_from(["In", "NotIn"])),
                                      "values": values}]}
    if kind == 3:
        return {"matchExpressions": [{"key": "tier", "operator": draw(st.sampled_from(["Exists",
                                                                                      "DoesNotExist"]))}]}
    return {"matchLabels": {"app": draw(st.sampled_from(APPS))}}


@st.composite
def affinity_terms(draw: st.DrawFn) -> dict[str, Any]:
    term: dict[str, Any] = {"topologyKey": draw(st.sampled_from(TOPOLOGY_KEYS))}
    sel = draw(selectors())
    if sel is not None:
        term["labelSelector"] = sel
    ns = draw(st.integers(0, 5))
    if ns == 0:
        term["namespaces"] = draw(st.lists(st.sampled_from(NAMESPACES), max_size=2))
    elif ns == 1:
        term["namespaceSelector"] = {}
    if draw(st.integers(0, 4)) == 0:
        term["matchLabelKeys" if draw(st.booleans()) else "mismatchLabelKeys"] = ["tier"]
    return term


@st.composite
def pod_affinity(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.integers(0, 2)) == 0:
        return None
    out: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        block: dict[str, Any] = {}
        req = draw(st.lists(affinity_terms(), max_size=2))
        if req:
            block["requiredDuringSchedulingIgnoredDuringExecution"] = req
        pref = draw(st.lists(st.tuples(st.integers(1, 100), affinity_terms()), max_size=2))
        if pref:
            block["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w, "podAffinityTerm": t} for w, t in pref]
        if block:
            out[kind] = block
    return out or None


@st.composite
def spread_constraints(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    used: set[tuple[str, str]] = set()
    for _ in range(draw(st.integers(0, 3))):
        c: dict[str, Any] = {"maxSkew": draw(st.integers(1, 3)),
                             "topologyKey": draw(st.sampled_from(TOPOLOGY_KEYS)),
                             "whenUnsatisfiable": draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]))}
        if (c["topologyKey"], c["whenUnsatisfiable"]) in used:
            continue
        used.add((c["topologyKey"], c["whenUnsatisfiable"]))
        sel = draw(selectors())
        if sel is not None:
            c["labelSelector"] = sel
        # The API server accepts minDomains only with DoNotSchedule.
        if c["whenUnsatisfiable"] == "DoNotSchedule" and draw(st.integers(0, 3)) == 0:
            c["minDomains"] = draw(st.integers(1, 4))
        if draw(st.integers(0, 3)) == 0:
            c["nodeAffinityPolicy"] = draw(st.sampled_from(["Honor", "Ignore"]))
        if draw(st.integers(0, 3)) == 0:
            c["nodeTaintsPolicy"] = draw(st.sampled_from(["Honor", "Ignore"]))
        if draw(st.integers(0, 4)) == 0:
            c["matchLabelKeys"] = ["tier"]
        out.append(c)
    return out


@st.composite
def affinity_pods(draw: st.DrawFn, name: str, node_name: str = "", owned: bool = False) -> Pod:
    labels = {"app": draw(st.sampled_from(APPS))}
    if draw(st.booleans()):
        labels["tier"] = draw(st.sampled_from(["web", "db"]))
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node_name:
        spec["nodeName"] = node_name
    else:
        spec["tolerations"] = draw(tolerations())
        if draw(st.integers(0, 3)) == 0:
            spec["nodeSelector"] = {ZONE: draw(st.sampled_from(["z1", "z2"]))}
    aff = draw(pod_affinity())
    if aff is not None:
        spec["affinity"] = aff
    tsc = draw(spread_constraints())
    if tsc:
        spec["topologySpreadConstraints"] = tsc
    meta: dict[str, Any] = {"name": name, "uid": name, "labels": labels,
                            "namespace": draw(st.sampled_from(NAMESPACES)) if node_name else "default"}
    if owned or draw(st.integers(0, 3)) == 0:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                                    "uid": "rs", "controller": True}]
    if node_name and draw(st.integers(0, 6)) == 0:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


@dataclass(frozen=True)
class SpreadCluster:
    nodes: list[Node]
    pods: list[Pod]

    def snapshot(self) -> Snapshot:
        return snapshot_of(self.nodes, self.pods)


@st.composite
def affinity_clusters(draw: st.DrawFn, max_nodes: int = 7, max_pods: int = 12) -> SpreadCluster:
    k = draw(st.integers(1, max_nodes))
    names = [f"n{i}" for i in range(k)]
    nodes = [Node.from_dict(draw(node_manifests(nm))) for nm in names]
    pods = [draw(affinity_pods(f"p{j}", node_name=draw(st.sampled_from(names))))
            for j in range(draw(st.integers(0, max_pods)))]
    return SpreadCluster(nodes, pods)
