"""Framework: runs one profile's plugins at every extension point.

Mirrors frameworkImpl in pkg/scheduler/framework/runtime/framework.go (master 2026). One plugin
list per point (built in ``_runtime_build``); each ``run_*`` method follows upstream's loop:
which codes stop it, which are wrapped as errors (``running PreBind plugin "X": ...``), and
which plugin is stamped on the status. The framework is also the plugins' :class:`Handle`.

Two paths, one answer: Filter and Score use each plugin's batch method (numpy over all
candidate nodes) unless ``per_node=True`` forces upstream's node-by-node loop; the results are
equal by contract (tests and ``--check-decisions`` compare them).

Timing: ``observer(extension_point, status_code, profile, seconds)`` is called per extension
point run, ``plugin_observer(extension_point, plugin, status_code, seconds)`` per plugin call in
cycles whose CycleState has ``record_plugin_metrics`` (upstream samples 10% of cycles). Durations
come from ``duration_clock`` (perf_counter by default): they are measurements, never decisions.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Collection, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

import numpy as np
import numpy.typing as npt

from ..api import NEWEST_KUBE_VERSION, KubeVersion
from ._batch import BatchFilterResult, NodeBatch
from ._cycle_state import CycleState
from ._events import ClusterEventWithHint
from ._features import GENERIC_WORKLOAD
from ._interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    AsyncPreBindPlugin,
    BatchFilterPlugin,
    BatchScorePlugin,
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    NodeNamesNominator,
    PermitPlugin,
    Plugin,
    PodNominator,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreBindPreFlightPlugin,
    PreemptionExtender,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
    SignPlugin,
)
from ._nominated import (
    GENominatedPods,
    NominatedColumns,
    ge_nominated_pods,
    ge_nominated_rows,
    refilter_with_nominated,
    resource_only_filters,
)
from ._opportunistic_batch import OPPORTUNISTIC_BATCHING, OpportunisticBatch
from ._placement import PlacementFeasiblePlugin, PlacementProgress
from ._registry import PluginFactory
from ._results import FilterOutcome, ScoreResult, error_text, filter_plugin_error
from ._runtime_build import build_plugin_lists
from ._signature import SCHEDULER_NAME_SIGNER_NAME, encode_signature
from ._status import Code, Status
from ._waiting_pods import MAX_PERMIT_TIMEOUT, PermitFuture, WaitingPod, WaitingPodsMap

if TYPE_CHECKING:
    from ..api import Pod, PodGroup
    from ..cache import NodeInfo, PodGroupStates, PodInfo, Snapshot
    from ..clock import Clock
    from ..cluster import Store
    from ._diagnosis import NodeToStatus
    from ._handle import PreemptionMetrics
    from .config._types import Profile

__all__ = ["ExtensionPointObserver", "Framework", "PluginObserver"]

P = TypeVar("P", bound=Plugin)
R = TypeVar("R")

log = logging.getLogger(__name__)

ExtensionPointObserver = Callable[[str, str, str, float], None]
"""(extension_point, status code, profile, seconds)."""
PluginObserver = Callable[[str, str, str, float], None]
"""(extension_point, plugin, status code, seconds)."""


def _nothing_nominated(nom: PodNominator) -> bool:
    """Whether a nominator that can tell (``len``: how many pods are nominated) has none."""
    return isinstance(nom, Sized) and len(nom) == 0


def _err(msg: str, plugin: str = "") -> Status:
    return Status.from_error(RuntimeError(msg)).with_plugin(plugin) if plugin else Status.from_error(
        RuntimeError(msg))


def _filter_per_node(pl: FilterPlugin, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
    """The batch filter of a plugin that is no :class:`BatchFilterPlugin`: a per-node loop."""
    return BatchFilterResult.from_statuses([pl.filter(state, pod, ni) for ni in nodes.node_infos()])


_CODE_NAMES: dict[Code, str] = {c: str(c) for c in Code}
"""Each code's metric label (``str(code)``: a Python call per extension point otherwise)."""


@dataclass(frozen=True, slots=True)
class _ScorePlan:
    plugins: list[ScorePlugin]
    names: list[str]
    weights: list[int]
    weight_vector: npt.NDArray[np.int64]
    batch_fns: list[Callable[..., Any] | None]
    exts: list[ScoreExtensions | None]


RawScores = tuple[Sequence[str], list[str], npt.NDArray[np.int64]]
"""RunRawScorePlugins' answer: (node names, plugin names, plugins x nodes raw scores)."""

_MIN_REDUCE = np.minimum.reduce
_MAX_REDUCE = np.maximum.reduce
"""The ufuncs' own reductions: ndarray.min/max add a Python-level wrapper per call."""


def _ok(st: Status | None) -> bool:
    return st is None or st.code == Code.SUCCESS


def _failed(st: Status | None) -> TypeGuard[Status]:
    """``_failed(st)``, telling the type checker the status is there."""
    return st is not None and st.code != Code.SUCCESS


class Framework:
    """A profile's plugins, ready to run; also the Handle given to its plugins."""

    def __init__(
        self,
        profile: Profile,
        registry: Mapping[str, PluginFactory],
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        store: Store | None = None,
        features: Mapping[str, bool] | None = None,
        kube_version: KubeVersion = NEWEST_KUBE_VERSION,
        nominator: PodNominator | None = None,
        extenders: Sequence[PreemptionExtender] = (),
        snapshot: Snapshot | Callable[[], Snapshot] | None = None,
        percentage_of_nodes_to_score: int | None = None,
        per_node: bool = False,
        observer: ExtensionPointObserver | None = None,
        plugin_observer: PluginObserver | None = None,
        duration_clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        from ..clock import VirtualClock

        self.profile = profile
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = (
            profile.percentage_of_nodes_to_score
            if profile.percentage_of_nodes_to_score is not None else percentage_of_nodes_to_score)
        self.per_node = per_node
        self.observer = observer
        self.plugin_observer = plugin_observer
        self._duration_clock = duration_clock
        self._clock: Clock = clock if clock is not None else VirtualClock()
        self._rng = rng if rng is not None else random.Random(0)
        self._store = store
        self._features: Mapping[str, bool] = dict(features or {})
        self._kube_version = kube_version
        self._nominator = nominator
        self._logging_nominator = nominator if NominatedColumns.supported(nominator) else None
        self._names_nominator = nominator if isinstance(nominator, NodeNamesNominator) else None
        self._nominated_columns = NominatedColumns()  # kept across cycles (framework._nominated)
        self._extenders = list(extenders)
        self._snapshot = snapshot
        self.waiting_pods = WaitingPodsMap()
        self._pod_group_states: PodGroupStates | None = None
        # The owning scheduler's SchedulerMetrics, for plugins that report metrics of their own
        # (DefaultPreemption: scheduler_preemption_*); None outside a scheduler.
        self.metrics: PreemptionMetrics | None = None
        # Where work upstream runs in a goroutine outside the cycles goes (asynchronous
        # preemption's API calls): None is a task due now on the clock (simulations); live
        # mode's scheduler sets its worker pool.
        self.run_async: Callable[[Callable[[], None]], None] | None = None
        lists = build_plugin_lists(profile, registry, self)
        self.plugins_map: dict[str, Plugin] = lists.plugins
        self.score_weights: dict[str, int] = lists.score_weights
        self._score_plans: dict[frozenset[str], _ScorePlan] = {}
        self._named_lists: dict[int, tuple[list[Any], list[tuple[Any, str]]]] = {}
        bp = lists.by_point
        self.pre_enqueue_plugins: list[PreEnqueuePlugin] = bp["preEnqueue"]
        self.queue_sort_plugins: list[QueueSortPlugin] = bp["queueSort"]
        self.pre_filter_plugins: list[PreFilterPlugin] = bp["preFilter"]
        self.filter_plugins: list[FilterPlugin] = bp["filter"]
        self.post_filter_plugins: list[PostFilterPlugin] = bp["postFilter"]
        self.pre_score_plugins: list[PreScorePlugin] = bp["preScore"]
        self.score_plugins: list[ScorePlugin] = bp["score"]
        self.reserve_plugins: list[ReservePlugin] = bp["reserve"]
        self.permit_plugins: list[PermitPlugin] = bp["permit"]
        self.pre_bind_plugins: list[PreBindPlugin] = bp["preBind"]
        self.bind_plugins: list[BindPlugin] = bp["bind"]
        self.post_bind_plugins: list[PostBindPlugin] = bp["postBind"]
        # PlacementFeasible (the pod-group cycle): every enabled plugin implementing it, in
        # the profile's order.
        self.placement_feasible_plugins: list[PlacementFeasiblePlugin] = [
            pl for pl in self.plugins_map.values() if isinstance(pl, PlacementFeasiblePlugin)]
        # The optional capabilities (framework._interface's protocols), resolved once per
        # plugin here, by plugin name: an isinstance against a runtime-checkable protocol
        # checks every member, too slow to ask per pod or node.
        self._batch_filter_plugins: dict[str, BatchFilterPlugin] = {
            pl.name(): pl for pl in self.filter_plugins if isinstance(pl, BatchFilterPlugin)}
        self._score_batch_plugins: dict[str, BatchScorePlugin] = {
            pl.name(): pl for pl in self.score_plugins if isinstance(pl, BatchScorePlugin)}
        self._pre_flight_plugins: dict[str, PreBindPreFlightPlugin] = {
            pl.name(): pl for pl in self.pre_bind_plugins if isinstance(pl, PreBindPreFlightPlugin)}
        self._async_pre_bind_plugins: dict[str, AsyncPreBindPlugin] = {
            pl.name(): pl for pl in self.pre_bind_plugins if isinstance(pl, AsyncPreBindPlugin)}
        self.batchable_plugins: list[SignPlugin] = []
        self.enable_signatures = self._compute_batchable_plugins()
        # OpportunisticBatching (KEP-5598): the kept nodes of the last cycle, when the gate is on.
        self.batch: OpportunisticBatch | None = None
        if self._features.get(OPPORTUNISTIC_BATCHING, False):
            self.batch = OpportunisticBatch(self, lambda: self._clock.now, self._node_infos_of,
                                            kube_version=kube_version,
                                            generic_workload=bool(self._features.get(GENERIC_WORKLOAD)))

    # -- Handle ---------------------------------------------------------------------------
    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def rng(self) -> random.Random:
        return self._rng

    @property
    def store(self) -> Store | None:
        return self._store

    @property
    def features(self) -> Mapping[str, bool]:
        return self._features

    @property
    def kube_version(self) -> KubeVersion:
        return self._kube_version

    def snapshot(self) -> Snapshot:
        snap = self._snapshot
        if snap is None:
            from ..cache import Snapshot

            return Snapshot()
        return snap() if callable(snap) else snap

    def _node_infos_of(self, names: Sequence[str]) -> list[NodeInfo | None]:
        """The snapshot's NodeInfos of ``names`` (None for a node it does not hold), looked up
        together: the opportunistic batch re-scores against every kept node each cycle."""
        snap = self.snapshot()
        get, lst = snap.node_index.get, snap.node_info_list
        return [None if (i := get(n)) is None else lst[i] for n in names]

    def set_snapshot(self, snapshot: Snapshot | Callable[[], Snapshot]) -> None:
        """The scheduler points the handle at each cycle's snapshot."""
        self._snapshot = snapshot

    def nominator(self) -> PodNominator | None:
        return self._nominator

    def set_nominator(self, nominator: PodNominator | None) -> None:
        self._nominator = nominator
        self._logging_nominator = nominator if NominatedColumns.supported(nominator) else None
        self._names_nominator = nominator if isinstance(nominator, NodeNamesNominator) else None

    def extenders(self) -> list[PreemptionExtender]:
        return self._extenders

    def pod_group_states(self) -> PodGroupStates | None:
        """PodGroupManager().PodGroupStates(): the members of each pod group, as the scheduler's
        cache tracks them (None for a framework outside a scheduler)."""
        return self._pod_group_states

    def set_pod_group_states(self, states: PodGroupStates) -> None:
        self._pod_group_states = states

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        """RejectWaitingPod: used when a waiting pod is deleted or preempted."""
        wp = self.waiting_pods.get(uid)
        if wp is None:
            return False
        wp.reject("", "removed")
        return True

    def iterate_over_waiting_pods(self, fn: Callable[[WaitingPod], None]) -> None:
        for wp in self.waiting_pods:
            fn(wp)

    # -- introspection ----------------------------------------------------------------------
    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def list_plugins(self) -> dict[str, list[str]]:
        """Extension point key -> plugin names with weights where relevant (ListPlugins)."""
        from ._extension_points import EXTENSION_POINTS

        out: dict[str, list[str]] = {}
        for ep in EXTENSION_POINTS:
            lst = getattr(self, _ATTR[ep.key])
            if lst:
                out[ep.key] = [p.name() for p in lst]
        return out

    def events_to_register(self) -> dict[str, list[ClusterEventWithHint]]:
        """Plugin name -> the cluster events that may make a pod it rejected schedulable.
        Plugins without EnqueueExtensions get every event (fillEnqueueExtensions)."""
        from ._events import ActionType, ClusterEvent, EventResource

        out: dict[str, list[ClusterEventWithHint]] = {}
        for name, pl in self.plugins_map.items():
            out[name] = (list(pl.events_to_register()) if isinstance(pl, EnqueueExtensions) else
                         [ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL))])
        return out

    # -- timing -----------------------------------------------------------------------------
    def _observe(self, point: str, status: Status, t0: float) -> None:
        """Tell the observer an extension point run started at ``t0`` ended with ``status``
        (the run_* methods time themselves with a try/finally: a context-manager object per
        extension point of every cycle cost more than the observation)."""
        assert self.observer is not None
        self.observer(point, _CODE_NAMES[status.code], self.profile_name, self._duration_clock() - t0)

    def _timing_plugins(self, state: CycleState) -> bool:
        """Whether this cycle's plugin calls are timed (go through :meth:`_call`); the hot
        loops call plugins directly otherwise."""
        return self.plugin_observer is not None and state.record_plugin_metrics

    def _named(self, plugins: list[P]) -> list[tuple[P, str]]:
        """``(plugin, name)`` for an extension point's list, built once per list: names are
        read for every plugin of every cycle (skip sets, statuses)."""
        key = id(plugins)
        hit = self._named_lists.get(key)
        if hit is None or hit[0] is not plugins or len(hit[1]) != len(plugins):
            hit = self._named_lists[key] = (plugins, [(pl, pl.name()) for pl in plugins])
        return hit[1]

    def _call(self, state: CycleState | None, point: str, pl: Plugin, fn: Callable[..., R], *args: Any) -> R:
        """Run one plugin method, timing it in sampled cycles (runXPlugin)."""
        if self.plugin_observer is None or state is None or not state.record_plugin_metrics:
            return fn(*args)
        t0 = self._duration_clock()
        res = fn(*args)
        st = res[1] if isinstance(res, tuple) and len(res) == 2 and point != "Permit" else (
            res[0] if isinstance(res, tuple) else res)
        code = str(st.code) if isinstance(st, Status) else str(Code.SUCCESS)
        self.plugin_observer(point, pl.name(), code, self._duration_clock() - t0)
        return res

    # -- Sign (KEP-5598) --------------------------------------------------------------------
    def _compute_batchable_plugins(self) -> bool:
        """computeBatchablePlugins: signatures need every PreFilter, Filter, PreScore and Score
        plugin to be a SignPlugin, and no extender (their verdicts are not the plugins')."""
        enable = not self._extenders
        seen: set[str] = set()
        unsupported: list[str] = []
        for pl in (*self.pre_filter_plugins, *self.filter_plugins, *self.pre_score_plugins,
                   *self.score_plugins):
            name = pl.name()
            if name in seen:
                continue
            seen.add(name)
            if isinstance(pl, SignPlugin):
                self.batchable_plugins.append(pl)
            else:
                unsupported.append(name)
                enable = False
        if unsupported:
            log.debug('Disabling signatures for profile because plugins do not support it. '
                      'profile="%s" plugins=%s', self.profile_name, unsupported)
        return enable

    def sign_pod(self, pod: Pod, record_plugin_metrics: bool = False) -> bytes | None:
        """SignPod: the pod's signature, or None when the profile or one of its plugins cannot
        sign it (then no two pods compare equal and batching is off for this pod)."""
        if not record_plugin_metrics or self.observer is None:
            return self._sign_pod(pod, record_plugin_metrics)
        t0 = self._duration_clock()
        sig = self._sign_pod(pod, True)
        # The Sign extension point, timed in sampled cycles, signatures enabled or not. Upstream
        # labels it with an outer status its loop shadows: always Success.
        self.observer("Sign", str(Code.SUCCESS), self.profile_name, self._duration_clock() - t0)
        return sig

    def _sign_pod(self, pod: Pod, record_plugin_metrics: bool) -> bytes | None:
        if not self.enable_signatures:
            return None
        sig: dict[str, object] = {SCHEDULER_NAME_SIGNER_NAME: pod.scheduler_name}
        for pl in self.batchable_plugins:
            if record_plugin_metrics and self.plugin_observer is not None:
                t0 = self._duration_clock()
                fragments, st = pl.sign_pod(pod)
                code = str(st.code) if st is not None else str(Code.SUCCESS)
                self.plugin_observer("Sign", pl.name(), code, self._duration_clock() - t0)
            else:
                fragments, st = pl.sign_pod(pod)
            if _failed(st):
                log.debug("SignPod can't sign pod due to plugin plugin=%s status=%s", pl.name(),
                          st.message() if st is not None else "")
                return None
            for key, value in fragments or ():
                sig[key] = value
        return encode_signature(sig)

    # -- PreEnqueue / QueueSort -----------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        """RunPreEnqueuePlugins: the first non-success keeps the pod out of activeQ."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            for pl in self.pre_enqueue_plugins:
                st = pl.pre_enqueue(pod)
                if _ok(st):
                    continue
                assert st is not None
                if st.is_rejected():
                    box[0] = st.with_plugin(pl.name())
                else:
                    box[0] = _err(f'running PreEnqueue plugin "{pl.name()}": {error_text(st)}', pl.name())
                return box[0]
        finally:
            if self.observer is not None:
                self._observe("PreEnqueue", box[0], t0)
        return Status.success()

    def queue_sort_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return bool(self.queue_sort_plugins[0].less(a, b))

    def queue_sort_func(self) -> Callable[[QueuedPodInfo, QueuedPodInfo], bool]:
        return self.queue_sort_plugins[0].less

    # -- PreFilter --------------------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState,
                               pod: Pod) -> tuple[PreFilterResult | None, Status, set[str]]:
        """RunPreFilterPlugins. Returns the merged node subset (None: all nodes), the status and
        the plugins whose subsets filtered nodes out. Skip puts the plugin in
        ``state.skip_filter_plugins``; Unschedulable keeps running the others (issue 119770);
        UnschedulableAndUnresolvable stops; an empty intersection of subsets is
        UnschedulableAndUnresolvable naming those plugins."""
        box = [Status.success()]
        skip: set[str] = set()
        try:
            t0 = self._duration_clock() if self.observer is not None else 0.0
            try:
                res = self._pre_filter(state, pod, skip)
                box[0] = res[1]
                return res
            finally:
                if self.observer is not None:
                    self._observe("PreFilter", box[0], t0)
        finally:
            state.skip_filter_plugins = skip

    def _pre_filter(self, state: CycleState, pod: Pod,
                    skip: set[str]) -> tuple[PreFilterResult | None, Status, set[str]]:
        nodes = self.snapshot().node_info_list
        result: PreFilterResult | None = None
        with_nodes: list[str] = []
        returned = Status.success()
        timed = self._timing_plugins(state)
        for pl, name in self._named(self.pre_filter_plugins):
            r, st = (self._call(state, "PreFilter", pl, pl.pre_filter, state, pod, nodes) if timed
                     else pl.pre_filter(state, pod, nodes))
            if st is not None and st.code != Code.SUCCESS:
                if st.code == Code.SKIP:
                    skip.add(name)
                    continue
                st = st.with_plugin(name)
                if st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, st, set()
                if st.code == Code.UNSCHEDULABLE:
                    returned = st
                    continue
                msg = f'running PreFilter plugin "{name}": {error_text(st)}'
                return None, _err(msg, name), set()
            if r is None:
                continue  # all nodes: nothing to merge
            if not r.all_nodes() and name not in with_nodes:
                with_nodes.append(name)
            result = r if result is None else result.merge(r)
            if not result.all_nodes() and not result.node_names:
                names = sorted(with_nodes)
                msg = (f"node(s) didn't satisfy plugin {names[0]}" if len(names) == 1
                       else f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously")
                return result, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg), set(names)
        return result, returned, set(with_nodes)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status:
        """RunPreFilterExtensionAddPod: skipped plugins and plugins without extensions are skipped."""
        return self._pre_filter_ext(state, True, pod_to_schedule, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status:
        return self._pre_filter_ext(state, False, pod_to_schedule, pod_info_to_remove, node_info)

    def _pre_filter_ext(self, state: CycleState, add: bool, pod: Pod, pi: PodInfo,
                        node_info: NodeInfo) -> Status:
        """AddPod (``add``) or RemovePod of every PreFilterExtensions."""
        for pl in self.pre_filter_plugins:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name() in state.skip_filter_plugins:
                continue
            st = (ext.add_pod(state, pod, pi, node_info) if add
                  else ext.remove_pod(state, pod, pi, node_info))
            if _failed(st):
                assert st is not None
                label = "AddPod" if add else "RemovePod"
                return _err(f'running {label} on PreFilter plugin "{pl.name()}": {error_text(st)}')
        return Status.success()

    # -- Filter -----------------------------------------------------------------------------
    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """RunFilterPlugins: the first non-success decides, stamped with its plugin; codes other
        than the rejections become Errors."""
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if skip and pl.name() in skip:
                continue
            st = self._call(state, "Filter", pl, pl.filter, state, pod, node_info)
            if _failed(st):
                if not st.is_rejected():
                    return filter_plugin_error(pl.name(), st)
                return st.with_plugin(pl.name())
        return Status.success()

    def run_filter_plugins_batch(self, state: CycleState, pod: Pod, batch: NodeBatch) -> FilterOutcome:
        """All Filter plugins over ``batch``: each plugin's ``filter_batch`` runs only on the nodes
        every earlier plugin passed, so each node's outcome equals run_filter_plugins."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            out = FilterOutcome.empty(batch)
            if self.per_node:
                infos = batch.node_infos()
                for row, ni in enumerate(infos):
                    out.set_status(row, self.run_filter_plugins(state, pod, ni))
                return out
            alive: npt.NDArray[np.int64] | None = None  # None: every row of the batch
            sub = batch
            skip = state.skip_filter_plugins
            timed = self._timing_plugins(state)
            batch_pls = self._batch_filter_plugins
            for pl, name in self._named(self.filter_plugins):
                if skip and name in skip:
                    continue
                bp = batch_pls.get(name)
                if bp is not None:
                    res = (self._call(state, "Filter", pl, bp.filter_batch, state, pod, sub) if timed
                           else bp.filter_batch(state, pod, sub))
                else:
                    res = (self._call(state, "Filter", pl, _filter_per_node, pl, state, pod, sub) if timed
                           else _filter_per_node(pl, state, pod, sub))
                codes = res.codes
                if not np.count_nonzero(codes):
                    continue  # every node passed: nothing to record, the same nodes go on
                out.record(name, res, alive)
                passed = np.flatnonzero(codes == 0)
                alive = passed if alive is None else alive[passed]
                if alive.size == 0:
                    break
                sub = NodeBatch(batch.snapshot, batch.indices[alive])
            box[0] = out.first_error() or box[0]
            return out
        finally:
            if self.observer is not None:
                self._observe("Filter", box[0], t0)

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status:
        """RunFilterPluginsWithNominatedPods.

        Filters run twice when nominated pods of equal or higher priority exist on the node.
        First with those pods added (their PreFilter state updated through AddPod), so that a
        pod cannot take space reserved for a higher-priority preemptor; then without them,
        because a nominated pod may never actually land there and filters such as inter-pod
        anti-affinity could pass only because of its presence. The node fits only if both pass.
        If no nominated pod was added, or the first pass fails, one pass decides."""
        status = Status.success()
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                try:
                    pods_added, state_to_use, info_to_use = self._add_ge_nominated_pods(pod, state, node_info)
                except RuntimeError as exc:
                    return Status.from_error(exc)
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def _add_ge_nominated_pods(self, pod: Pod, state: CycleState,
                               node_info: NodeInfo) -> tuple[bool, CycleState, NodeInfo]:
        """addGENominatedPods: clone state and node, add nominated pods with priority >= pod's."""
        nom = self._nominator
        if nom is None or node_info is None or node_info.node is None:
            return False, state, node_info
        nominated = nom.nominated_pods_for_node(node_info.name)
        if not nominated:
            return False, state, node_info
        info_out = node_info.snapshot_copy()
        state_out = state.clone()
        added = False
        prio = pod.priority_value
        for pi in nominated:
            if pi.pod.priority_value >= prio and pi.pod.uid != pod.uid:
                info_out.add_pod_info(pi)
                st = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
                if not st.is_success():
                    raise RuntimeError(error_text(st))
                added = True
        return added, state_out, info_out

    def run_filter_plugins_batch_with_nominated_pods(self, state: CycleState, pod: Pod,
                                                     batch: NodeBatch) -> FilterOutcome:
        """The batch filter, except that nodes holding nominated pods of equal or higher
        priority get RunFilterPluginsWithNominatedPods' answer: from the batch outcome with
        Fit re-run on their requests plus those pods' when only Fit reads the pods on a node
        (``_nominated``), else from the per-node two-pass path above."""
        nom = self._nominator
        if nom is None or _nothing_nominated(nom):
            return self.run_filter_plugins_batch(state, pod, batch)
        logging = self._logging_nominator
        if logging is None:
            return self._filter_batch_asking_per_node(state, pod, batch, nom)
        ge = ge_nominated_pods(logging, self._nominated_columns, batch.snapshot, pod, state)
        out = self.run_filter_plugins_batch(state, pod, batch)
        cols = batch.snapshot.columns
        rows, additions, undecided = ge.additions(batch.indices, cols.resource_index)
        if rows.size == 0 and not undecided:
            return out
        ok, fit, fit_pos = resource_only_filters(self, state)
        if ok:
            refilter_with_nominated(out, state, pod, fit, fit_pos, self._active_filter_names(state),
                                    rows, additions)
            left = undecided
        else:
            left = sorted([*rows.tolist(), *undecided])
        self._refilter_per_node(out, state, pod, batch, left)
        return out

    def nominated_node_names(self) -> Collection[str] | None:
        """The nodes the nominator holds nominated pods on, asked at once
        (:class:`NodeNamesNominator`, checked when the nominator is set); None when it cannot
        tell, so any node may hold some."""
        nom = self._names_nominator
        return nom.nominated_node_names() if nom is not None else None

    def ge_nominated_pods(self, state: CycleState, pod: Pod) -> GENominatedPods | None:
        """This cycle's nominated pods of priority >= ``pod``'s on every snapshot node, kept in
        ``state`` (see ``framework._nominated``); None when the nominator keeps no change log."""
        nom = self._logging_nominator
        if nom is None:
            return None
        return ge_nominated_pods(nom, self._nominated_columns, self.snapshot(), pod, state)

    def _filter_batch_asking_per_node(self, state: CycleState, pod: Pod, batch: NodeBatch,
                                      nom: PodNominator) -> FilterOutcome:
        """The same for a nominator without a change log (no rows kept across cycles): the
        nodes holding such pods take the per-node two-pass path."""
        out = self.run_filter_plugins_batch(state, pod, batch)
        self._refilter_per_node(out, state, pod, batch, ge_nominated_rows(nom, batch, pod))
        return out

    def _active_filter_names(self, state: CycleState) -> list[str]:
        skip = state.skip_filter_plugins
        return [name for _, name in self._named(self.filter_plugins) if not (skip and name in skip)]

    def _refilter_per_node(self, out: FilterOutcome, state: CycleState, pod: Pod, batch: NodeBatch,
                           rows: Sequence[int]) -> None:
        infos = batch.snapshot.node_info_list
        for row in rows:
            out.set_status(row, self.run_filter_plugins_with_nominated_pods(
                state, pod, infos[int(batch.indices[row])]))

    # -- PostFilter -------------------------------------------------------------------------
    def run_post_filter_plugins(self, state: CycleState, pod: Pod,
                                filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        """RunPostFilterPlugins: the first success or UnschedulableAndUnresolvable wins; else
        Unschedulable with every plugin's reasons, stamped with the first rejecting plugin and
        carrying the last non-noop result."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            result: PostFilterResult | None = None
            reasons: list[str] = []
            rejector = ""
            for pl in self.post_filter_plugins:
                r, st = self._call(state, "PostFilter", pl,
                                   pl.post_filter, state, pod, filtered_node_status)
                if _ok(st):
                    box[0] = Status.success()
                    return r, Status.success()
                assert st is not None
                if st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    box[0] = st.with_plugin(pl.name())
                    return r, box[0]
                if not st.is_rejected():
                    box[0] = _err(error_text(st), pl.name())
                    return None, box[0]
                if r is not None and r.mode != "ModeNoop":
                    result = r
                reasons.extend(st.reasons)
                rejector = rejector or pl.name()
            box[0] = Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)
            return result, box[0]
        finally:
            if self.observer is not None:
                self._observe("PostFilter", box[0], t0)

    # -- PreScore / Score -------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """RunPreScorePlugins: Skip puts the plugin in ``state.skip_score_plugins``."""
        box = [Status.success()]
        skip: set[str] = set()
        try:
            t0 = self._duration_clock() if self.observer is not None else 0.0
            try:
                timed = self._timing_plugins(state)
                for pl, name in self._named(self.pre_score_plugins):
                    st = (self._call(state, "PreScore", pl, pl.pre_score, state, pod, nodes) if timed
                          else pl.pre_score(state, pod, nodes))
                    if st is None or st.code == Code.SUCCESS:
                        continue
                    if st.code == Code.SKIP:
                        skip.add(name)
                        continue
                    box[0] = _err(f'running PreScore plugin "{name}": {error_text(st)}')
                    return box[0]
                return Status.success()
            finally:
                if self.observer is not None:
                    self._observe("PreScore", box[0], t0)
        finally:
            state.skip_score_plugins = skip

    def run_score_plugins(self, state: CycleState, pod: Pod,
                          nodes: NodeBatch | Sequence[NodeInfo]) -> tuple[ScoreResult | None, Status]:
        """RunScorePlugins in three passes: score (batch or per node), normalize per plugin in
        place, then range-check 0..MaxNodeScore, weigh and sum."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            res, st = self._score(state, pod, nodes)
            box[0] = st
            return res, st
        finally:
            if self.observer is not None:
                self._observe("Score", box[0], t0)

    def _as_batch(self, nodes: NodeBatch | Sequence[NodeInfo]
                  ) -> tuple[NodeBatch | None, list[NodeInfo] | None]:
        """The nodes as a batch of snapshot rows when they are the snapshot's own NodeInfos,
        and as a list when given as one (None: build it from the batch only if needed)."""
        if isinstance(nodes, NodeBatch):
            return nodes, None
        infos = list(nodes)
        snap = self.snapshot()
        # The snapshot keeps its NodeInfos alive: a known id is the snapshot's own object.
        get = snap.row_of_id.get
        idx = [get(id(ni), -1) for ni in infos]
        if -1 in idx:
            return None, infos
        return NodeBatch(snap, np.asarray(idx, dtype=np.int64)), infos

    @staticmethod
    def _score_error(pl: Plugin, st: Status) -> Status:
        return _err(f'running Score plugins: plugin "{pl.name()}" failed with: {error_text(st)}')

    def _score_plan(self, skip: set[str]) -> _ScorePlan:
        """The score plugins not skipped, their names, weights, batch methods and normalizers
        (fixed for a profile: computed once per set of skipped plugins)."""
        key = frozenset(skip)
        plan = self._score_plans.get(key)
        if plan is None:
            plugins = [pl for pl in self.score_plugins if pl.name() not in skip]
            names = [pl.name() for pl in plugins]
            weights = [self.score_weights[n] for n in names]
            batch_pls = self._score_batch_plugins
            batch_fns: list[Callable[..., Any] | None] = [
                bp.score_batch if (bp := batch_pls.get(n)) is not None else None for n in names]
            exts = [pl.score_extensions() for pl in plugins]
            plan = _ScorePlan(plugins, names, weights, np.asarray(weights, dtype=np.int64), batch_fns, exts)
            self._score_plans[key] = plan
        return plan

    def run_raw_score_plugins(self, state: CycleState, pod: Pod, nodes: NodeBatch | Sequence[NodeInfo]
                              ) -> tuple[RawScores | None, Status]:
        """RunRawScorePlugins (kubernetes#138788): each score plugin's raw score of each node,
        not normalized nor weighed -> ``(node names, plugin names, plugins x nodes)``. The
        opportunistic batch rescores the last chosen node with it."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            res, st = self._raw_scores(state, pod, nodes, self._timing_plugins(state))
            box[0] = st
            if res is None:
                return None, st
            names, plan, raw = res
            return (names, plan.names, raw), st
        finally:
            if self.observer is not None:
                self._observe("Score", box[0], t0)

    def normalize_scores(self, state: CycleState, pod: Pod, names: Sequence[str],
                         plugin_names: Sequence[str], raw: npt.NDArray[np.int64]
                         ) -> tuple[ScoreResult | None, Status]:
        """NormalizeScores (kubernetes#138788): the score plugins' NormalizeScore over ``names``
        (raw rows by ``plugin_names``; a plugin without a row scores 0), then the range check,
        the weights and the totals, as the second half of RunScorePlugins."""
        plan = self._score_plan(state.skip_score_plugins)
        if list(plugin_names) != plan.names:
            row = {n: k for k, n in enumerate(plugin_names)}
            aligned = np.zeros((len(plan.names), len(names)), dtype=np.int64)
            for k, n in enumerate(plan.names):
                if n in row:
                    aligned[k] = raw[row[n]]
            raw = aligned
        return self._normalize(state, pod, plan, names, raw, self._timing_plugins(state))

    def _raw_scores(self, state: CycleState, pod: Pod, nodes: NodeBatch | Sequence[NodeInfo], timed: bool
                    ) -> tuple[tuple[Sequence[str], _ScorePlan, npt.NDArray[np.int64]] | None, Status]:
        """The score plugins' raw scores; ``timed``: this cycle's plugin calls are timed
        (:meth:`_timing_plugins`, asked once per cycle by the caller and handed to
        :meth:`_normalize` too)."""
        batch, given = self._as_batch(nodes)
        names: Sequence[str] = (batch.lazy_names() if batch is not None
                                else [ni.name for ni in given or ()])
        skipped = state.skip_score_plugins
        plan = self._score_plans.get(frozenset(skipped)) or self._score_plan(skipped)
        plugins = plan.plugins
        n = len(names)
        infos: list[NodeInfo] | None = given
        rows: list[npt.NDArray[np.int64]] = []
        call = self._call
        use_batch = batch is not None and not self.per_node
        for k, pl in enumerate(plugins):
            fn = plan.batch_fns[k]
            if fn is not None and use_batch:
                arr, st = call(state, "Score", pl, fn, state, pod, batch) if timed else fn(state, pod, batch)
                if _failed(st):
                    return None, self._score_error(pl, st)
                rows.append(arr)
                continue
            if infos is None:
                infos = batch.node_infos() if batch is not None else []
            row = np.zeros(n, dtype=np.int64)
            for j, ni in enumerate(infos):
                s, st = call(state, "Score", pl, pl.score, state, pod, ni)
                if _failed(st):
                    return None, self._score_error(pl, st)
                row[j] = s
            rows.append(row)
        raw = np.array(rows, dtype=np.int64) if rows else np.zeros((0, n), dtype=np.int64)
        return (names, plan, raw), Status.success()

    def _score(self, state: CycleState, pod: Pod,
               nodes: NodeBatch | Sequence[NodeInfo]) -> tuple[ScoreResult | None, Status]:
        timed = self._timing_plugins(state)
        res, st = self._raw_scores(state, pod, nodes, timed)
        if res is None:
            return None, st
        names, plan, raw = res
        return self._normalize(state, pod, plan, names, raw, timed)

    def _normalize(self, state: CycleState, pod: Pod, plan: _ScorePlan, names: Sequence[str],
                   raw: npt.NDArray[np.int64], timed: bool) -> tuple[ScoreResult | None, Status]:
        """NormalizeScore, the range check, the weights and the totals; ``timed`` as for
        :meth:`_raw_scores`."""
        plugins = plan.plugins
        n = len(names)
        call = self._call
        normalized = raw
        for k, ext in enumerate(plan.exts):
            if ext is None:
                continue
            if normalized is raw:
                normalized = raw.copy()  # only normalizers rewrite scores: raw stays as scored
            pl = plugins[k]
            st = (call(state, "ScoreExtensionNormalize", pl, ext.normalize_score, state, pod,
                       normalized[k], names) if timed
                  else ext.normalize_score(state, pod, normalized[k], names))
            if _failed(st):
                return None, _err(f'running Normalize on Score plugins: plugin "{pl.name()}" failed with: '
                                  f"{error_text(st)}")
        if n and plugins and (_MIN_REDUCE(normalized, axis=None) < MIN_NODE_SCORE
                              or _MAX_REDUCE(normalized, axis=None) > MAX_NODE_SCORE):
            bad = (normalized < MIN_NODE_SCORE) | (normalized > MAX_NODE_SCORE)
            col = int(np.nonzero(bad.any(axis=0))[0][0])
            k = int(np.nonzero(bad[:, col])[0][0])
            return None, _err(
                f'applying score defaultWeights on Score plugins: plugin "{plugins[k].name()}" returns an '
                f"invalid score {int(normalized[k, col])}, it should in the range of "
                f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing")
        totals = plan.weight_vector @ normalized if plugins else np.zeros(n, dtype=np.int64)
        return ScoreResult(names, plan.names, plan.weights, raw, normalized, totals), Status.success()

    # -- Reserve / Permit ---------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            for pl in self.reserve_plugins:
                st = self._call(state, "Reserve", pl, pl.reserve, state, pod, node_name)
                if _ok(st):
                    continue
                assert st is not None
                box[0] = (st.with_plugin(pl.name()) if st.is_rejected()
                          else _err(f'running Reserve plugin "{pl.name()}": {error_text(st)}'))
                return box[0]
            return Status.success()
        finally:
            if self.observer is not None:
                self._observe("Reserve", box[0], t0)

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Unreserve runs in reverse order and must not fail."""
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            for pl in reversed(self.reserve_plugins):
                self._call(state, "Unreserve", pl, pl.unreserve, state, pod, node_name)
        finally:
            if self.observer is not None:
                self._observe("Unreserve", Status.success(), t0)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """RunPermitPlugins: a rejection stops; Wait (timeout capped at 15 min) from any plugin
        parks the pod in the waiting-pods map with one timer per waiting plugin."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            waits: dict[str, float] = {}
            for pl in self.permit_plugins:
                st, timeout = self._call(state, "Permit", pl, pl.permit, state, pod, node_name)
                if _ok(st):
                    continue
                assert st is not None
                if st.is_rejected():
                    box[0] = st.with_plugin(pl.name())
                    return box[0]
                if st.is_wait():
                    waits[pl.name()] = min(float(timeout), MAX_PERMIT_TIMEOUT)
                    continue
                box[0] = _err(f'running Permit plugin "{pl.name()}": {error_text(st)}', pl.name())
                return box[0]
            if waits:
                self.waiting_pods.add(WaitingPod(pod, waits, self._clock))
                msg = f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"'
                box[0] = Status.of(Code.WAIT, msg)
                return box[0]
            return Status.success()
        finally:
            if self.observer is not None:
                self._observe("Permit", box[0], t0)

    # -- PlacementFeasible (pod-group scheduling cycle) -----------------------------------
    def run_placement_feasible_plugins(self, pod_group: PodGroup, progress: PlacementProgress) -> Status:
        """RunPlacementFeasiblePlugins: a rejection (the group cannot become feasible) or an
        error stops at once; a Wait (not feasible yet) is returned when no plugin rejects."""
        waiting: Status | None = None
        for pl in self.placement_feasible_plugins:
            st = pl.placement_feasible(pod_group, progress)
            if _ok(st):
                continue
            assert st is not None
            if st.is_rejected():
                return st.with_plugin(pl.name())
            if st.is_wait():
                waiting = waiting or st.with_plugin(pl.name())
                continue
            return _err(f'running PlacementFeasible plugin "{pl.name()}": {error_text(st)}', pl.name())
        return waiting if waiting is not None else Status.success()

    def wait_on_permit(self, pod: Pod) -> PermitFuture:
        """WaitOnPermit, without blocking: a future resolved with Success when every waiting
        plugin allowed, the rejection when one rejected or timed out (on the injected clock), or
        at once when the pod is not waiting. The pod leaves the waiting map on resolution."""
        wp = self.waiting_pods.get(pod.uid)
        if wp is None:
            return PermitFuture.resolved(Status.success())
        out = PermitFuture()

        def done(st: Status) -> None:
            self.waiting_pods.remove(pod.uid)
            if st.is_success() or st.is_rejected():
                out.set_status(st)
            else:
                out.set_status(_err(f"waiting on permit for pod: {error_text(st)}", st.plugin))

        wp.future.add_done_callback(done)
        return out

    def will_wait_on_permit(self, pod: Pod) -> bool:
        """WillWaitOnPermit: whether a Permit plugin asked ``pod`` to wait (it is in the
        waiting-pods map), i.e. whether WaitOnPermit may take a while."""
        return self.waiting_pods.get(pod.uid) is not None

    # -- Binding cycle ----------------------------------------------------------------------
    def run_pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """RunPreBindPreFlights (newest upstream, KEP-5278): asks each PreBind plugin whether it
        has work for this pod. Success if any has, Skip if none (their PreBind is then skipped),
        Error on an error. A plugin without ``pre_bind_pre_flight`` counts as having work."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            box[0] = self._pre_bind_pre_flights(state, pod, node_name)
        finally:
            if self.observer is not None:
                self._observe("PreBindPreFlight", box[0], t0)
        return box[0]

    def _pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        skip: set[str] = set()
        returning = Status.skip()
        pre_flights = self._pre_flight_plugins
        for pl, name in self._named(self.pre_bind_plugins):
            pf = pre_flights.get(name)
            st: Status = Status.success() if pf is None else (
                self._call(state, "PreBindPreFlight", pl, pf.pre_bind_pre_flight, state, pod, node_name)
                or Status.success())
            if st.code == Code.ERROR:
                return _err(f'running PreBindPreFlight "{pl.name()}": {error_text(st)}')
            if _ok(st):
                returning = Status.success()
            elif st.is_skip():
                skip.add(pl.name())
            else:
                return _err(f"PreBindPreFlight {pl.name()} returned \"{st.code}\", which is unsupported. "
                            "It is supposed to return Success, Skip, or Error status")
        state.skip_pre_bind_plugins = skip
        return returning

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """RunPreBindPlugins: plugins whose pre-flight said Skip are skipped."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            for pl in self.pre_bind_plugins:
                if pl.name() in state.skip_pre_bind_plugins:
                    continue
                st = self._call(state, "PreBind", pl, pl.pre_bind, state, pod, node_name)
                if _ok(st):
                    continue
                assert st is not None
                box[0] = (st.with_plugin(pl.name()) if st.is_rejected()
                          else _err(f'running PreBind plugin "{pl.name()}": {error_text(st)}', pl.name()))
                return box[0]
            return Status.success()
        finally:
            if self.observer is not None:
                self._observe("PreBind", box[0], t0)

    def run_pre_bind_plugins_async(self, state: CycleState, pod: Pod, node_name: str) -> PermitFuture:
        """RunPreBindPlugins for the binding cycle, where a PreBind plugin may wait: a plugin
        with ``pre_bind_async`` (upstream's PreBind blocking its goroutine, e.g.
        DynamicResources polling for device binding conditions) returns a future, and the next
        plugins run once it resolves; the others run as in :meth:`run_pre_bind_plugins`. The
        returned future is resolved at once when nobody waits."""
        plugins = [pl for pl in self.pre_bind_plugins if pl.name() not in state.skip_pre_bind_plugins]
        waiting = self._async_pre_bind_plugins
        if not waiting or not any(pl.name() in waiting for pl in plugins):
            return PermitFuture.resolved(self.run_pre_bind_plugins(state, pod, node_name))
        out = PermitFuture()

        def failed(pl: Plugin, st: Status) -> Status:
            return (st.with_plugin(pl.name()) if st.is_rejected()
                    else _err(f'running PreBind plugin "{pl.name()}": {error_text(st)}', pl.name()))

        def _resume(pl: Plugin, i: int) -> Callable[[Status], None]:
            def cont(st: Status) -> None:
                if _ok(st):
                    run_from(i)
                else:
                    out.set_status(failed(pl, st))
            return cont

        def run_from(i: int) -> None:
            while i < len(plugins):
                pl = plugins[i]
                i += 1
                ap = waiting.get(pl.name())
                if ap is None:
                    st = self._call(state, "PreBind", pl, pl.pre_bind, state, pod, node_name)
                    if _failed(st):
                        out.set_status(failed(pl, st))
                        return
                    continue
                fut: PermitFuture = ap.pre_bind_async(state, pod, node_name)
                if not fut.done():
                    fut.add_done_callback(_resume(pl, i))
                    return
                if _failed(fut.status()):
                    out.set_status(failed(pl, fut.status()))
                    return
            out.set_status(Status.success())

        run_from(0)
        return out

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """RunBindPlugins: Skip asks the next binder; the first other answer is final."""
        box = [Status.success()]
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            if not self.bind_plugins:
                box[0] = Status.skip()
                return box[0]
            st: Status | None = None
            for pl in self.bind_plugins:
                st = self._call(state, "Bind", pl, pl.bind, state, pod, node_name)
                if st is not None and st.is_skip():
                    continue
                if _ok(st):
                    return Status.success()
                assert st is not None
                box[0] = (st.with_plugin(pl.name()) if st.is_rejected()
                          else _err(f'running Bind plugin "{pl.name()}": {error_text(st)}', pl.name()))
                return box[0]
            box[0] = st if st is not None else Status.success()
            return box[0]
        finally:
            if self.observer is not None:
                self._observe("Bind", box[0], t0)

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        t0 = self._duration_clock() if self.observer is not None else 0.0
        try:
            for pl in self.post_bind_plugins:
                self._call(state, "PostBind", pl, pl.post_bind, state, pod, node_name)
        finally:
            if self.observer is not None:
                self._observe("PostBind", Status.success(), t0)


_ATTR = {
    "preEnqueue": "pre_enqueue_plugins", "queueSort": "queue_sort_plugins", "preFilter": "pre_filter_plugins",
    "filter": "filter_plugins", "postFilter": "post_filter_plugins", "preScore": "pre_score_plugins",
    "score": "score_plugins", "reserve": "reserve_plugins", "permit": "permit_plugins",
    "preBind": "pre_bind_plugins", "bind": "bind_plugins", "postBind": "post_bind_plugins",
}


if TYPE_CHECKING:
    from ._handle import Handle

    def _is_handle(fw: Framework) -> Handle:
        """Static check: a Framework satisfies the Handle protocol plugins receive."""
        return fw
