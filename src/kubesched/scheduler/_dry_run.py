"""The dry run of a scheduling cycle: one pod's cycle that binds nothing and writes nothing.

Mirrors the scheduling cycle of pkg/scheduler/schedule_one.go (master 2026): ``schedulePod``
(PreFilter, Filter, extenders, PreScore, Score, host selection), then optionally the rest of
``schedulingCycle`` (assume, Reserve, Permit) and PostFilter with preemption's API calls
recorded instead of made. ``explain``, ``capacity`` and the extender server all drive their
cycles through :class:`DryRun`; the real ``schedule_one`` shares its steps
(:class:`~._algorithm.ScheduleAlgorithm`, :func:`excluded_by_pre_filter`, FitError's message).

The options (:class:`DryRunOptions`) are where the callers differ from a real cycle, as
kube-scheduler-simulator's result annotations differ from the scheduler:

- ``all_nodes``: every node gets a verdict (no ``percentageOfNodesToScore`` cut-off, no
  rotation, no nominated-node shortcut) and feasible nodes are scored even when only one is;
  without it the cycle is upstream's, sampling and rotating as the real one does;
- ``record``: every enabled Filter plugin runs on every node (the runtime stops at the first
  rejection) and each plugin's verdict and scores are kept; the deciding status is still
  upstream's (RunFilterPluginsWithNominatedPods: the first failing plugin decides);
- ``assume``: the chosen node is assumed in the cache, then Reserve and Permit run; a
  rejection undoes both (Unreserve, forget), a Permit that waits is an error;
- ``post_filter``: when no node fits, PostFilter runs with each preemption executor replaced
  by a recorder: the victims and the nomination are reported, nothing is evicted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..framework import (
    EXTENDER_NAME,
    PODS_TO_ACTIVATE_KEY,
    CandidatePreparer,
    Code,
    CycleState,
    Diagnosis,
    FitError,
    NodeAllocationsPlugin,
    NodeBatch,
    PodsToActivate,
    PreemptingPlugin,
    PreFilterResult,
    ScoreResult,
    Status,
    filter_plugin_error,
)
from ._diagnosis import (
    NoNodesAvailableError,
    excluded_by_pre_filter,
    fit_error_for_single_node,
    status_with_fit_error,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..api import Pod
    from ..cache import NodeInfo
    from ..framework import FilterPlugin, Framework
    from ..framework.preemption import Candidate
    from ._scheduler import Scheduler

__all__ = [
    "DryRun",
    "DryRunOptions",
    "DryRunResult",
    "FilterVerdict",
    "NodeRecord",
    "PostFilterRecord",
]


@dataclass(frozen=True, slots=True)
class DryRunOptions:
    """How the dry run differs from a real cycle (see the module's docstring)."""

    all_nodes: bool = False
    record: bool = False
    assume: bool = False
    post_filter: bool = False


@dataclass(frozen=True, slots=True)
class FilterVerdict:
    """One Filter plugin's status on one node."""

    plugin: str
    code: Code
    reasons: tuple[str, ...] = ()


@dataclass(slots=True)
class NodeRecord:
    """One node in a recording dry run: every Filter plugin's verdict, the deciding status,
    and the devices the pod's claims would get there (DynamicResources' Filter result:
    ``<claim namespace/name>: <request> -> <driver>/<pool>/<device>``)."""

    name: str
    filters: list[FilterVerdict] = field(default_factory=list)
    status: Status = field(default_factory=Status.success)
    devices: list[str] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        return self.status.is_success()


@dataclass(frozen=True, slots=True)
class PostFilterRecord:
    """What PostFilter would do: the preemption plugin that chose, the node it would nominate,
    the victims it would evict there (most important first) and its status."""

    plugin: str
    nominated_node: str
    victims: tuple[Pod, ...]
    status: Status


@dataclass(slots=True)
class DryRunResult:
    """The outcome: ``host`` ("" when none) and ``status`` (success with a host; else why
    not: PreEnqueue's rejection, the FitError's, ErrNoNodesAvailable's or an error).

    ``message`` is what the scheduler would write in PodScheduled (FitError.Error() with
    PostFilter's part when it ran); with ``all_nodes`` ``nodes`` holds every node's record
    (the deciding status only without ``record``), ``feasible`` the nodes that passed filters
    and extenders, ``scores`` their scores and ``tied`` the best-scored nodes."""

    host: str = ""
    status: Status = field(default_factory=Status.success)
    message: str = ""
    pre_enqueue: bool = False
    """True when a PreEnqueue plugin keeps the pod out of the queue: no cycle ran."""
    fit_error: FitError | None = None
    nodes: dict[str, NodeRecord] = field(default_factory=dict)
    feasible: list[NodeInfo] = field(default_factory=list)
    scores: ScoreResult | None = None
    tied: list[str] = field(default_factory=list)
    post_filter: PostFilterRecord | None = None


def _ok(st: Status | None) -> Status:
    return st if st is not None else Status.success()


class DryRun:
    """One dry-run cycle of ``pod`` under ``fwk`` on ``sched``'s cache and snapshot.

    :meth:`run` is the whole cycle as the options say; the steps (:meth:`pre_filter`,
    :meth:`filter`, :meth:`score`) serve a caller that answers one part of it (the extender
    server's verbs). ``sched`` must be a throwaway, or one whose cache the caller owns
    (``assume`` leaves the assumed pod there)."""

    def __init__(self, sched: Scheduler, fwk: Framework, pod: Pod,
                 options: DryRunOptions = DryRunOptions()) -> None:
        self.sched = sched
        self.fwk = fwk
        self.pod = pod
        self.options = options
        self.state = CycleState()
        self.state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
        self.diagnosis = Diagnosis()
        self._pre_filter: tuple[PreFilterResult | None, Status, set[str]] | None = None
        self._allocators: list[NodeAllocationsPlugin] | None = None

    # -- the whole cycle --------------------------------------------------------------------
    def run(self) -> DryRunResult:
        """PreEnqueue, then the cycle (``all_nodes`` or upstream's), then assume/Reserve/Permit
        (``assume``) or PostFilter (``post_filter``, when nothing fits)."""
        gated = self.fwk.run_pre_enqueue_plugins(self.pod)
        if gated is not None and not gated.is_success():
            # runPreEnqueuePlugins: the pod waits outside activeQ; no scheduling cycle runs.
            return DryRunResult(status=gated, message=gated.message(), pre_enqueue=True)
        self.sched.cache.update_snapshot(self.sched.snapshot)
        out = self._run_all_nodes() if self.options.all_nodes else self._run_sampled()
        if out.host and self.options.assume:
            st = self.assume(out.host)
            if not st.is_success():
                out.host, out.status, out.message = "", st, st.message()
                if isinstance(st.error, FitError):
                    out.fit_error = st.error
        return out

    def _run_sampled(self) -> DryRunResult:
        """schedulePod as the scheduler runs it (sampling, rotation, the nominated node)."""
        sched = self.sched
        try:
            host = sched.algorithm.schedule_pod(self.fwk, self.state, self.pod, sched.snapshot).suggested_host
        except NoNodesAvailableError as err:
            st = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (str(err),), error=err)
            return DryRunResult(status=st, message=st.message())
        except FitError as err:
            self.diagnosis = err.diagnosis
            if self.options.post_filter and self.fwk.has_post_filter_plugins():
                post = self.post_filter()
                return self._fit_failure(err, post)
            return self._fit_failure(err)
        except Exception as err:  # an internal error: reported, never raised mid-way
            st = Status.from_error(err)
            return DryRunResult(status=st, message=st.message())
        return DryRunResult(host=host)

    def _run_all_nodes(self) -> DryRunResult:
        """Every node evaluated, every feasible node scored, then the host."""
        infos: list[NodeInfo] = list(self.sched.snapshot.node_info_list)
        if not infos:
            st = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (str(NoNodesAvailableError()),))
            return DryRunResult(status=st, message=st.message())
        out = DryRunResult()
        out.nodes = self._filter_recorded(infos) if self.options.record else self._filter_decided(infos)
        feasible = [ni for ni in infos if out.nodes[ni.name].feasible]
        try:
            feasible = self.extenders(feasible, out.nodes)
        except Exception as err:
            out.message = str(err)  # FitError's message replaces it below, as the cycle's
            feasible = []
        out.feasible = feasible
        errors = [out.nodes[ni.name].status for ni in infos if out.nodes[ni.name].status.code == Code.ERROR]
        if errors:
            # An Error status aborts the cycle upstream: no host, no PostFilter.
            out.status = errors[0]
            out.message = errors[0].message()
            return out
        if feasible:
            result, st = self.score(feasible)
            if result is None or not st.is_success():
                out.status, out.message = st, st.message()
                return out
            out.scores = result
            out.host, out.tied = self.select_host([ni.name for ni in feasible], result.totals)
            return out
        fit_error = FitError(self.pod, len(infos), self.diagnosis)
        post = None
        if self.options.post_filter and self.fwk.has_post_filter_plugins():
            post = self.post_filter()
        failed = self._fit_failure(fit_error, post)
        failed.nodes, failed.feasible = out.nodes, []
        return failed

    def _fit_failure(self, err: FitError, post: PostFilterRecord | None = None) -> DryRunResult:
        if post is not None:
            err.diagnosis.post_filter_msg = post.status.message()
        st = status_with_fit_error(Code.UNSCHEDULABLE, err)
        return DryRunResult(status=st, message=st.message(), fit_error=err, post_filter=post)

    # -- PreFilter and Filter ---------------------------------------------------------------
    def pre_filter(self) -> tuple[PreFilterResult | None, Status, set[str]]:
        """RunPreFilterPlugins, once per dry run: (node subset or None, status, the plugins
        whose subsets filtered nodes out). A plugin's exception is an Error status."""
        if self._pre_filter is None:
            try:
                pre_res, st, plugins = self.fwk.run_pre_filter_plugins(self.state, self.pod)
            except Exception as err:
                pre_res, st, plugins = None, Status.from_error(err), set()
            self._pre_filter = (pre_res, _ok(st), set(plugins or ()))
        return self._pre_filter

    def filter(self, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        """PreFilter, then Filter on every node of ``nodes`` through the scheduler's batch path
        (per node for out-of-tree plugins): each rejected node's status. Raises on an Error
        status (of PreFilter or of a Filter plugin)."""
        if not nodes:
            return {}
        pre_res, st, plugins = self.pre_filter()
        if not st.is_success():
            if not st.is_rejected():
                raise RuntimeError(st.message())
            return {ni.name: st for ni in nodes}
        out: dict[str, Status] = {}
        if pre_res is not None and not pre_res.all_nodes():
            allowed = pre_res.node_names or frozenset()
            excluded = excluded_by_pre_filter(plugins)
            out = {ni.name: excluded for ni in nodes if ni.name not in allowed}
            nodes = [ni for ni in nodes if ni.name in allowed]
        self.sched.algorithm.find_nodes_that_pass_filters(
            self.fwk, self.state, self.pod, self.diagnosis, nodes, rotate=False, all_nodes=True,
            snapshot=self.sched.snapshot)
        out.update(self.diagnosis.node_to_status.items())  # the rejected nodes only
        return out

    def _pre_filter_rejected(self, st: Status, plugins: set[str]) -> None:
        """PreFilter rejected the pod: every node gets its status, no Filter runs."""
        diag = self.diagnosis
        diag.node_to_status.set_absent_nodes_status(st)
        diag.pre_filter_msg = st.message()
        diag.add_plugin_status(st)
        diag.unschedulable_plugins |= plugins

    def _filter_decided(self, infos: Sequence[NodeInfo]) -> dict[str, NodeRecord]:
        """Every node's deciding status, through :meth:`filter` (the batch path); an Error
        status of a Filter plugin stands for every node not decided otherwise."""
        pre_res, st, plugins = self.pre_filter()
        if not st.is_success():
            self._pre_filter_rejected(st, plugins)
            return {ni.name: NodeRecord(ni.name, status=st) for ni in infos}
        if pre_res is not None and not pre_res.all_nodes():
            self.diagnosis.node_to_status.set_absent_nodes_status(excluded_by_pre_filter(plugins))
            self.diagnosis.unschedulable_plugins |= plugins
        try:
            statuses = self.filter(infos)
        except Exception as err:
            failed = Status.from_error(err)
            return {ni.name: NodeRecord(ni.name, status=failed) for ni in infos}
        ok = Status.success()
        return {ni.name: NodeRecord(ni.name, status=statuses.get(ni.name, ok)) for ni in infos}

    def _filter_recorded(self, infos: Sequence[NodeInfo]) -> dict[str, NodeRecord]:
        """Every Filter plugin on every node, and upstream's deciding status per node."""
        diag = self.diagnosis
        pre_res, st, plugins = self.pre_filter()
        out: dict[str, NodeRecord] = {}
        if not st.is_success():
            verdict = FilterVerdict(st.plugin, st.code, st.reasons)
            for ni in infos:
                out[ni.name] = NodeRecord(ni.name, [verdict], st)
            self._pre_filter_rejected(st, plugins)
            return out
        allowed = None if pre_res is None or pre_res.all_nodes() else set(pre_res.node_names or ())
        excluded = excluded_by_pre_filter(plugins)
        if allowed is not None:
            diag.node_to_status.set_absent_nodes_status(excluded)
            diag.unschedulable_plugins |= plugins
        for ni in infos:
            node = NodeRecord(ni.name)
            verdicts = self._verdicts(ni)
            if allowed is not None and ni.name not in allowed:
                # Upstream never filters these nodes: PreFilter's node set left them out.
                # The excluding plugins' verdicts say so (in plugin order), others run as usual.
                named = {v.plugin for v in verdicts}
                node.filters = [FilterVerdict(p, excluded.code, excluded.reasons)
                                for p in sorted(plugins) if p not in named]
                node.filters += [FilterVerdict(v.plugin, excluded.code, excluded.reasons)
                                 if v.plugin in plugins else v for v in verdicts]
                node.status = excluded
            else:
                node.filters = verdicts
                node.status = self._decide(ni)
                if not node.status.is_success():
                    diag.node_to_status.set(ni.name, node.status)
                    diag.add_plugin_status(node.status)
            node.devices = self._devices(ni.name)
            out[ni.name] = node
        return out

    def _devices(self, node_name: str) -> list[str]:
        """What the plugins that allocate devices (DynamicResources: ``node_allocations``)
        found for the pod on ``node_name``."""
        if self._allocators is None:  # a Protocol's isinstance is slow: once per cycle, not per node
            self._allocators = [pl for pl in self.fwk.filter_plugins if isinstance(pl, NodeAllocationsPlugin)]
        out = []
        for pl in self._allocators:
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
        return _ok(st)

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

    def extenders(self, feasible: list[NodeInfo], nodes: dict[str, NodeRecord]) -> list[NodeInfo]:
        """findNodesThatPassExtenders; a node an extender rejected gets an ``Extender`` verdict.
        Raises an extender's error (one that is not ignorable)."""
        if not feasible or not self.sched.extenders:
            return feasible
        statuses = self.diagnosis.node_to_status
        kept = self.sched.algorithm.find_nodes_that_pass_extenders(self.pod, feasible, statuses)
        names = {ni.name for ni in kept}
        for ni in feasible:
            if ni.name not in names:
                st = statuses.get(ni.name)
                node = nodes[ni.name]
                node.filters.append(FilterVerdict(EXTENDER_NAME, st.code, st.reasons))
                node.status = st
                self.diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return list(kept)

    # -- Score ------------------------------------------------------------------------------
    def score(self, nodes: Sequence[NodeInfo],
              batch: NodeBatch | None = None) -> tuple[ScoreResult | None, Status]:
        """PreScore, Score, NormalizeScore and weights over ``nodes`` (``batch``: the same
        nodes as snapshot rows, for the batch score path); a plugin's exception is an Error
        status, as the scheduler's."""
        fwk, state, pod = self.fwk, self.state, self.pod
        try:
            st = _ok(fwk.run_pre_score_plugins(state, pod, nodes))
            if not st.is_success():
                return None, st
            result, st = fwk.run_score_plugins(state, pod, batch if batch is not None else nodes)
        except Exception as err:
            return None, Status.from_error(err)
        if result is None and (st is None or st.is_success()):
            return None, Status(Code.ERROR, ("scoring failed",))
        return result, _ok(st)

    def select_host(self, names: Sequence[str], totals: npt.NDArray[np.int64]) -> tuple[str, list[str]]:
        """The host and the best-scored nodes: the nominated node when it fits (upstream's
        fast path), else the highest total with ties broken by the scheduler's seeded RNG."""
        nominated = self.pod.nominated_node_name
        if nominated and nominated in set(names):
            return nominated, [nominated]
        pairs = [(n, int(t)) for n, t in zip(names, totals, strict=True)]
        best = max(t for _, t in pairs)
        tied = sorted(n for n, t in pairs if t == best)
        return self.sched.algorithm.select_host(pairs), tied

    # -- assume, Reserve, Permit ------------------------------------------------------------
    def assume(self, host: str) -> Status:
        """assume, Reserve and Permit on ``host``; a failure undoes them (Unreserve, forget)
        and a rejection is the FitError on that one node, as the scheduling cycle reports it.
        A Permit that waits is an error: nothing here waits for it."""
        fwk, state, pod = self.fwk, self.state, self.pod
        assumed = pod.with_changes({("spec", "nodeName"): host})
        self.sched.cache.assume_pod(assumed)
        st = _ok(fwk.run_reserve_plugins_reserve(state, assumed, host))
        if st.is_success():
            st = _ok(fwk.run_permit_plugins(state, assumed, host))
            if st.is_wait():
                st = Status.from_error(RuntimeError(f"pod {pod.key} waits on Permit on node {host}; "
                                                    "capacity counts copies that bind at once"))
        if st.is_success():
            return st
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        self.sched.cache.forget_pod(assumed)
        if st.is_rejected():
            return status_with_fit_error(st.code, fit_error_for_single_node(pod, host, st))
        return st

    # -- PostFilter -------------------------------------------------------------------------
    def post_filter(self) -> PostFilterRecord:
        """PostFilter with preemption recorded, not executed."""
        fwk = self.fwk
        recorder = _PreemptionRecorder(fwk)
        try:
            result, st = fwk.run_post_filter_plugins(self.state, self.pod, self.diagnosis.node_to_status)
        except Exception as err:
            result, st = None, Status.from_error(err)
        finally:
            recorder.restore()
        st = _ok(st)
        self.diagnosis.post_filter_msg = st.message()
        plugin = recorder.plugin or st.plugin or fwk.post_filter_plugins[0].name()
        nominated = result.nominated_node_name if result is not None else ""
        return PostFilterRecord(plugin, nominated or "", tuple(recorder.victims), st)


class _PreemptionRecorder:
    """Replaces each PostFilter plugin's preemption executor (``executor.prepare_candidate`` and
    ``prepare_candidate_async``, upstream's PrepareCandidate) by a recorder of the chosen
    candidate: the dry run's evaluation is the real one, its API calls are not made."""

    def __init__(self, fwk: Framework) -> None:
        self.plugin = ""
        self.victims: list[Pod] = []
        self._patched: list[tuple[Any, Mapping[str, Any]]] = []
        for pl in fwk.post_filter_plugins:
            if not isinstance(pl, PreemptingPlugin) or not isinstance(pl.executor, CandidatePreparer):
                continue
            ex: Any = pl.executor  # its methods are replaced on the instance, then restored
            saved = {k: ex.__dict__[k] for k in ("prepare_candidate", "prepare_candidate_async")
                     if k in ex.__dict__}
            self._patched.append((ex, saved))
            ex.prepare_candidate = self._sync
            ex.prepare_candidate_async = self._record

    def _record(self, candidate: Candidate, pod: Pod, plugin_name: str) -> None:
        self.plugin = plugin_name
        self.victims = list(candidate.victims.pods)

    def _sync(self, candidate: Candidate, pod: Pod, plugin_name: str) -> Status:
        self._record(candidate, pod, plugin_name)
        return Status.success()

    def restore(self) -> None:
        for ex, saved in self._patched:
            for k in ("prepare_candidate", "prepare_candidate_async"):
                ex.__dict__.pop(k, None)
                if k in saved:
                    ex.__dict__[k] = saved[k]


def _run_filter(pl: FilterPlugin, state: CycleState, pod: Pod, ni: NodeInfo) -> Status:
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
