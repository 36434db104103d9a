"""The replay driver: a trace's events applied to the embedded store on the virtual clock.

One store, one scheduler, one controller manager, as ``simulate`` has; the trace is one more
client of the store. Before each event the clock runs up to the event's time, the scheduler
taking every pod it can in between (its cycles, bindings, backoff and flush timers, graceful
terminations and the controllers' reconciles all fire at their own instants); then the event
is applied at its time. Pods created at one instant are therefore scheduled one after the
other, in trace order, each before the next arrives, as the FGD simulator places them.

Every event is checked first (manifests parsed, references resolved against what exists at
that point of the trace, priority classes known), so a bad line is reported with nothing
applied. At run time an event may still find its object gone (a pod preempted or finished,
a node already deleted): it is skipped and counted (``skippedEvents``), never fatal.

Node drains evict as ``kubectl drain --ignore-daemonsets`` does: cordon, then evict every
pod on the node through the eviction rules (a pod a PodDisruptionBudget protects is evicted
only while that budget allows a disruption; refused evictions are retried every 5 seconds,
kubectl's interval, while the node stays cordoned). Mirrors the eviction subresource
(pkg/registry/core/pod/storage/eviction.go, master 2026): the victim gets the
``DisruptionTarget`` condition (reason ``EvictionByEvictionAPI``) and is deleted with its own
grace period.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..api import DELETE, Node, Pod, PodDisruptionBudget, kind_of, parse_object
from ..api.loader import KINDS, ApiObject
from ..api.start import start_time
from ..clock import VirtualClock
from ..cluster import MemoryStore, StoreError, pdb_selects
from ..controllers import ControllerManager
from ..scheduler import Scheduler, run
from ._budget import PodBudget
from ._metrics import Recorder
from ._reader import TraceError
from ._trace import Trace, TraceEvent

__all__ = ["DRAIN_RETRY_SECONDS", "Replay", "ReplayResult", "replay"]

DRAIN_RETRY_SECONDS: Final = 5.0
"""kubectl drain retries a refused eviction (429) every 5 seconds."""
EVICTION_BY_EVICTION_API: Final = "EvictionByEvictionAPI"
_KEEP_PARSED: Final = 20_000
"""Traces with at most this many events keep the objects parsed while checking (one parse);
longer ones parse again while running (flat memory)."""
_MAX_SKIP_REASONS: Final = 100

ProgressFn = Callable[[int, float], None]
"""(trace events applied, virtual seconds since the start) -> None."""

_RESOURCE_ORDER: Final = ("cpu", "memory", "pods", "ephemeral-storage")


@dataclass(slots=True)
class ReplayResult:
    summary: dict[str, Any]
    columns: list[str]
    last_row: list[float] = field(default_factory=list)


Key = tuple[str, str, str]


class Replay:
    """A trace ready to run. Construction loads the cluster and checks every event, raising
    :class:`TraceError` (or the store's error for the cluster) on bad input; ``run`` does not.

    ``cluster``: objects admitted before time 0 besides the trace's own; ``until``: stop at
    that many seconds; ``sample_every``: a row every that many virtual seconds (None: a row
    after each trace event and what it set off at its instant, and one at every later instant
    the state changed, before the clock leaves it: a pod bound on a retry, finishing, or done
    terminating, any change in the store; so a curve has every step, not only those at trace
    events); ``sink`` receives the rows."""

    def __init__(self, trace: Trace, *, cluster: Sequence[ApiObject] = (), config: Any = None,
                 seed: int = 0, until: float | None = None, sample_every: float | None = None,
                 sink: Callable[[Sequence[float]], None] | None = None, label: str = "",
                 max_pods: int | None = None) -> None:
        if sample_every is not None and not sample_every > 0:
            raise ValueError(f"sample interval must be positive, got {sample_every}")
        if iter(trace.events) is trace.events:  # a one-shot iterator: checked, then run
            trace.events = list(trace.events)
        self.trace = trace
        self.seed = seed
        self.until = until
        self.sample_every = sample_every
        self.label = label
        objects = list(cluster)
        for i, raw in enumerate(trace.cluster):
            try:
                objects.append(parse_object(raw))
            except ValueError as exc:
                raise TraceError(f"{trace.name or 'trace'}: cluster object {i + 1}: {exc}") from None
        self.start = start_time(objects)
        self.clock = VirtualClock(self.start)
        self.store = MemoryStore(self.clock, history_limit=1024, event_limit=10_000)
        self.store.load(objects)
        budget = PodBudget(max_pods, objects, f"{trace.name or 'trace'}: cluster") if max_pods is not None \
            else None
        self._parsed = self._check(trace.events, budget)
        self.sched = Scheduler(self.store, self.clock, config, seed=seed)
        self.store.follow_feature_gates(self.sched.options.features)  # the cluster's release
        self.controllers = ControllerManager(self.store, self.clock, seed)
        self.recorder = Recorder(self.store, resources=_resources(self._resource_names), demand=trace.demand,
                                 providers=trace.metrics, attempts=lambda: self.sched.cycles.stats.attempts,
                                 sink=sink, start=self.start, seed=seed)
        self.skipped = 0
        self.skip_reasons: dict[str, int] = {}
        self._next_sample = self.start if sample_every is not None else math.inf
        self._draining: set[str] = set()

    # -- checking -----------------------------------------------------------------------------
    def _check(self, events: Iterable[TraceEvent],
               budget: PodBudget | None = None) -> list[ApiObject | None] | None:
        """Every event valid against the state the trace builds, and the pods it would make
        within ``budget`` (``--max-pods``); returns the parsed objects when the trace is short
        enough to keep them."""
        live: set[Key] = {(k, o.meta.namespace, o.meta.name) for k in KINDS for o in self.store.list(k)}
        names = self._resource_names = {r for n in self.store.list("Node") for r in n.allocatable}
        classes = {k[2] for k in live if k[0] == "PriorityClass"}
        parsed: list[ApiObject | None] | None = []
        for ev in events:
            obj: ApiObject | None = None
            if ev.obj is not None:
                try:
                    obj = parse_object(ev.obj)
                except ValueError as exc:
                    raise TraceError(f"{ev.source}: {ev.op}: {exc}") from None
                key = (kind_of(obj), obj.meta.namespace, obj.meta.name)
                if ev.op == "create":
                    if key in live:
                        raise TraceError(f"{ev.source}: create: {_describe(key)} already exists")
                    pc = obj.priority_class_name if isinstance(obj, Pod) else ""
                    if pc and pc not in classes:
                        raise TraceError(f"{ev.source}: create: {_describe(key)}: no PriorityClass with name "
                                         f"{pc} was found")
                    live.add(key)
                    if budget is not None:
                        budget.create(obj, f"{ev.source}: create")
                    if isinstance(obj, Node):
                        names.update(obj.allocatable)
                    if key[0] == "PriorityClass":
                        classes.add(key[2])
                elif key not in live:
                    raise TraceError(f"{ev.source}: update: {_describe(key)} not found")
                elif budget is not None:
                    budget.update(obj, f"{ev.source}: update")
            elif ev.ref is not None:
                key = (ev.ref.kind, ev.ref.namespace, ev.ref.name)
                if key not in live:
                    raise TraceError(f"{ev.source}: {ev.op}: {_describe(key)} not found (references name "
                                     "objects of the cluster or created earlier in the trace)")
                if ev.op == "delete":
                    live.discard(key)
                    if budget is not None:
                        budget.delete(key)
                elif ev.op == "scale" and budget is not None and ev.replicas is not None:
                    budget.scale(key, ev.replicas, f"{ev.source}: scale")
            if parsed is not None:
                parsed.append(obj)
                if len(parsed) > _KEEP_PARSED:
                    parsed = None
        return parsed

    # -- running ------------------------------------------------------------------------------
    def run(self, progress: ProgressFn | None = None) -> ReplayResult:
        wall = time.perf_counter()
        clock, rec = self.clock, self.recorder
        end = self.start + self.until if self.until is not None else None
        self.controllers.start()
        n = 0
        try:
            for ev, obj in self._events():
                t = self.start + ev.time
                if end is not None and t > end:
                    break
                self._advance(t)
                self._apply(ev, obj)
                rec.note_event()
                n += 1
                self._advance(t)  # what the event sets off at its own instant (bindings, controllers)
                if self.sample_every is None:
                    rec.sample(clock.now)
                if progress is not None:
                    progress(n, clock.now - self.start)
            self._finish(end)
            if end is not None and clock.now < end and clock.peek() > end:
                self._samples_before(end)
                clock.run(until=end)
            self._samples_before(clock.now + (1e-9 if self.sample_every is not None else 0.0))
            if rec.rows == 0 or list(map(repr, rec.last_row)) != list(map(repr, rec.row(clock.now))):
                rec.sample(clock.now)  # the end state, unless the last row already is it
        finally:
            self.sched.schedule_pending(0)  # the pending-pods gauge, current
            self.controllers.close()
            self.sched.close()
            rec.close()
        return ReplayResult(self._summary(n, time.perf_counter() - wall), list(rec.columns), rec.last_row)

    def _events(self) -> Iterator[tuple[TraceEvent, ApiObject | None]]:
        if self._parsed is not None:
            yield from zip(self.trace.events, self._parsed, strict=False)
            return
        for ev in self.trace.events:
            yield ev, (parse_object(ev.obj) if ev.obj is not None else None)

    def _advance(self, t: float) -> None:
        """Run the scheduler and every timer due up to ``t`` (the scheduler's one loop, with no
        fixed point: the trace goes on); the clock ends at ``t``."""
        run(self.sched, t, before_step=self._samples_before, fixed_point=False, gauge=False)
        self._samples_before(t)
        self.clock.run(until=t)

    def _finish(self, end: float | None) -> None:
        """After the last event: as ``simulate`` does, the scheduler's one loop to its fixed
        point (or ``end``), woken again while the controllers or the kubelet have something due
        (a pod finishing); rows sampled on the way."""
        run(self.sched, end, before_step=self._samples_before, wake=self.controllers.next_due,
            max_cycles=1_000_000)
        clock = self.clock
        if end is not None and clock.now < end < clock.peek():
            # On to ``end`` with no row for the instant the clock leaves: the end row stands
            # for that state (``run`` writes it).
            clock.run(until=end)

    def _samples_before(self, t: float) -> None:
        """Called before the clock moves to ``t``. Fixed-interval rows for the instants before
        ``t`` (the state is constant between two timers, so a row at any instant in between is
        exact); without an interval, a row for the instant the clock leaves when the state
        changed there (the last row of that instant: what it ends with)."""
        rec, every = self.recorder, self.sample_every
        if every is None:
            if t > self.clock.now and rec.changed():
                rec.sample(self.clock.now)
            return
        while self._next_sample < t:
            rec.sample(self._next_sample)
            assert every is not None
            self._next_sample += every

    # -- applying -----------------------------------------------------------------------------
    def _apply(self, ev: TraceEvent, obj: ApiObject | None) -> None:
        try:
            if ev.op == "create":
                assert obj is not None
                self.store.create(obj)
            elif ev.op == "update":
                assert obj is not None
                self.store.update(self._carry_over(obj))
            else:
                ref = ev.ref
                assert ref is not None
                if ev.op == "delete":
                    self.store.delete(ref.kind, ref.namespace, ref.name)
                elif ev.op == "scale":
                    cur = self.store.get(ref.kind, ref.namespace, ref.name)
                    field = "parallelism" if ref.kind == "Job" else "replicas"  # a Job's scale subresource
                    self.store.update(cur.with_changes({("spec", field): ev.replicas}))
                elif ev.op in ("cordon", "uncordon"):
                    self._cordon(ref.name, ev.op == "cordon")
                else:
                    self._cordon(ref.name, True)
                    self._drain(ref.name)
        except StoreError as exc:
            self._skip(f"{ev.op}: {exc}")

    def _skip(self, reason: str) -> None:
        """Count a skipped event; the first 100 distinct reasons are kept (bounded memory)."""
        self.skipped += 1
        if reason not in self.skip_reasons and len(self.skip_reasons) >= _MAX_SKIP_REASONS:
            reason = "other reasons"
        self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + 1

    def _carry_over(self, obj: ApiObject) -> ApiObject:
        """An updated pod keeps its node and status unless the manifest gives them (nodeName
        is immutable once set; the status is the kubelet's)."""
        if not isinstance(obj, Pod):
            return obj
        cur: Pod = self.store.get("Pod", obj.namespace, obj.name)
        changes: dict[Any, Any] = {}
        if cur.node_name and not obj.node_name:
            changes[("spec", "nodeName")] = cur.node_name
        if "status" not in obj.raw and "status" in cur.raw:
            changes[("status",)] = cur.raw["status"]
        return obj.with_changes(changes) if changes else obj

    def _cordon(self, name: str, on: bool) -> None:
        node: Node = self.store.get("Node", "", name)
        if node.unschedulable != on:
            self.store.update(node.with_changes({("spec", "unschedulable"): True if on else DELETE}))
        if not on:
            self._draining.discard(name)

    def _drain(self, name: str) -> None:
        """Evict every pod on the node that may go now; retry the others in 5 s while the node
        stays cordoned (kubectl drain without a timeout)."""
        store = self.store
        node = store.try_get("Node", "", name)
        if node is None or not node.unschedulable:
            self._draining.discard(name)
            return
        blocked = 0
        evicted = 0
        for pod in store.list("Pod"):
            if pod.node_name != name or pod.is_terminal or pod.is_terminating or _daemon(pod):
                continue
            if not self._may_evict(pod):
                blocked += 1
                continue
            store.patch_pod_status(pod.namespace, pod.name, conditions=[{
                "type": "DisruptionTarget", "status": "True", "reason": EVICTION_BY_EVICTION_API,
                "message": "Eviction API: evicting"}])
            store.delete("Pod", pod.namespace, pod.name)
            evicted += 1
        self.recorder.note_evictions(evicted)
        if blocked and name not in self._draining:
            self._draining.add(name)
            self.clock.schedule(DRAIN_RETRY_SECONDS, lambda: self._retry_drain(name))
        elif not blocked:
            self._draining.discard(name)

    def _retry_drain(self, name: str) -> None:
        if name in self._draining:
            self._draining.discard(name)
            self._drain(name)

    def _may_evict(self, pod: Pod) -> bool:
        """The eviction subresource's PDB check: every budget selecting the pod allows one more
        disruption (its status, which the simulated disruption controller keeps current; a
        terminating victim stops counting as healthy at once)."""
        for pdb in self.store.list("PodDisruptionBudget", pod.namespace):
            assert isinstance(pdb, PodDisruptionBudget)
            if pdb_selects(pdb, pod) and (pdb.disruptions_allowed or 0) < 1:
                return False
        return True

    # -- the summary ----------------------------------------------------------------------------
    def _summary(self, events: int, wall: float) -> dict[str, Any]:
        rec = self.recorder
        s = rec.states
        out: dict[str, Any] = {
            "trace": self.trace.name,
            "config": self.label,
            "seed": self.seed,
            "pods": rec.pods,
            "scheduled": rec.scheduled,
            "unschedulable": s[2],
            "pending": s[1] + s[2],
            "running": s[3],
            "gpuAllocation": rec.gpu_allocation(),
            "wallSeconds": round(wall, 3),
            "virtualSeconds": self.clock.now - self.start,
            "events": events,
            "skippedEvents": self.skipped,
            "skipped": dict(self.skip_reasons),
            "attempts": self.sched.cycles.stats.attempts,
            "preemptions": rec.preemptions,
            "evictions": rec.evictions,
            "latencySeconds": rec.latency.exact(),
            "allocation": rec.allocation(),
            "arrivedDemand": rec.row(self.clock.now)[2],
            "demand": rec.demand.name,
            "atArrivedDemand": rec.at_demand,
        }
        for k, v in rec.extra_summary().items():
            out.setdefault(k, v)  # a provider's columns; never replacing the fields above
        return out


def replay(trace: Trace, **kwargs: Any) -> ReplayResult:
    """``Replay(trace, **kwargs).run()``."""
    return Replay(trace, **kwargs).run()


def _daemon(pod: Pod) -> bool:
    return any(r.get("kind") == "DaemonSet" and r.get("controller")
               for r in pod.raw.get("metadata", {}).get("ownerReferences") or ())


def _describe(key: Key) -> str:
    kind, ns, name = key
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


def _resources(seen: set[str]) -> list[str]:
    """The resources with allocation columns: every one a node of the cluster or of the trace
    declares, cpu, memory and pods first."""
    names = {*seen, "cpu", "memory", "pods"}
    return sorted(names, key=lambda r: (_RESOURCE_ORDER.index(r), "") if r in _RESOURCE_ORDER
                  else (len(_RESOURCE_ORDER), r))
