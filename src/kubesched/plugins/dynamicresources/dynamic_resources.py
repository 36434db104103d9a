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
- PreFilterExtensions (DRAPreemption): AddPod / RemovePod follow the preemption dry run, the
  devices of claims only victims use are free there (see :mod:`._preemption`);
- PostFilter: when an allocated claim was unavailable on some node and is reserved for nobody
  else, deallocate it, one at random when several qualify (the pod retries once the claim
  update arrives);
- Score (with DRAPrioritizedList): prefers nodes where ``firstAvailable`` requests got an
  earlier sub-request; NormalizeScore scales to 0..100;
- Reserve: the node's allocations become in flight (see :mod:`._manager`), so the next pod
  never gets the same devices; Unreserve reverts that and drops the pod from ``reservedFor``;
- PreBind: writes the allocation (with the finalizer) and the pod in ``reservedFor`` to each
  claim through the store, retrying on conflicts; then waits for device binding conditions
  (see :mod:`._binding_wait`).

Status codes: every "cannot schedule now" of this plugin is UnschedulableAndUnresolvable
(upstream's ``statusUnschedulable``), so preemption does not try nodes for it; the queueing
hints bring the pod back when a claim, class, slice or the pod's generated-claim status
changes (with DRAPreemption, Filter's rejections are Unschedulable, so that preemption tries
the node). Extended resources backed by DRA (DRAExtendedResource, KEP-5004): a pod requesting an
extended resource that a DeviceClass serves gets one more claim, the special claim of
:mod:`._extended`, allocated where the node's allocatable lacks the resource and created in
PreBind (extendeddynamicresources.go). Not mirrored: PodGroup claims, the Filter timeout
(DRASchedulerFilterTimeout: a simulation is deterministic instead).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, cast

import numpy as np
import numpy.typing as npt

from kubesched.api import (
    AllocationResult,
    Pod,
    ResourceClaim,
    ResourceSlice,
    format_time,
)
from kubesched.cache import NodeInfo
from kubesched.cluster import status_update
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
    PermitFuture,
    PluginArgs,
    PluginBase,
    PostFilterResult,
    PreFilterResult,
    QueueingHint,
    SignFragment,
    Status,
)
from kubesched.plugins.helper import default_normalize_score
from kubesched.plugins.helper.dra import (
    ClassLister,
    ExtendedRequests,
    ExtendedState,
    JournalPosition,
    PluginFeatures,
    claim_with_changes,
    filter_extended_resources,
    is_special_claim_name,
    manager_for,
    pre_filter_extended_resources,
)
from kubesched.plugins.names import DYNAMIC_RESOURCES

from ._args import DynamicResourcesArgs
from ._binding_wait import TIMEOUT_MESSAGE, wait_for_binding
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
from ._extended_writes import create_extended_claim, delete_claim, patch_pod_extended_resource_claim_status
from ._memo import FITS, UNKNOWN, Columns, NodeAllocationMemo
from ._named import NamedClaims
from ._preemption import DryRun

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
    # DRAPreemption: what the preemption dry run removed (see :mod:`._preemption`); None
    # without the gate, and then clones share this object, as before upstream deep-copied it.
    dry_run: DryRun | None = None
    # DRAExtendedResource: the special claim's index in ``claims`` (always the last) and what
    # PreFilter and Filter found for it (see :class:`._extended.ExtendedState`).
    extended_index: int | None = None
    extended: ExtendedState | None = None
    # The batch path's columns leave the allocations of fitting nodes in the memo: where
    # node_allocations has no entry, this finds one (set by filter_batch).
    memo_allocations: Callable[[str], list[AllocationResult] | None] | None = None

    def clone(self) -> _StateData:
        """Clone: the same object without DRAPreemption; with it, a copy whose dry-run state
        and per-node results are its own (each node's dry run changes them), the read-only
        inputs (claims, allocator, slices) shared."""
        if self.dry_run is None:
            return self
        with self.lock:
            return dataclasses.replace(
                self, available_on_nodes=list(self.available_on_nodes), allocations=list(self.allocations),
                unavailable_claims=set(self.unavailable_claims), node_allocations=dict(self.node_allocations),
                lock=threading.Lock(), dry_run=self.dry_run.copy())

    def claims_to_allocate(self) -> list[ResourceClaim]:
        """The claims Filter allocates: the unallocated ones, and in a preemption dry run the
        allocated ones it released (state.claims keeps their allocation)."""
        released = self.dry_run.released if self.dry_run is not None else ()
        return [c for c in self.claims if c.allocation is None or c.meta.uid in released]

    def to_allocate(self) -> list[tuple[int, ResourceClaim]]:
        return [(i, c) for i, c in enumerate(self.claims) if c.allocation is None]

    def extended_claim(self) -> ResourceClaim | None:
        return self.claims[self.extended_index] if self.extended_index is not None else None

    def no_user_claim(self) -> bool:
        return len(self.claims) == (1 if self.extended_index is not None else 0)

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


class _NotWrapped(RuntimeError):
    """bindClaim's own errors, returned as they are (the API server's are wrapped with what
    was being written)."""


def _klog(obj: Any) -> str:
    """klog.KObj's rendering: ``namespace/name``."""
    return f"{obj.meta.namespace}/{obj.meta.name}" if obj.meta.namespace else obj.meta.name


class DynamicResources(PluginBase):
    NAME: ClassVar[str] = NAME
    Args = DynamicResourcesArgs

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: whether a claim fits one node or several is not simple to tell, so a pod
        with resource claims is not signable (kubernetes#134986)."""
        if pod.resource_claims:
            return None, Status(Code.UNSCHEDULABLE, ("pods with dra resource claims are not signable",))
        return None, None

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None,
                 allocator_factory: AllocatorFactory | None = None) -> None:
        super().__init__(args, handle)
        self.fts = PluginFeatures.from_gates(handle.features if handle is not None else None,
                                            handle.kube_version if handle is not None else None)
        self.enabled = self.fts.enabled
        self.store: Any = handle.store if handle is not None else None
        self.manager = manager_for(self.store)
        # upstream: cel.NewCache(10) per plugin; here one compile-and-verdict cache per plugin.
        self.cel_cache = CELCache(CELFeatures(consumable_capacity=self.fts.consumable_capacity,
                                              list_type_attributes=self.fts.list_type_attributes))
        self.allocator_factory: AllocatorFactory = allocator_factory or self._new_allocator
        self.binding_timeout = BINDING_TIMEOUT_DEFAULT_SECONDS
        if isinstance(self.args, DynamicResourcesArgs):
            self.binding_timeout = self.args.binding_timeout_seconds
        self.memo = NodeAllocationMemo()
        self.named_claims = NamedClaims(self._pod_exists)

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
        if (new.meta.namespace, new.meta.name) in self.named_claims:
            return None
        return [str(ref.get("uid")) for ref in new.meta.owner_references if ref.get("controller") is True]

    def _pod_exists(self, namespace: str, name: str, uid: str) -> bool:
        pod = self.store.try_get("Pod", namespace, name) if self.store is not None else None
        return pod is not None and pod.uid == uid

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
        self.named_claims.note(pod)
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
        if not pod.resource_claims and not self.fts.extended_resource:
            return None, Status.skip()
        self.named_claims.note(pod)
        try:
            claims = [c for _, c in self._foreach_pod_resource_claim(pod)]
        except ClaimLookupError as exc:
            return None, _unschedulable(str(exc))
        if self.fts.extended_resource:
            found = pre_filter_extended_resources(
                pod, self.manager.device_class_resolver, self.manager.list_claims)
            if found is not None:
                s.extended_index, s.extended = len(claims), found[1]
                claims.append(found[0])
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
            if index == s.extended_index:
                continue  # no spec yet (Filter writes it per node), or stale: Filter decides
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

        # With DRAPreemption the allocator is built for every pod with claims: a dry run may
        # release an allocated claim of the pod (shared with a victim), which Filter allocates.
        if to_allocate or self.fts.preemption:
            s.allocated = self.manager.allocated_state(self.fts.consumable_capacity)
            s.position = self.manager.position
            s.slices = self.manager.list_slices(self.fts.device_taint_rules,
                                                self.fts.device_taint_rule_class_and_cel)
            s.world = self.manager.world(s.slices)
            try:
                s.allocator = self.allocator_factory(
                    self.fts.allocator_features(), s.allocated, ClassLister(self.manager), s.slices)
            except AllocatorError as exc:
                return None, self.error_status(exc)
        s.claims = claims
        if self.fts.preemption:
            s.dry_run = DryRun(allocated=s.allocated)
        return None, None

    # -- PreFilterExtensions (DRAPreemption) -----------------------------------------------------
    def pre_filter_extensions(self) -> DynamicResources | None:
        return self if self.enabled and self.fts.preemption else None

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: Any,
                node_info: NodeInfo) -> Status | None:
        """AddPod: a pod the dry run had removed is back; its released claims hold their
        devices again."""
        s, err = _state(state)
        if s is None:
            return err
        if s.dry_run is not None:
            with s.lock:
                s.dry_run.add_pod(pod_info_to_add.pod, self.manager.get_claim, self.fts.consumable_capacity)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: Any,
                   node_info: NodeInfo) -> Status | None:
        """RemovePod: the claims of the removed pod that no remaining pod uses are released."""
        s, err = _state(state)
        if s is None:
            return err
        if s.dry_run is not None:
            with s.lock:
                s.dry_run.remove_pod(pod_info_to_remove.pod, self.manager.get_claim,
                                     self.fts.consumable_capacity)
        return None

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
        node_extended: ExtendedRequests | None = None
        extended = s.extended_claim()
        if extended is not None and s.extended is not None:
            node_extended, reason = filter_extended_resources(
                extended, s.extended, s.no_user_claim(), node_info)
            if reason is not None:
                return _unschedulable(reason)
            if node_extended is None and s.no_user_claim():
                return None  # the device plugins provide everything: NodeResourcesFit checked it
            memo_key = None  # the claims depend on the node's allocatable
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
        allocator = s.allocator
        if allocator is not None:
            claims_to_allocate = [c for _, c in s.to_allocate()]
            dry_run = s.dry_run
            if dry_run is not None and dry_run.released and dry_run.allocated is not None:
                # A preemption dry run freed devices: ask an allocator over what is left in use.
                memo_key = None
                claims_to_allocate = s.claims_to_allocate()
                try:
                    allocator = self.allocator_factory(self.fts.allocator_features(), dry_run.allocated,
                                                       ClassLister(self.manager), s.slices)
                except AllocatorError as exc:
                    return Status.from_error(exc)
            outcome = self.memo.get(node, memo_key) if memo_key is not None else None
            if outcome is None:
                ext = node_extended.claim if node_extended is not None else None
                if ext is not None and s.extended_index is not None:
                    special = s.claims[s.extended_index]
                    claims_to_allocate = [ext if c is special else c for c in claims_to_allocate]
                try:
                    outcome = allocator.allocate(node, claims_to_allocate)
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
                return self._rejected(outcome)
            allocations = outcome

        if unavailable:
            with s.lock:
                s.unavailable_claims.update(unavailable)
            return self._rejected("resourceclaim not available on the node")
        if s.allocator is not None:
            with s.lock:
                s.node_allocations[node.name] = allocations
                if node_extended is not None and s.extended is not None:
                    s.extended.nodes[node.name] = node_extended
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
            if s.allocator is not None and s.allocated is not None and s.extended_index is None:
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
                    st = unfit[hit[1]] = self._rejected(hit[1])
                statuses.append(st)
            else:
                s.node_allocations[name] = hit[1]  # the batch path is single-threaded
                statuses.append(None)
        return BatchFilterResult.from_statuses(statuses)

    def _rejected(self, reason: str) -> Status:
        """Filter's rejection: UnschedulableAndUnresolvable (preemption cannot free devices),
        but Unschedulable with DRAPreemption, so that preemption tries the node (upstream's
        statusUnschedulable in the DRA preemption code, whose dry-run tests expect
        Unschedulable for "cannot allocate all claims")."""
        return Status.of(Code.UNSCHEDULABLE if self.fts.preemption else Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                         reason)

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
        rejected = int(self._rejected("").code)
        codes = np.where(reason == FITS, np.int8(0), np.int8(rejected))
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
        """PostFilter: deallocate one unavailable claim that nobody else uses. Upstream walks
        the unavailable claims in Go's map order, which is random, and deallocates the first
        that qualifies ("there is no better heuristic"); here the pick among the qualifying
        claims is drawn from the scheduler's seeded generator (same seed, same claim)."""
        if not self.enabled:
            return None, Status.of(Code.UNSCHEDULABLE, "plugin disabled")
        s, err = _state(state)
        if s is None:
            return None, err
        if not s.claims:
            return None, Status.of(Code.UNSCHEDULABLE, "no new claims to deallocate")
        # Upstream ranges over the unavailable claims in map order (random): the first that is
        # reserved for nobody but this pod is deallocated, and a real extended-resource claim met
        # first is deleted instead; the first of a random order is a uniform pick among them.
        extended = s.extended_claim()
        real_extended = extended is not None and not is_special_claim_name(extended.meta.name)
        candidates = [i for i in sorted(s.unavailable_claims)
                      if (i == s.extended_index and real_extended)
                      or (i != s.extended_index and _unused_by_others(s.claims[i], pod))]
        if candidates:
            index = candidates[0]
            if len(candidates) > 1 and self.handle is not None:
                index = self.handle.rng.choice(candidates)
            if index != s.extended_index:
                try:
                    self._write_status(s.claims[index],
                                       {"allocation": None, "reservedFor": None, "devices": None})
                except Exception as exc:  # a store error: Error status, the pod is retried
                    return None, Status.from_error(exc)
                return None, Status.of(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
        if extended is not None and real_extended:
            # The claim of an earlier cycle (allocated or reserved then): delete it.
            try:
                delete_claim(self.store, extended)
            except Exception as exc:
                return None, Status.from_error(exc)
            return None, Status.of(Code.UNSCHEDULABLE, "deletion of ResourceClaim completed")
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
                r.first_available for c in s.claims for r in c.devices.requests)):
            # computeScore counts firstAvailable requests only (of every claim, allocated or not).
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
            if all(i == s.extended_index for i, _ in pending):
                return None  # only the special claim, and the device plugins serve it here
            return Status.from_error(RuntimeError("claim allocation not found for node"))
        if len(allocations) != len(pending):
            return Status.from_error(RuntimeError(
                f"internal error, have {len(allocations)} allocations, {len(pending)} claims to allocate, "
                f"want {len(pending)} claims"))
        for (index, claim), allocation in zip(pending, allocations, strict=True):
            s.allocations[index] = allocation
            if index == s.extended_index and s.extended is not None:
                node_extended = s.extended.nodes.get(node_name)
                if node_extended is not None:
                    claim = node_extended.claim  # the special claim as instantiated for the node
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
        for index, claim in enumerate(s.claims):
            if index == s.extended_index:
                continue  # below
            if self.manager.remove_claim_pending_allocation(claim.meta.uid):
                self.manager.assumed_claim_restore(claim.meta.namespace, claim.meta.name)
            if claim.allocation is not None and is_reserved_for_pod(pod, claim):
                try:
                    self._unreserve_claim(claim, pod)
                except Exception:  # upstream logs it; the next attempt gets here again
                    continue
        self._unreserve_extended_resource_claim(s)

    def _unreserve_extended_resource_claim(self, s: _StateData) -> None:
        """unreserveExtendedResourceClaim: forget the in-flight allocation of the special claim
        (by its PreFilter uid) and delete the claim if PreBind created it already."""
        claim = s.extended_claim()
        if claim is None or s.extended is None:
            return
        if self.manager.remove_claim_pending_allocation(s.extended.initial_uid):
            self.manager.assumed_claim_restore(claim.meta.namespace, claim.meta.name)
        if not is_special_claim_name(claim.meta.name):
            with contextlib.suppress(Exception):  # upstream logs it
                delete_claim(self.store, claim)

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
        """PreBind for callers that cannot wait: as :meth:`pre_bind_async`, but binding
        conditions not met at once end it with the timeout error."""
        fut = self._pre_bind(state, pod, node_name, wait=False)
        return fut.status() if fut.done() else Status.from_error(RuntimeError(TIMEOUT_MESSAGE))

    def pre_bind_async(self, state: CycleState, pod: Pod, node_name: str) -> PermitFuture:
        """PreBind as the binding cycle runs it (see the framework's
        ``run_pre_bind_plugins_async``): reserve the claims for the pod (bindClaim), then,
        with DRADeviceBindingConditions, wait until the drivers report the devices ready (see
        :mod:`._binding_wait`)."""
        return self._pre_bind(state, pod, node_name, wait=True)

    def _pre_bind(self, state: CycleState, pod: Pod, node_name: str, wait: bool) -> PermitFuture:
        if not self.enabled:
            return PermitFuture.resolved(Status.success())
        s, err = _state(state)
        if s is None:
            return PermitFuture.resolved(err or Status.success())
        if not s.claims:
            return PermitFuture.resolved(Status.success())
        for index, claim in enumerate(s.claims):
            if is_reserved_for_pod(pod, claim):
                continue
            try:
                if index == s.extended_index:
                    self._bind_extended_claim(s, index, pod, node_name)
                else:
                    s.claims[index] = self._bind_claim(s, index, pod)
            except Exception as exc:  # the pod goes to backoff; Unreserve cleans up
                return PermitFuture.resolved(Status.from_error(exc))
        if not self.fts.binding_and_status or not _has_binding_conditions(s.claims):
            return PermitFuture.resolved(Status.success())
        if self.store is not None:
            with contextlib.suppress(Exception):
                self.store.record_event(pod, "BindingConditionsPending",
                                        f"waiting for binding conditions for device on node {node_name}",
                                        type="Normal", action="Scheduling")
        check = lambda: self._pod_ready_for_binding(s)  # noqa: E731
        if not wait:
            answer = check()
            if answer is True or isinstance(answer, str):
                return PermitFuture.resolved(Status.success() if answer is True
                                             else Status.from_error(RuntimeError(answer)))
            return PermitFuture()
        clock = self.handle.clock if self.handle is not None else None
        if clock is None:
            return self._pre_bind(state, pod, node_name, wait=False)
        return wait_for_binding(clock, self.binding_timeout, check)

    def _pod_ready_for_binding(self, s: _StateData) -> bool | str:
        """isPodReadyForBinding: each claim read again (and kept, for Unreserve); True when
        all are ready, the error message when one failed or timed out, else False."""
        for index, claim in enumerate(s.claims):
            current = self.manager.get_claim(claim.meta.namespace, claim.meta.name)
            if current is None:
                return f'resourceclaims.resource.k8s.io "{claim.meta.name}" not found'
            s.claims[index] = current
            try:
                ready = _claim_ready_for_binding(current)
            except ClaimLookupError as exc:
                return str(exc)
            if not ready:
                if self._claim_timed_out(current):
                    return f"device binding timeout: claim={current.meta.name}"
                return False
        return True

    def _bind_extended_claim(self, s: _StateData, index: int, pod: Pod, node_name: str) -> None:
        """bindClaim for the special claim: nothing when the device plugins serve the pod;
        else create it, write allocation and reservation as for any claim, and record it in
        the pod's ``status.extendedResourceClaimStatus``."""
        claim, allocation = s.claims[index], s.allocations[index]
        if (allocation is None and not claim.devices.requests) or s.extended is None:
            return
        node_extended = s.extended.nodes.get(node_name)
        try:
            if is_special_claim_name(claim.meta.name):
                s.claims[index] = create_extended_claim(self.store, node_extended, node_name)
            s.claims[index] = self._bind_claim(s, index, pod)
        finally:
            if allocation is not None:
                self.manager.remove_claim_pending_allocation(s.extended.initial_uid)
        patch_pod_extended_resource_claim_status(self.store, pod, s.claims[index], node_extended)

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
                doing = f"add finalizer to claim {_klog(claim)}"
                try:
                    status: dict[str, Any] = {}
                    if allocation is not None:
                        if claim.allocation is not None:
                            raise _NotWrapped(
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
                    doing = (f"add allocation and reservation to claim {_klog(claim)}"
                             if allocation is not None else f"add reservation to claim {_klog(claim)}")
                    claim = self._write_status(claim, status)
                    written = True
                    return claim
                except _NotWrapped:
                    raise
                except Conflict as exc:
                    if attempt == CONFLICT_RETRIES - 1:
                        raise RuntimeError(f"{doing}: {exc}") from exc
                except Exception as exc:  # the API server's answer, wrapped as upstream wraps it
                    raise RuntimeError(f"{doing}: {exc}") from exc
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
        return cast(ResourceClaim, status_update(self.store)(claim.with_changes(changes)))

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
        node_extended = s.extended.nodes.get(node_name) if s.extended is not None else None
        return [(node_extended.claim if i == s.extended_index and node_extended is not None else c, a)
                for (i, c), a in zip(s.to_allocate(), allocations, strict=False)]


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


def _unused_by_others(claim: ResourceClaim, pod: Pod) -> bool:
    """PostFilter's test: reserved for nobody, or only for ``pod`` itself."""
    reserved = claim.reserved_for
    return not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid)


def _allocated(claim: ResourceClaim, allocation: AllocationResult) -> ResourceClaim:
    """The claim with ``allocation`` (and the finalizer), as Reserve signals it in flight."""
    finalizers = list(claim.raw.get("metadata", {}).get("finalizers") or [])
    changes: dict[tuple[str, ...], Any] = {("status", "allocation"): allocation_to_dict(allocation)}
    if FINALIZER not in finalizers:
        changes[("metadata", "finalizers")] = [*finalizers, FINALIZER]
    return claim_with_changes(claim, changes)


def _compute_score(claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult]) -> int:
    """computeScore (master 2026, after kubernetes PR 139017): for each firstAvailable request of
    every claim, 8 - the index of the sub-request its allocation picked. A claim allocated
    before this cycle (a shared or PodGroup claim) is scored by its own ``status.allocation``;
    ``allocations`` follow the claims Filter allocated, in order."""
    score = 0
    unallocated = 0
    for claim in claims:
        allocation = claim.allocation
        if allocation is None:
            if unallocated >= len(allocations):
                raise ValueError(f"number of allocations {len(allocations)} is smaller than number "
                                 "of claims needing allocation")
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
                raise ClaimLookupError(f"device binding failed: claim={claim.meta.name}, "
                                       f'reason={c.get("reason", "")}, message="{c.get("message", "")}"')
        if any(conds.get(name, {}).get("status") != "True" for name in r.binding_conditions):
            return False
    return True


def _has_binding_conditions(claims: Sequence[ResourceClaim]) -> bool:
    return any(r.binding_conditions for c in claims if c.allocation is not None for r in c.allocation.results)

