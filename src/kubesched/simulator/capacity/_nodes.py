"""``capacity --add-nodes``: the fewest nodes of one shape that let every pending pod schedule.

Each candidate count ``n`` is answered by a full simulation (controllers and scheduler, as
``simulate`` runs them) of the input plus ``n`` nodes made from the template. A count
*suffices* when no pod the profiles serve is left Unschedulable (or with a scheduler error) and
no pod was preempted; pods still gated by ``schedulingGates`` and pods of other schedulers do not
count (no node helps them).

The search, as cluster-autoscaler's estimator is bounded by resources:
- **lower bound** ``L``: the requests of every pod that must be on a node at the end and
  never finishes (bound, and pending ones the profiles serve, with the controllers' pods; not
  a pod with a run time, ``kubesched.io/run-seconds``, since a Job's pods may run one after
  another in the same room) minus what the existing nodes offer, divided by what one new node
  offers, per resource (pods included), rounded up: those pods are all on nodes together when
  a count suffices, so fewer nodes cannot hold them, whatever the scheduler does;
- **upper bound** ``U``: one new node per pod the run had to place, plus one per pod a workload
  still owes (a StatefulSet creates its next pod only once the previous one runs). With that
  many, every pod still finds a new node with nothing but DaemonSet pods on it when its turn
  comes, so if that does not suffice, the obstacle is not capacity and no number of such
  nodes is enough;
- **a first guess** ``E`` between them: cluster-autoscaler's binpacking estimate of the pods
  left failing without new nodes (requests only, first fit, biggest first);
- **exponential then binary search** from ``E``: when ``E`` suffices, try ``E-1``, ``E-2``,
  ``E-4``, ... (never below ``L``) until a count does not; otherwise ``E+1``, ``E+3``, ``E+7``, ...
  (capped at ``U``) until one does; then bisect between the last count that did not suffice and
  the smallest that did. With a good guess that is three simulations (0, ``E``, ``E-1``).

The answer ``N`` always suffices, and ``N - 1`` was either simulated and did not suffice or is
below ``L``. That it is the fewest, the first count that suffices counting 0, 1, 2, ..., rests
on the search's one assumption: more nodes never hurt. That holds for resources, ports,
affinity to existing pods and spreading over hostnames; a template that opens a new topology
domain can break it (a DoNotSchedule zone spread with the new zone counted), and a smaller
count the search skipped may then suffice too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from ...api import Node, Pod
from ...api.loader import LoadedObjects, load_paths
from ...controllers import run_seconds
from .._simulation import (
    PREEMPTED,
    SCHEDULED,
    SCHEDULER_ERROR,
    UNSCHEDULABLE,
    Simulation,
    Simulator,
)
from ._count import Failure, why_unschedulable

__all__ = ["HOSTNAME_LABEL", "AddNodesResult", "load_node_template", "node_copies", "nodes_to_add"]

HOSTNAME_LABEL: Final = "kubernetes.io/hostname"
_FAILED: Final = (UNSCHEDULABLE, SCHEDULER_ERROR)


@dataclass(frozen=True, slots=True)
class AddNodesResult:
    nodes_to_add: int | None
    """The fewest template nodes that suffice; None when no number does."""
    reasons: dict[str, int] = field(default_factory=dict)
    """When None: why the first pod left unplaced with ``U`` nodes added fails (reason ->
    nodes)."""
    blocked_pod: str = ""
    message: str = ""
    tried: list[tuple[int, bool]] = field(default_factory=list)
    """(nodes added, sufficed) for every simulation run, in order."""
    lower: int = 0
    upper: int = 0


def load_node_template(path: str) -> Node:
    """The one Node the file holds; ValueError naming the file otherwise."""
    loaded = load_paths([path], strict=True)
    nodes = loaded.nodes
    if len(loaded.objects) != 1 or len(nodes) != 1:
        kinds = ", ".join(f"{k} {n}" for k, n in loaded.counts().items()) or "nothing"
        raise ValueError(f"{path}: a node template must hold exactly one Node (found {kinds})")
    node: Node = nodes[0]
    if not node.name:
        raise ValueError(f"{path}: Node template: metadata.name is required (new nodes are named after it)")
    return node


def node_copies(template: Node, n: int, taken: set[str] | frozenset[str] = frozenset()) -> list[Node]:
    """``<name>-1`` ... ``<name>-<n>``: the template with that name, its ``kubernetes.io/hostname``
    label set to it (as the kubelet registers a node), no uid or resourceVersion; ValueError when
    a name is already a node of the input."""
    base = template.to_dict()
    meta = {k: v for k, v in (base.get("metadata") or {}).items()
            if k not in ("uid", "resourceVersion", "creationTimestamp", "generateName")}
    _check_names(template, n, taken)
    out = []
    for i in range(1, n + 1):
        name = f"{template.name}-{i}"
        d = dict(base)
        d["metadata"] = {**meta, "name": name, "labels": {**(meta.get("labels") or {}), HOSTNAME_LABEL: name}}
        out.append(Node.from_dict(d))
    return out


def _with_nodes(loaded: LoadedObjects, nodes: list[Node]) -> LoadedObjects:
    return LoadedObjects(objects=[*loaded.objects, *nodes], origins=loaded.origins)


@dataclass
class _Run:
    ok: bool
    sim: Simulation
    simulator: Simulator


def _failing_pods(sim: Simulation) -> list[str]:
    return [p.pod for p in sim.pods
            if (p.status in _FAILED and p.scheduler_name in sim.profiles) or p.status == PREEMPTED]


def nodes_to_add(loaded: LoadedObjects, template: Node, config: Any = None, seed: int = 0,
                 on_step: Callable[[int, bool], None] | None = None) -> AddNodesResult:
    """The search described in the module docstring."""
    taken = {n.name for n in loaded.nodes}
    _check_names(template, 1, taken)  # a clash is bad input: tell it before simulating anything
    tried: list[tuple[int, bool]] = []

    def run(n: int) -> _Run:
        simulator = Simulator(_with_nodes(loaded, node_copies(template, n, taken)), config, seed)
        sim = simulator.run()
        ok = not _failing_pods(sim)
        tried.append((n, ok))
        if on_step is not None:
            on_step(n, ok)
        return _Run(ok, sim, simulator)

    first = run(0)
    if first.ok:
        return AddNodesResult(0, tried=tried)
    lower, upper = _bounds(first.sim, template)
    _check_names(template, upper, taken)
    guess = min(max(_packing_estimate(first.sim, template), lower), upper)
    # Every count below ``lower`` is known not to suffice (0 was even simulated).
    last_fail, best = lower - 1, None
    r = run(guess)
    if r.ok:
        best, step = guess, 1
        while best - step > last_fail:  # gallop down while counts still suffice
            n = best - step
            if not run(n).ok:
                last_fail = n
                break
            best, step = n, step * 2
    elif guess >= upper:
        return _blocked(r, tried, lower, upper)
    else:
        last_fail, n, step = guess, guess + 1, 2
        while best is None:  # gallop up to the upper bound
            n = min(n, upper)
            r = run(n)
            if r.ok:
                best = n
            elif n >= upper:
                return _blocked(r, tried, lower, upper)
            else:
                last_fail, n, step = n, n + step, step * 2
    while best - last_fail > 1:
        mid = (last_fail + best) // 2
        if run(mid).ok:
            best = mid
        else:
            last_fail = mid
    return AddNodesResult(best, tried=tried, lower=lower, upper=upper)


def _check_names(template: Node, n: int, taken: set[str] | frozenset[str]) -> None:
    for i in range(1, n + 1):
        name = f"{template.name}-{i}"
        if name in taken:
            raise ValueError(f"node template {template.name}: the new node {name} would clash with a node "
                             "of the input; rename the template")


def _packing_estimate(sim: Simulation, template: Node) -> int:
    """Where the search starts: cluster-autoscaler's binpacking estimate (estimator/
    binpacking_estimator.go), by requests only. The pods left failing without new nodes, the
    biggest first, each go to the first new node with room, or open one; a pod no empty
    template node can hold opens none (no count helps it)."""
    failing = set(_failing_pods(sim))
    alloc = {**template.allocatable}
    pods = [p for p in sim.store.list("Pod") if p.key in failing]

    def share(p: Pod) -> float:
        return max((v / alloc[r] for r, v in p.requests.items() if alloc.get(r)), default=0.0)

    bins: list[dict[str, int]] = []
    for p in sorted(pods, key=share, reverse=True):
        need = {**p.requests, "pods": 1}
        if any(v > alloc.get(r, 0) for r, v in need.items() if v):
            continue
        for free in bins:
            if all(v <= free.get(r, 0) for r, v in need.items() if v):
                break
        else:
            free = dict(alloc)
            bins.append(free)
        for r, v in need.items():
            free[r] = free.get(r, 0) - v
    return len(bins)


def _bounds(sim: Simulation, template: Node) -> tuple[int, int]:
    """(L, U) of the module docstring, from the run without new nodes; 1 <= L <= U."""
    must_place = {p.pod for p in sim.pods
                  if p.scheduler_name in sim.profiles and p.status in (*_FAILED, SCHEDULED, PREEMPTED)}
    demand: dict[str, int] = {}
    for pod in sim.store.list("Pod"):
        if pod.is_terminal or not (pod.node_name or pod.key in must_place) or run_seconds(pod) is not None:
            continue  # a pod that finishes need not be on a node at the same time as the others
        _add(demand, pod)
    supply: dict[str, int] = {}
    for node in sim.store.list("Node"):
        for r, v in node.allocatable.items():
            supply[r] = supply.get(r, 0) + v
    lower = 1
    for r, need in demand.items():
        per_node = template.allocatable.get(r, 0)
        short = need - supply.get(r, 0)
        if short > 0 and per_node > 0:
            lower = max(lower, math.ceil(short / per_node))
    # Pods a workload still owes (a StatefulSet creates db-1 only once db-0 runs) need a node too.
    owed = sum(max(0, w.wanted - len(w.pods)) for w in sim.workloads)
    return lower, max(lower, len(must_place) + owed)


def _add(demand: dict[str, int], pod: Pod) -> None:
    for r, v in pod.requests.items():
        demand[r] = demand.get(r, 0) + v
    demand["pods"] = demand.get("pods", 0) + 1


def _blocked(r: _Run, tried: list[tuple[int, bool]], lower: int, upper: int) -> AddNodesResult:
    """No number is enough: why the first failing pod fails with ``upper`` nodes added."""
    first = sorted(_failing_pods(r.sim))[0]
    outcome = next(p for p in r.sim.pods if p.pod == first)
    failure: Failure | None = None
    if outcome.status != PREEMPTED:
        ns, name = first.split("/", 1)
        pod = r.sim.store.try_get("Pod", ns, name)
        if isinstance(pod, Pod):
            failure = why_unschedulable(r.simulator.sched, pod)
    if failure is None:
        return AddNodesResult(None, {}, first, outcome.message, tried, lower, upper)
    return AddNodesResult(None, failure.reasons, first, failure.message, tried, lower, upper)
