"""The cluster as the page shows it: one simulation's outcome (the nodes' allocation, each
pod's node or why it has none) indexed once, and answered a page at a time.

A view is immutable once built: every request reads the one it started with, while a reload
or a watch event builds the next (:class:`~kubesched.ui.Workspace`). Filtering, sorting and
paging happen here, on the server, so that the browser never holds more than a page of rows:
at 5000 nodes and 50,000 pods a request scans plain Python lists (milliseconds), and the DOM
stays a few hundred rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..api import Node, ResourceSlice
from ..api.loader import LoadedObjects
from ..simulator import PENDING, SCHEDULER_ERROR, UNSCHEDULABLE, Simulation

__all__ = ["MAX_PAGE", "ClusterView", "NodeRow", "PodRow", "Query"]

MAX_PAGE: Final = 500
"""Most rows one request returns."""

BASE_RESOURCES: Final = ("cpu", "memory", "pods")
"""The bars every node shows first; extended resources follow."""

WAITING: Final = frozenset({UNSCHEDULABLE, PENDING, SCHEDULER_ERROR, "SchedulingGated"})
"""The statuses the "waiting" filter shows: the pods left without a node, and why."""


@dataclass(frozen=True, slots=True)
class NodeRow:
    name: str
    resources: dict[str, tuple[int, int]]  # resource -> (requested, allocatable)
    labels: Mapping[str, str]
    taints: tuple[str, ...]
    unschedulable: bool
    devices: tuple[str, ...]  # DRA devices published for this node: driver/pool/device
    used_devices: frozenset[str]
    pods: list[int] = field(default_factory=list)  # indexes into ClusterView.pods

    def fraction(self, resource: str) -> float:
        req, alloc = self.resources.get(resource, (0, 0))
        return req / alloc if alloc else (0.0 if not req else float("inf"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "resources": {r: {"requested": q, "allocatable": a} for r, (q, a) in self.resources.items()},
            "devices": {"allocated": len(self.used_devices), "total": len(self.devices)},
            "labels": dict(self.labels),
            "taints": list(self.taints),
            "unschedulable": self.unschedulable,
            "podCount": len(self.pods),
        }


@dataclass(frozen=True, slots=True)
class PodRow:
    key: str  # namespace/name
    node: str
    status: str
    priority: int
    nominated_node: str
    message: str
    workload: str
    devices: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        ns, _, name = self.key.partition("/")
        return {"pod": self.key, "namespace": ns, "name": name, "node": self.node or None,
                "status": self.status, "priority": self.priority,
                "nominatedNode": self.nominated_node or None, "message": self.message,
                "workload": self.workload or None, "devices": list(self.devices)}


@dataclass(frozen=True, slots=True)
class Query:
    """A list request: ``q`` a substring (case-insensitive) of the name, or of a label
    ``key=value`` for nodes; ``status`` one pod status, or ``waiting``; ``node`` the pods of
    one node; ``sort`` a column (``name``, a resource for nodes; ``priority``, ``status``,
    ``node`` for pods), ``desc`` to reverse; ``offset`` and ``limit`` the page."""

    q: str = ""
    status: str = ""
    node: str | None = None
    sort: str = "name"
    desc: bool = False
    offset: int = 0
    limit: int = 100

    @staticmethod
    def from_params(params: Mapping[str, str]) -> Query:
        """ValueError naming the parameter when one is not what it should be."""
        def number(name: str, default: int, lo: int, hi: int) -> int:
            text = params.get(name)
            if text is None or text == "":
                return default
            if not text.isdigit():
                raise ValueError(f"{name}: want a number, got {text!r}")
            return max(lo, min(hi, int(text)))

        return Query(q=params.get("q", "").strip().lower(), status=params.get("status", ""),
                     node=params.get("node"), sort=params.get("sort", "name") or "name",
                     desc=params.get("order", "asc") == "desc", offset=number("offset", 0, 0, 10**9),
                     limit=number("limit", 100, 1, MAX_PAGE))


def _page(rows: Sequence[Any], query: Query, to_dict: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    return {"total": len(rows), "offset": query.offset, "limit": query.limit,
            "items": [to_dict(r) for r in rows[query.offset:query.offset + query.limit]]}


class ClusterView:
    """One simulation's outcome over ``loaded``: its nodes and pods as rows, the pods of each
    node, and the counts the summary shows."""

    def __init__(self, version: int, loaded: LoadedObjects, sim: Simulation) -> None:
        self.version = version
        self.loaded = loaded
        self.sim = sim
        store = sim.store
        devices: dict[str, list[str]] = {}
        for s in store.list("ResourceSlice"):
            if isinstance(s, ResourceSlice) and s.node_name:
                devices.setdefault(s.node_name, []).extend(
                    f"{s.driver}/{s.pool.name}/{d.name}" for d in s.devices)
        used: dict[str, set[str]] = {}
        self.pods: list[PodRow] = []
        for p in sim.pods:
            devs = tuple(f"{d.driver}/{d.pool}/{d.device}" for d in p.devices)
            self.pods.append(PodRow(p.pod, p.node, p.status, p.priority, p.nominated_node, p.message,
                                    sim.pod_workload.get(p.pod, ""), devs))
            if p.node and not p.finished:
                used.setdefault(p.node, set()).update(devs)
        self.nodes: list[NodeRow] = []
        self.resources: list[str] = list(BASE_RESOURCES)
        for n in sim.nodes:
            obj = store.try_get("Node", "", n.name)
            node = obj if isinstance(obj, Node) else None
            for r, amount in n.allocatable.items():  # extended resources offered or asked for
                if (amount or n.requested.get(r)) and r not in self.resources and r != "ephemeral-storage":
                    self.resources.append(r)
            self.nodes.append(NodeRow(
                n.name, {r: (n.requested.get(r, 0), a) for r, a in n.allocatable.items()},
                node.labels if node is not None else {},
                tuple(f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}" for t in node.taints)
                if node is not None else (),
                node.unschedulable if node is not None else False,
                tuple(devices.get(n.name, ())), frozenset(used.get(n.name, ()))))
        self._node_index = {n.name: i for i, n in enumerate(self.nodes)}
        self._pod_index = {p.key: i for i, p in enumerate(self.pods)}
        for i, row in enumerate(self.pods):
            if row.node and row.node in self._node_index:
                self.nodes[self._node_index[row.node]].pods.append(i)
        self.counts: dict[str, int] = {}
        for row in self.pods:
            self.counts[row.status] = self.counts.get(row.status, 0) + 1

    def node(self, name: str) -> NodeRow | None:
        i = self._node_index.get(name)
        return None if i is None else self.nodes[i]

    def pod(self, key: str) -> PodRow | None:
        i = self._pod_index.get(key)
        return None if i is None else self.pods[i]

    def summary(self) -> dict[str, Any]:
        sim = self.sim
        return {
            "version": self.version,
            "nodes": len(self.nodes),
            "pods": len(self.pods),
            "statuses": dict(sorted(self.counts.items())),
            "waiting": sum(c for s, c in self.counts.items() if s in WAITING),
            "preemptions": [{"victim": e.victim, "preemptor": e.preemptor, "node": e.node}
                            for e in sim.preemptions],
            "resources": self.resources,
            "totals": {r: {"requested": sum(n.resources.get(r, (0, 0))[0] for n in self.nodes),
                           "allocatable": sum(n.resources.get(r, (0, 0))[1] for n in self.nodes)}
                       for r in self.resources},
            "workloads": [{"workload": w.ref, "placed": w.placed, "wanted": w.wanted} for w in sim.workloads],
            "attempts": sim.run.attempts,
            "seed": sim.seed,
        }

    def list_nodes(self, query: Query) -> dict[str, Any]:
        rows: list[NodeRow] = self.nodes
        if query.q:
            q = query.q
            rows = [n for n in rows if q in n.name.lower()
                    or any(q in f"{k}={v}".lower() for k, v in n.labels.items())]
        if query.sort == "pods-count":
            rows = sorted(rows, key=lambda n: (len(n.pods), n.name), reverse=query.desc)
        elif query.sort != "name" and query.sort in self.resources:
            rows = sorted(rows, key=lambda n: (n.fraction(query.sort), n.name), reverse=query.desc)
        elif query.desc:
            rows = rows[::-1]
        out = _page(rows, query, NodeRow.to_dict)
        out["resources"] = self.resources
        return out

    def list_pods(self, query: Query) -> dict[str, Any]:
        rows: list[PodRow]
        if query.node is not None:
            n = self.node(query.node)
            rows = [self.pods[i] for i in n.pods] if n is not None else []
        else:
            rows = self.pods
        if query.status == "waiting":
            rows = [p for p in rows if p.status in WAITING]
        elif query.status:
            rows = [p for p in rows if p.status == query.status]
        if query.q:
            q = query.q
            rows = [p for p in rows if q in p.key.lower() or q in p.workload.lower()
                    or (p.node and q in p.node.lower())]
        key: Callable[[PodRow], Any] | None = {
            "priority": lambda p: (p.priority, p.key), "status": lambda p: (p.status, p.key),
            "node": lambda p: (p.node, p.key), "name": lambda p: p.key}.get(query.sort)
        if key is not None:
            rows = sorted(rows, key=key, reverse=query.desc)
        return _page(rows, query, PodRow.to_dict)
