"""Storage objects and a harness shared by the volume plugin tests.

Builders return API objects parsed from manifests (as a user would write them); ``store_of``
loads them into a real MemoryStore (handed to the plugins as ``_harness.FakeHandle(store=...)``);
``run_filter`` runs PreFilter then Filter on both paths (per node and batch) and checks that
they agree, so every table case exercises both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.api import CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass
from kubesched.cluster import MemoryStore
from kubesched.framework import Code, CycleState, NodeBatch, PreFilterResult, Status
from kubesched.testing import snapshot_of

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
HOSTNAME = "kubernetes.io/hostname"


def store_of(*objs: Any) -> MemoryStore:
    store = MemoryStore()
    for o in objs:
        store.create(o)
    return store


def make_pv(
    name: str,
    *,
    capacity: str = "1Gi",
    sc: str = "",
    modes: Sequence[str] = ("ReadWriteOnce",),
    labels: Mapping[str, str] | None = None,
    affinity: Mapping[str, Sequence[str]] | None = None,
    claim: tuple[str, str] | None = None,
    phase: str = "Available",
    source: Mapping[str, Any] | None = None,
    volume_mode: str | None = None,
    annotations: Mapping[str, str] | None = None,
) -> PersistentVolume:
    spec: dict[str, Any] = {"capacity": {"storage": capacity}, "accessModes": list(modes)}
    if sc:
        spec["storageClassName"] = sc
    if affinity:
        spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": k, "operator": "In", "values": list(v)} for k, v in affinity.items()
                        ]
                    }
                ]
            }
        }
    if claim:
        spec["claimRef"] = {"namespace": claim[0], "name": claim[1]}
    if volume_mode:
        spec["volumeMode"] = volume_mode
    spec.update(source or {"hostPath": {"path": "/tmp"}})
    meta: dict[str, Any] = {"name": name, "labels": dict(labels or {})}
    if annotations:
        meta["annotations"] = dict(annotations)
    return PersistentVolume.from_dict(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": meta,
            "spec": spec,
            "status": {"phase": phase},
        }
    )


def make_pvc(
    name: str,
    *,
    sc: str | None = None,
    volume: str = "",
    request: str = "1Gi",
    modes: Sequence[str] = ("ReadWriteOnce",),
    namespace: str = "default",
    phase: str | None = None,
    annotations: Mapping[str, str] | None = None,
    owner_uid: str = "",
    selector: Mapping[str, str] | None = None,
    deleting: bool = False,
) -> PersistentVolumeClaim:
    spec: dict[str, Any] = {"accessModes": list(modes), "resources": {"requests": {"storage": request}}}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume:
        spec["volumeName"] = volume
    if selector is not None:
        spec["selector"] = {"matchLabels": dict(selector)}
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "annotations": dict(annotations or {})}
    if owner_uid:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner_uid, "controller": True}
        ]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    status = {"phase": phase or ("Bound" if volume else "Pending")}
    return PersistentVolumeClaim.from_dict(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": meta,
            "spec": spec,
            "status": status,
        }
    )


def make_sc(
    name: str,
    *,
    wffc: bool = True,
    provisioner: str = "",
    topologies: Mapping[str, Sequence[str]] | None = None,
) -> StorageClass:
    d: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner or "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer" if wffc else "Immediate",
    }
    if topologies:
        d["allowedTopologies"] = [
            {"matchLabelExpressions": [{"key": k, "values": list(v)} for k, v in topologies.items()]}
        ]
    return StorageClass.from_dict(d)


def make_csinode(
    name: str, drivers: Mapping[str, int | None], *, topology_keys: Sequence[str] = ()
) -> CSINode:
    ds = []
    for driver, count in drivers.items():
        d: dict[str, Any] = {"name": driver, "nodeID": name, "topologyKeys": list(topology_keys)}
        if count is not None:
            d["allocatable"] = {"count": count}
        ds.append(d)
    return CSINode.from_dict(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": name},
            "spec": {"drivers": ds},
        }
    )


@dataclass
class FilterRun:
    pre_filter_result: PreFilterResult | None
    pre_filter_status: Status | None
    statuses: list[Status]  # per node, in node order
    state: CycleState  # the per-node path's state (VolumeBinding records per-node decisions)

    def codes(self) -> list[Code]:
        return [s.code for s in self.statuses]


def _norm(s: Status | None) -> Status:
    return Status.success() if s is None else Status(s.code, s.reasons)


def run_filter(plugin_factory: Any, pod: Pod, nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> FilterRun:
    """PreFilter, then Filter on every node by both paths (fresh plugin and state for each, as
    VolumeBinding keeps per-cycle decisions); asserts that the paths agree. A rejecting or
    skipping PreFilter yields that status for every node, as the framework does."""
    node_list = list(nodes)
    snap = snapshot_of(node_list, list(pods))
    results = []
    for batch in (False, True):
        plugin = plugin_factory()
        state = CycleState()
        pfr, pfs = plugin.pre_filter(state, pod, snap.node_info_list)
        if pfs is not None and pfs.code != Code.SUCCESS:
            st = Status.success() if pfs.code == Code.SKIP else _norm(pfs)
            statuses = [st] * len(node_list)
        elif batch:
            res = plugin.filter_batch(state, pod, NodeBatch.all(snap))
            statuses = [_norm(res.status(i)) for i in range(len(node_list))]
        else:
            statuses = [_norm(plugin.filter(state, pod, ni)) for ni in snap.node_info_list]
        results.append(FilterRun(pfr, pfs, statuses, state))
    per_node, batched = results
    assert [(s.code, s.reasons) for s in per_node.statuses] == [(s.code, s.reasons) for s in batched.statuses]
    return per_node


def ok() -> Status:
    return Status.success()


def st(code: Code, *reasons: str) -> Status:
    return Status(code, tuple(reasons))
