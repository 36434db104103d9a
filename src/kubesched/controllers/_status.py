"""How far each workload got: pods wanted and placed, grouped by the top-level workload.

A Deployment's pods belong to it through its ReplicaSets (the ReplicaSets a Deployment controls
are not listed on their own). ``wanted`` is what the controller aims at: replicas; for a
DaemonSet the nodes that should run it; for a Job its completions (parallelism when unset).
``placed`` counts the pods bound to a node, finished ones included (a Job's completed pods).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from ..api import Pod, kind_of
from ..api.loader import ApiObject
from ..cluster import Store
from ._manager import WORKLOAD_KINDS, ControllerManager
from ._pods import controller_ref

__all__ = ["WorkloadStatus", "owning_workloads", "workload_kind", "workload_owners",
           "workload_statuses"]


@dataclass(frozen=True, slots=True)
class WorkloadStatus:
    kind: str
    namespace: str
    name: str
    wanted: int
    placed: int
    pods: tuple[str, ...]  # namespace/name, sorted

    @property
    def ref(self) -> str:
        """``Kind namespace/name``."""
        return f"{self.kind} {self.namespace}/{self.name}"


_KIND_NAMES: Final = {
    # kind: (API group, kubectl's resource names: plural and short names)
    "Deployment": ("apps", ("deployments", "deploy")),
    "ReplicaSet": ("apps", ("replicasets", "rs")),
    "ReplicationController": ("", ("replicationcontrollers", "rc")),
    "StatefulSet": ("apps", ("statefulsets", "sts")),
    "DaemonSet": ("apps", ("daemonsets", "ds")),
    "Job": ("batch", ("jobs",)),
}


def workload_kind(name: str) -> str | None:
    """The workload kind a user names as kubectl accepts it: the kind, its resource (plural)
    or short name, any case, optionally qualified by its group (``deploy``, ``Deployment``,
    ``deployments.apps``, ``sts``, ``jobs.batch``); None when it names no workload kind."""
    word, _, group = name.lower().partition(".")
    for kind, (api_group, names) in _KIND_NAMES.items():
        if word in (kind.lower(), *names) and group in ("", api_group):
            return kind
    return None


def _owner(store: Store, obj: ApiObject) -> ApiObject | None:
    ref = controller_ref(obj)
    if ref is None or ref.get("kind") not in WORKLOAD_KINDS:
        return None
    owner = store.try_get(str(ref["kind"]), obj.meta.namespace, str(ref.get("name") or ""))
    return owner


def workload_owners(store: Store, obj: ApiObject) -> list[ApiObject]:
    """The workloads controlling ``obj`` through controller references, nearest first: a
    Deployment's pod gives its ReplicaSet, then the Deployment; a bare pod gives none."""
    out: list[ApiObject] = []
    owner = _owner(store, obj)
    while owner is not None and len(out) < len(WORKLOAD_KINDS):  # bounded: a cycle of refs
        out.append(owner)
        owner = _owner(store, owner)
    return out


def owning_workloads(store: Store) -> dict[str, ApiObject]:
    """Pod key -> the top-level workload controlling it (through a ReplicaSet to its Deployment)."""
    out = {}
    for pod in store.list("Pod"):
        owners = workload_owners(store, pod)
        if owners:
            out[pod.key] = owners[-1]
    return out


def workload_statuses(store: Store, manager: ControllerManager) -> list[WorkloadStatus]:
    """Every top-level workload in the store, in WORKLOAD_KINDS order then by namespace/name."""
    by_workload: dict[tuple[str, str, str], list[Pod]] = {}
    pods = {p.key: p for p in store.list("Pod")}
    for key, owner in owning_workloads(store).items():
        by_workload.setdefault((kind_of(owner), owner.meta.namespace, owner.meta.name), []).append(pods[key])
    wanted: dict[str, Callable[[Any], int]] = {
        "Deployment": manager.deployments.wanted,
        "ReplicaSet": manager.replica_sets.wanted,
        "ReplicationController": manager.replica_sets.wanted,
        "StatefulSet": manager.stateful_sets.wanted,
        "DaemonSet": manager.daemon_sets.wanted,
        "Job": manager.jobs.wanted,
    }
    out = []
    for kind in WORKLOAD_KINDS:
        for obj in store.list(kind):
            if _owner(store, obj) is not None:
                continue  # a Deployment's ReplicaSet: counted with its Deployment
            mine = by_workload.get((kind, obj.meta.namespace, obj.meta.name), [])
            placed = sum(1 for p in mine if p.node_name and p.phase != "Failed" and not p.is_terminating)
            out.append(WorkloadStatus(kind, obj.meta.namespace, obj.meta.name, wanted[kind](obj), placed,
                                      tuple(sorted(p.key for p in mine))))
    return out
