"""Explain: one scheduling cycle for one pending pod, reported per node and per plugin.

Runs the dry-run cycle (:class:`~._dry_run.DryRun`, every node, every plugin recorded,
PostFilter recorded) for the named pod against a throwaway copy of the cluster (its own
MemoryStore, VirtualClock and Scheduler), so that nothing the caller holds changes. It differs
from the scheduler only where explaining needs more than deciding, as kube-scheduler-simulator's
result annotations do:

- every enabled Filter plugin runs on every node (the runtime stops at the first rejection);
  ``feasible`` is still upstream's verdict (RunFilterPluginsWithNominatedPods: the first
  failing plugin decides, with nominated pods of equal or higher priority counted);
- every node is evaluated, whatever ``percentageOfNodesToScore`` says;
- feasible nodes are scored even when only one is feasible;
- when no node is feasible, PostFilter runs with preemption's executor replaced by a recorder:
  the victims and the nomination are reported, nothing is evicted (and the store is a copy).

Other pending pods are not scheduled first; bound pods stay where they are. A pod that a
PreEnqueue plugin keeps out of the scheduling queue (SchedulingGates: the pod still has
``spec.schedulingGates``) never reaches a cycle upstream: the explanation is that plugin's
status, with no node evaluated and none selected.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..framework import Code, Status
from ._dry_run import DryRun, DryRunOptions, DryRunResult, FilterVerdict

if TYPE_CHECKING:
    from ..api import Pod
    from ..api.loader import ApiObject
    from ..cluster import MemoryStore
    from ..framework import Framework
    from ..framework.config import SchedulerConfig
    from ._scheduler import Scheduler, SchedulerOptions

__all__ = [
    "ExplainError",
    "Explainer",
    "Explanation",
    "FilterVerdict",
    "NodeExplanation",
    "PluginScore",
    "PostFilterExplanation",
    "PreEnqueueExplanation",
    "WaitingClaim",
    "explain",
    "explain_in",
]


class ExplainError(ValueError):
    """The request cannot be explained: no such pod, a bound pod, no profile for it."""


@dataclass(frozen=True, slots=True)
class PluginScore:
    """One Score plugin on one node: Score's value, after NormalizeScore, the plugin's weight and
    normalized x weight (what the total sums)."""

    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int


@dataclass(slots=True)
class NodeExplanation:
    name: str
    filters: list[FilterVerdict] = field(default_factory=list)
    feasible: bool = False
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int | None = None
    status: Status = field(default_factory=Status.success)
    """The deciding status (upstream's): what the FailedScheduling message counts."""
    devices: list[str] = field(default_factory=list)
    """The devices the pod's claims would get here (DynamicResources' Filter result):
    ``<claim namespace/name>: <request> -> <driver>/<pool>/<device>``."""


@dataclass(frozen=True, slots=True)
class PostFilterExplanation:
    """What PostFilter (preemption) would do: the node it would nominate and the victims it
    would evict there (``ns/name``, most important first); ``message`` is its status text, as
    upstream's RunPostFilterPlugins joins the rejecting plugins' reasons (``no new claims to
    deallocate, preemption: ...``), and ``code`` its code (Error when a plugin failed)."""

    plugin: str
    nominated_node: str | None
    victims: tuple[str, ...]
    message: str
    code: Code = Code.UNSCHEDULABLE


@dataclass(frozen=True, slots=True)
class PreEnqueueExplanation:
    """The PreEnqueue plugin that keeps the pod out of the scheduling queue, and its status
    (SchedulingGates: UnschedulableAndUnresolvable, ``waiting for scheduling gates: [a b]``)."""

    plugin: str
    code: Code
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WaitingClaim:
    """A PersistentVolumeClaim of the pod that VolumeBinding leaves to the PersistentVolume
    controller (unbound, and Immediate or naming its volume: "pod has unbound immediate
    PersistentVolumeClaims"), with what that controller would do with it (``message``)."""

    claim: str
    message: str


@dataclass(slots=True)
class Explanation:
    pod: str
    profile: str
    nodes: list[NodeExplanation]
    selected_node: str | None = None
    tied_nodes: list[str] = field(default_factory=list)
    post_filter: PostFilterExplanation | None = None
    message: str = ""
    pre_enqueue: PreEnqueueExplanation | None = None
    """Set when a PreEnqueue plugin rejects the pod: then no cycle runs (``nodes`` is empty)."""
    waiting_claims: list[WaitingClaim] = field(default_factory=list)
    """The pod's claims waiting for the PersistentVolume controller (the caller fills it: no
    controller runs in the scheduler)."""


class Explainer:
    """Explains pods one after another against one state: ``objects`` (manifests as loaded)
    are admitted into one store (raises the store's error on bad input), ``prepare`` acts on it
    (the command line generates the pods' ResourceClaims from their templates, as the
    resourceclaim controller would), and one scheduler (cache, snapshot, profiles) is built
    on it. Each :meth:`explain` is then one dry run on that scheduler (no assume: nothing is
    written), its random generators reseeded first, so that each answer is the one a fresh
    :func:`explain` gives: building the store and the scheduler is most of an explanation's
    cost on a large cluster, and none of it depends on the pod."""

    def __init__(self, objects: Iterable[ApiObject], *, config: SchedulerConfig | None = None,
                 seed: int = 0,
                 now: float = 0.0, options: SchedulerOptions | None = None,
                 prepare: Callable[[MemoryStore], object] | None = None) -> None:
        from ..clock import VirtualClock
        from ..cluster import MemoryStore
        from ._scheduler import Scheduler

        clock = VirtualClock(now)
        self.store = MemoryStore(clock)
        self.store.load(list(objects))
        if prepare is not None:
            prepare(self.store)
        self._seed = seed
        self._lock = threading.Lock()  # one dry run at a time: it writes the scheduler's RNG
        self.sched = Scheduler(self.store, clock, config, seed=seed, options=options)

    def explain(self, namespace: str, name: str) -> Explanation:
        """Explain pod ``namespace/name`` (ExplainError: see :func:`explain_in`)."""
        with self._lock:
            # As a new Scheduler(seed=...) draws: host ties, preemption's candidate offset.
            self.sched.rng.seed(self._seed)
            self.sched.plugin_metrics_rng.seed(f"pluginMetricsSample/{self._seed}")
            return explain_in(self.sched, namespace, name)

    def close(self) -> None:
        self.sched.close()


def explain(objects: Iterable[ApiObject], namespace: str, name: str, *,
            config: SchedulerConfig | None = None,
            seed: int = 0, now: float = 0.0, options: SchedulerOptions | None = None,
            prepare: Callable[[MemoryStore], object] | None = None) -> Explanation:
    """Explain the scheduling of pod ``namespace/name`` among ``objects`` (manifests as loaded):
    one :class:`Explainer`'s one explanation."""
    explainer = Explainer(objects, config=config, seed=seed, now=now, options=options, prepare=prepare)
    try:
        return explainer.explain(namespace, name)
    finally:
        explainer.close()


def explain_in(sched: Scheduler, namespace: str, name: str) -> Explanation:
    """Explain with ``sched``, which must be a throwaway: its preemption executors are replaced
    by recorders, and plugins may write their cycle state."""
    pod: Pod | None = sched.store.try_get("Pod", namespace, name)
    key = f"{namespace}/{name}"
    if pod is None:
        raise ExplainError(f'pod "{key}" not found')
    if pod.node_name:
        raise ExplainError(f'pod "{key}" is already bound to node "{pod.node_name}"; '
                           "explain needs a pending pod")
    if pod.is_terminating:
        raise ExplainError(f'pod "{key}" is being deleted')
    if pod.is_terminal:
        raise ExplainError(f'pod "{key}" has finished (phase {pod.phase}); explain needs a pending pod')
    fwk = sched.profiles.get(pod.scheduler_name)
    if fwk is None:
        raise ExplainError(f'pod "{key}": no profile for schedulerName "{pod.scheduler_name}"')
    options = DryRunOptions(all_nodes=True, record=True, post_filter=True)
    return _explanation(pod, fwk, DryRun(sched, fwk, pod, options).run())


def _explanation(pod: Pod, fwk: Framework, out: DryRunResult) -> Explanation:
    """The dry run's record as the explanation: nodes by name, each plugin's scores."""
    ex = Explanation(pod.key, fwk.profile_name, [], message=out.message)
    if out.pre_enqueue:
        st = out.status
        ex.pre_enqueue = PreEnqueueExplanation(st.plugin, st.code, st.reasons)
        return ex
    nodes = {name: NodeExplanation(name, rec.filters, rec.feasible, status=rec.status, devices=rec.devices)
             for name, rec in out.nodes.items()}
    ex.nodes = [nodes[n] for n in sorted(nodes)]
    result = out.scores
    if result is not None:
        for j, ni in enumerate(out.feasible):
            node = nodes[ni.name]
            for k, plugin in enumerate(result.plugin_names):
                norm, weight = int(result.normalized[k, j]), int(result.weights[k])
                node.scores.append(PluginScore(plugin, int(result.raw[k, j]), norm, weight, norm * weight))
            node.total_score = int(result.totals[j])
    if out.host:
        ex.selected_node, ex.tied_nodes = out.host, out.tied
    post = out.post_filter
    if post is not None:
        ex.post_filter = PostFilterExplanation(
            post.plugin, post.nominated_node or None, tuple(f"{v.namespace}/{v.name}" for v in post.victims),
            post.status.message(), post.status.code)
    return ex
