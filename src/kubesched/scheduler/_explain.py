"""Explain: one scheduling cycle for one pending pod, reported per node and per plugin.

Runs the steps of schedulePod (pkg/scheduler/schedule_one.go, master 2026) for the named pod
against a throwaway copy of the cluster (its own MemoryStore, VirtualClock and Scheduler), so
that nothing the caller holds changes. It differs from the scheduler only where explaining
needs more than deciding, as kube-scheduler-simulator's result annotations do:

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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..framework import (
    EXTENDER_NAME,
    Code,
    CycleState,
    Diagnosis,
    FitError,
    NodeAllocationsPlugin,
    Status,
    filter_plugin_error,
)
from ._diagnosis import NoNodesAvailableError

if TYPE_CHECKING:
    from ..api import Pod
    from ..api.loader import ApiObject
    from ..cache import NodeInfo
    from ..cluster import MemoryStore
    from ._scheduler import Scheduler, SchedulerOptions

__all__ = [
    "ExplainError",
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
class FilterVerdict:
    """One Filter plugin's status on one node."""

    plugin: str
    code: Code
    reasons: tuple[str, ...] = ()


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


def explain(objects: Iterable[ApiObject], namespace: str, name: str, *, config: Any = None,
            seed: int = 0, now: float = 0.0, options: SchedulerOptions | None = None,
            prepare: Callable[[MemoryStore], object] | None = None) -> Explanation:
    """Explain the scheduling of pod ``namespace/name`` among ``objects`` (manifests as loaded).

    The objects are admitted into a fresh store (raises the store's error on bad input);
    ``prepare`` then acts on it before the scheduler starts (the command line generates the
    pods' ResourceClaims from their templates, as the resourceclaim controller would)."""
    from ..clock import VirtualClock
    from ..cluster import MemoryStore
    from ._scheduler import Scheduler

    clock = VirtualClock(now)
    store = MemoryStore(clock)
    store.load(list(objects))
    if prepare is not None:
        prepare(store)
    sched = Scheduler(store, clock, config, seed=seed, options=options)
    try:
        return explain_in(sched, namespace, name)
    finally:
        sched.close()


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
    gated = fwk.run_pre_enqueue_plugins(pod)
    if not gated.is_success():
        # runPreEnqueuePlugins: the pod waits outside activeQ; no scheduling cycle runs.
        return Explanation(pod.key, fwk.profile_name, [], message=gated.message(),
                           pre_enqueue=PreEnqueueExplanation(gated.plugin, gated.code, gated.reasons))
    sched.cache.update_snapshot(sched.snapshot)
    return _Cycle(sched, fwk, pod).run()


class _Cycle:
    """One explained scheduling cycle (schedulePod's steps, top-down)."""

    def __init__(self, sched: Scheduler, fwk: Any, pod: Pod) -> None:
        self.sched = sched
        self.fwk = fwk
        self.pod = pod
        self.state = CycleState()
        self.infos: list[NodeInfo] = list(sched.snapshot.node_info_list)
        self.out = Explanation(pod.key, fwk.profile_name, [])
        self.diagnosis = Diagnosis()

    def run(self) -> Explanation:
        if not self.infos:
            self.out.message = str(NoNodesAvailableError())
            return self.out
        by_name = self._filter()
        feasible = [ni for ni in self.infos if by_name[ni.name].feasible]
        feasible = self._extenders(feasible, by_name)
        self.out.nodes = [by_name[n] for n in sorted(by_name)]
        errors = [by_name[ni.name].status for ni in self.infos if by_name[ni.name].status.code == Code.ERROR]
        if errors:
            # An Error status aborts the cycle upstream: no host, no PostFilter.
            self.out.message = errors[0].message()
            return self.out
        if feasible:
            self._score(feasible, by_name)
            return self.out
        fit_error = FitError(self.pod, len(self.infos), self.diagnosis)
        if self.fwk.has_post_filter_plugins():
            self._post_filter()
        self.out.message = fit_error.error()
        return self.out

    # -- PreFilter and Filter ---------------------------------------------------------------
    def _filter(self) -> dict[str, NodeExplanation]:
        fwk, state, pod, diag = self.fwk, self.state, self.pod, self.diagnosis
        try:
            pre_res, st, subset_plugins = fwk.run_pre_filter_plugins(state, pod)
        except Exception as err:
            pre_res, st, subset_plugins = None, Status.from_error(err), set()
        st = st if st is not None else Status.success()
        out: dict[str, NodeExplanation] = {}
        if not st.is_success():
            # PreFilter rejected the pod: every node gets its status, no Filter runs.
            verdict = FilterVerdict(st.plugin, st.code, st.reasons)
            for ni in self.infos:
                out[ni.name] = NodeExplanation(ni.name, [verdict], False, status=st)
            diag.node_to_status.set_absent_nodes_status(st)
            diag.pre_filter_msg = st.message()
            diag.add_plugin_status(st)
            diag.unschedulable_plugins |= set(subset_plugins or ())
            return out
        allowed = None if pre_res is None or pre_res.all_nodes() else set(pre_res.node_names or ())
        excluded = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          (f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(subset_plugins))}]",))
        if allowed is not None:
            diag.node_to_status.set_absent_nodes_status(excluded)
            diag.unschedulable_plugins |= set(subset_plugins)
        for ni in self.infos:
            node = NodeExplanation(ni.name)
            verdicts = self._verdicts(ni)
            if allowed is not None and ni.name not in allowed:
                # Upstream never filters these nodes: PreFilter's node set left them out.
                # The excluding plugins' verdicts say so (in plugin order), others run as usual.
                cut = FilterVerdict("", excluded.code, excluded.reasons)
                named = {v.plugin for v in verdicts}
                node.filters = [FilterVerdict(p, cut.code, cut.reasons)
                                for p in sorted(subset_plugins) if p not in named]
                node.filters += [FilterVerdict(v.plugin, cut.code, cut.reasons)
                                 if v.plugin in subset_plugins else v for v in verdicts]
                node.status = excluded
            else:
                node.filters = verdicts
                node.status = self._decide(ni)
                if not node.status.is_success():
                    diag.node_to_status.set(ni.name, node.status)
                    diag.add_plugin_status(node.status)
            node.feasible = node.status.is_success()
            node.devices = self._devices(ni.name)
            out[ni.name] = node
        return out

    def _devices(self, node_name: str) -> list[str]:
        """What the plugins that allocate devices (DynamicResources: ``node_allocations``)
        found for the pod on ``node_name``."""
        out = []
        for pl in self.fwk.filter_plugins:
            if not isinstance(pl, NodeAllocationsPlugin):
                continue
            for claim, allocation in pl.node_allocations(self.state, node_name):
                key = f"{claim.meta.namespace}/{claim.meta.name}"
                out += [f"{key}: {r.request} -> {r.driver}/{r.pool}/{r.device}" for r in allocation.results]
        return out

    def _decide(self, ni: NodeInfo) -> Status:
        """Upstream's verdict for the node (the first failing plugin decides)."""
        try:
            st = self.fwk.run_filter_plugins_with_nominated_pods(self.state, self.pod, ni)
        except Exception as err:
            return Status.from_error(err)
        return st if st is not None else Status.success()

    def _verdicts(self, ni: NodeInfo) -> list[FilterVerdict]:
        """Every Filter plugin on ``ni``. As RunFilterPluginsWithNominatedPods, a plugin is run
        with the nominated pods of equal or higher priority added first, and, if they were and
        it passed, again without them: both must pass."""
        fwk, state, pod = self.fwk, self.state, self.pod
        try:
            # The runtime's addGENominatedPods (clones node and state when it adds pods).
            added, state_with, ni_with = fwk._add_ge_nominated_pods(pod, state, ni)
        except Exception:
            added, state_with, ni_with = False, state, ni
        out = []
        for pl in fwk.filter_plugins:
            name = pl.name()
            if name in state.skip_filter_plugins:
                out.append(FilterVerdict(name, Code.SKIP))
                continue
            st = _run_filter(pl, state_with, pod, ni_with)
            if added and st.is_success():
                st = _run_filter(pl, state, pod, ni)
            out.append(FilterVerdict(name, st.code, st.reasons))
        return out

    def _extenders(self, feasible: list[NodeInfo], by_name: dict[str, NodeExplanation]) -> list[NodeInfo]:
        """findNodesThatPassExtenders; a node an extender rejected gets an ``Extender`` verdict."""
        if not feasible or not self.sched.extenders:
            return feasible
        statuses = self.diagnosis.node_to_status
        try:
            kept = self.sched.algorithm.find_nodes_that_pass_extenders(self.pod, feasible, statuses)
        except Exception as err:
            self.out.message = str(err)
            return []
        names = {ni.name for ni in kept}
        for ni in feasible:
            if ni.name not in names:
                st = statuses.get(ni.name)
                node = by_name[ni.name]
                node.filters.append(FilterVerdict(EXTENDER_NAME, st.code, st.reasons))
                node.feasible, node.status = False, st
                self.diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return list(kept)

    # -- Score ------------------------------------------------------------------------------
    def _score(self, feasible: list[NodeInfo], by_name: dict[str, NodeExplanation]) -> None:
        """PreScore, Score, NormalizeScore and weights over every feasible node, then the host:
        the nominated node when it fits (upstream's fast path), else the highest total with
        ties broken by the scheduler's seeded RNG."""
        fwk, state, pod = self.fwk, self.state, self.pod
        try:
            st = fwk.run_pre_score_plugins(state, pod, feasible)
            if st is not None and not st.is_success():
                self.out.message = st.message()
                return
            result, st = fwk.run_score_plugins(state, pod, feasible)
        except Exception as err:  # a plugin's bug: reported, as the scheduler's Error status
            self.out.message = str(err)
            return
        if result is None or (st is not None and not st.is_success()):
            self.out.message = st.message() if st is not None else "scoring failed"
            return
        totals: list[tuple[str, int]] = []
        for j, ni in enumerate(feasible):
            node = by_name[ni.name]
            for k, plugin in enumerate(result.plugin_names):
                norm, weight = int(result.normalized[k, j]), int(result.weights[k])
                node.scores.append(PluginScore(plugin, int(result.raw[k, j]), norm, weight, norm * weight))
            node.total_score = int(result.totals[j])
            totals.append((ni.name, node.total_score))
        nominated = pod.nominated_node_name
        if nominated and nominated in {ni.name for ni in feasible}:
            self.out.selected_node, self.out.tied_nodes = nominated, [nominated]
            return
        best = max(t for _, t in totals)
        self.out.tied_nodes = sorted(n for n, t in totals if t == best)
        self.out.selected_node = self.sched.algorithm.select_host(totals)

    # -- PostFilter -------------------------------------------------------------------------
    def _post_filter(self) -> None:
        recorder = _PreemptionRecorder(self.fwk)
        try:
            result, st = self.fwk.run_post_filter_plugins(self.state, self.pod,
                                                          self.diagnosis.node_to_status)
        except Exception as err:
            result, st = None, Status.from_error(err)
        finally:
            recorder.restore()
        st = st if st is not None else Status.success()
        self.diagnosis.post_filter_msg = st.message()
        plugin = recorder.plugin or st.plugin or self.fwk.post_filter_plugins[0].name()
        nominated = result.nominated_node_name if result is not None else ""
        self.out.post_filter = PostFilterExplanation(
            plugin, nominated or None, tuple(f"{v.namespace}/{v.name}" for v in recorder.victims),
            st.message(), st.code)


class _PreemptionRecorder:
    """Replaces each PostFilter plugin's preemption executor (``executor.prepare_candidate`` and
    ``prepare_candidate_async``, upstream's PrepareCandidate) by a recorder of the chosen
    candidate: the dry run's evaluation is the real one, its API calls are not made."""

    def __init__(self, fwk: Any) -> None:
        self.plugin = ""
        self.victims: list[Pod] = []
        self._patched: list[tuple[Any, Mapping[str, Any]]] = []
        for pl in fwk.post_filter_plugins:
            ex = getattr(pl, "executor", None)
            if ex is None or not hasattr(ex, "prepare_candidate"):
                continue
            saved = {k: ex.__dict__[k] for k in ("prepare_candidate", "prepare_candidate_async")
                     if k in ex.__dict__}
            self._patched.append((ex, saved))
            ex.prepare_candidate = self._sync
            ex.prepare_candidate_async = self._record

    def _record(self, candidate: Any, pod: Pod, plugin_name: str) -> None:
        self.plugin = plugin_name
        self.victims = list(candidate.victims.pods)

    def _sync(self, candidate: Any, pod: Pod, plugin_name: str) -> Status:
        self._record(candidate, pod, plugin_name)
        return Status.success()

    def restore(self) -> None:
        for ex, saved in self._patched:
            for k in ("prepare_candidate", "prepare_candidate_async"):
                ex.__dict__.pop(k, None)
                if k in saved:
                    ex.__dict__[k] = saved[k]


def _run_filter(pl: Any, state: CycleState, pod: Pod, ni: NodeInfo) -> Status:
    """One Filter call, with the runtime's treatment of its result: rejections keep their code,
    anything else but Success becomes an Error naming the plugin."""
    try:
        st = pl.filter(state, pod, ni)
    except Exception as err:
        return Status.from_error(err).with_plugin(pl.name())
    if st is None or st.is_success():
        return Status.success()
    if not st.is_rejected():
        return filter_plugin_error(pl.name(), st)
    return st.with_plugin(pl.name())
