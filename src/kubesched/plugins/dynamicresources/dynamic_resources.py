"""DynamicResources: allocates the devices of a pod's ResourceClaims (Dynamic Resource Allocation).

Mirrors pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (master 2026), in
the default profile before DefaultPreemption while DynamicResourceAllocation is on (GA):

- PreEnqueue: every claim of the pod exists (a template's claim was generated and is the
  pod's, none is being deleted), else UnschedulableAndUnresolvable with upstream's message;
- PreFilter: gathers the claims (Skip without any), refuses a claim reserved for others and
  already full, one whose allocation is in flight for another pod, a request naming a device
  class that does not exist; builds the structured allocator over the allocated state
  (devices of every allocated, assumed or in-flight claim), the classes and the slices;
- Filter: an allocated claim's node selector must match; unallocated claims are allocated
  on the node by the allocator, and the result kept for Score and Reserve;
- PostFilter: when an allocated claim was unavailable on some node and is reserved for nobody
  else, deallocate it (the pod retries once the claim update arrives);
- Score (with DRAPrioritizedList): prefers nodes where ``firstAvailable`` requests got an
  earlier sub-request; NormalizeScore scales to 0..100;
- Reserve: the node's allocations become in flight (see :mod:`._manager`), so the next pod
  never gets the same devices; Unreserve reverts that and drops the pod from ``reservedFor``;
- PreBind: writes the allocation (with the finalizer) and the pod in ``reservedFor`` to each
  claim through the store, retrying on conflicts.

Status codes: every "cannot schedule now" of this plugin is UnschedulableAndUnresolvable
(upstream's ``statusUnschedulable``), so preemption does not try nodes for it; the queueing
hints bring the pod back when a claim, class, slice or the pod's generated-claim status
changes. Not mirrored: extended resources backed by DRA (DRAExtendedResource), PodGroup claims,
the Filter timeout (DRASchedulerFilterTimeout: a simulation is deterministic instead), and the
wait for device binding conditions in PreBind (a claim whose binding conditions are not met
fails PreBind at once).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt

from kubesched.api import (
    AllocationResult,
    DeviceClass,
    Pod,
    ResourceClaim,
    ResourceSlice,
    format_time,
)
from kubesched.cache import NodeInfo
from kubesched.dra.cel import Features as CELFeatures
from kubesched.dra.structured import (
    AllocatedState,
    AllocationFailedOnNodeError,
    Allocator,
    AllocatorError,
    CELCache,
    DeviceClassLister,
    Features,
    new_allocator,
)
from kubesched.framework import (
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeBatch,
    PluginArgs,
    PluginBase,
    PostFilterResult,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kubesched.plugins.helper import default_normalize_score
from kubesched.plugins.names import DYNAMIC_RESOURCES

from ._claims import (
    FINALIZER,
    ClaimLookupError,
    allocation_to_dict,
    claim_name,
    is_for_pod,
    is_reserved_for_pod,
    pod_reference,
    status_of,
)
from ._features import PluginFeatures
from ._manager import DRAManager, JournalPosition, manager_for
from ._memo import FITS, UNKNOWN, Columns, NodeAllocationMemo

__all__ = ["NAME", "STATE_KEY", "AllocatorFactory", "DynamicResources"]

NAME = DYNAMIC_RESOURCES
STATE_KEY: Final = NAME
MAX_NODE_SCORE: Final = 100
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE: Final = 8
BINDING_TIMEOUT_DEFAULT_SECONDS: Final = 600.0  # config.DynamicResourcesBindingTimeoutDefault
CONFLICT_RETRIES: Final = 5  # retry.DefaultRetry.Steps

AllocatorFactory = Callable[[Features, AllocatedState, DeviceClassLister, Sequence[ResourceSlice]], Allocator]
"""structured.NewAllocator without the CEL cache: ``(features, allocated_state, class_lister,
slices) -> Allocator``."""


class _ClassLister:
    """DeviceClassLister over the DRA manager."""

    def __init__(self, manager: DRAManager) -> None:
        self._manager = manager

    def list(self) -> list[DeviceClass]:
        return self._manager.list_classes()

    def get(self, name: str) -> DeviceClass | None:
        return self._manager.get_class(name)


_UNSET: Final = object()


@dataclass(eq=False)
class _StateData:
    """stateData: the pod's claims (1:1 with ``spec.resourceClaims`` that name a claim), the
    allocator and what Filter found per node. Shared by clones (upstream's Clone returns the
    same pointer): Filter writes happen under ``lock``."""

    claims: list[ResourceClaim] = field(default_factory=list)
    available_on_nodes: list[Any] = field(default_factory=list)  # NodeSelector | None per claim
    allocations: list[AllocationResult | None] = field(default_factory=list)  # set by Reserve
    allocator: Allocator | None = None
    unavailable_claims: set[int] = field(default_factory=set)
    node_allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The allocator's inputs the batch path's memo compares (see :mod:`._memo`).
    world: tuple[object, ...] = ()
    slices: Sequence[ResourceSlice] = ()
    allocated: AllocatedState | None = None
    position: JournalPosition | None = None
    memo_key: int | object | None = _UNSET
    # The batch path's columns leave the allocations of fitting nodes in the memo: where
    # node_allocations has no entry, this finds one (set by filter_batch).
    memo_allocations: Callable[[str], list[AllocationResult] | None] | None = None

    def clone(self) -> _StateData:
        return self

    def to_allocate(self) -> list[tuple[int, ResourceClaim]]:
        return [(i, c) for i, c in enumerate(self.claims) if c.allocation is None]

    def allocations_on(self, node_name: str) -> list[AllocationResult] | None:
        """What Filter allocated on the node (None: nothing, or the node did not pass)."""
        found = self.node_allocations.get(node_name)
        if found is None and self.memo_allocations is not None:
            found = self.memo_allocations(node_name)
        return found


def _state(cs: CycleState) -> tuple[_StateData | None, Status | None]:
    """getStateData: the state PreFilter wrote, or the error status when it is missing."""
    try:
        return cs.read_as(STATE_KEY, _StateData), None
    except (KeyError, TypeError) as exc:
        return None, Status.from_error(exc)


def _unschedulable(reason: str) -> Status:
    """statusUnschedulable: UnschedulableAndUnresolvable (no node helps, preemption neither)."""
    return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason)


def _klog(obj: Any) -> str:
    """klog.KObj's rendering: ``namespace/name``."""
    return f"{obj.meta.namespace}/{obj.meta.name}" if obj.meta.namespace else obj.meta.name


class DynamicResources(PluginBase):
    NAME: ClassVar[str] = NAME

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None,
                 allocator_factory: AllocatorFactory | None = None) -> None:
        super().__init__(args, handle)
        self.fts = PluginFeatures.from_gates(handle.features if handle is not None else None)
        self.enabled = self.fts.enabled
        self.store: Any = handle.store if handle is not None else None
        self.manager = manager_for(self.store)
        # upstream: cel.NewCache(10) per plugin; here one compile-and-verdict cache per plugin.
        self.cel_cache = CELCache(CELFeatures(consumable_capacity=self.fts.consumable_capacity,
                                              list_type_attributes=self.fts.list_type_attributes))
        self.allocator_factory: AllocatorFactory = allocator_factory or self._new_allocator
        self.binding_timeout = BINDING_TIMEOUT_DEFAULT_SECONDS
        self.memo = NodeAllocationMemo()
        self._named_claims: set[tuple[str, str]] = set()  # (namespace, resourceClaimName) of pods

    def _new_allocator(self, features: Features, allocated: AllocatedState, classes: DeviceClassLister,
                       slices: Sequence[ResourceSlice]) -> Allocator:
        """structured.NewAllocator with this plugin's CEL cache."""
        return new_allocator(features, allocated, classes, slices, self.cel_cache)

    # -- events ---------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (queueing hints on: no UpdateNodeTaint)."""
        if not self.enabled:
            return []
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(
                EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL
                | ActionType.UPDATE_NODE_ALLOCATABLE)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, add_update),
                                 self.is_schedulable_after_claim_change, self.pods_for_claim_change),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self.is_schedulable_after_pod_change, _the_pod),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_update)),
        ]

    def is_schedulable_after_claim_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterClaimChange: a claim of the pod was created or its status changed,
        or any claim was deallocated (its devices are free again)."""
        if new is None:
            return QueueingHint.QUEUE_SKIP  # a delete: not registered, nothing to gain
        if not isinstance(new, ResourceClaim) or (old is not None and not isinstance(old, ResourceClaim)):
            return QueueingHint.QUEUE  # upstream: an error, which queues the pod
        deallocated = isinstance(old, ResourceClaim) and old.allocation is not None and new.allocation is None
        if not deallocated and not _may_name(pod, new):
            # The lookup below could only fail (skip) or find the pod not using the claim
            # (skip): the answer without looking up every claim of every waiting pod.
            return QueueingHint.QUEUE_SKIP
        try:
            uses_claim = any(c.meta.uid == new.meta.uid for _, c in self._foreach_pod_resource_claim(pod))
        except ClaimLookupError:
            return QueueingHint.QUEUE_SKIP
        if deallocated:
            return QueueingHint.QUEUE
        if not uses_claim:
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        if status_of(old) == status_of(new):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def pods_for_claim_change(self, old: Any, new: Any) -> Collection[str] | None:
        """The only pods ``is_schedulable_after_claim_change`` can queue for this event, so that
        a claim event reaches its pods through an index instead of every waiting pod: none for
        a delete; any pod for a deallocation (or an object of another kind); else the pods
        that own the claim (a generated claim must be its pod's own), unless some pod names
        it in ``resourceClaimName`` (then any pod)."""
        if new is None:
            return ()
        if not isinstance(new, ResourceClaim) or (old is not None and not isinstance(old, ResourceClaim)):
            return None
        if isinstance(old, ResourceClaim) and old.allocation is not None and new.allocation is None:
            return None
        if (new.meta.namespace, new.meta.name) in self._named_claims:
            return None
        return [str(ref.get("uid")) for ref in new.meta.owner_references if ref.get("controller") is True]

    def _note_named_claims(self, pod: Pod) -> None:
        """Remember the claims pods name directly (seen in PreEnqueue and PreFilter, which every
        pod this plugin rejects has passed through): they keep every waiting pod a candidate."""
        for pc in pod.resource_claims:
            if pc.resource_claim_name is not None:
                self._named_claims.add((pod.namespace, pc.resource_claim_name))

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterPodChange: the pod's own claims are all there now."""
        if not isinstance(new, Pod) or new.uid != pod.uid:
            return QueueingHint.QUEUE_SKIP
        try:
            self._foreach_pod_resource_claim(new)
        except ClaimLookupError:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # -- claims of a pod ---------------------------------------------------------------------------
    def _foreach_pod_resource_claim(self, pod: Pod) -> list[tuple[str, ResourceClaim]]:
        """foreachPodResourceClaim: (pod claim name, claim) for each claim that exists; raises
        ClaimLookupError with upstream's message for the first one that does not (or is being
        deleted, or is not the pod's own although generated for it)."""
        out: list[tuple[str, ResourceClaim]] = []
        for pod_claim in pod.resource_claims:
            name, must_check_owner = claim_name(pod, pod_claim)
            if name is None:
                continue
            claim = self.manager.get_claim(pod.namespace, name)
            if claim is None:
                raise ClaimLookupError(f'resourceclaim.resource.k8s.io "{name}" not found')
            if claim.meta.deletion_timestamp is not None:
                raise ClaimLookupError(f'resourceclaim "{name}" is being deleted')
            if must_check_owner:
                is_for_pod(pod, claim)
            out.append((pod_claim.name, claim))
        return out

    # -- PreEnqueue ----------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not self.enabled or not pod.resource_claims:
            return None
        self._note_named_claims(pod)
        try:
            self._foreach_pod_resource_claim(pod)
        except ClaimLookupError as exc:
            return _unschedulable(str(exc))
        return None

    # -- PreFilter -----------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status.skip()
        s = _StateData()
        state.write(STATE_KEY, s)
        if not pod.resource_claims:
            return None, Status.skip()
        self._note_named_claims(pod)
        try:
            claims = [c for _, c in self._foreach_pod_resource_claim(pod)]
        except ClaimLookupError as exc:
            return None, _unschedulable(str(exc))
        if not claims:
            return None, Status.skip()

        to_allocate = 0
        s.available_on_nodes = [None] * len(claims)
        s.allocations = [None] * len(claims)
        for index, claim in enumerate(claims):
            if claim.allocation is not None:
                # CanBeReserved is always true now (no reservedFor limit is enforced there).
                if claim.allocation.node_selector is not None:
                    s.available_on_nodes[index] = claim.allocation.node_selector
                continue
            to_allocate += 1
            if self.manager.claim_has_pending_allocation(claim.meta.uid):
                return None, _unschedulable(
                    f"resource claim {_klog(claim)} is in the process of being allocated")
            for request in claim.devices.requests:
                if request.exactly is not None:
                    st = self._validate_device_class(request.exactly.device_class_name, request.name)
                elif request.first_available:
                    if not self.fts.prioritized_list:
                        return None, _unschedulable(
                            f"resource claim {_klog(claim)}, request {request.name}: has subrequests, "
                            "but the DRAPrioritizedList feature is disabled")
                    st = None
                    for sub in request.first_available:
                        st = self._validate_device_class(sub.device_class_name, f"{request.name}/{sub.name}")
                        if st is not None:
                            break
                else:
                    return None, _unschedulable(
                        f"resource claim {_klog(claim)}, request {request.name}: unknown request type")
                if st is not None:
                    return None, st

        if to_allocate:
            s.allocated = self.manager.allocated_state(self.fts.consumable_capacity)
            s.position = self.manager.position
            s.slices = self.manager.list_slices(self.fts.device_taint_rules)
            s.world = self.manager.world(s.slices)
            try:
                s.allocator = self.allocator_factory(
                    self.fts.allocator_features(), s.allocated, _ClassLister(self.manager), s.slices)
            except AllocatorError as exc:
                return None, self.error_status(exc)
        s.claims = claims
        return None, None

    def _validate_device_class(self, class_name: str, request_name: str) -> Status | None:
        """validateDeviceClass: a class that does not exist parks the pod until one is added."""
        if not class_name:
            return Status.from_error(ValueError(f"request {request_name}: unsupported request type"))
        if self.manager.get_class(class_name) is None:
            return _unschedulable(f"request {request_name}: device class {class_name} does not exist")
        return None

    # -- Filter --------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        s, err = _state(state)
        if s is None:
            return err
        if not s.claims:
            return None
        return self._filter(s, node_info, None)

    def _filter(self, s: _StateData, node_info: NodeInfo, memo_key: int | None) -> Status | None:
        """Filter on one node; with ``memo_key`` (the batch path) the allocator's answer
        comes from the memo when it cannot have changed."""
        node = node_info.node
        assert node is not None
        unavailable: list[int] = []
        for index, claim in enumerate(s.claims):
            selector = s.available_on_nodes[index]
            if selector is not None and not selector.matches(node.name, node.labels):
                unavailable.append(index)
                continue
            if claim.allocation is None:
                continue
            if self.fts.binding_and_status:
                try:
                    ready = _claim_ready_for_binding(claim)
                except ClaimLookupError:
                    unavailable.append(index)
                    continue
                if not ready and self._claim_timed_out(claim):
                    unavailable.append(index)

        allocations: list[AllocationResult] = []
        if s.allocator is not None:
            outcome = self.memo.get(node, memo_key) if memo_key is not None else None
            if outcome is None:
                claims_to_allocate = [c for _, c in s.to_allocate()]
                try:
                    outcome = s.allocator.allocate(node, claims_to_allocate)
                except AllocationFailedOnNodeError as exc:
                    # Not fatal (ErrFailedAllocationOnNode): other nodes may fit.
                    outcome = str(exc)
                except AllocatorError as exc:
                    # Something is wrong with the claim or class: abort scheduling of the pod.
                    return Status.from_error(exc)
                if not isinstance(outcome, str) and len(outcome) != len(claims_to_allocate):
                    outcome = "cannot allocate all claims"
                if memo_key is not None:
                    self.memo.put(node, memo_key, outcome)
            if isinstance(outcome, str):
                return _unschedulable(outcome)
            allocations = outcome

        if unavailable:
            with s.lock:
                s.unavailable_claims.update(unavailable)
            return _unschedulable("resourceclaim not available on the node")
        if s.allocator is not None:
            with s.lock:
                s.node_allocations[node.name] = allocations
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """Nothing to do without claims (all pass); else upstream's per-node Filter per node,
        the allocator's answers taken from the memo where its inputs did not change."""
        s = state.get(STATE_KEY)
        if not self.enabled or (isinstance(s, _StateData) and not s.claims):
            return BatchFilterResult.all_success(len(nodes))
        if not isinstance(s, _StateData):
            return super().filter_batch(state, pod, nodes)
        if s.memo_key is _UNSET:  # once per cycle (the batch path asks in chunks)
            s.memo_key = None
            if s.allocator is not None and s.allocated is not None:
                s.memo_key = self.memo.begin_cycle(s.world, s.slices, s.allocated,
                                                   [c for _, c in s.to_allocate()], s.position,
                                                   self.manager.changed_devices)
        key = s.memo_key if isinstance(s.memo_key, int) else None
        if key is None or any(c.allocation is not None for c in s.claims):
            return BatchFilterResult.from_statuses([self._filter(s, ni, key) for ni in nodes.node_infos()])
        snapshot = nodes.snapshot
        cols = self.memo.columns(key, snapshot.node_names, snapshot.node_index)
        if cols is not None:
            return self._filter_columns(s, nodes, key, cols)
        infos = nodes.node_infos()
        # No allocated claim: Filter is the allocation alone, answered by the memo where it can.
        known = self.memo.answers(key)
        unfit: dict[str, Status] = {}
        statuses: list[Status | None] = []
        for ni, name in zip(infos, nodes.names(), strict=True):
            hit = known.get(name)
            if hit is None or hit[0] is not ni.node:
                statuses.append(self._filter(s, ni, key))
            elif isinstance(hit[1], str):
                st = unfit.get(hit[1])
                if st is None:
                    st = unfit[hit[1]] = _unschedulable(hit[1])
                statuses.append(st)
            else:
                s.node_allocations[name] = hit[1]  # the batch path is single-threaded
                statuses.append(None)
        return BatchFilterResult.from_statuses(statuses)

    def _filter_columns(self, s: _StateData, nodes: NodeBatch, key: int, cols: Columns) -> BatchFilterResult:
        """filter_batch when every slice names its node: the memo's answers for all candidate
        nodes at once; the allocator runs (through the per-node Filter) only on nodes without
        an answer. The allocations of the nodes that pass stay in the memo (``allocations_on``)."""
        memo = self.memo
        s.memo_allocations = lambda name: _fits(memo.outcome(key, name))
        rows = nodes.indices
        reason = cols.reason[rows]
        errors: dict[int, Status] = {}
        missing = np.flatnonzero(reason == UNKNOWN)
        if missing.size:
            infos = nodes.snapshot.node_info_list
            for i in missing.tolist():
                st = self._filter(s, infos[int(rows[i])], key)
                if st is not None and st.code == Code.ERROR:
                    errors[i] = st  # not kept by the memo
            reason = cols.reason[rows]
        codes = np.where(reason == FITS, np.int8(0), np.int8(int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)))
        table: list[tuple[str, ...]] = [(), *((r,) for r in cols.reasons)]
        ids = reason.astype(np.int32)
        for i, st in errors.items():
            codes[i] = int(st.code)
            ids[i] = len(table)
            table.append(st.reasons)
        return BatchFilterResult(codes.astype(np.int8), ids, table)

    def _claim_timed_out(self, claim: ResourceClaim) -> bool:
        """isClaimTimeout: binding conditions pending for longer than the binding timeout."""
        if not self.fts.binding_and_status or claim.allocation is None:
            return False
        started = claim.allocation.allocation_timestamp
        if started is None:
            return False
        now = self._now()
        return any(r.binding_conditions and started + self.binding_timeout < now
                   for r in claim.allocation.results)

    def _now(self) -> float:
        return float(self.handle.clock.now) if self.handle is not None else 0.0

    # -- PostFilter ----------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: Any) -> tuple[PostFilterResult | None, Status | None]:
        """PostFilter: deallocate one unavailable claim that nobody else uses. Upstream picks
        one at random (map order); here the first by index, deterministically."""
        if not self.enabled:
            return None, Status.of(Code.UNSCHEDULABLE, "plugin disabled")
        s, err = _state(state)
        if s is None:
            return None, err
        if not s.claims:
            return None, Status.of(Code.UNSCHEDULABLE, "no new claims to deallocate")
        for index in sorted(s.unavailable_claims):
            claim = s.claims[index]
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                try:
                    self._write_status(claim, {"allocation": None, "reservedFor": None, "devices": None})
                except Exception as exc:  # a store error: Error status, the pod is retried
                    return None, Status.from_error(exc)
                return None, Status.of(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
        return None, Status.of(Code.UNSCHEDULABLE, "still not schedulable")

    # -- Score ---------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if not self.enabled or not self.fts.prioritized_list:
            return 0, None
        s, err = _state(state)
        if s is None:
            return 0, err
        if not s.claims or node_info.node is None:
            return 0, None
        allocations = s.allocations_on(node_info.node.name)
        if allocations is None:
            return 0, None
        try:
            return _compute_score(s.claims, allocations), None
        except ValueError as exc:
            return 0, Status.from_error(exc)

    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[npt.NDArray[np.int64], Status | None]:
        s = state.get(STATE_KEY)
        if not self.enabled or not self.fts.prioritized_list or (isinstance(s, _StateData) and not any(
                r.first_available for _, c in s.to_allocate() for r in c.devices.requests)):
            # computeScore counts firstAvailable requests of claims to allocate only.
            return np.zeros(len(nodes), dtype=np.int64), None
        return super().score_batch(state, pod, nodes)

    def score_extensions(self) -> DynamicResources:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64],
                        node_names: Sequence[str]) -> Status | None:
        if self.enabled:
            default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    # -- Reserve / Unreserve -----------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        s, err = _state(state)
        if s is None:
            return err
        pending = s.to_allocate()
        if not s.claims or not pending:
            return None
        if s.allocator is None:
            return None
        allocations = s.allocations_on(node_name)
        if not allocations:
            return Status.from_error(RuntimeError("claim allocation not found for node"))
        if len(allocations) != len(pending):
            return Status.from_error(RuntimeError(
                f"internal error, have {len(allocations)} allocations, {len(pending)} claims to allocate, "
                f"want {len(pending)} claims"))
        for (index, claim), allocation in zip(pending, allocations, strict=True):
            s.allocations[index] = allocation
            # The claim as it will be once allocated: the allocator of the next pods sees its
            # devices as in use.
            self.manager.signal_claim_pending_allocation(_allocated(claim, allocation))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Unreserve: forget in-flight allocations; drop the pod from ``reservedFor`` of
        claims PreBind already reserved (idempotent)."""
        if not self.enabled:
            return
        s = state.get(STATE_KEY)
        if not isinstance(s, _StateData) or not s.claims:
            return
        for claim in s.claims:
            if self.manager.remove_claim_pending_allocation(claim.meta.uid):
                self.manager.assumed_claim_restore(claim.meta.namespace, claim.meta.name)
            if claim.allocation is not None and is_reserved_for_pod(pod, claim):
                try:
                    self._unreserve_claim(claim, pod)
                except Exception:  # upstream logs it; the next attempt gets here again
                    continue

    def _unreserve_claim(self, claim: ResourceClaim, pod: Pod) -> None:
        """The strategic-merge patch ``{"$patch": "delete", "uid": <pod>}`` on reservedFor,
        done as a read-modify-write on the current claim."""
        current = self.store.try_get("ResourceClaim", claim.meta.namespace, claim.meta.name)
        if current is None or current.meta.uid != claim.meta.uid:
            return
        entries = [dict(r) for r in (status_of(current).get("reservedFor") or []) if r.get("uid") != pod.uid]
        self._write_status(current, {"reservedFor": entries or None})

    # -- PreBind -------------------------------------------------------------------------------
    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return Status.skip()
        s, err = _state(state)
        if s is None:
            return err
        return None if s.claims else Status.skip()

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        s, err = _state(state)
        if s is None:
            return err
        if not s.claims:
            return None
        for index, claim in enumerate(s.claims):
            if is_reserved_for_pod(pod, claim):
                continue
            try:
                s.claims[index] = self._bind_claim(s, index, pod)
            except Exception as exc:  # the pod goes to backoff; Unreserve cleans up
                return Status.from_error(exc)
        if not self.fts.binding_and_status or not _has_binding_conditions(s.claims):
            return None
        # Upstream polls the claims for up to the binding timeout until the drivers report the
        # binding conditions; a simulation has no driver, so an unmet condition fails at once.
        if self.store is not None:
            with contextlib.suppress(Exception):
                self.store.record_event(pod, "BindingConditionsPending",
                                        f"waiting for binding conditions for device on node {node_name}",
                                        type="Normal", action="Scheduling")
        try:
            ready = all(_claim_ready_for_binding(c) for c in s.claims)
        except ClaimLookupError as exc:
            return Status.from_error(exc)
        if ready:
            return None
        # isPodReadyForBinding's outcome at the end of the wait: a claim allocated before this
        # PreBind times out first ("claim X binding timeout"), else the wait itself does.
        now = self._now()
        for claim in s.claims:
            started = claim.allocation.allocation_timestamp if claim.allocation is not None else None
            if started is not None and started < now and _has_binding_conditions([claim]):
                return Status.from_error(RuntimeError(f"claim {claim.meta.name} binding timeout"))
        return Status.from_error(RuntimeError("device binding timeout"))

    def _bind_claim(self, s: _StateData, index: int, pod: Pod) -> ResourceClaim:
        """bindClaim: store the allocation from Reserve (adding the finalizer first, in a
        normal update) and the pod in ``reservedFor``; on a conflict, read the claim again and
        retry (retry.RetryOnConflict, DefaultRetry)."""
        from kubesched.cluster import Conflict

        claim = s.claims[index]
        allocation = s.allocations[index]
        written = False
        try:
            for attempt in range(CONFLICT_RETRIES):
                if attempt:
                    fresh = self.store.try_get("ResourceClaim", claim.meta.namespace, claim.meta.name)
                    if fresh is None:
                        raise RuntimeError(f"get updated claim {_klog(claim)} after conflict: "
                                           f'resourceclaims.resource.k8s.io "{claim.meta.name}" not found')
                    claim = fresh
                if claim.meta.deletion_timestamp is not None:
                    raise RuntimeError(f"claim {_klog(claim)} got deleted in the meantime")
                try:
                    status: dict[str, Any] = {}
                    if allocation is not None:
                        if claim.allocation is not None:
                            raise RuntimeError(
                                f"claim {_klog(claim)} got allocated elsewhere in the meantime")
                        finalizers = list(claim.raw.get("metadata", {}).get("finalizers") or [])
                        if FINALIZER not in finalizers:
                            claim = self.store.update(claim.with_changes(
                                {("metadata", "finalizers"): [*finalizers, FINALIZER]}))
                        status["allocation"] = allocation_to_dict(allocation)
                    current = status.get("allocation") or status_of(claim).get("allocation")
                    if self.fts.binding_and_status and isinstance(current, Mapping) \
                            and not current.get("allocationTimestamp"):
                        # The allocation time starts the binding timeout (DRADeviceBindingConditions).
                        status["allocation"] = {**current, "allocationTimestamp": format_time(self._now())}
                    reserved = [dict(r) for r in (status_of(claim).get("reservedFor") or [])]
                    status["reservedFor"] = [*reserved, pod_reference(pod)]
                    claim = self._write_status(claim, status)
                    written = True
                    return claim
                except Conflict:
                    if attempt == CONFLICT_RETRIES - 1:
                        raise
            raise RuntimeError("unreachable")
        finally:
            if written:
                self.manager.assume_claim_after_api_call(claim)
            if allocation is not None:
                self.manager.remove_claim_pending_allocation(s.claims[index].meta.uid)

    def _write_status(self, claim: ResourceClaim, status: Mapping[str, Any]) -> ResourceClaim:
        """UpdateStatus: replace the given status fields (None removes one)."""
        from kubesched.api import DELETE

        changes: dict[tuple[str, ...], Any] = {("status", k): (DELETE if v is None else v)
                                               for k, v in status.items()}
        update = getattr(self.store, "update_status", self.store.update)
        updated: ResourceClaim = update(claim.with_changes(changes))
        return updated

    # -- explain -------------------------------------------------------------------------------
    def node_allocations(self, state: CycleState,
                         node_name: str) -> list[tuple[ResourceClaim, AllocationResult]]:
        """What Filter allocated on ``node_name`` for the pod's unallocated claims (explain and
        simulate show it): (claim, allocation) pairs, empty when none was computed."""
        s = state.get(STATE_KEY)
        if not isinstance(s, _StateData):
            return []
        allocations = s.allocations_on(node_name)
        if not allocations:
            return []
        return [(c, a) for (_, c), a in zip(s.to_allocate(), allocations, strict=False)]


def _fits(outcome: Any) -> list[AllocationResult] | None:
    """A memo outcome's allocations (None for a reason the claims do not fit)."""
    return None if outcome is None or isinstance(outcome, str) else list(outcome)


def _the_pod(old: Any, new: Any) -> Collection[str]:
    """The only pod ``is_schedulable_after_pod_change`` can queue: the updated pod itself."""
    return (new.uid,) if isinstance(new, Pod) else ()


def _may_name(pod: Pod, claim: ResourceClaim) -> bool:
    """Whether one of the pod's claim references could resolve to ``claim``: it is in the pod's
    namespace and named by a ``resourceClaimName`` or a generated-claim status."""
    if claim.meta.namespace != pod.namespace:
        return False
    name = claim.meta.name
    return (any(pc.resource_claim_name == name for pc in pod.resource_claims)
            or any(st.resource_claim_name == name for st in pod.resource_claim_statuses))


def _allocated(claim: ResourceClaim, allocation: AllocationResult) -> ResourceClaim:
    """The claim with ``allocation`` (and the finalizer), as Reserve signals it in flight."""
    finalizers = list(claim.raw.get("metadata", {}).get("finalizers") or [])
    changes: dict[tuple[str, ...], Any] = {("status", "allocation"): allocation_to_dict(allocation)}
    if FINALIZER not in finalizers:
        changes[("metadata", "finalizers")] = [*finalizers, FINALIZER]
    return claim.with_changes(changes)


def _compute_score(claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult]) -> int:
    """computeScore: for each firstAvailable request, 8 - the index of the sub-request the
    allocation picked; claims that were allocated already do not count (their allocation is
    not in ``allocations``, which follow the claims to allocate)."""
    score = 0
    unallocated = 0
    for claim in claims:
        if claim.allocation is not None:
            continue
        if unallocated >= len(allocations):
            raise ValueError(f"number of allocations {len(allocations)} is smaller than number of claims")
        allocation = allocations[unallocated]
        unallocated += 1
        picked = {r.request for r in allocation.results if r.request.count("/") == 1}
        for req in claim.devices.requests:
            if req.exactly is not None:
                continue
            for i, sub in enumerate(req.first_available):
                if f"{req.name}/{sub.name}" in picked:
                    score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i
    return score


def _conditions(device_status: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {str(c.get("type")): c for c in device_status.get("conditions") or [] if isinstance(c, Mapping)}


def _claim_ready_for_binding(claim: ResourceClaim) -> bool:
    """isClaimReadyForBinding: every binding condition of every result is True in the claim's
    device status, and no binding failure condition is; raises ClaimLookupError on a failure."""
    if claim.allocation is None:
        return False
    for r in claim.allocation.results:
        if not r.binding_conditions:
            continue
        status = next((d for d in claim.device_statuses if d.get("driver") == r.driver
                       and d.get("pool") == r.pool and d.get("device") == r.device), None)
        if status is None:
            return False
        conds = _conditions(status)
        for name in r.binding_failure_conditions:
            c = conds.get(name)
            if c is not None and c.get("status") == "True":
                raise ClaimLookupError(f"claim {claim.meta.name} binding failed: "
                                       f'reason={c.get("reason", "")}, message="{c.get("message", "")}"')
        if any(conds.get(name, {}).get("status") != "True" for name in r.binding_conditions):
            return False
    return True


def _has_binding_conditions(claims: Sequence[ResourceClaim]) -> bool:
    return any(r.binding_conditions for c in claims if c.allocation is not None for r in c.allocation.results)

