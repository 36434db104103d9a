"""Run one scheduler_perf-style workload against an embedded store and measure it.

Mirrors runWorkload (test/integration/scheduler_perf/scheduler_perf.go, master 2026): the ops
run in order against a running scheduler; ``createPods`` waits until its pods are scheduled
(unless ``skipWaitToCompletion``), and the ops with ``collectMetrics`` are the measured ones.

Here the "API server" is a :class:`~kubesched.cluster.MemoryStore` on a
:class:`~kubesched.clock.VirtualClock` and the scheduler runs in the same thread: the runner
alternates scheduling cycles with the clock's due tasks (binding cycles are tasks at the
current virtual time, so each pod is bound right after its scheduling cycle, as kube-scheduler's
concurrent binding goroutines would). Outside measured ops virtual time advances only when
activeQ is empty (backoff, graceful termination of preemption victims, flushes), and everything
a decision depends on is virtual and seeded. During measured ops the clock keeps pace with wall
time (:class:`~._pacer.WallPacer`), so backoffs expire amid the burst as they do upstream.

``churn`` ticks every ``intervalMilliseconds`` of wall time, as upstream's churn goroutine does.
Each tick, and each move of the paced clock, is recorded as the loop step it happened at, so that
a second run (``check_decisions``) can replay them at the same steps and stay comparable.
"""

from __future__ import annotations

import random
import resource
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..api import Namespace, Pod
from ..api.loader import KINDS, kind_of
from ..clock import VirtualClock
from ..cluster import MemoryStore, WatchEvent
from ..controllers import ControllerManager
from ..process import HeapFreezer
from ..scheduler import Scheduler, SchedulerOptions, run
from ._binding_ops import check_pods_scheduled, update_device_conditions
from ._collect import Summary, ThroughputCollector, TimingCollector
from ._config import ConfigError, Op, Workload
from ._dra import alloc_resource_claims, driver_slices
from ._objects import ObjectFactory
from ._pacer import WallPacer

__all__ = ["DecisionMismatch", "WorkloadResult", "check_decisions", "peak_rss_bytes", "run_workload"]

_HISTORY_LIMIT = 4096
"""Watch events the store keeps (see ``_Run.__init__``)."""

_EVENT_LIMIT = 10_000
"""Recorded Events the store keeps: nothing in a benchmark reads them, and one ``Scheduled``
event per pod is 0.3 GiB at 500,000 pods (as replay's store, the oldest go first)."""


def peak_rss_bytes() -> int:
    """The process's peak resident set size so far (ru_maxrss is in KiB on Linux)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


@dataclass(slots=True)
class WorkloadResult:
    """One workload's figures; ``to_dict`` is the JSON contract of ``kubesched bench -o json``."""

    name: str
    nodes: int
    measured_pods: int
    throughput: Summary
    seconds: float
    peak_rss_bytes: int
    scheduled: int
    unschedulable: int
    threshold: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of this process over the measured ops: unlike wall time, not inflated by other
    load on the machine (``measuredPods / cpuSeconds`` is the rate an idle machine would see)."""
    samples: list[float] = field(default_factory=list)
    attempt_latency: Summary = field(default_factory=Summary)
    extension_points: dict[str, float] = field(default_factory=dict)
    placements: dict[str, str] = field(default_factory=dict)
    """Every pod bound during the run (``namespace/name`` -> node), in bind order."""
    churn_steps: list[int] = field(default_factory=list)
    clock_moves: list[tuple[int, float]] = field(default_factory=list)
    """(loop step, virtual time) of each move of the paced clock (:class:`~._pacer.WallPacer`)."""
    setup_seconds: float = 0.0
    """Wall time from the start of the run to the first measured op's window: the store and
    scheduler built, the setup ops run (nodes created, setup pods scheduled) and the measured
    pods created; the whole run when nothing is measured. What loading a cluster costs."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nodes": self.nodes,
            "measuredPods": self.measured_pods,
            "throughput": self.throughput.to_dict(),
            "seconds": self.seconds,
            "peakRSSBytes": self.peak_rss_bytes,
            "scheduled": self.scheduled,
            "unschedulable": self.unschedulable,
            "threshold": self.threshold,
            "cpuSeconds": self.cpu_seconds,
            "setupSeconds": self.setup_seconds,
            "attemptLatencySeconds": self.attempt_latency.to_dict(),
            "extensionPointSeconds": dict(sorted(self.extension_points.items())),
        }


class DecisionMismatch(AssertionError):
    """The batch and the per-node paths placed a pod differently."""


class _Churn:
    """One churn op: every ``intervalMilliseconds`` of wall time (or at the replayed steps),
    ``create`` makes one object per template; ``recreate`` alternates between creating
    ``number`` objects per template and deleting them (upstream's Recreate mode)."""

    def __init__(self, run: _Run, op: Op, replay: Sequence[int] | None) -> None:
        self.run = run
        self.mode = str(op.get("mode") or "create")
        if self.mode not in ("create", "recreate"):
            raise ConfigError(f"op {op.index} (churn): unknown mode {self.mode!r}")
        self.number = int(op.get("number") or 1)
        self.interval = float(op.get("intervalMilliseconds") or 500) / 1000.0
        self.namespace = f"namespace-{op.index}"
        self.templates = [run.factory.template(Op(op.opcode, op.index, {"t": p}, op.base_dir), "t")
                          for p in op.get("templatePaths") or []]
        # Kinds the store does not hold (Service, ...) do not affect scheduling: skipped.
        self.templates = [t for t in self.templates if t.get("kind") in KINDS]
        self.live: list[list[Any]] = [[] for _ in self.templates]
        self.replay = list(replay) if replay is not None else None
        self.last = time.perf_counter()
        self.index = 0

    def due(self, step: int) -> bool:
        if self.replay is not None:
            if self.replay and self.replay[0] == step:
                self.replay.pop(0)
                return True
            return False
        now = time.perf_counter()
        if now - self.last >= self.interval:
            self.last = now
            return True
        return False

    def tick(self) -> None:
        store = self.run.store
        for i, tmpl in enumerate(self.templates):
            if self.mode == "recreate" and self.live[i]:
                for obj in self.live[i]:
                    store.delete(kind_of(obj), obj.meta.namespace, obj.meta.name, 0)
                self.live[i] = []
                continue
            for _ in range(self.number if self.mode == "recreate" else 1):
                obj = store.create(self.run.factory.any(tmpl, self.index, self.namespace))
                self.index += 1
                if self.mode == "recreate":
                    self.live[i].append(obj)


class _Run:
    def __init__(self, wl: Workload, seed: int, per_node: bool, config: Any,
                 churn_replay: Sequence[Sequence[int]] | None,
                 clock_replay: Sequence[tuple[int, float]] | None = None, pace: bool = True) -> None:
        self.wl = wl
        self.started = time.perf_counter()
        self.setup_seconds: float | None = None
        self.clock = VirtualClock(0.0)
        self.pacer = WallPacer(self.clock, clock_replay, paced=pace)
        # A short watch history: 60,000 pods' full history is memory, but the DRA plugin's
        # allocated-devices tracker follows the store's change log (``events_since``) and must
        # get Expired, never an empty answer, when it falls behind: with no history at all the
        # store answers "nothing changed" and claims' devices would be handed out twice.
        self.store = MemoryStore(self.clock, history_limit=_HISTORY_LIMIT, event_limit=_EVENT_LIMIT)
        self.factory = ObjectFactory(random.Random(seed))
        self.sched = Scheduler(self.store, self.clock, config, seed=seed,
                               options=SchedulerOptions(per_node_filters=per_node,
                                                        features=dict(wl.feature_gates)))
        self.store.follow_feature_gates(self.sched.options.features)  # the cluster's release
        self.throughput = ThroughputCollector(now=self.pacer.harness_time)
        self.timing = TimingCollector()
        self.freezer = HeapFreezer()
        """Settled before each measured op (the setup ops' cluster out of the collector's
        walks, outside the window), released when the run ends: a measured figure about
        scheduling, not about traversals of the heap (see kubesched.process)."""
        self._hook_metrics()
        self.measured: set[str] = set()
        self.placements: dict[str, str] = {}
        self.bound: set[str] = set()
        self.nodes = 0
        self.measured_pods = 0
        self.step = 0
        self.churns: list[_Churn] = []
        self.churn_replay = [list(r) for r in churn_replay] if churn_replay is not None else None
        self.churn_steps: list[list[int]] = []
        self._unschedulable = 0
        self.seed = seed
        self.controllers: ControllerManager | None = None
        self._steady: list[Pod] | None = None
        self._steady_uids: set[str] | None = None
        self._steady_measured = False
        self._unsubscribe = self.store.subscribe(self._on_event)

    def _hook_metrics(self) -> None:
        metrics = self.sched.metrics
        observe_attempt = metrics.observe_attempt
        timing = self.timing

        def attempt(result: str, profile: str, seconds: float) -> None:
            observe_attempt(result, profile, seconds)
            timing.attempt(seconds)

        metrics.observe_attempt = attempt  # type: ignore[method-assign]

    def _extension_point_sums(self) -> dict[str, float]:
        """Seconds spent so far per extension point, all profiles and statuses together."""
        out: dict[str, float] = {}
        for family in self.sched.metrics.framework_extension_point_duration.collect():
            for sample in family.samples:
                if sample.name.endswith("_sum"):
                    point = sample.labels["extension_point"]
                    out[point] = out.get(point, 0.0) + sample.value
        return out

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind != "Pod" or ev.type != "MODIFIED":
            return
        old, new = ev.old, ev.new
        if isinstance(new, Pod) and new.node_name and isinstance(old, Pod) and not old.node_name:
            self.placements[new.key] = new.node_name
            self.bound.add(new.uid)
            steady = self._steady_uids is not None and new.uid in self._steady_uids
            if steady and self._steady_measured:
                self.measured.add(new.uid)
            if new.uid in self.measured:
                self.throughput.pod_scheduled()
            if steady and self._steady is not None:
                self._steady.append(new)

    # -- ops ------------------------------------------------------------------------------
    def run(self) -> WorkloadResult:
        try:
            for op in self.wl.ops:
                getattr(self, "_op_" + op.opcode)(op)
        finally:
            self._unsubscribe()
            if self.controllers is not None:
                self.controllers.close()
            self.sched.close()
            self.freezer.release()
        tp = self.throughput
        return WorkloadResult(
            name=self.wl.full_name, nodes=self.nodes, measured_pods=self.measured_pods,
            throughput=tp.summary(), seconds=tp.seconds, peak_rss_bytes=peak_rss_bytes(),
            scheduled=len(self.measured & self.bound), unschedulable=self._unschedulable,
            threshold=self.wl.threshold, cpu_seconds=tp.cpu_seconds, samples=list(tp.samples),
            attempt_latency=self.timing.attempt_summary(),
            extension_points=dict(self.timing.extension_points),
            placements=self.placements, churn_steps=self._flat_churn_steps(),
            clock_moves=list(self.pacer.moves),
            setup_seconds=(self.setup_seconds if self.setup_seconds is not None
                           else time.perf_counter() - self.started),
        )

    def _flat_churn_steps(self) -> list[int]:
        # Churn ops are numbered in order; their steps are kept apart by a -1 separator.
        out: list[int] = []
        for i, steps in enumerate(self.churn_steps):
            if i:
                out.append(-1)
            out.extend(steps)
        return out

    def _create(self, objs: Iterable[Any]) -> list[Any]:
        return [self.store.create(o) for o in objs]

    def _ensure_namespace(self, name: str) -> None:
        if self.store.try_get("Namespace", "", name) is None:
            self.store.create(Namespace.from_dict({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": name}}))

    def _op_createNodes(self, op: Op) -> None:
        objs = self.factory.nodes(op)
        self.nodes += sum(1 for o in objs if kind_of(o) == "Node")
        self._create(objs)

    def _op_createNamespaces(self, op: Op) -> None:
        for ns in self.factory.namespaces(op):
            if self.store.try_get("Namespace", "", ns.name) is None:
                self.store.create(ns)

    def _start_controllers(self) -> None:
        """The resourceclaim controller (with the other controllers, idle here), started with
        the first DRA object as upstream's DRA workloads run it: it creates the claims of pods
        using templates and removes them when the pods go."""
        if self.controllers is None:
            self.controllers = ControllerManager(self.store, self.clock, self.seed)
            self.controllers.start()

    def _op_createAny(self, op: Op) -> None:
        """``count`` objects (default 1) from ``templatePath``, in ``namespace`` when namespaced."""
        tmpl = self.factory.template(op, "templatePath")
        if tmpl.get("kind") not in KINDS:
            raise ConfigError(f"op {op.index} (createAny): kind {tmpl.get('kind')!r} "
                              "is not read by kubesched")
        if str(tmpl.get("apiVersion", "")).startswith("resource.k8s.io/"):
            self._start_controllers()
        namespace = str(op.get("namespace") or "")
        if namespace:
            self._ensure_namespace(namespace)
        count = op.count if "count" in op.fields else 1
        for i in range(count):
            self.store.create(self.factory.any(tmpl, i, namespace))
        self._settle()

    def _op_createResourceDriver(self, op: Op) -> None:
        self._start_controllers()
        names = [n.name for n in self.store.list("Node")]
        # Devices with binding conditions when the test case turns DRADeviceBindingConditions
        # on itself (upstream's slices always carry them; the gate, off there, strips them).
        binding = self.wl.feature_gates.get("DRADeviceBindingConditions") is True
        self._create(driver_slices(op, names, binding_conditions=binding))
        self._settle()

    def _op_allocResourceClaims(self, op: Op) -> None:
        alloc_resource_claims(self.store, str(op.get("namespace") or ""))
        self._settle()

    def _op_updateDeviceConditions(self, op: Op) -> None:
        update_device_conditions(op, self.store, self.clock, self._poll, _duration_seconds)

    def _op_checkPodScheduled(self, op: Op) -> None:
        check_pods_scheduled(op, self.store, self.clock, self._poll, _duration_seconds)

    def _poll(self, seconds: float, condition: Callable[[], bool]) -> bool:
        """Schedule until ``condition()`` holds, checking it now and every virtual second
        (wait.PollUntilContextTimeout, immediate); False when ``seconds`` pass first."""
        end = self.clock.now + seconds
        met = [condition()]
        ticking = [not met[0]]

        def tick() -> None:
            met[0] = met[0] or condition()
            if not met[0] and self.clock.now < end:
                self.clock.schedule(min(1.0, end - self.clock.now), tick)
            else:
                ticking[0] = False

        if ticking[0]:
            self.clock.schedule(min(1.0, seconds), tick)
            self._schedule_until(lambda: met[0] or not ticking[0])
        return met[0]

    def _settle(self) -> None:
        """Run what is due now (controller reconciles), as setup ops finish before the next."""
        self.clock.run_due()

    def _start_measuring(self) -> tuple[int, dict[str, float]]:
        """Open a measured op's window: the heap frozen (``freezer.settle``), plugin timing,
        the wall-time pacer and the throughput sampler on; returns what ``_stop_measuring``
        subtracts (unschedulable attempts and seconds per extension point so far)."""
        before = self.sched.cycles.stats.unschedulable_attempts
        if self.setup_seconds is None:
            self.setup_seconds = time.perf_counter() - self.started
        self.freezer.settle()
        self.timing.active = True
        points_before = self._extension_point_sums()
        self.pacer.start()
        self.throughput.start()
        return before, points_before

    def _stop_measuring(self, window: tuple[int, dict[str, float]]) -> None:
        """Close the window ``_start_measuring`` opened and add what happened in it."""
        before, points_before = window
        self.throughput.stop()
        self.pacer.stop()
        self.timing.active = False
        self.timing.add_extension_points(points_before, self._extension_point_sums())
        self._unschedulable += self.sched.cycles.stats.unschedulable_attempts - before

    def _op_createPods(self, op: Op) -> None:
        namespace = str(op.get("namespace") or f"namespace-{op.index}")
        self._ensure_namespace(namespace)
        if op.get("steadyState"):
            self._steady_state(op, namespace)
            return
        measure = op.collect_metrics
        # Objects first, the measurement after: upstream's client creates pods while the
        # scheduler runs; creating them here is the store's cost, not the scheduler's. Only
        # their uids are kept: the store holds the pods, and a list of the versions created
        # here would keep every pending version alive beside the bound one.
        uids = {o.uid for o in map(self.store.create, self.factory.pods(op, namespace))
                if isinstance(o, Pod)}
        if measure:
            self.measured_pods += len(uids)
            self.measured |= uids
            window = self._start_measuring()
        if not op.skip_wait:
            self._schedule_until(lambda: uids <= self.bound)
        if measure:
            self._stop_measuring(window)

    def _steady_state(self, op: Op, namespace: str) -> None:
        """createPods with ``steadyState``: keep ``count`` pods in existence for ``duration``
        (wall time, as upstream): each pod, once scheduled, is deleted and a new one created, so
        the cluster stays at the same utilization; every pod scheduled in the meantime counts."""
        duration = _duration_seconds(op.get("duration") or 0)
        if duration <= 0:
            raise ConfigError(f"op {op.index} (createPods): steadyState needs a positive duration")
        created: set[str] = set()

        def create(n: int) -> None:
            for o in self.factory.pods(op, namespace, count=n):
                obj = self.store.create(o)
                if isinstance(obj, Pod):
                    created.add(obj.uid)

        self._steady = []
        measure = op.collect_metrics
        if measure:
            window = self._start_measuring()
        end = time.perf_counter() + duration
        self._steady_uids, self._steady_measured = created, measure
        create(op.count)

        def done() -> bool:
            steady = self._steady
            if steady:
                self._steady = []
                for p in steady:
                    if self.store.try_get("Pod", p.namespace, p.name) is not None:
                        self.store.delete("Pod", p.namespace, p.name, 0)
                if time.perf_counter() < end:
                    create(len(steady))
            return time.perf_counter() >= end

        try:
            self._schedule_until(done)
        finally:
            self._steady = None
            self._steady_uids = None
        if measure:
            # The measured pods are those scheduled within the duration (the last ones created
            # may still be pending when it ends, as upstream's).
            scheduled = created & self.bound
            self.measured -= created - scheduled
            self.measured_pods += len(scheduled)
            self._stop_measuring(window)

    def _op_barrier(self, op: Op) -> None:
        """Wait until every pod (of ``namespaces``, when given) is scheduled; with
        ``stageRequirement: Attempted``, until each was attempted at least once."""
        namespaces = set(op.get("namespaces") or ())

        def pending() -> list[Pod]:
            return [p for p in self.store.list("Pod")
                    if not p.node_name and (not namespaces or p.namespace in namespaces)]

        if op.get("stageRequirement") == "Attempted":
            self._schedule_until(lambda: not self.sched.queue.pending_pod_counts().get("active", 0))
        else:
            self._schedule_until(lambda: not pending())

    def _op_deletePods(self, op: Op) -> None:
        """Delete the pods of ``namespace``, ``deletePodsPerSecond`` of them per virtual second
        (all at once without a rate)."""
        namespace = str(op.get("namespace") or "")
        pods = sorted(self.store.list("Pod", namespace), key=lambda p: p.name)
        rate = float(op.get("deletePodsPerSecond") or 0)
        for i, p in enumerate(pods):
            def delete(p: Pod = p) -> None:
                if self.store.try_get("Pod", p.namespace, p.name) is not None:
                    self.store.delete("Pod", p.namespace, p.name)
            if rate > 0:
                self.clock.schedule(i / rate, delete)
            else:
                delete()
        if not op.skip_wait:
            keys = {(p.namespace, p.name) for p in pods}
            self._schedule_until(lambda: all(self.store.try_get("Pod", *k) is None for k in keys))

    def _op_sleep(self, op: Op) -> None:
        """Keep scheduling for ``duration`` seconds of virtual time."""
        seconds = _duration_seconds(op.get("duration") or op.get("durationParam") or 0)
        end = self.clock.now + seconds
        fired = [False]

        def wake() -> None:
            fired[0] = True

        self.clock.schedule(seconds, wake)
        self._schedule_until(lambda: fired[0] and self.clock.now >= end)

    def _op_churn(self, op: Op) -> None:
        replay = None
        if self.churn_replay is not None:
            replay = self.churn_replay[len(self.churns)] if len(self.churns) < len(self.churn_replay) else []
        self.churns.append(_Churn(self, op, replay))
        self.churn_steps.append([])

    # -- the loop ---------------------------------------------------------------------------
    def _schedule_until(self, done: Callable[[], bool]) -> None:
        """Run scheduling cycles and the clock's tasks until ``done()``, or until nothing can
        change any more: the scheduler's one loop (:func:`kubesched.scheduler.run`) to its
        fixed point, the same as ``simulate``'s (no task left, or none within
        podMaxInUnschedulablePodsDuration and one flush period of the last change, binding
        cycles in flight given the longest Permit wait on top). Upstream's scheduler_perf has
        no such horizon: its ops wait for their pods until the test's timeout; a pod the
        scheduler can no longer place is known here as soon as that fixed point is reached.
        Each loop step: churn ticks and the paced clock first; a scheduling cycle's binding
        runs right after it, as kube-scheduler's concurrent binding goroutines."""
        run(self.sched, stop=done, before_cycle=self._loop_step, before_step=self.pacer.skip_to,
            due_after_cycle=True)

    def _loop_step(self) -> None:
        """Before each turn of the loop: churn ticks due at this step, the paced clock."""
        self.step += 1
        for i, churn in enumerate(self.churns):
            if churn.due(self.step):
                self.churn_steps[i].append(self.step)
                churn.tick()
        self.pacer.catch_up(self.step)


def _duration_seconds(v: Any) -> float:
    """A Go duration string (``5s``, ``100ms``, ``1m``) or a number of seconds."""
    if isinstance(v, int | float):
        return float(v)
    s = str(v).strip()
    for suffix, mult in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if s.endswith(suffix):
            try:
                return float(s[: -len(suffix)]) * mult
            except ValueError:
                break
    raise ConfigError(f"sleep: bad duration {v!r}")


def run_workload(wl: Workload, seed: int = 0, per_node: bool = False, config: Any = None,
                 churn_replay: Sequence[Sequence[int]] | None = None,
                 clock_replay: Sequence[tuple[int, float]] | None = None,
                 pace: bool = True) -> WorkloadResult:
    """Run ``wl`` once on a fresh store and scheduler; ``per_node`` forces the per-node plugin
    path; ``churn_replay`` and ``clock_replay`` (a previous result's churn steps and clock
    moves) replay its churn ticks and its paced clock; ``pace=False`` keeps the clock virtual
    during measured ops too (it then moves only when activeQ is empty: fully reproducible from
    the seed, but no timer fires amid a burst)."""
    return _Run(wl, seed, per_node, config, churn_replay, clock_replay, pace).run()


def _split_steps(flat: Sequence[int]) -> list[list[int]]:
    out: list[list[int]] = [[]]
    for s in flat:
        if s == -1:
            out.append([])
        else:
            out[-1].append(s)
    return out


def check_decisions(wl: Workload, seed: int = 0, config: Any = None,
                    first: WorkloadResult | None = None) -> WorkloadResult:
    """Run ``wl`` on the batch path (or take ``first``, such a run), then again on the per-node
    path with the same seed, replaying the first run's churn ticks and clock moves at the same
    loop steps; raise :class:`DecisionMismatch` naming the first pods placed differently. Returns
    the batch run."""
    batch = first if first is not None else run_workload(wl, seed, config=config)
    per_node = run_workload(wl, seed, per_node=True, config=config,
                            churn_replay=_split_steps(batch.churn_steps), clock_replay=batch.clock_moves)
    if batch.placements != per_node.placements:
        diff = [k for k in sorted(set(batch.placements) | set(per_node.placements))
                if batch.placements.get(k) != per_node.placements.get(k)]
        shown = ", ".join(f"{k}: batch={batch.placements.get(k)} per-node={per_node.placements.get(k)}"
                          for k in diff[:5])
        raise DecisionMismatch(f"{wl.full_name}: {len(diff)} pods placed differently: {shown}")
    if list(batch.placements) != list(per_node.placements):
        raise DecisionMismatch(f"{wl.full_name}: same placements, bound in a different order")
    return batch
