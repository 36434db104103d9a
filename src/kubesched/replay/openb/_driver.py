"""The FGD paper's experiment loop, through kubesched's real Scheduler.

Mirrors the simulator's ``SchedulePods`` (pkg/simulator/simulator.go, @8f3d641): pods arrive one
at a time; each is scheduled (every plugin of the profile, binding included) before the next
arrives; a pod that fits nowhere is deleted and never retried; nothing leaves. After every pod
the GPU metrics are logged against the arrived GPU demand (``ClusterGpuFragReport``).

The metrics are kept incrementally: a bound pod changes one node, so only that node's fragment is
recomputed, and the curve costs O(pods) instead of O(pods x nodes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...api.loader import parse_object
from ...clock import VirtualClock
from ...cluster import MemoryStore
from ...framework.config import SchedulerConfig
from ...scheduler import Scheduler
from .._trace import Trace
from ._cluster import held_request, request_of
from ._frag import FragModel, TypicalPod, typical_pods
from ._gpu import (
    GPU_INDEX,
    MILLI,
    NO_GPU,
    PodGpu,
    exclusive_gpu_ids,
    node_gpu_count,
    node_gpu_model,
    parse_gpu_ids,
)
from ._reader import read_openb, read_openb_pods

__all__ = ["CURVE_COLUMNS", "FgdCurve", "GpuMetrics", "curve_summary", "run_fgd", "run_fgd_csv"]

F64 = npt.NDArray[np.float64]


class GpuMetrics:
    """The cluster's GPU metrics, kept up to date node by node.

    ``allocation`` (allocated GPU milli / capacity), ``frag_amount`` (GPU milli idle that the
    typical pods cannot use), ``frag_ratio`` (that amount / idle GPU milli) and ``arrived`` (GPU
    milli asked for by the pods seen so far)."""

    def __init__(self, nodes: Sequence[Node], typical: Sequence[TypicalPod]) -> None:
        self.names = [n.name for n in nodes]
        self.row = {name: i for i, name in enumerate(self.names)}
        counts = [node_gpu_count(n.capacity) for n in nodes]
        width = max([1, *counts])
        self.left = np.full((len(nodes), width), NO_GPU, dtype=np.int64)
        for i, c in enumerate(counts):
            self.left[i, :c] = MILLI
        self.cpu_left = np.array([n.allocatable.get("cpu", 0) for n in nodes], dtype=np.int64)
        self.capacity = sum(counts) * MILLI
        self.model = FragModel(typical)
        self.access = self.model.access([node_gpu_model(n.labels) for n in nodes])
        self.frag = self.model.fragment(self.cpu_left, self.left, self.access)
        self.idle = self.capacity
        self.allocated = 0
        self.arrived = 0

    def arrive(self, req: PodGpu) -> None:
        self.arrived += req.total

    def bind(self, node: str, req: PodGpu, gpu_ids: Sequence[int], cpu: int, *,
             held: PodGpu | None = None) -> None:
        """A pod asking ``cpu`` (requested, not defaulted) and ``req`` went to ``node``, on GPUs
        ``gpu_ids``. ``held``: what it takes of them when more than it asks (a share the default
        plugins placed holds a whole device); the allocation counts what it asks."""
        r = self.row[node]
        take = held if held is not None else req
        self.cpu_left[r] -= cpu
        for i in gpu_ids:
            self.left[r, i] -= take.milli
        self.idle -= take.milli * len(gpu_ids)
        self.allocated += req.milli * len(gpu_ids)
        one = slice(r, r + 1)
        self.frag[r] = self.model.fragment(self.cpu_left[one], self.left[one], self.access[one])[0]

    @property
    def allocation(self) -> float:
        return self.allocated / self.capacity if self.capacity else 0.0

    @property
    def frag_amount(self) -> float:
        return float(self.frag.sum())

    @property
    def frag_ratio(self) -> float:
        idle = self.idle
        return self.frag_amount / idle if idle else 0.0


@dataclass(slots=True)
class FgdCurve:
    """One value per submitted pod: arrived demand, allocation and fragmentation as fractions of
    the cluster's GPU capacity (ratio: of the idle GPU)."""

    capacity: int
    arrived: list[float] = field(default_factory=list)
    allocation: list[float] = field(default_factory=list)
    frag_amount: list[float] = field(default_factory=list)
    frag_ratio: list[float] = field(default_factory=list)
    scheduled: int = 0
    failed: int = 0

    def at(self, arrived: float, series: str = "allocation") -> float:
        """The series at an arrived demand, read as the paper's artifact reads its logs
        (experiments/analysis/merge_*_discrete.py): the mean over the pods whose arrived demand
        rounds to the same percent, else to a percent within one of it; nan when none does."""
        pct = np.round(np.asarray(self.arrived) * 100)
        values = np.asarray(getattr(self, series), dtype=np.float64)
        target = round(arrived * 100)
        hit = pct == target
        if not hit.any():
            hit = np.abs(pct - target) <= 1
        return float(values[hit].mean()) if hit.any() else float("nan")

    def row(self, i: int) -> tuple[float, ...]:
        """Pod ``i``'s row of :data:`CURVE_COLUMNS`."""
        return (float(i), float(i + 1), self.arrived[i], self.allocation[i], self.frag_amount[i],
                self.frag_ratio[i])


CURVE_COLUMNS = ("time", "pods", "arrivedDemand", "gpuAllocation", "gpuFragAmount", "gpuFragRatio")
"""The per-pod series of a curve as a replay's metrics.csv names them (``time``: the pod's index,
its arrival instant in the shuffled trace)."""
LEVELS = tuple(range(10, 151, 10))


def curve_summary(curve: FgdCurve, *, wall: float, trace: str = "", config: str | None = None,
                  seed: int = 0) -> dict[str, Any]:
    """A replay summary (``kubesched.replay``'s field names) of the paper's loop, so that
    ``sweep`` aggregates it like any other: the end state, and ``atArrivedDemand`` read at 10 %
    ... 150 % as the paper's artifact reads its logs (:meth:`FgdCurve.at`)."""
    last = len(curve.arrived) - 1
    at: dict[str, dict[str, float]] = {}
    for level in LEVELS:
        values = {c: curve.at(level / 100, s) for c, s in
                  (("gpuAllocation", "allocation"), ("gpuFragAmount", "frag_amount"),
                   ("gpuFragRatio", "frag_ratio"))}
        if values["gpuAllocation"] == values["gpuAllocation"]:  # not nan: some pod got there
            at[f"{level}%"] = {"arrivedDemand": level / 100, **values}
    end = curve.row(last) if last >= 0 else (0.0,) * len(CURVE_COLUMNS)
    return {
        "pods": len(curve.arrived), "scheduled": curve.scheduled, "unschedulable": curve.failed,
        "pending": 0, "gpuAllocation": end[3], "gpuFragAmount": end[4], "gpuFragRatio": end[5],
        "arrivedDemand": end[2], "demand": "gpu-milli", "wallSeconds": wall, "trace": trace,
        "config": config, "seed": seed, "atArrivedDemand": at,
    }


def run_fgd(trace: Trace, config: SchedulerConfig | None, typical: Sequence[TypicalPod], *,
            seed: int = 0) -> FgdCurve:
    """Replay ``trace`` (its ``create`` events, in order; anything else is refused) the FGD way."""
    clock = VirtualClock()
    store = MemoryStore(clock)
    nodes = [parse_object(m) for m in trace.cluster]
    store.load(nodes)
    node_objs = [n for n in nodes if isinstance(n, Node)]
    metrics = GpuMetrics(node_objs, typical)
    sched = Scheduler(store, clock, config, seed=seed)
    store.follow_feature_gates(sched.options.features)  # the cluster's release
    curve = FgdCurve(metrics.capacity)
    cap = float(metrics.capacity or 1)
    try:
        for ev in trace.events:
            if ev.op != "create" or ev.obj is None:
                raise ValueError(f"{ev.source}: the FGD arrival replays pod creations only, got {ev.op}")
            pod = parse_object(ev.obj)
            if not isinstance(pod, Pod):
                raise ValueError(f"{ev.source}: the FGD arrival replays pods only")
            req = request_of(pod)
            metrics.arrive(req)
            store.create(pod)
            sched.schedule_pending()
            clock.run(until=clock.now)  # the binding cycle: a task due now
            bound = store.get("Pod", pod.namespace, pod.name)
            if bound.node_name:
                ids = parse_gpu_ids(bound.meta.annotations.get(GPU_INDEX, "")) or []
                cpu = int(bound.requests.get("cpu", 0))
                held = held_request(bound)
                if held.wants_gpu and not ids:  # placed by other plugins: whole devices, the first free
                    ids = exclusive_gpu_ids(metrics.left[metrics.row[bound.node_name]], held.count)
                metrics.bind(bound.node_name, req, ids if req.wants_gpu else [], cpu, held=held)
                curve.scheduled += 1
            else:
                store.delete("Pod", pod.namespace, pod.name)
                sched.schedule_pending()
                curve.failed += 1
            curve.arrived.append(metrics.arrived / cap)
            curve.allocation.append(metrics.allocation)
            curve.frag_amount.append(metrics.frag_amount / cap)
            curve.frag_ratio.append(metrics.frag_ratio)
    finally:
        sched.close()
    return curve


def run_fgd_csv(nodes_csv: str | Path, pods_csv: str | Path, config: SchedulerConfig | None, *,
                seed: int = 0, tune: float | None = None, typical: Sequence[TypicalPod] | None = None,
                sink: Callable[[Sequence[float]], None] | None = None) -> tuple[FgdCurve, dict[str, Any]]:
    """The paper's run from the two CSVs: arrival shuffled (and tuned) by ``seed``, the typical
    pods from the whole pod list (as the simulator computes them before any pod arrives);
    returns the curve and its :func:`curve_summary`. ``sink`` receives the curve's rows.
    ``sweep --drop-unschedulable`` and ``kubesched_gpushare.experiment.run_policy`` both run
    this one function."""
    start = time.perf_counter()
    if typical is None:
        typical = typical_pods(p.request for p in read_openb_pods(pods_csv))
    trace = read_openb(nodes_csv, pods_csv, seed=seed, arrival="shuffled", tune=tune)
    curve = run_fgd(trace, config, typical, seed=seed)
    if sink is not None:
        for i in range(len(curve.arrived)):
            sink(curve.row(i))
    return curve, curve_summary(curve, wall=time.perf_counter() - start, trace=trace.name, seed=seed)
