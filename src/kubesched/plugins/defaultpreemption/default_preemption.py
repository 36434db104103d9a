"""DefaultPreemption: the PostFilter plugin that evicts lower-priority pods.

Mirrors pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (master 2026).
The algorithm lives in :mod:`kubesched.framework.preemption` (Evaluator, Executor); this plugin
supplies upstream's default policy:

- eligibility: ``preemptionPolicy: Never`` never preempts; a pod whose nominated node still has a
  lower-priority pod terminating because of preemption waits instead of preempting again (unless
  that node became UnschedulableAndUnresolvable);
- sampling: at least ``minCandidateNodesPercentage`` percent of the potential nodes and at least
  ``minCandidateNodesAbsolute`` of them, from a random offset (the scheduler's seeded RNG);
- victims on a node: remove every lower-priority pod (through the PreFilter AddPod/RemovePod
  extensions, so InterPodAffinity, PodTopologySpread... see the change); if the pod still does
  not fit, the node is no candidate; else reprieve pods, most important first, PDB-violating ones
  before the others, keeping each that still lets the pod fit;
- node choice: pickOneNodeForPreemption's defaults.

When every Filter plugin active for the preemptor is NodeResourcesFit or one that ignores the
pods on the node, the dry run does not re-run the filter chain on node copies: the same victims
and statuses follow from the nodes' resource columns (:mod:`._resource_victims`,
:mod:`._batch_victims`); the generic path stays the reference (and the per-node mode's path).

With asynchronous preemption (feature SchedulerAsyncPreemption, on by default as upstream) the
plugin is also a PreEnqueue plugin that keeps a preemptor out of activeQ while its API calls are
pending. Pod-group (workload-aware) preemption of newest upstream is out of scope.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeToStatus,
    PluginBase,
    PostFilterResult,
    QueueingHint,
    Status,
)
from kubesched.framework.preemption import (
    DISRUPTION_TARGET,
    REASON_PREEMPTION_BY_SCHEDULER,
    Candidate,
    Evaluator,
    Executor,
    ScoreFunc,
    Victims,
    more_important_pod,
)
from kubesched.plugins.names import DEFAULT_PREEMPTION

from ._args import DefaultPreemptionArgs
from ._batch_victims import BatchVictimSelector, KnownAnswers, NodePodArrays
from ._resource_victims import ResourceVictimSelector
from ._victim_rule import (
    NO_VICTIMS_REASON,
    IsEligiblePodFn,
    MoreImportantPodFn,
    VictimsResult,
    filter_pods_with_pdb_violation,
    importance_sorter,
    lower_priority,
    no_victims_result,
    potential_victims,
    reprieve,
)

if TYPE_CHECKING:
    from kubesched.api import Pod, PodDisruptionBudget
    from kubesched.cache import NodeInfo, PodInfo
    from kubesched.framework import Handle

__all__ = [
    "ASYNC_PREEMPTION_FEATURE",
    "NAME",
    "NO_VICTIMS_REASON",
    "DefaultPreemption",
    "IsEligiblePodFn",
    "MoreImportantPodFn",
    "filter_pods_with_pdb_violation",
    "pod_terminating_by_preemption",
]

NAME = DEFAULT_PREEMPTION
ASYNC_PREEMPTION_FEATURE = "SchedulerAsyncPreemption"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """podTerminatingByPreemption: terminating, with DisruptionTarget=True set by the scheduler."""
    if not pod.is_terminating:
        return False
    cond = pod.condition(DISRUPTION_TARGET)
    return (cond is not None and cond.get("status") == "True"
            and cond.get("reason") == REASON_PREEMPTION_BY_SCHEDULER)


class DefaultPreemption(PluginBase):
    NAME = NAME
    Args = DefaultPreemptionArgs

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        if isinstance(args, dict):
            args = DefaultPreemptionArgs.from_dict(args)
        super().__init__(args, handle)
        assert isinstance(self.args, DefaultPreemptionArgs)  # checked and validated by PluginBase
        self.pl_args: DefaultPreemptionArgs = self.args
        features = handle.features if handle is not None else {}
        self.enable_async_preemption = bool(features.get(ASYNC_PREEMPTION_FEATURE, True))
        # Upstream's New always gets a handle; without one (args checks) only the methods that
        # read no handle work, and the Evaluator and Executor are never called.
        fh = cast("Handle", handle)
        self.executor = Executor(fh)
        self.evaluator = Evaluator(NAME, fh, self, self.executor, self.enable_async_preemption)
        # Default policy hooks, replaceable as upstream's exported fields.
        self.is_eligible_pod: IsEligiblePodFn = _eligible_always
        self.more_important_pod: MoreImportantPodFn = lambda a, b: more_important_pod(a, b, self._now())
        self._default_more_important_pod = self.more_important_pod
        self._pod_arrays = NodePodArrays()  # victims' arrays per node generation (dry runs)
        self._known_answers = KnownAnswers()  # dry-run answers per pod shape and node

    @property
    def fh(self) -> Handle:
        """The framework handle (upstream's ``fh``); the plugin cannot preempt without one."""
        if self.handle is None:
            raise RuntimeError("DefaultPreemption needs a framework handle")
        return self.handle

    def _now(self) -> float:
        return float(self.handle.clock.now) if self.handle is not None else 0.0

    # -- PostFilter / PreEnqueue -------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        """PostFilter: every call counts as a preemption attempt; a message is prefixed with
        ``preemption: `` (the scheduler appends it to the FitError message)."""
        try:
            result, status = self.evaluator.preempt(state, pod, filtered_node_status)
        finally:
            metrics = self.handle.metrics if self.handle is not None else None
            if metrics is not None:
                metrics.preemption_attempts.inc()
        msg = status.message()
        if msg:
            # NewStatus(code, "preemption: "+msg): a new status, an error's text kept as its message.
            return result, Status.of(status.code, f"preemption: {msg}")
        return result, status

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """PreEnqueue: keep a preemptor out of activeQ while its asynchronous preemption runs."""
        if not self.enable_async_preemption:
            return None
        if self.executor.is_pod_running_preemption(pod.uid):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING_FOR_PREEMPTION)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """With async preemption, an assigned pod's deletion may ungate a preemptor; the hint
        always skips: the plugins that rejected the pod decide when it is worth retrying."""
        if not self.enable_async_preemption:
            return []
        return [ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                                     self.is_pod_schedulable_after_assigned_pod_deletion)]

    def is_pod_schedulable_after_assigned_pod_deletion(self, pod: Pod, old_obj: Any,
                                                       new_obj: Any) -> QueueingHint:
        return QueueingHint.QUEUE_SKIP

    # -- preemption.Interface -----------------------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """calculateNumCandidates: percentage of the nodes, at least the absolute number, at
        most all nodes."""
        n = num_nodes * self.pl_args.min_candidate_nodes_percentage // 100
        n = max(n, self.pl_args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """GetOffsetAndNumCandidates: offset uniform in [0, num_nodes) from the seeded RNG."""
        rng = self.handle.rng if self.handle is not None else None
        offset = rng.randrange(num_nodes) if rng is not None and num_nodes > 0 else 0
        return offset, self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> list[ScoreFunc] | None:
        return None

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """isPreemptionAllowed: strictly lower priority, and the IsEligiblePod hook."""
        return (lower_priority(victim.pod.priority_value, preemptor.priority_value)
                and self.is_eligible_pod(node_info, victim, preemptor))

    def pod_eligible_to_preempt_others(self, pod: Pod,
                                       nominated_node_status: Status | None) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers."""
        if pod.preemption_policy == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nom = pod.nominated_node_name
        if nom:
            # The nominated node became unresolvable: preempting elsewhere may help.
            if (nominated_node_status is not None
                    and nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
                return True, ""
            ni = self.handle.snapshot().get(nom) if self.handle is not None else None
            if ni is not None:
                for pi in ni.pods:
                    if self.is_preemption_allowed(ni, pi, pod) and pod_terminating_by_preemption(pi.pod):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    def prepare_dry_run(self, state: CycleState, pod: Pod, pdbs: Sequence[PodDisruptionBudget],
                        node_statuses: NodeToStatus | None, nodes: Sequence[NodeInfo], num_candidates: int,
                        ) -> Callable[[int, NodeInfo], VictimsResult | None] | None:
        """An optional Evaluator hook: a faster SelectVictimsOnNode for this preemption, asked
        about ``nodes[i]`` in the Evaluator's visiting order; it returns None for a node it
        cannot decide (the Evaluator then runs :meth:`select_victims_on_node` on a copy). See
        :mod:`._resource_victims` and :mod:`._batch_victims`."""
        if (self.handle is None or "select_victims_on_node" in vars(self)
                or type(self).select_victims_on_node is not DefaultPreemption.select_victims_on_node):
            return None  # a replaced SelectVictimsOnNode is the policy: run it
        is_eligible = self._is_eligible_hook()
        selector = ResourceVictimSelector.prepare(self.handle, state, pod, pdbs, node_statuses,
                                                  is_eligible, self._importance())
        if selector is None:
            return None
        if pdbs or is_eligible is not None or self.more_important_pod is not self._default_more_important_pod:
            one = selector.select
            return lambda _i, ni: one(ni)
        snap = self.handle.snapshot()
        if len(self._pod_arrays) > 2 * len(snap.node_names):
            self._pod_arrays.forget_missing(set(snap.node_names))
        return BatchVictimSelector(selector, nodes, snap, self._pod_arrays, self._now(),
                                   num_candidates, self._known_answers)

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        """SelectVictimsOnNode (``state`` and ``node_info`` are this node's copies)."""
        fh = self.fh

        def remove_pod(pi: PodInfo) -> None:
            if not node_info.remove_pod(pi.pod):
                raise RuntimeError(f"no corresponding pod {pi.pod.name} in pods of node {node_info.name}")
            st = fh.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)
            if not st.is_success():
                raise st.as_error() or RuntimeError(st.message())

        def add_pod(pi: PodInfo) -> None:
            node_info.add_pod_info(pi)
            st = fh.run_pre_filter_extension_add_pod(state, pod, pi, node_info)
            if not st.is_success():
                raise st.as_error() or RuntimeError(st.message())

        potential, _ = potential_victims(node_info, pod, self._is_eligible_hook())
        try:
            for pi in potential:
                remove_pod(pi)
        except Exception as err:
            return [], 0, Status.from_error(err)
        if not potential:
            return no_victims_result()
        # Without every lower-priority pod the pod still does not fit: no candidate (affinity to
        # a victim is not considered, as upstream, for performance).
        status = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success():
            return [], 0, status

        def keep(pi: PodInfo) -> bool:
            add_pod(pi)
            fits = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success()
            if not fits:
                remove_pod(pi)
            return fits

        try:
            victims, num_violating = reprieve(potential, pdbs, self._importance(), keep)
        except Exception as err:
            return [], 0, Status.from_error(err)
        return [pi.pod for pi in victims], num_violating, Status.success()

    # -- the victim rule's hooks (see ._victim_rule) --------------------------------------------
    def _is_eligible_hook(self) -> IsEligiblePodFn | None:
        """The IsEligiblePod hook, None when it is the default (every pod is eligible)."""
        return None if self.is_eligible_pod is _eligible_always else self.is_eligible_pod

    def _importance(self) -> Callable[[list[PodInfo]], None]:
        """Sorts pod infos most important first by the MoreImportantPod hook."""
        return importance_sorter(self.more_important_pod,
                                 self.more_important_pod is self._default_more_important_pod,
                                 self._now())


def _eligible_always(node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
    """The default IsEligiblePod hook: every lower-priority pod may be preempted."""
    return True


