"""Metrics over time: a recorder fed by the store's watch, sampled by the replay driver.

The recorder keeps running totals, updated per watch event in O(1) (a pod's requests move in
or out of the totals when it is bound, finishes or goes), so a sample costs the same on a
10-node cluster and a 5000-node one, and nothing grows with the length of the trace: latency
percentiles come from a fixed log-bucket histogram for the time series and a bounded,
seeded reservoir for the final summary.

Extra columns come from :class:`MetricProvider` objects (the extension seam: GPU allocation
and fragmentation for openb are one). A provider sees the same watch events and is sampled
with the rest; its last sample goes into ``summary.json`` under its column names.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from ..api import Node, Pod
from ..cluster import Store, WatchEvent
from ._demand import DEFAULT_DEMAND, Demand

__all__ = [
    "BASE_COLUMNS",
    "GPU_ALLOCATION",
    "GPU_RESOURCE",
    "MILESTONES",
    "LatencyStats",
    "MetricProvider",
    "Recorder",
    "resource_columns",
]

GPU_RESOURCE: Final = "nvidia.com/gpu"
"""The device plugin's GPU resource: the built-in ``gpuAllocation`` reads it (0 without GPUs)
unless a provider supplies a ``gpuAllocation`` column of its own (GPU sharing, as openb's)."""
GPU_ALLOCATION: Final = "gpuAllocation"

BASE_COLUMNS: Final = (
    "time", "events", "arrivedDemand", "pods", "pending", "unschedulable", "running", "nodes",
    "scheduled", "attempts", "preemptions", "evictions", "latencyP50", "latencyP90", "latencyP99",
)
"""time: seconds since the trace's start; events: trace events applied; arrivedDemand: the
demand of every pod created so far over the cluster's capacity (see ``_demand``); pods: pods
created so far (finished ones included); pending: pods without a node (not finished);
unschedulable: those whose PodScheduled condition says Unschedulable; running: bound and not
finished; scheduled: bindings so far; attempts: scheduling attempts so far; preemptions:
pods preempted so far; evictions: pods evicted by drains so far; latency*: creation -> bound
percentiles (seconds, virtual time) of the pods bound so far."""

MILESTONES: Final = tuple(round(0.1 * i, 1) for i in range(1, 16))
"""Arrived-demand levels (10% .. 150% of the capacity) at which the summary keeps a whole row:
the FGD paper reports allocation at 100% and 130% arrived."""

_DISRUPTION_TARGET: Final = "DisruptionTarget"
_PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"
_RESERVOIR: Final = 100_000


class MetricProvider:
    """Extra columns in the time series: the base class of metric providers.

    Override what you need: ``columns`` names the values ``sample`` returns (in order);
    ``start`` is called once with the store, after the cluster is loaded and before the first
    trace event; ``on_event`` receives every later watch event, in order (keep running totals
    here, as the recorder does: ``sample`` may be called after every trace event);
    ``summary`` is what goes into ``summary.json`` (by default the last sample, by column)."""

    columns: tuple[str, ...] = ()

    def start(self, store: Store) -> None:
        """Read the initial cluster (``store.list("Node")``, ``store.list("Pod")``)."""

    def on_event(self, ev: WatchEvent) -> None:
        """One change in the store."""

    def sample(self) -> Sequence[float]:
        """The current values, one per column."""
        return ()

    def summary(self) -> Mapping[str, Any]:
        return dict(zip(self.columns, self.sample(), strict=True))


def resource_columns(resources: Sequence[str]) -> list[str]:
    return [f"{what}:{r}" for r in resources for what in ("requested", "allocatable", "allocation")]


class LatencyStats:
    """Creation -> bound latencies: a log-bucket histogram (10 buckets per decade from 1 ms to
    10^7 s, plus one for 0) for cheap running percentiles, and a reservoir of at most 100 000
    values (Algorithm R, seeded) for exact ones at the end of a run of that many pods or fewer."""

    EDGES: Final = np.concatenate(([0.0], np.logspace(-3, 7, 101)))

    def __init__(self, seed: int = 0) -> None:
        self.counts = [0] * (len(self.EDGES) + 1)
        self.n = 0
        self._rng = random.Random(f"latency/{seed}")
        self.values: list[float] = []
        self.max = 0.0
        self._cached_n = -1
        self._cached: tuple[float, float, float] = (math.nan, math.nan, math.nan)

    def add(self, seconds: float) -> None:
        seconds = max(0.0, seconds)
        self.counts[bisect.bisect_left(_EDGE_LIST, seconds)] += 1  # bucket i: (EDGES[i-1], EDGES[i]]
        self.n += 1
        self.max = max(self.max, seconds)
        if len(self.values) < _RESERVOIR:
            self.values.append(seconds)
        else:
            j = self._rng.randrange(self.n)
            if j < _RESERVOIR:
                self.values[j] = seconds

    def running(self) -> tuple[float, float, float]:
        """p50, p90, p99 from the histogram (a bucket's upper edge; NaN before any pod)."""
        if self.n != self._cached_n:
            self._cached_n = self.n
            if self.n == 0:
                self._cached = (math.nan, math.nan, math.nan)
            else:
                # In Python on lists: numpy's cumsum and searchsorted on 103 buckets cost more
                # than the work (a row per change of the count). The same integers and floats:
                # the first bucket whose running count reaches ceil(q * n), its upper edge (the
                # maximum past the last edge), never above the maximum.
                cum = list(itertools.accumulate(self.counts))
                top = len(_EDGE_LIST)
                ps = []
                for q in (0.5, 0.9, 0.99):
                    i = bisect.bisect_left(cum, math.ceil(q * self.n))
                    ps.append(min(_EDGE_LIST[i] if i < top else self.max, self.max))
                self._cached = (ps[0], ps[1], ps[2])
        return self._cached

    def exact(self) -> dict[str, float]:
        """Percentiles (numpy's linear interpolation) of the reservoir, and the maximum."""
        if not self.values:
            return {"p50": 0.0, "p90": 0.0, "p99": 0.0, "max": 0.0}
        a = np.asarray(self.values)
        p50, p90, p99 = np.percentile(a, [50, 90, 99])
        return {"p50": float(p50), "p90": float(p90), "p99": float(p99), "max": self.max}


_EDGE_LIST: Final[list[float]] = LatencyStats.EDGES.tolist()
"""The bucket edges as Python floats (the same values), for bisect without numpy scalars."""


def _pod_state(pod: Pod) -> int:
    """0 finished, 1 pending, 2 unschedulable (and pending), 3 running (bound)."""
    if pod.is_terminal:
        return 0
    if pod.node_name:
        return 3
    cond = pod.condition("PodScheduled")
    if cond is not None and cond.get("status") == "False" and cond.get("reason") == "Unschedulable":
        return 2
    return 1


def _preempted(pod: Pod | None) -> bool:
    if pod is None:
        return False
    c = pod.condition(_DISRUPTION_TARGET)
    return c is not None and c.get("reason") == _PREEMPTION_BY_SCHEDULER


class Recorder:
    """Running totals over the store's watch, turned into rows of :attr:`columns`.

    ``resources``: the resources with requested / allocatable / allocation columns;
    ``attempts``: reads the scheduler's attempt count; ``sink`` receives each row."""

    def __init__(self, store: Store, *, resources: Sequence[str], demand: Demand | None = None,
                 providers: Sequence[MetricProvider] = (), attempts: Callable[[], int] = lambda: 0,
                 sink: Callable[[Sequence[float]], None] | None = None, start: float = 0.0,
                 seed: int = 0) -> None:
        self.store = store
        self.start = start
        self.resources = list(resources)
        self.demand = demand if demand is not None else DEFAULT_DEMAND
        self.providers = list(providers)
        self.attempts = attempts
        self.sink = sink
        self.latency = LatencyStats(seed)
        own_gpu = any(GPU_ALLOCATION in p.columns for p in self.providers)
        self._builtin_gpu = not own_gpu
        self.columns: list[str] = [*BASE_COLUMNS, *resource_columns(self.resources),
                                   *([GPU_ALLOCATION] if self._builtin_gpu else []),
                                   *(c for p in self.providers for c in p.columns)]
        if len(set(self.columns)) != len(self.columns):
            raise ValueError(f"metric providers repeat a column: {self.columns}")
        self._index = {r: i for i, r in enumerate(self.resources)}
        self.requested = [0] * len(self.resources)
        self.allocatable = [0] * len(self.resources)
        self.gpu_requested = 0
        self.gpu_allocatable = 0
        self.states = [0, 0, 0, 0]  # pods per _pod_state
        self.pods = 0
        self.nodes = 0
        self.scheduled = 0
        self.preemptions = 0
        self.evictions = 0
        self.events = 0
        self.arrived = 0.0
        self._capacity: dict[str, float] = {}
        self.capacity = 0.0
        self.rows = 0
        self.last_row: list[float] = []
        self._dirty = True  # nothing sampled yet
        self._milestones = list(MILESTONES)
        self.at_demand: dict[str, dict[str, float | None]] = {}
        for node in store.list("Node"):
            self._node(node, +1)
        for pod in store.list("Pod"):
            self._pod_added(pod)
        for p in self.providers:
            p.start(store)
        self._unsubscribe = store.subscribe(self.on_event)

    def close(self) -> None:
        self._unsubscribe()

    # -- the watch ------------------------------------------------------------------------
    def on_event(self, ev: WatchEvent) -> None:
        self._dirty = True
        kind = ev.kind
        if kind == "Pod":
            old, new = ev.old, ev.new
            if old is None:
                assert isinstance(new, Pod)
                self._pod_added(new)
            elif new is None:
                assert isinstance(old, Pod)
                self._pod_counts(old, -1)
            else:
                assert isinstance(old, Pod) and isinstance(new, Pod)
                self._pod_counts(old, -1)
                self._pod_counts(new, +1)
                if new.node_name and not old.node_name:
                    self.scheduled += 1
                    created = new.meta.creation_timestamp
                    self.latency.add(self.store_now() - created if created is not None else 0.0)
                if _preempted(new) and not _preempted(old):
                    self.preemptions += 1
        elif kind == "Node":
            if ev.old is not None:
                assert isinstance(ev.old, Node)
                self._node(ev.old, -1)
            if ev.new is not None:
                assert isinstance(ev.new, Node)
                self._node(ev.new, +1)
        for p in self.providers:
            p.on_event(ev)

    def store_now(self) -> float:
        clock = getattr(self.store, "clock", None)
        return float(clock.now) if clock is not None else self.start

    def _pod_added(self, pod: Pod) -> None:
        self.pods += 1
        self.arrived += self.demand.of_pod(pod)
        self._pod_counts(pod, +1)

    def _pod_counts(self, pod: Pod, sign: int) -> None:
        state = _pod_state(pod)
        self.states[state] += sign
        if state == 3:
            req = pod.requests
            index = self._index
            for r, v in req.items():
                i = index.get(r)
                if i is not None:
                    self.requested[i] += sign * v
            if "pods" in index:
                self.requested[index["pods"]] += sign
            self.gpu_requested += sign * req.get(GPU_RESOURCE, 0)

    def _node(self, node: Node, sign: int) -> None:
        self.nodes += sign
        alloc = node.allocatable
        for r, i in self._index.items():
            self.allocatable[i] += sign * alloc.get(r, 0)
        self.gpu_allocatable += sign * alloc.get(GPU_RESOURCE, 0)
        if sign > 0:
            cap = self.demand.capacity([node])
            self._capacity[node.name] = cap
            self.capacity += cap
        else:
            self.capacity -= self._capacity.pop(node.name, 0.0)

    # -- trace-side counts ----------------------------------------------------------------
    def note_event(self) -> None:
        self.events += 1
        self._dirty = True

    def note_evictions(self, n: int) -> None:
        self.evictions += n
        self._dirty = True

    def changed(self) -> bool:
        """Whether the state changed since the last row: a change in the store or a trace event
        (``attempts`` alone does not count: a retry that fails again changes nothing; a row
        reads the count at its own instant)."""
        return self._dirty

    # -- sampling -------------------------------------------------------------------------
    def row(self, now: float) -> list[float]:
        p50, p90, p99 = self.latency.running()
        s = self.states
        row: list[float] = [
            now - self.start, self.events, self.arrived / self.capacity if self.capacity else 0.0,
            self.pods, s[1] + s[2], s[2], s[3], self.nodes, self.scheduled, self.attempts(),
            self.preemptions, self.evictions, p50, p90, p99,
        ]
        for req, alloc in zip(self.requested, self.allocatable, strict=True):
            row += [req, alloc, req / alloc if alloc else 0.0]
        if self._builtin_gpu:
            row.append(self.gpu_requested / self.gpu_allocatable if self.gpu_allocatable else 0.0)
        for p in self.providers:
            values = list(p.sample())
            if len(values) != len(p.columns):
                raise ValueError(f"metric provider {type(p).__name__} returned {len(values)} values "
                                 f"for {len(p.columns)} columns")
            row += values
        return row

    def sample(self, now: float) -> list[float]:
        row = self.row(now)
        self.rows += 1
        self.last_row = row
        self._dirty = False
        while self._milestones and row[2] >= self._milestones[0] - 1e-12:
            level = self._milestones.pop(0)
            self.at_demand[f"{round(level * 100)}%"] = {
                c: None if isinstance(v, float) and math.isnan(v) else v
                for c, v in zip(self.columns, row, strict=True)}
        if self.sink is not None:
            self.sink(row)
        return row

    def gpu_allocation(self) -> float:
        """The final GPU allocation (0..1): a provider's ``gpuAllocation`` when one has it."""
        for p in self.providers:
            if GPU_ALLOCATION in p.columns:
                return float(p.summary().get(GPU_ALLOCATION, 0.0))
        return self.gpu_requested / self.gpu_allocatable if self.gpu_allocatable else 0.0

    def allocation(self) -> dict[str, float]:
        return {r: (req / alloc if alloc else 0.0)
                for r, req, alloc in zip(self.resources, self.requested, self.allocatable, strict=True)}

    def extra_summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p in self.providers:
            out.update(p.summary())
        return out
