"""NodeResourcesFit: the node must have room for the pod's requests; scores by strategy.

Mirrors pkg/scheduler/framework/plugins/noderesources/fit.go (master 2026):

- PreFilter computes the pod's requests once (resource.PodRequests: containers, sidecars, init
  containers, pod-level resources, overhead).
- Filter (fitsRequest): "Too many pods" when the node is at its pod limit; then, for each
  resource the pod requests a positive amount of, "Insufficient <name>" when the request exceeds
  allocatable minus requested, in the order pods, cpu, memory, ephemeral-storage, then scalar
  resources (Go iterates a map there, i.e. in random order; we sort by name). Extended resources
  named in ``ignoredResources`` or whose prefix is in ``ignoredResourceGroups`` are skipped. The
  status is Unschedulable, or UnschedulableAndUnresolvable when some request exceeds the node's
  whole allocatable (preemption cannot help; kubernetes PR #131345, issue 131310, v1.34:
  :data:`UNRESOLVABLE_ABOVE_ALLOCATABLE`; before, always Unschedulable, and preemption then
  answers "No preemption victims found for incoming pod" for such nodes).
- Score: the scoring strategy (LeastAllocated by default, MostAllocated,
  RequestedToCapacityRatio) over ``scoringStrategy.resources`` with the non-zero requests.
- Events: a deleted assigned (or nominated) pod, a scaled-down pod that frees a resource the pod
  wants, a node added or with more allocatable that now fits the pod, and (DRAExtendedResource)
  a DeviceClass added or updated that may now serve an extended resource the pod requests.
- Extended resources backed by DRA (KEP-5004, DRAExtendedResource, on):
  shouldDelegateResourceToDRA leaves a resource to DynamicResources on a node whose
  allocatable has none of it when a DeviceClass serves it (``extendedResourceName``, or the
  implicit ``deviceclass.resource.kubernetes.io/<class>``); a node advertising it in allocatable
  is checked here as any extended resource (the device plugin's path). A scored resource the
  node lacks counts the node's devices of the serving class (draPreScoreState, see
  :mod:`._dra`).

The batch Filter compares the gathered allocatable and requested rows once per checked resource
and returns all-success at once when no node fails; the reasons of failing nodes are encoded
per combination of failed checks (``BatchFilterResult``), never as a Status per node.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import DeviceClass, KubeVersion, Node, Pod
from kubesched.cache import NodeInfo, is_scalar_resource_name
from kubesched.framework import (
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterInputs,
    Handle,
    NodeBatch,
    PluginArgs,
    PluginBase,
    PreFilterResult,
    QueueingHint,
    ReleaseSwitch,
    SignFragment,
    Status,
)
from kubesched.plugins.helper import feature_enabled
from kubesched.plugins.helper.dra import DEVICE_CLASS_PREFIX, DeviceClassResolver, manager_for
from kubesched.plugins.names import NODE_RESOURCES_FIT

from ._args import LEAST_ALLOCATED, MOST_ALLOCATED, NodeResourcesFitArgs
from ._dra import DRAScoring
from .least_allocated import least_resource_row_scorer, least_resource_scorer
from .most_allocated import most_resource_scorer
from .requested_to_capacity_ratio import requested_to_capacity_ratio_scorer
from .resource_allocation import DRATotals, ResourceAllocationScorer, pod_request_list, sign_resources

__all__ = ["NAME", "UNRESOLVABLE_ABOVE_ALLOCATABLE", "Fit", "InsufficientResource", "fits", "fits_request",
           "is_extended_resource_name"]

NAME = NODE_RESOURCES_FIT

UNRESOLVABLE_ABOVE_ALLOCATABLE = ReleaseSwitch(
    "NodeResourcesFitUnresolvableAboveAllocatable", KubeVersion(1, 34), 131345,
    "NodeResourcesFit rejects a node whose whole allocatable is below the request as "
    "UnschedulableAndUnresolvable (preemption skips it: \"Preemption is not helpful for scheduling\"); "
    "before, Unschedulable (\"No preemption victims found for incoming pod\")")
"""kubernetes PR #131345 (v1.34, issue 131310)."""
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
REASON_TOO_MANY_PODS = "Too many pods"
_BASE = ("cpu", "memory", "ephemeral-storage")


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a ``domain/name`` outside ``*kubernetes.io/``."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def insufficient_reason(name: str) -> str:
    return f"Insufficient {name}"


def _reason(name: str) -> str:
    """The reason fitsRequest gives for a failed check of ``name``."""
    return REASON_TOO_MANY_PODS if name == "pods" else insufficient_reason(name)


_BINCOUNT_MAX_CHECKS = 12
"""Up to this many checked resources, the failure patterns are found by counting (at most
4096 bins), not by sorting."""


def _patterns(bits: npt.NDArray[np.int64], checks: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """``np.unique(bits, return_inverse=True)``: the distinct failure bit patterns, ascending,
    and each node's position among them. With few checked resources the patterns are small
    integers, and counting them (bincount) gives the same two arrays without np.unique's sort,
    which was the largest part of Filter on clusters where many nodes fail several checks
    (GPU traces: cpu and GPU both short)."""
    if checks > _BINCOUNT_MAX_CHECKS:
        return np.unique(bits, return_inverse=True)
    seen = np.bincount(bits)
    patterns = np.flatnonzero(seen)
    position = np.zeros(len(seen), dtype=np.intp)
    position[patterns] = np.arange(len(patterns))
    return patterns, position[bits]


@functools.lru_cache(maxsize=4096)
def _reasons(names: tuple[str, ...], pattern: int) -> tuple[str, ...]:
    """The reasons of the failed checks in ``pattern`` (bit k: ``names[k]``), in check order;
    remembered, as the same few combinations recur cycle after cycle."""
    return tuple(_reason(names[k]) for k in range(len(names)) if pattern >> k & 1)


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    """The pod's requests: cpu, memory, ephemeral-storage and the scalar resources (the fields
    of upstream's framework.Resource), with the scalars in the order Filter checks them.
    ``empty`` is Resource.IsZero-like: no base request and no scalar (fitsRequest stops after
    the pod count)."""

    requests: Mapping[str, int]
    scalars: tuple[str, ...]
    empty: bool = False

    def clone(self) -> _PreFilterState:
        return self

    @staticmethod
    def of(pod: Pod) -> _PreFilterState:
        reqs = {k: v for k, v in pod.requests.items() if k in _BASE or is_scalar_resource_name(k)}
        scalars = tuple(sorted(k for k in reqs if k not in _BASE))
        empty = not scalars and not any(reqs.get(k, 0) for k in _BASE)
        return _PreFilterState(reqs, scalars, empty)

    def is_empty(self) -> bool:
        return self.empty


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    pod_requests: tuple[int, ...]
    dra: DRATotals | None = None  # draPreScoreState

    def clone(self) -> _PreScoreState:
        return self


def _checked(s: _PreFilterState, ignored: frozenset[str], ignored_groups: frozenset[str]) -> list[str]:
    """The resources Filter compares, in order (positive requests, not ignored)."""
    out = [k for k in _BASE if s.requests.get(k, 0) > 0]
    for name in s.scalars:
        if s.requests[name] == 0:
            continue
        if is_extended_resource_name(name) and (name in ignored or name.split("/")[0] in ignored_groups):
            continue
        out.append(name)
    return out


def should_delegate_to_dra(name: str, allocatable: Mapping[str, int],
                           resolver: DeviceClassResolver | None) -> bool:
    """shouldDelegateResourceToDRA (``resolver``: DRAExtendedResource on): the node's
    allocatable has none of ``name`` and a device class serves it."""
    return (resolver is not None and allocatable.get(name, 0) <= 0
            and resolver.get_device_class(name) is not None)


def fits_request(
    s: _PreFilterState,
    node_info: NodeInfo,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
    resolver: DeviceClassResolver | None = None,
) -> list[InsufficientResource]:
    """fitsRequest: every insufficient resource of the node for the pod, in upstream's order;
    with ``resolver``, resources DRA serves on this node are left to DynamicResources."""
    out: list[InsufficientResource] = []
    allowed = node_info.allocatable.get("pods", 0)
    used_pods = len(node_info.pods)
    if used_pods + 1 > allowed:
        out.append(InsufficientResource("pods", REASON_TOO_MANY_PODS, 1, used_pods, allowed))
    if s.is_empty():
        return out
    for name in _checked(s, ignored, ignored_groups):
        want = s.requests[name]
        alloc = node_info.allocatable.get(name, 0)
        used = node_info.requested.get(name, 0)
        if name not in _BASE and should_delegate_to_dra(name, node_info.allocatable, resolver):
            continue
        if want > alloc - used:
            out.append(InsufficientResource(name, insufficient_reason(name), want, used, alloc, want > alloc))
    return out


def fits(pod: Pod, node_info: NodeInfo,
         resolver: DeviceClassResolver | None = None) -> list[InsufficientResource]:
    """Fits: fitsRequest with the pod's requests and nothing ignored."""
    return fits_request(_PreFilterState.of(pod), node_info, resolver=resolver)


def _status(insufficient: Sequence[InsufficientResource], unresolvable: bool = True) -> Status | None:
    """Filter's status; ``unresolvable``: :data:`UNRESOLVABLE_ABOVE_ALLOCATABLE` is on."""
    if not insufficient:
        return None
    code = (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        if unresolvable and any(r.unresolvable for r in insufficient)
        else Code.UNSCHEDULABLE
    )
    return Status(code, tuple(r.reason for r in insufficient))


class Fit(PluginBase):
    NAME = NAME
    Args = NodeResourcesFitArgs
    # Filter reads only allocatable, the requested sums and the pod count; fewer pods never fit worse.
    FILTER_INPUTS = FilterInputs.RESOURCES

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod (:func:`~.resource_allocation.sign_resources`)."""
        return sign_resources(pod, self.enable_dra_extended_resource)

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        assert isinstance(self.args, NodeResourcesFitArgs)
        a = self.args
        self.ignored_resources = frozenset(a.ignored_resources)
        self.ignored_resource_groups = frozenset(a.ignored_resource_groups)
        strategy = a.scoring_strategy
        self.resources = strategy.resources
        row_scorer = None
        if strategy.type == LEAST_ALLOCATED:
            scorer = least_resource_scorer(self.resources)
            row_scorer = least_resource_row_scorer(self.resources)
        elif strategy.type == MOST_ALLOCATED:
            scorer = most_resource_scorer(self.resources)
        else:
            assert strategy.requested_to_capacity_ratio is not None
            scorer = requested_to_capacity_ratio_scorer(
                self.resources, strategy.requested_to_capacity_ratio.shape
            )
        self.scorer = ResourceAllocationScorer(strategy.type, scorer, self.resources,
                                               row_scorer=row_scorer)
        # Both GA / on by default in the newest upstream.
        self.enable_in_place_pod_vertical_scaling = feature_enabled(handle, "InPlacePodVerticalScaling", True)
        self.enable_scheduling_queue_hint = feature_enabled(handle, "SchedulingQueueHint", True)
        # KEP-5004, GA and on in 1.37 (locked on upstream; here it can be turned off).
        self.enable_dra_extended_resource = feature_enabled(handle, "DRAExtendedResource", True)
        self._store = handle.store if handle is not None else None
        self.unresolvable_above_allocatable = UNRESOLVABLE_ABOVE_ALLOCATABLE.on_for(handle)
        self.dra_scoring = DRAScoring(handle, self.resources)
        self._plan_memo: tuple[_PreFilterState, tuple[tuple[str, ...], list[int], set[str]]] | None = None

    # -- PreFilter / Filter ------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState.of(pod))
        return None, None

    def _resolver(self) -> DeviceClassResolver | None:
        """The DRA manager's DeviceClassResolver while DRAExtendedResource is on (upstream
        passes a nil draManager when it is off)."""
        if not self.enable_dra_extended_resource:
            return None
        return manager_for(self._store).device_class_resolver()

    def _filter_plan(self, s: _PreFilterState) -> tuple[tuple[str, ...], list[int], set[str]]:
        """The resources fitsRequest checks for this pod, "pods" first, the amount wanted of
        each, and those a device class serves (left to DRA on nodes without them);
        memoized for the cycle's state (Filter runs once per chunk of nodes)."""
        memo = self._plan_memo
        if memo is not None and memo[0] is s:
            return memo[1]
        names = ["pods"]
        if not s.empty:
            names += _checked(s, self.ignored_resources, self.ignored_resource_groups)
        served: set[str] = set()
        extended = [k for k in names[1:] if k not in _BASE]
        resolver = self._resolver() if extended else None
        if resolver is not None:
            served = {k for k in extended if resolver.get_device_class(k) is not None}
        plan = (tuple(names), [1] + [s.requests[k] for k in names[1:]], served)
        self._plan_memo = (s, plan)
        return plan

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = state.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        resolver = self._resolver() if s.scalars else None
        return _status(fits_request(s, node_info, self.ignored_resources, self.ignored_resource_groups,
                                    resolver), self.unresolvable_above_allocatable)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """fitsRequest over the batch: one row gather per matrix, then one comparison per
        checked resource ("pods" first, wanting one more pod); nodes that fit every check need
        no further work, and the reason combinations are encoded only when some node fails.
        (One comparison over all gathered columns measured slower: numpy's per-axis
        count_nonzero costs more than three column passes on a few hundred rows.)"""
        try:
            s = state.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
        except (KeyError, TypeError) as exc:
            return BatchFilterResult.uniform(len(nodes), Status.from_error(exc))
        cols = nodes.snapshot.columns
        idx = nodes.indices
        n = len(idx)
        names, wants, served = self._filter_plan(s)
        alloc_rows = cols.allocatable.take(idx, axis=0)
        used_rows = cols.requested.take(idx, axis=0)
        failing: list[tuple[int, npt.NDArray[np.bool_]]] = []
        unresolvable: npt.NDArray[np.bool_] | None = None
        index = cols.resource_index
        for k, name in enumerate(names):
            want = wants[k]
            c = index.get(name)
            if c is None:  # no node has any: every node lacks it, beyond preemption's help
                if name in served:
                    continue  # ... and DRA serves it on every node
                fail = np.ones(n, dtype=bool)
                unres = fail if k else None
            else:
                alloc = alloc_rows[:, c]
                fail = want > alloc - used_rows[:, c]
                if name in served:
                    fail &= alloc > 0  # shouldDelegateResourceToDRA where the node has none
                if not np.count_nonzero(fail):
                    continue
                unres = fail & (want > alloc) if k else None  # "Too many pods" stays resolvable
            failing.append((k, fail))
            if unres is not None:
                unresolvable = unres if unresolvable is None else unresolvable | unres
        if not failing:
            return BatchFilterResult.all_success(n)
        if not self.unresolvable_above_allocatable:
            unresolvable = None
        unresolvable_code = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        if len(failing) == 1:
            k, fail = failing[0]
            code = np.where(unresolvable, unresolvable_code, int(Code.UNSCHEDULABLE)) if (
                unresolvable is not None) else int(Code.UNSCHEDULABLE)
            codes = np.where(fail, code, 0).astype(np.int8)
            return BatchFilterResult(codes, fail.astype(np.int32), [(), (_reason(names[k]),)])
        # Several resources fail somewhere: one reason tuple per combination of failures.
        bits = np.zeros(n, dtype=np.int64)
        for k, f in failing:
            bits |= f.astype(np.int64) << k
        patterns, inverse = _patterns(bits, len(names))
        table = [_reasons(names, p) for p in patterns.tolist()]
        codes = np.where(bits == 0, 0, int(Code.UNSCHEDULABLE))
        if unresolvable is not None:
            codes = np.where(unresolvable, unresolvable_code, codes)
        return BatchFilterResult(codes.astype(np.int8), inverse.astype(np.int32).reshape(-1), table)

    # -- Score -------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, self._pre_score_state(pod))
        return None

    def _pre_score_state(self, pod: Pod) -> _PreScoreState:
        return _PreScoreState(pod_request_list(pod, self.resources, False), self.dra_scoring.pre_score())

    def _state(self, state: CycleState, pod: Pod) -> _PreScoreState:
        s = state.get(PRE_SCORE_STATE_KEY)
        return s if isinstance(s, _PreScoreState) else self._pre_score_state(pod)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = self._state(state, pod)
        return self.scorer.score(node_info, s.pod_requests, s.dra)

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: NodeBatch
    ) -> tuple[npt.NDArray[np.int64], Status | None]:
        s = self._state(state, pod)
        return self.scorer.score_batch(nodes, s.pod_requests, s.dra)

    # -- Events ------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # InPlacePodVerticalScaling (KEP 1287): a pod scale-down may free resources. With queueing
        # hints, preCheck is gone and Node taint/label updates need no registration (issue 109437).
        pod_action = ActionType.DELETE
        if self.enable_in_place_pod_vertical_scaling:
            pod_action |= ActionType.UPDATE_POD_SCALE_DOWN
        node_action = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
        if not self.enable_scheduling_queue_hint:
            node_action |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        events = [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, pod_action), self.is_schedulable_after_pod_event
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_action), self.is_schedulable_after_node_change
            ),
        ]
        if self.enable_dra_extended_resource:
            # A pod may wait for a class to serve an extended resource it requests.
            events.append(ClusterEventWithHint(
                ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
                self.is_schedulable_after_device_class_event))
        return events

    def is_schedulable_after_device_class_event(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """isSchedulableAfterDeviceClassEvent: a class added whose implicit name the pod
        requests, or a class added or updated whose (changed) extendedResourceName it requests."""
        if not isinstance(new_obj, DeviceClass) or (
                old_obj is not None and not isinstance(old_obj, DeviceClass)):
            return QueueingHint.QUEUE
        requests = pod.requests
        if old_obj is not None:
            if old_obj.extended_resource_name == new_obj.extended_resource_name:
                return QueueingHint.QUEUE_SKIP
        elif DEVICE_CLASS_PREFIX + new_obj.meta.name in requests:
            return QueueingHint.QUEUE
        if new_obj.extended_resource_name is not None and new_obj.extended_resource_name in requests:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_event(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        if new_obj is None:  # deleted
            if isinstance(old_obj, Pod) and not old_obj.node_name and not old_obj.nominated_node_name:
                return QueueingHint.QUEUE_SKIP  # an unscheduled pod held no resources
            return QueueingHint.QUEUE
        if not isinstance(old_obj, Pod) or not isinstance(new_obj, Pod):
            return QueueingHint.QUEUE
        if not self.enable_in_place_pod_vertical_scaling:
            return QueueingHint.QUEUE_SKIP  # without in-place resize an update frees nothing
        return (
            QueueingHint.QUEUE if is_resource_scale_down(pod, old_obj, new_obj) else QueueingHint.QUEUE_SKIP
        )

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when the pod fits the node and the node is new or a requested resource grew."""
        if not isinstance(new_obj, Node):
            return QueueingHint.QUEUE
        resolver = self._resolver()
        if fits(pod, NodeInfo.of(new_obj), resolver):  # some resource is insufficient: still no fit
            return QueueingHint.QUEUE_SKIP
        if not isinstance(old_obj, Node):
            return QueueingHint.QUEUE
        if not have_any_requested_resources_increased(pod, old_obj, new_obj, resolver):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def have_any_requested_resources_increased(pod: Pod, old: Node, new: Node,
                                           resolver: DeviceClassResolver | None = None) -> bool:
    """haveAnyRequestedResourcesIncreased (a resource DRA serves on the new node counts)."""
    if new.allocatable.get("pods", 0) > old.allocatable.get("pods", 0):
        return True
    s = _PreFilterState.of(pod)
    if s.is_empty():
        return False
    for name, want in s.requests.items():
        if want > 0 and new.allocatable.get(name, 0) > old.allocatable.get(name, 0):
            return True
        if want > 0 and name not in _BASE and should_delegate_to_dra(name, new.allocatable, resolver):
            return True
    return False


def is_resource_scale_down(target: Pod, old: Pod, new: Pod) -> bool:
    """isResourceScaleDown: the target pod itself or an assigned pod now requests less of a
    resource the target requests. An update of the target that shrinks nothing (its own
    status written after a failed attempt) is no reason to retry it."""
    if new.uid != target.uid and not new.node_name:
        return False
    for name, want in target.requests.items():
        if want == 0 or not (name in _BASE or is_scalar_resource_name(name)):
            continue
        if old.requests.get(name, 0) > new.requests.get(name, 0):
            return True
    return False
