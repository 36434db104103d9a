"""Run a simulation: admit manifests into an embedded store and schedule until idle.

The library half of ``kubesched simulate`` (no typer, no rich): a :class:`Simulation` holds the
final cluster state and what happened on the way: each pod's outcome, the preemptions and each
node's allocation. Preemptions are read back from the ``Preempted`` events the scheduler records
on victims, whose message names the preemptor as upstream's does
(``Preempted by pod <uid> on node <node>``, pkg/scheduler/framework/preemption/executor.go).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import Pod, saturate
from ..api.loader import LoadedObjects, kind_of
from ..api.start import start_time
from ..clock import VirtualClock
from ..cluster import SCHEDULING_GATED, MemoryStore, WatchEvent
from ..controllers import ControllerManager, WorkloadStatus, owning_workloads, workload_statuses
from ..framework import QueuedPodInfo
from ..plugins.schedulinggates import gates_message
from ..scheduler import AttemptHook, RunSummary, Scheduler, SchedulerOptions, run

__all__ = [
    "BOUND",
    "DELETED",
    "FAILED",
    "FINISHED",
    "PENDING",
    "PREEMPTED",
    "SCHEDULED",
    "SCHEDULER_ERROR",
    "SUCCEEDED",
    "TERMINATING",
    "UNSCHEDULABLE",
    "NodeAllocation",
    "PodDevice",
    "PodOutcome",
    "Preemption",
    "ProgressFn",
    "Simulation",
    "Simulator",
    "allocations",
    "run_simulation",
]

# Pod outcome statuses (PodOutcome.status).
BOUND = "Bound"  # bound before the simulation started
SCHEDULED = "Scheduled"  # bound by this simulation
UNSCHEDULABLE = "Unschedulable"  # PodScheduled=False, reason Unschedulable
SCHEDULER_ERROR = "SchedulerError"  # PodScheduled=False, reason SchedulerError
# SCHEDULING_GATED: PodScheduled=False, reason SchedulingGated (kubectl shows it so), gates left
PENDING = "Pending"  # never attempted: another scheduler's pod
PREEMPTED = "Preempted"  # deleted as a preemption victim
TERMINATING = "Terminating"  # still terminating when the run ended
DELETED = "Deleted"  # gone by the end of the run, not as a victim (e.g. terminating in a dump)
SUCCEEDED = "Succeeded"  # finished: the pod's phase (a pod finished in the input, or since it ran)
FAILED = "Failed"
FINISHED = (SUCCEEDED, FAILED)

_PREEMPTED_BY_UID = re.compile(r"^Preempted by pod (?P<uid>\S+) on node (?P<node>\S+)$")

ProgressFn = Callable[[int, int], None]
"""(pods bound so far, pods to place) -> None; called on every change to a pod and every step
of the clock, so that a long run of failing attempts still reports."""


@dataclass(frozen=True, slots=True)
class PodOutcome:
    pod: str  # namespace/name
    node: str  # "" when not bound
    status: str
    priority: int
    nominated_node: str
    message: str  # why not scheduled: the PodScheduled condition's message
    scheduler_name: str
    devices: tuple[PodDevice, ...] = ()
    """The devices allocated to the pod's ResourceClaims (claims reserved for it)."""
    placed: bool = False
    """Bound by this run, whatever happened since: still ``Scheduled``, or finished
    (``Succeeded``, ``Failed``: a Job's pod that ran its course) or ``Terminating``."""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


@dataclass(frozen=True, slots=True)
class PodDevice:
    """One allocated device of a pod's claim: ``claim`` is ``namespace/name``, ``request`` the
    claim's request (``request/subrequest`` for a firstAvailable alternative)."""

    claim: str
    request: str
    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True, slots=True)
class Preemption:
    victim: str
    preemptor: str
    node: str
    time: float


@dataclass(frozen=True, slots=True)
class NodeAllocation:
    """Requests of the pods bound to the node (terminal pods excluded) against allocatable;
    ``pods`` counts pods."""

    name: str
    requested: dict[str, int]
    allocatable: dict[str, int]


@dataclass(slots=True)
class Simulation:
    store: MemoryStore
    run: RunSummary
    start: float
    seed: int
    pods: list[PodOutcome] = field(default_factory=list)
    preemptions: list[Preemption] = field(default_factory=list)
    nodes: list[NodeAllocation] = field(default_factory=list)
    input_ids: set[tuple[str, str, str]] = field(default_factory=set)
    """(kind, namespace, name) of every object the input defined."""
    profiles: frozenset[str] = frozenset()
    """The schedulerNames the configuration's profiles serve."""
    generated: list[Any] = field(default_factory=list)
    """The objects the controllers created (first versions, in creation order)."""
    workloads: list[WorkloadStatus] = field(default_factory=list)
    """Each top-level workload: pods wanted and placed."""
    pod_workload: dict[str, str] = field(default_factory=dict)
    """Pod key -> ``Kind namespace/name`` of the workload controlling it."""

    @property
    def generated_ids(self) -> set[tuple[str, str, str]]:
        return {(kind_of(o), o.meta.namespace, o.meta.name) for o in self.generated}

    @property
    def end(self) -> float:
        return self.run.end_time

    def count(self, status: str) -> int:
        return sum(1 for p in self.pods if p.status == status)

    def scheduled(self) -> list[PodOutcome]:
        """Pods this run bound, including those that finished since (what a user counts as
        scheduled: a Job's 6 pods that ran and succeeded were scheduled 6 times)."""
        return [p for p in self.pods if p.placed]

    def unplaced(self) -> list[PodOutcome]:
        """Pods our profiles should have placed and did not (what --fail-on-unschedulable counts)."""
        waiting = (UNSCHEDULABLE, SCHEDULER_ERROR, SCHEDULING_GATED, PENDING)
        return [p for p in self.pods if p.status in waiting and p.scheduler_name in self.profiles]


class Simulator:
    """A simulation ready to run: the input admitted into a fresh store and the scheduler built.
    Construction raises the store's or the framework's error on bad input; ``run`` does not."""

    def __init__(self, loaded: LoadedObjects, config: Any = None, seed: int = 0,
                 features: Mapping[str, bool] | None = None) -> None:
        """``features``: feature gates (as kube-scheduler's ``--feature-gates``)."""
        self.loaded = loaded
        self.seed = seed
        self.start = start_time(loaded.objects)
        self.clock = VirtualClock(self.start)
        self.store = MemoryStore(self.clock)
        self.store.load(loaded)
        self.initial: list[Pod] = self.store.list("Pod")
        self.sched = Scheduler(self.store, self.clock, config, seed=seed,
                               options=SchedulerOptions(features=dict(features or {})))
        self.store.follow_feature_gates(self.sched.options.features)  # the cluster's release
        self.controllers = ControllerManager(self.store, self.clock, seed, features=dict(features or {}))

    def settle(self, before_step: Callable[[float], None] | None = None) -> RunSummary:
        """Start the controllers and schedule until nothing more can happen (the scheduler's
        one loop, :func:`kubesched.scheduler.run`, to its fixed point, woken again by the
        controllers and the simulated kubelet, a Job's pod finishing possibly long after the
        scheduler went idle), leaving the scheduler and the controllers open (``capacity``
        goes on from this state). A scheduler whose attempt hook stopped it
        (``run_to_attempt``) ends the run there.
        ``before_step``: told each timer's time before the clock moves there."""
        self.controllers.start()
        run(self.sched, before_step=before_step, wake=self.controllers.next_due, max_cycles=1_000_000)
        return self.sched.summary()

    def run_to_attempt(self, hook: AttemptHook) -> QueuedPodInfo | None:
        """Run as ``settle`` does, with ``hook`` told of every scheduling attempt, until it
        stops the run before one: that pod is returned (popped, its cycle not run, the clock at
        that moment); None when the run ended without stopping. Either way the scheduler and
        the controllers stay open, for a dry run on this state (``explain_in``) and nothing
        more: the simulator is spent (``close`` it)."""
        self.sched.cycles.attempt_hook = hook
        self.settle()
        return self.sched.cycles.stopped_before

    def close(self) -> None:
        """Stop the controllers and the scheduler (``run`` does it itself)."""
        self.controllers.close()
        self.sched.close()

    def run(self, progress: ProgressFn | None = None) -> Simulation:
        """Run the controllers and the scheduler on the virtual clock until nothing more can
        happen (``settle``: run_until_idle, then, while a controller or the simulated kubelet
        has something due, a Job's pod finishing possibly long after the scheduler went idle,
        move the clock there and schedule again), then close both and report."""
        store, initial = self.store, self.initial
        bound_before = {p.key for p in initial if p.node_name}
        to_place = sum(1 for p in initial if not p.node_name and not p.is_terminal)  # finished: never
        unsubscribe, tick = _watch_binds(store, to_place, progress)
        try:
            summary = self.settle(tick)
        finally:
            unsubscribe()
            self.close()
        objects = self.loaded.objects
        sim = Simulation(store, summary, self.start, self.seed,
                         input_ids={(kind_of(o), o.meta.namespace, o.meta.name) for o in objects},
                         profiles=frozenset(self.sched.profiles))
        sim.generated = list(self.controllers.created)
        created_pods = [o for o in sim.generated if isinstance(o, Pod)]
        sim.preemptions = _preemptions(store, {p.uid: p for p in [*initial, *created_pods]})
        sim.pods = _outcomes(store, [*initial, *created_pods], bound_before, sim.preemptions,
                             self._pre_enqueue_message)
        sim.nodes = allocations(store)
        sim.workloads = workload_statuses(store, self.controllers)
        sim.pod_workload = {k: f"{kind_of(o)} {o.meta.namespace}/{o.meta.name}"
                            for k, o in owning_workloads(store).items()}
        return sim


    def _pre_enqueue_message(self, pod: Pod) -> str:
        """Why a pod of ours was never attempted: the PreEnqueue status keeping it out of the
        queue (a gang short of minCount, its PodGroup missing), "" when none does."""
        fwk = self.sched.profiles.get(pod.scheduler_name)
        if fwk is None:
            return ""
        st = fwk.run_pre_enqueue_plugins(pod)
        return "" if st.is_success() else st.message()


def run_simulation(loaded: LoadedObjects, config: Any = None, seed: int = 0,
                   progress: ProgressFn | None = None,
                   features: Mapping[str, bool] | None = None) -> Simulation:
    """Admit ``loaded`` into a fresh store and run the scheduler on a virtual clock until
    nothing more can happen."""
    return Simulator(loaded, config, seed, features).run(progress)


def _watch_binds(store: MemoryStore, to_place: int, progress: ProgressFn | None
                 ) -> tuple[Callable[[], None], Callable[[float], None] | None]:
    """Tell ``progress`` of every pod change, and of every step of the clock (the second
    callable, for ``run_until_idle``'s ``before_step``: retries of pods that keep failing
    change nothing in the store); returns the unsubscribe function and that one."""
    if progress is None:
        return (lambda: None), None
    bound = [0]
    progress(0, to_place)

    total = [to_place]

    def on_step(_t: float) -> None:
        progress(bound[0], total[0])

    def on_event(ev: WatchEvent) -> None:
        if ev.kind != "Pod":
            return
        if ev.type == "ADDED" and isinstance(ev.new, Pod) and not ev.new.node_name \
                and not ev.new.is_terminal:
            total[0] += 1  # a pod a controller created: one more to place
        elif ev.type == "MODIFIED" and isinstance(ev.old, Pod) \
                and isinstance(ev.new, Pod) and not ev.old.node_name and ev.new.node_name:
            bound[0] += 1
        progress(bound[0], total[0])

    return store.subscribe(on_event), on_step


def _preemptions(store: MemoryStore, by_uid: dict[str, Pod]) -> list[Preemption]:
    out = []
    for ev in store.events():
        if ev.reason != "Preempted" or ev.involved_kind != "Pod":
            continue
        victim = f"{ev.involved_namespace}/{ev.involved_name}"
        m = _PREEMPTED_BY_UID.match(ev.message)
        if m is not None:
            p = by_uid.get(m["uid"])
            preemptor = p.key if p is not None else m["uid"]
            out.append(Preemption(victim, preemptor, m["node"], ev.first_timestamp))
    return out


def _outcomes(store: MemoryStore, initial: list[Pod], bound_before: set[str],
              preemptions: list[Preemption],
              pre_enqueue_message: Callable[[Pod], str] = lambda _: "") -> list[PodOutcome]:
    """Each pod's outcome; a pod never attempted gets ``pre_enqueue_message(pod)``."""
    preempted = {p.victim: p for p in preemptions}
    out = []
    for first in initial:
        pod: Pod | None = store.try_get("Pod", first.namespace, first.name)
        if pod is None or pod.uid != first.uid:
            pe = preempted.get(first.key)
            status, msg = ((PREEMPTED, f"preempted by {pe.preemptor} on node {pe.node}") if pe is not None
                           else (DELETED, ""))
            out.append(PodOutcome(first.key, first.node_name, status, first.priority_value,
                                  "", msg, first.scheduler_name))
            continue
        status = _status(pod, bound_before)
        msg = pre_enqueue_message(pod) if status == PENDING else _message(pod)
        out.append(PodOutcome(pod.key, pod.node_name, status, pod.priority_value,
                              pod.nominated_node_name, msg, pod.scheduler_name,
                              _devices(store, pod),
                              placed=bool(pod.node_name) and pod.key not in bound_before))
    out.sort(key=lambda o: o.pod)
    return out


def _devices(store: MemoryStore, pod: Pod) -> tuple[PodDevice, ...]:
    """The devices of the claims reserved for ``pod`` (by name, generated from a template, or
    created by the scheduler for its extended resources backed by DRA)."""
    extended = (pod.raw.get("status") or {}).get("extendedResourceClaimStatus") or {}
    if not pod.node_name or not (pod.raw.get("spec", {}).get("resourceClaims") or extended):
        return ()
    generated = {s.name: s.resource_claim_name for s in pod.resource_claim_statuses}
    names = [pc.resource_claim_name if pc.resource_claim_name is not None else generated.get(pc.name)
             for pc in pod.resource_claims]
    if extended.get("resourceClaimName"):
        names.append(str(extended["resourceClaimName"]))
    out: list[PodDevice] = []
    for name in names:
        claim = store.try_get("ResourceClaim", pod.namespace, name) if name else None
        if claim is None or claim.allocation is None or all(r.uid != pod.uid for r in claim.reserved_for):
            continue
        out += [PodDevice(f"{pod.namespace}/{name}", r.request, r.driver, r.pool, r.device)
                for r in claim.allocation.results]
    return tuple(out)


def _status(pod: Pod, bound_before: set[str]) -> str:
    if pod.is_terminal:
        return pod.phase
    if pod.node_name:
        if pod.is_terminating:
            return TERMINATING
        return BOUND if pod.key in bound_before else SCHEDULED
    cond = pod.condition("PodScheduled") or {}
    if cond.get("status") == "False" and cond.get("reason") == UNSCHEDULABLE:
        return UNSCHEDULABLE
    if cond.get("status") == "False" and cond.get("reason") == SCHEDULER_ERROR:
        return SCHEDULER_ERROR
    if cond.get("status") == "False" and cond.get("reason") == SCHEDULING_GATED:
        return SCHEDULING_GATED
    return PENDING


def _message(pod: Pod) -> str:
    """Why the pod has no node: the PodScheduled=False message; for a pod still gated, the
    SchedulingGates PreEnqueue status naming its gates (the condition's text does not)."""
    if pod.node_name or pod.is_terminal:
        return ""
    cond = pod.condition("PodScheduled") or {}
    if cond.get("status") != "False":
        return ""
    if cond.get("reason") == SCHEDULING_GATED and pod.scheduling_gates:
        return gates_message(pod.scheduling_gates)
    return str(cond.get("message") or "")


def allocations(store: Any) -> list[NodeAllocation]:
    """Per node: the summed requests of its non-terminal pods (saturated to int64, as the
    scheduler's node columns hold them), and its allocatable."""
    requested: dict[str, dict[str, int]] = {}
    for p in store.list("Pod"):
        if not p.node_name or p.is_terminal:
            continue
        r = requested.setdefault(p.node_name, {})
        for k, v in p.requests.items():
            r[k] = r.get(k, 0) + v
        r["pods"] = r.get("pods", 0) + 1
    out = []
    for n in store.list("Node"):
        req = requested.get(n.name, {})
        alloc = dict(n.allocatable)
        names = sorted(set(alloc) | set(req), key=_resource_order)
        out.append(NodeAllocation(n.name, {k: saturate(req.get(k, 0)) for k in names},
                                  {k: alloc.get(k, 0) for k in names}))
    return out


def _resource_order(name: str) -> tuple[int, str]:
    """cpu, memory, pods, ephemeral-storage first, then the rest by name."""
    first = ("cpu", "memory", "pods", "ephemeral-storage")
    return (first.index(name), "") if name in first else (len(first), name)
