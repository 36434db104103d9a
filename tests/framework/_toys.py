"""Toy plugins and builders for the runtime tests (the real plugins live elsewhere)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    BatchFilterResult,
    Code,
    CycleState,
    Framework,
    NodeBatch,
    PluginBase,
    QueuedPodInfo,
    Status,
)
from kubesched.framework.config import PluginRef, Plugins, PluginSet, Profile


def toy(name: str, log: list[str] | None = None, **behaviours: Any) -> type[PluginBase]:
    """A plugin class named ``name`` implementing exactly the given methods.

    Each behaviour is a value to return, or a callable receiving the method's arguments."""
    ns: dict[str, Any] = {"NAME": name}

    def make(method: str, result: Any) -> Callable[..., Any]:
        def fn(self: Any, *args: Any) -> Any:
            if log is not None:
                log.append(f"{name}.{method}")
            return result(*args) if callable(result) else result

        return fn

    for method, result in behaviours.items():
        ns[method] = make(method, result)
    return type(name, (PluginBase,), ns)


class QueueSort(PluginBase):
    NAME = "QueueSort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return a.pod.priority_value > b.pod.priority_value


class Binder(PluginBase):
    NAME = "Binder"

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None


def pset(*names: str | tuple[str, int], disabled: Iterable[str] = ()) -> PluginSet:
    refs = tuple(PluginRef(n) if isinstance(n, str) else PluginRef(*n) for n in names)
    return PluginSet(refs, tuple(PluginRef(d) for d in disabled))


def profile(**sets: PluginSet) -> Profile:
    sets.setdefault("queue_sort", pset("QueueSort"))
    sets.setdefault("bind", pset("Binder"))
    return Profile("toy-scheduler", plugins=Plugins(**sets))


def framework(classes: Sequence[type[PluginBase]], **kwargs: Any) -> Framework:
    """A framework over toy ``classes``; keyword args are plugin sets, then Framework options."""
    sets = {k: v for k, v in kwargs.items() if isinstance(v, PluginSet)}
    opts = {k: v for k, v in kwargs.items() if not isinstance(v, PluginSet)}
    all_classes: list[type[PluginBase]] = [*classes, QueueSort, Binder]
    registry = {c.NAME: c for c in all_classes}
    return Framework(profile(**sets), registry, **opts)


# -- plugins with a batch path, for the batch/per-node agreement tests ---------------------


class CpuFit(PluginBase):
    """Rejects nodes without enough free cpu (Unschedulable), like NodeResourcesFit."""

    NAME = "CpuFit"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        free = node_info.allocatable.get("cpu", 0) - node_info.requested.get("cpu", 0)
        if pod.requests.get("cpu", 0) > free:
            return Status.of(Code.UNSCHEDULABLE, "Insufficient cpu")
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        cols = nodes.snapshot.columns
        free = cols.allocatable[nodes.indices, 0] - cols.requested[nodes.indices, 0]
        return BatchFilterResult.from_mask(
            pod.requests.get("cpu", 0) > free, Code.UNSCHEDULABLE, "Insufficient cpu"
        )

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        alloc = node_info.allocatable.get("cpu", 0)
        free = alloc - node_info.requested.get("cpu", 0)
        return (free * 100 // alloc if alloc else 0), None

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        cols = nodes.snapshot.columns
        alloc = cols.allocatable[nodes.indices, 0]
        free = alloc - cols.requested[nodes.indices, 0]
        return np.where(alloc > 0, free * 100 // np.maximum(alloc, 1), 0).astype(np.int64), None


class ZoneLabel(PluginBase):
    """Rejects nodes labelled zone=bad (UnschedulableAndUnresolvable), reason names the zone."""

    NAME = "ZoneLabel"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        zone = node_info.node.labels.get("zone", "") if node_info.node else ""
        if zone.startswith("bad"):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"zone {zone} is bad")
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        codes, values = nodes.snapshot.columns.label_column("zone")
        sub = codes[nodes.indices]
        table: list[tuple[str, ...]] = [()]
        rid = np.zeros(len(nodes), dtype=np.int32)
        out = np.zeros(len(nodes), dtype=np.int8)
        for vid, v in enumerate(values):
            if v.startswith("bad"):
                mask = sub == vid
                table.append((f"zone {v} is bad",))
                rid[mask] = len(table) - 1
                out[mask] = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        return BatchFilterResult(out, rid, table)


class OddName(PluginBase):
    """Per-node only (the PluginBase fallback): rejects nodes whose name ends in an odd digit."""

    NAME = "OddName"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.name[-1:] in "13579":
            return Status.of(Code.UNSCHEDULABLE, "odd node")
        return None
