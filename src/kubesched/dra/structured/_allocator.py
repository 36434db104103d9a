"""The structured allocator: devices for a pod's claims on one node.

A port of ``structured/internal/experimental/allocator_experimental.go`` (master 2026), the
variant that supports every feature. Upstream keeps three variants and NewAllocator picks the
first whose supported features cover the enabled ones (stable: admin access, prioritized
list, partitionable devices, device taints; incubating: + binding conditions, consumable
capacity; experimental: + list-type attributes, compatibility groups). Experimental and
incubating only differ in those, which are gated here; where stable differs on its own feature set
(no distinctAttribute constraint, capacity requests ignored, counters consumed only by
fully allocated devices), :attr:`StructuredAllocator.channel` selects stable's behaviour. The
search order is experimental's (pools sorted, combinations instead of permutations), which
gives the same first solution; only the work counted by :meth:`stats` differs from stable.

The search (allocateOne): claims in order, each claim's requests in order (a
``firstAvailable`` request tries its sub-requests in order until one works), each device of
a request from the pools in order, backtracking on failure. A device is usable when it is not
in use (allocated to another claim, or to this pod's claims being allocated, unless admin
access or shared), matches the class's and the request's selectors, fits on the node (per
device node selection), is tolerated (taints), has its shared counters left (partitionable
devices) or capacity left (consumable capacity), shares a compatibility group with the devices
on its counter sets (:mod:`._compatgroups`), and keeps the claim's constraints.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from ...api import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocationResult,
    Device,
    DeviceClass,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    DeviceTaint,
    DeviceToleration,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ResourceClaim,
    ResourceSlice,
)
from ..cel import SelectorEvalError
from ._capacity import consumed_from_request, fits_capacity, insert_consumed, remove_consumed
from ._celcache import CELCache
from ._compatgroups import Intersection, baseline_for_pool, skip_when_disabled, snapshot
from ._constraints import Constraint, DistinctAttributeConstraint, MatchAttributeConstraint
from ._pools import Pool, PoolCache, available_counters
from ._types import (
    AllocatedState,
    AllocationFailedOnNodeError,
    AllocatorError,
    ConsumedCapacity,
    ConsumedCapacityCollection,
    DeviceClassLister,
    DeviceID,
    Features,
)

__all__ = ["Stats", "StructuredAllocator", "is_device_allocated", "tolerates_taint"]

_share_ids = itertools.count(1)


def _new_share_id() -> str:
    """A share ID (upstream: a random UUID); counted, so simulations are reproducible."""
    return str(uuid.UUID(int=next(_share_ids)))


def is_device_allocated(device_id: DeviceID, state: AllocatedState) -> bool:
    """IsDeviceAllocated: fully allocated, or shared by some claim, or with capacity consumed."""
    if device_id in state.allocated_devices:
        return True
    if any(s.device_id == device_id for s in state.allocated_shared_device_ids):
        return True
    return device_id in state.aggregated_capacity


def tolerates_taint(toleration: DeviceToleration, taint: DeviceTaint) -> bool:
    """resourceclaim.ToleratesTaint."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def _taint_prevents(device: Device, tolerations: Sequence[DeviceToleration]) -> bool:
    """taintPreventsAllocation: only NoSchedule and NoExecute taints count."""
    return any(
        t.effect in ("NoSchedule", "NoExecute") and not any(tolerates_taint(tol, t) for tol in tolerations)
        for t in device.taints
    )


def _kobj(claim: ResourceClaim) -> str:
    """klog.KObj."""
    ns = claim.meta.namespace
    return f"{ns}/{claim.name}" if ns else claim.name


@dataclass(frozen=True, slots=True)
class _Request:
    """requestAccessor: a request with ``exactly`` or one ``firstAvailable`` sub-request."""

    name: str
    class_name: str
    mode: str
    count: int
    admin_access_field: bool | None
    selectors: tuple[str, ...]
    tolerations: tuple[DeviceToleration, ...]
    capacity: Any  # Mapping[str, Fraction] | None

    @property
    def admin_access(self) -> bool:
        return bool(self.admin_access_field)


@dataclass(slots=True)
class _Located:
    """deviceWithID: a device with the slice and pool it is in."""

    id: DeviceID
    device: Device
    slice: ResourceSlice
    pool: Pool


@dataclass(slots=True)
class _RequestData:
    request: _Request
    parent: _Request | None
    cls: DeviceClass | None = None
    num_devices: int = 0
    selected_sub_index: int = 0
    all_devices: list[_Located] = field(default_factory=list)

    def request_name(self) -> str:
        return f"{self.parent.name}/{self.request.name}" if self.parent else self.request.name


@dataclass(slots=True)
class _DeviceResult:
    request: str
    parent: str
    located: _Located
    share_id: str | None = None
    consumed: ConsumedCapacity | None = None
    admin_access: bool | None = None
    groups: dict[str, tuple[str, ...]] | None = None

    def request_name(self) -> str:
        return f"{self.parent}/{self.request}" if self.parent else self.request


@dataclass(frozen=True, slots=True)
class Stats:
    """internal.Stats: the work the search did."""

    num_allocate_one_invocations: int


class _MaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: more than 32 devices for a claim down this path."""


_CHANNELS: Final = (
    (
        "stable",
        Features(admin_access=True, prioritized_list=True, partitionable_devices=True, device_taints=True),
    ),
    (
        "incubating",
        Features(
            admin_access=True,
            prioritized_list=True,
            partitionable_devices=True,
            device_taints=True,
            device_binding_and_status=True,
            consumable_capacity=True,
        ),
    ),
    ("experimental", Features(True, True, True, True, True, True, True, True)),
)


def _covers(supported: Features, features: Features) -> bool:
    return all(getattr(supported, f) or not getattr(features, f) for f in Features.__dataclass_fields__)


def channel_for(features: Features) -> str:
    """The variant upstream's NewAllocator would pick for ``features``."""
    for name, supported in _CHANNELS:
        if _covers(supported, features):
            return name
    raise AssertionError("experimental supports every feature")


_SliceIndex = tuple[list[ResourceSlice], dict[str, list[ResourceSlice]], list[ResourceSlice], PoolCache]
_last_index: list[tuple[Sequence[ResourceSlice], _SliceIndex]] = []


def _index_slices(slices: Sequence[ResourceSlice]) -> _SliceIndex:
    """All slices, those of each node by node name, those without one, and the pools gathered
    from them (:class:`PoolCache`). The last index is kept for the same tuple: the scheduler
    builds an allocator per cycle over one tuple of slices that it replaces only when a slice
    changes, so pools are gathered once per node view while no slice changes instead of once
    per node and cycle. Read-only afterwards (the pool cache only grows)."""
    if _last_index and _last_index[0][0] is slices:
        return _last_index[0][1]
    on_node: dict[str, list[ResourceSlice]] = {}
    shared: list[ResourceSlice] = []
    for s in slices:
        if s.node_name:
            on_node.setdefault(s.node_name, []).append(s)
        else:
            shared.append(s)
    all_slices = list(slices)
    index = (all_slices, on_node, shared, PoolCache(on_node, shared, all_slices))
    if not isinstance(slices, tuple):
        return index
    _last_index[:] = [(slices, index)]
    return index


class StructuredAllocator:
    """structured.Allocator for a fixed set of slices, classes and allocated devices; reusable
    for any number of nodes (Allocate). Not thread-safe (the scheduler is single-threaded).
    ``channel`` forces one of upstream's variants (as EnableAllocators does); by default the
    one NewAllocator picks for ``features``."""

    def __init__(
        self,
        features: Features,
        allocated_state: AllocatedState,
        class_lister: DeviceClassLister,
        slices: Sequence[ResourceSlice],
        cel_cache: CELCache | None = None,
        channel: str | None = None,
    ) -> None:
        from ..cel import Features as CELFeatures

        self.features = features
        self.channel = channel or channel_for(features)
        if not _covers(dict(_CHANNELS)[self.channel], features):
            raise AllocatorError(
                f"internal error: allocator {self.channel} does not support the features {features}"
            )
        self.allocated_state = allocated_state
        self.class_lister = class_lister
        self.all_slices, self.slices_on_node, self.slices_shared, self._pool_cache = _index_slices(slices)
        self.cel = cel_cache or CELCache(
            CELFeatures(
                consumable_capacity=features.consumable_capacity,
                list_type_attributes=features.list_type_attributes,
            )
        )
        self._available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self._compat_baseline: dict[str, dict[str, Intersection]] = {}
        self._num_allocate_one = 0
        self._pools: dict[int, tuple[Node, list[Pool]]] = {}
        self._device_ids = self._pool_cache.device_ids
        self._answers: dict[Hashable, tuple[list[ResourceClaim], list[AllocationResult]]] = {}

    def stats(self) -> Stats:
        """GetStats."""
        return Stats(self._num_allocate_one)

    def pools_for(self, node: Node) -> list[Pool]:
        """GatherPools for ``node``, once per node object: the slices and the node are
        immutable for the allocator's lifetime, and the search never changes a pool. The
        slices' pool cache shares the work between nodes that see the same shared pools."""
        entry = self._pools.get(id(node))
        if entry is None or entry[0] is not node:
            entry = (node, self._pool_cache.pools_for(node, self.features))
            self._pools[id(node)] = entry
        return entry[1]

    def device_ids(self, s: ResourceSlice) -> list[DeviceID]:
        """The IDs of a slice's devices, built once per slice object (kept with the slice
        index, so that allocators over the same slices share them)."""
        entry = self._device_ids.get(id(s))
        if entry is None or entry[0] is not s:
            entry = (s, [DeviceID(s.driver, s.pool.name, d.name) for d in s.devices])
            self._device_ids[id(s)] = entry
        return entry[1]

    def slices_for_node(self, node: Node) -> list[ResourceSlice]:
        """The slices Allocate looks at for ``node``: its own and those without a node name."""
        return [*self.slices_on_node.get(node.name, ()), *self.slices_shared]

    def allocate(
        self, node: Node, claims: Sequence[ResourceClaim], interrupted: Callable[[], str | None] | None = None
    ) -> list[AllocationResult]:
        """Allocate: one result per claim, ``[]`` when they do not all fit on ``node``.

        ``interrupted`` stands for upstream's context: checked before each search step, a
        reason it returns (e.g. a filter timeout) aborts with "filter operation aborted:
        <reason>".

        Answers are kept per (node view, claims): for the allocator's lifetime the slices, the
        classes and the allocated state are fixed, so on nodes that see the same pools and
        devices (:meth:`PoolCache.shared_view`) the search takes the same steps and finds the
        same devices (upstream searches again on each node). Only answers that name no node
        and no share ID are kept."""
        view = self._pool_cache.shared_view(node, self.features)
        if view is None:
            return _Allocation(self, node, list(claims), interrupted).run()
        key = (view, tuple(id(c) for c in claims))
        hit = self._answers.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], claims, strict=True)):
            if interrupted is not None and (reason := interrupted()):
                raise AllocatorError(f"filter operation aborted: {reason}")
            return list(hit[1])
        results = _Allocation(self, node, list(claims), interrupted).run()
        if _node_independent(results):
            self._answers[key] = (list(claims), results)
        return results

    def is_allocated_for_counters(self, device_id: DeviceID) -> bool:
        if self.channel == "stable":
            return device_id in self.allocated_state.allocated_devices
        return is_device_allocated(device_id, self.allocated_state)

    def available_counters(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        """The pool's counters not consumed by allocated devices, computed once per pool for
        the allocator's lifetime. As upstream, the cache is keyed by the pool's name only."""
        cached = self._available_counters.get(pool.id.pool)
        if cached is None:
            cached = available_counters(pool, self.is_allocated_for_counters)
            self._available_counters[pool.id.pool] = cached
        return cached

    def compat_baseline(self, pool: Pool) -> dict[str, Intersection]:
        """compatibilityGroupsBaselineForPool, cached per pool name as upstream."""
        cached = self._compat_baseline.get(pool.id.pool)
        if cached is None:
            cached = baseline_for_pool(pool, self.allocated_state, self.is_allocated_for_counters)
            self._compat_baseline[pool.id.pool] = cached
        return cached


def _node_independent(results: Sequence[AllocationResult]) -> bool:
    """Whether an answer found on one node is the answer on any node of the same view: no
    result pinned to the node (a device that binds to it) and no share ID (each search makes
    new ones)."""
    for result in results:
        if result.node_selector is not None and any(t.match_fields for t in result.node_selector.terms):
            return False
        if any(d.share_id is not None for d in result.results):
            return False
    return True


def _exact(req: DeviceRequest) -> _Request:
    e = req.exactly
    if e is None:  # validation refuses such a request; never crash on one
        raise AllocatorError(
            f"request {req.name}: neither exactly nor firstAvailable (unsupported request type?)"
        )
    return _Request(
        req.name,
        e.device_class_name,
        e.allocation_mode,
        e.count,
        e.admin_access,
        e.selectors,
        e.tolerations,
        e.capacity,
    )


def _sub(sub: DeviceSubRequest) -> _Request:
    return _Request(
        sub.name,
        sub.device_class_name,
        sub.allocation_mode,
        sub.count,
        None,
        sub.selectors,
        sub.tolerations,
        sub.capacity,
    )


_Key = tuple[int, int, int]  # requestIndices: claim, request, sub-request


class _Allocation:
    """allocator: the state of one Allocate call."""

    def __init__(
        self,
        a: StructuredAllocator,
        node: Node,
        claims: list[ResourceClaim],
        interrupted: Callable[[], str | None] | None = None,
    ) -> None:
        self.a = a
        self.interrupted = interrupted
        self.features = a.features
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[_Key, _RequestData] = {}
        self.constraints: list[list[Constraint]] = [[] for _ in claims]
        self.matches_cache: dict[tuple[DeviceID, _Key], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: ConsumedCapacityCollection = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        # consumedCompatibilityGroups: pool name -> counter set -> the devices placed so far.
        self.consumed_groups: dict[str, dict[str, Intersection]] = {}
        self.results: list[list[_DeviceResult]] = [[] for _ in claims]

    # -- setup ---------------------------------------------------------------------------------
    def run(self) -> list[AllocationResult]:
        a, features = self.a, self.features
        self.pools = a.pools_for(self.node)
        for ci, claim in enumerate(self.claims):
            min_devices = 0
            for ri, req in enumerate(claim.devices.requests):
                has_subs = bool(req.first_available)
                if not features.prioritized_list and has_subs:
                    raise AllocatorError(
                        f"claim {_kobj(claim)}, request {req.name}: has subrequests, but the "
                        "DRAPrioritizedList feature is disabled"
                    )
                if not features.consumable_capacity and a.channel != "stable":
                    if req.exactly is not None and req.exactly.capacity is not None:
                        raise AllocatorError(
                            f"claim {_kobj(claim)}, request {req.name}: has capacity requests, "
                            "but the DRAConsumableCapacity feature is disabled"
                        )
                    for sub in req.first_available:
                        if sub.capacity is not None:
                            raise AllocatorError(
                                f"claim {_kobj(claim)}, subrequest {sub.name}: has capacity "
                                "requests, but the DRAConsumableCapacity feature is disabled"
                            )
                if has_subs:
                    parent = _Request(req.name, "", "", 0, None, (), (), None)
                    fewest = min(
                        self._validate(_sub(sub), parent, (ci, ri, si))
                        for si, sub in enumerate(req.first_available)
                    )
                    min_devices += fewest
                else:
                    min_devices += self._validate(_exact(req), None, (ci, ri, 0))
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocatorError(
                    f"claim {_kobj(claim)}: number of requested devices {min_devices} exceeds "
                    f"the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            self.constraints[ci] = self._constraints(claim)
        try:
            done = self._allocate_one((0, 0, 0, 0), False, (0, 0, 0))
        except _MaxSizeExceeded:
            raise AllocatorError("allocation max size exceeded") from None
        if not done:
            if any(p.is_invalid for p in self.pools):
                raise AllocationFailedOnNodeError("invalid resource pools were encountered")
            return []
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def _constraints(self, claim: ResourceClaim) -> list[Constraint]:
        out: list[Constraint] = []
        list_type = self.features.list_type_attributes
        for i, c in enumerate(claim.devices.constraints):
            if c.match_attribute is not None:
                out.append(MatchAttributeConstraint(c.requests, c.match_attribute, list_type))
            elif c.distinct_attribute is not None and self.a.channel != "stable":
                out.append(DistinctAttributeConstraint(c.requests, c.distinct_attribute, list_type))
            else:
                raise AllocatorError(
                    f"claim {_kobj(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)"
                )
        return out

    def _validate(self, request: _Request, parent: _Request | None, key: _Key) -> int:
        """validateDeviceRequest: the class, the number of devices (all matching ones for
        mode All, which needs every pool complete and valid); returns that number."""
        claim = self.claims[key[0]]
        data = _RequestData(request, parent)
        self.request_data[key] = data
        if not self.features.admin_access and request.admin_access_field is not None:
            raise AllocatorError(
                f"claim {_kobj(claim)}, request {request.name}: admin access is requested, but "
                "the feature is disabled"
            )
        if not request.class_name:
            raise AllocatorError(
                f"claim {_kobj(claim)}, request {request.name}: missing device class name "
                "(unsupported request type?)"
            )
        cls = self.a.class_lister.get(request.class_name)
        if cls is None:
            raise AllocatorError(
                f"claim {_kobj(claim)}, request {request.name}: could not retrieve device class "
                f'{request.class_name}: deviceclass.resource.k8s.io "{request.class_name}" '
                "not found"
            )
        data.cls = cls
        if request.mode == "ExactCount":
            data.num_devices = request.count
        elif request.mode == "All":
            for pool in self.pools:
                if pool.is_incomplete:
                    raise AllocatorError(
                        f"claim {_kobj(claim)}, request {request.name}: asks for all devices, "
                        f"but resource pool {pool.id} is currently being updated"
                    )
                if pool.is_invalid:
                    raise AllocatorError(
                        f"claim {_kobj(claim)}, request {request.name}: asks for all devices, "
                        f"but resource pool {pool.id} is currently invalid"
                    )
                for s in pool.slices_targeting_node:
                    for device_id, d in zip(self.a.device_ids(s), s.devices, strict=True):
                        if not self._is_selectable(key, data, s, d, device_id):
                            continue
                        if self.features.consumable_capacity and not self._fits_capacity(
                            request, device_id, d
                        ):
                            continue
                        data.all_devices.append(_Located(device_id, d, s, pool))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocatorError(
                f"claim {_kobj(claim)}, request {request.name}: unsupported count mode {request.mode}"
            )
        return data.num_devices

    # -- the search ----------------------------------------------------------------------------
    def _allocate_one(
        self, r: tuple[int, int, int, int], allocate_sub: bool, start: tuple[int, int, int]
    ) -> bool:
        """allocateOne: True when everything from ``r`` on got allocated; raises
        _MaxSizeExceeded when no solution down this path stays within the result limit."""
        self.a._num_allocate_one += 1
        if self.interrupted is not None:
            reason = self.interrupted()
            if reason:
                raise AllocatorError(f"filter operation aborted: {reason}")
        ci, ri, si, di = r
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.devices.requests):
            try:
                return self._allocate_one((ci + 1, 0, 0, 0), False, (0, 0, 0))
            except _MaxSizeExceeded:
                return False
        key = (ci, ri, si)
        data = self.request_data[key]
        if not allocate_sub and data.parent is not None:
            all_exceeded = True
            sub_index = 0
            while (ci, ri, sub_index) in self.request_data:
                try:
                    ok = self._allocate_one((ci, ri, sub_index, di), True, (0, 0, 0))
                except _MaxSizeExceeded:
                    sub_index += 1
                    continue
                all_exceeded = False
                if ok:
                    data.selected_sub_index = sub_index
                    return True
                sub_index += 1
            if all_exceeded:
                raise _MaxSizeExceeded()
            return False
        request = data.request
        do_all = request.mode == "All"
        if do_all and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one((ci, ri + 1, 0, 0), False, (0, 0, 0))
        if len(self.results[ci]) + data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded()
        if do_all:
            undo = self._allocate_device(r, data.all_devices[di], True)
            if undo is None:
                return False
            try:
                done = self._allocate_one((ci, ri, si, di + 1), allocate_sub, (0, 0, 0))
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        admin = request.admin_access
        for pi in range(start[0], len(self.pools)):
            pool = self.pools[pi]
            if pool.is_incomplete or pool.is_invalid:
                continue
            slice_start = start[1] if pi == start[0] else 0
            slices = pool.slices_targeting_node
            for sl in range(slice_start, len(slices)):
                s = slices[sl]
                device_start = start[2] if pi == start[0] and sl == start[1] else 0
                ids = self.a.device_ids(s)
                for dx in range(device_start, len(s.devices)):
                    d = s.devices[dx]
                    device_id = ids[dx]
                    if admin and ci in self.allocating.get(device_id, ()):
                        continue
                    if not admin and self._in_use(device_id):
                        continue
                    if not self._is_selectable(key, data, s, d, device_id):
                        continue
                    if self.features.consumable_capacity and not self._fits_capacity(request, device_id, d):
                        continue
                    undo = self._allocate_device(r, _Located(device_id, d, s, pool), False)
                    if undo is None:
                        continue
                    try:
                        done = self._allocate_one((ci, ri, si, di + 1), allocate_sub, (pi, sl, dx + 1))
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _in_use(self, device_id: DeviceID) -> bool:
        """deviceInUse."""
        return device_id in self.a.allocated_state.allocated_devices or bool(self.allocating.get(device_id))

    def _capacity_in_use(self, device_id: DeviceID) -> bool:
        return (
            device_id in self.a.allocated_state.aggregated_capacity or device_id in self.allocating_capacity
        )

    def _fits_capacity(self, request: _Request, device_id: DeviceID, d: Device) -> bool:
        """CmpRequestOverCapacity (an error counts as not fitting, as upstream skips the device)."""
        if not d.capacity and not request.capacity:
            return True  # nothing to consume, nothing requested
        consumed = self.a.allocated_state.aggregated_capacity.get(device_id)
        if (not request.capacity and consumed is None and device_id not in self.allocating_capacity
                and not any(c.request_policy for c in d.capacity.values())):
            # Nothing requested, no policy, nothing consumed: each capacity is consumed whole
            # and fits exactly (the usual device, not shared); no Fraction arithmetic.
            return True
        fits = fits_capacity(
            consumed,
            request.capacity,
            d.capacity,
            self.allocating_capacity.get(device_id),
        )
        return bool(fits)

    def _is_selectable(
        self, key: _Key, data: _RequestData, s: ResourceSlice, d: Device, device_id: DeviceID
    ) -> bool:
        """isSelectable: binding conditions allowed, class and request selectors, per-device
        node selection; memoized per device and request."""
        if not self.features.device_binding_and_status and d.binding_conditions:
            return False
        mkey = (device_id, key)
        cached = self.matches_cache.get(mkey)
        if cached is not None:
            return cached
        cel = self.a.cel
        group = (data.cls.selectors if data.cls is not None else None, data.request.selectors)
        combined = cel.combined(group, device_id.driver, d)
        if combined is not None:
            ok = combined
        else:
            ok = True
            if data.cls is not None:
                ok = self._selectors_match(key, d, device_id, data.cls, data.cls.selectors)
            if ok:
                ok = self._selectors_match(key, d, device_id, None, data.request.selectors)
            cel.remember_combined(group, device_id.driver, d, ok)
        if ok and s.per_device_node_selection:
            from ._pools import node_matches

            ok = node_matches(self.node, d.node_name or "", bool(d.all_nodes), d.node_selector)
        self.matches_cache[mkey] = ok
        return ok

    def _selectors_match(
        self, key: _Key, d: Device, device_id: DeviceID, cls: DeviceClass | None, selectors: Sequence[str]
    ) -> bool:
        """selectorsMatch: every selector holds; a compile or runtime error is fatal."""
        for i, expression in enumerate(selectors):
            compiled = self.a.cel.compile(expression)
            if compiled.error is not None:
                raise AllocatorError(
                    f"{self._owner(key, cls)}: selector #{i}: CEL compile error: {compiled.error}"
                )
            try:
                if not self.a.cel.matches(compiled, device_id.driver, d):
                    return False
            except SelectorEvalError as exc:
                raise AllocatorError(
                    f"{self._owner(key, cls)}: selector #{i} on device {device_id}: CEL runtime error: {exc}"
                ) from exc
        return True

    def _owner(self, key: _Key, cls: DeviceClass | None) -> str:
        """Whose selector failed, for the error (formatted only then: the check is hot)."""
        return f"class {cls.name}" if cls is not None else f"claim {_kobj(self.claims[key[0]])}"

    def _allocate_device(self, r: tuple[int, int, int, int], loc: _Located, must: bool) -> Any:
        """allocateDevice: checks availability, counters, taints and constraints, records the
        device; returns the undo function, or None when the device cannot be used."""
        ci, ri, si, _ = r
        data = self.request_data[(ci, ri, si)]
        request = data.request
        device_id, d = loc.id, loc.device
        features = self.features
        shared = features.consumable_capacity and bool(d.allow_multiple_allocations)
        if not shared and request.admin_access and ci in self.allocating.get(device_id, ()):
            return None
        if not request.admin_access and self._in_use(device_id):
            return None
        if not features.partitionable_devices and d.consumes_counters:
            return None
        skip_counters = shared and self._capacity_in_use(device_id)
        if not skip_counters and d.consumes_counters and not self._take_counters(loc):
            return None
        restore_groups: Callable[[], None] | None = None
        if not skip_counters and d.consumes_counters:
            if features.compatibility_groups:
                restore_groups = self._take_groups(loc)
                if restore_groups is None:
                    self._give_back_counters(loc)
                    return None
            elif skip_when_disabled(d, self.a.allocated_state, lambda: self.a.compat_baseline(loc.pool)):
                self._give_back_counters(loc)
                return None
        if data.parent is None:
            base, sub = request.name, ""
        else:
            base, sub = data.parent.name, request.name
        if features.device_taints and d.taints and _taint_prevents(d, request.tolerations):
            # Upstream returns here without giving back the counters (and groups) just taken.
            return None
        constraints = self.constraints[ci]
        for i, c in enumerate(constraints):
            if not c.add(base, sub, d, device_id):
                if must:
                    raise AllocatorError(
                        f"claim {_kobj(self.claims[ci])}, request {request.name}: cannot add "
                        f"device {device_id} because a claim constraint would not be satisfied"
                    )
                for prev in constraints[:i]:
                    prev.remove(base, sub, d, device_id)
                return None
        if not shared:
            self.allocating.setdefault(device_id, set()).add(ci)
        consumed: ConsumedCapacity = {}
        share_id: str | None = None
        if features.consumable_capacity:
            if not self._fits_capacity(request, device_id, d):
                # Upstream returns here too without undoing what was recorded.
                return None
            if shared:
                consumed = consumed_from_request(request.capacity, d.capacity)
                share_id = _new_share_id()
                insert_consumed(self.allocating_capacity, device_id, consumed)
        result = _DeviceResult(
            request.name,
            data.parent.name if data.parent else "",
            loc,
            share_id,
            consumed or None,
            True if request.admin_access else None,
            snapshot(d) if features.compatibility_groups else None,
        )
        results = self.results[ci]
        previous = len(results)
        results.append(result)

        def undo() -> None:
            if restore_groups is not None:
                restore_groups()
            for c in constraints:
                c.remove(base, sub, d, device_id)
            claims = self.allocating.get(device_id)
            if claims is not None:
                claims.discard(ci)
            if shared:
                # As upstream, an allocation that consumed nothing leaves its (empty) entry.
                if result.consumed is not None:
                    remove_consumed(self.allocating_capacity, device_id, result.consumed)
            elif features.partitionable_devices and d.consumes_counters:
                self._give_back_counters(loc)
            del results[previous:]

        return undo

    def _take_counters(self, loc: _Located) -> bool:
        """checkAvailableCounters: consume the device's counters; False (and nothing taken)
        when some counter of the pool would be exceeded."""
        available = self.a.available_counters(loc.pool)
        consumed = self.consumed_counters.setdefault(loc.pool.id.pool, {})
        for c in loc.device.consumes_counters:
            # A counter of the device's own already short: the full check below would fail
            # too; answered without the Fraction sums over every counter of the pool.
            avail_set, used_set = available.get(c.counter_set), consumed.get(c.counter_set, {})
            if avail_set is not None:
                for name, value in c.counters.items():
                    left = avail_set.get(name)
                    if left is None:
                        continue
                    taken = used_set.get(name)
                    if left < (value if taken is None else taken + value):
                        return False
        for c in loc.device.consumes_counters:
            per_set = consumed.setdefault(c.counter_set, {})
            for name, value in c.counters.items():
                per_set[name] = per_set.get(name, Fraction(0)) + value
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for name, value in counters.items():
                if value < used.get(name, Fraction(0)):
                    self._give_back_counters(loc)
                    return False
        return True

    def _take_groups(self, loc: _Located) -> Callable[[], None] | None:
        """checkAndConsumeCompatibilityGroups: for each counter set the device consumes, the
        device must be admitted by the devices placed there (allocated ones, then this
        search's); if so they are folded in and the function restoring them is returned,
        else None (nothing changed)."""
        running = self.consumed_groups.setdefault(loc.pool.id.pool, {})
        baseline = self.a.compat_baseline(loc.pool)
        saved: list[tuple[str, Intersection | None]] = []

        def restore() -> None:
            for name, prev in reversed(saved):
                if prev is None:
                    running.pop(name, None)
                else:
                    running[name] = prev

        for c in loc.device.consumes_counters:
            prev = running.get(c.counter_set)
            cur = prev if prev is not None else baseline.get(c.counter_set, Intersection())
            groups = frozenset(c.compatibility_groups)
            if not cur.admits(groups):
                restore()
                return None
            saved.append((c.counter_set, prev))
            running[c.counter_set] = cur.add(groups)
        return restore

    def _give_back_counters(self, loc: _Located) -> None:
        """deallocateCountersForDevice."""
        consumed = self.consumed_counters.get(loc.pool.id.pool, {})
        for c in loc.device.consumes_counters:
            per_set = consumed.setdefault(c.counter_set, {})
            for name, value in c.counters.items():
                per_set[name] = per_set.get(name, Fraction(0)) - value

    # -- results -------------------------------------------------------------------------------
    def _result(self, ci: int, claim: ResourceClaim) -> AllocationResult:
        devices = self.results[ci]
        bindings = self.features.device_binding_and_status
        results = tuple(
            DeviceRequestAllocationResult(
                request=r.request_name(),
                driver=r.located.id.driver,
                pool=r.located.id.pool,
                device=r.located.id.device,
                admin_access=r.admin_access,
                tolerations=self._tolerations(claim, r),
                share_id=r.share_id,
                consumed_capacity=dict(r.consumed) if r.consumed is not None else None,
                binding_conditions=r.located.device.binding_conditions if bindings else (),
                binding_failure_conditions=r.located.device.binding_failure_conditions if bindings else (),
                compatibility_groups=r.groups,
            )
            for r in devices
        )
        return AllocationResult(results, self._configs(ci, claim), self._node_selector(claim, devices), None)

    @staticmethod
    def _tolerations(claim: ResourceClaim, r: _DeviceResult) -> tuple[DeviceToleration, ...]:
        """lookupRequest(claim).tolerations()."""
        name = r.parent or r.request
        for req in claim.devices.requests:
            if req.name != name:
                continue
            if not r.parent:
                return req.exactly.tolerations if req.exactly is not None else ()
            for sub in req.first_available:
                if sub.name == r.request:
                    return sub.tolerations
        return ()

    def _selected(self, ci: int, ri: int) -> _RequestData:
        data = self.request_data[(ci, ri, 0)]
        if data.parent is not None:
            data = self.request_data[(ci, ri, data.selected_sub_index)]
        return data

    def _configs(self, ci: int, claim: ResourceClaim) -> tuple[dict[str, Any], ...]:
        """The class configs (once per class, for the requests using it) then the claim's
        configs that apply to an allocated request; a config for every request names none."""
        classes = [self._selected(ci, ri).cls for ri in range(len(claim.devices.requests))]
        if not claim.devices.config and not any(c is not None and c.config for c in classes):
            return ()
        configs: list[dict[str, Any]] = []
        class_ranges: dict[str, tuple[int, int]] = {}
        for ri in range(len(claim.devices.requests)):
            data = self._selected(ci, ri)
            if data.cls is None:
                continue
            name = data.request_name()
            span = class_ranges.get(data.cls.name)
            if span is not None:
                for i in range(*span):
                    configs[i]["requests"].append(name)
                continue
            start = len(configs)
            for cfg in data.cls.config:
                configs.append({"source": "FromClass", "requests": [name], "opaque": _opaque(cfg)})
            class_ranges[data.cls.name] = (start, len(configs))
        requests = claim.devices.requests
        for cfg in claim.devices.config:
            if not cfg.requests:
                configs.append({"source": "FromClaim", "requests": [], "opaque": _opaque(cfg)})
                continue
            for ri, req in enumerate(requests):
                if req.name in cfg.requests:
                    configs.append(
                        {"source": "FromClaim", "requests": list(cfg.requests), "opaque": _opaque(cfg)}
                    )
                    break
                data = self.request_data[(ci, ri, 0)]
                if data.parent is None:
                    continue
                sub = req.first_available[data.selected_sub_index]
                if f"{req.name}/{sub.name}" in cfg.requests:
                    configs.append(
                        {"source": "FromClaim", "requests": list(cfg.requests), "opaque": _opaque(cfg)}
                    )
                    break
        for c in configs:
            names = c["requests"]
            if names and all(self._covers(names, ci, ri, req) for ri, req in enumerate(requests)):
                c["requests"] = []
        return tuple({k: v for k, v in c.items() if k != "requests" or v} for c in configs)

    def _covers(self, names: list[str], ci: int, ri: int, req: Any) -> bool:
        if req.name in names:
            return True
        data = self.request_data[(ci, ri, 0)]
        if data.parent is None:
            return False
        sub = req.first_available[data.selected_sub_index]
        return f"{req.name}/{sub.name}" in names

    def _node_selector(self, claim: ResourceClaim, devices: Sequence[_DeviceResult]) -> NodeSelector | None:
        """createNodeSelector: pinned to this node when a device is local to it (or binds to
        it), else the requirements of the slices' node selectors, else None (any node)."""
        fields: list[NodeSelectorRequirement] = []
        exprs: list[NodeSelectorRequirement] = []
        for r in devices:
            s, d = r.located.slice, r.located.device
            node_name, selector = (
                (d.node_name, d.node_selector)
                if s.per_device_node_selection
                else (s.node_name, s.node_selector)
            )
            if node_name or d.binds_to_node:
                return NodeSelector(
                    (
                        NodeSelectorTerm(
                            match_fields=(NodeSelectorRequirement("metadata.name", "In", (self.node.name,)),)
                        ),
                    )
                )
            if selector is None or not selector.terms:
                continue
            if len(selector.terms) > 1:
                raise AllocatorError(
                    f"create NodeSelector for claim {claim.name}: unsupported ResourceSlice.NodeSelector "
                    f"with {len(selector.terms)} terms"
                )
            term = selector.terms[0]
            _add_new(term.match_fields, fields)
            _add_new(term.match_expressions, exprs)
        if fields or exprs:
            return NodeSelector((NodeSelectorTerm(tuple(exprs), tuple(fields)),))
        return None


def _add_new(source: Sequence[NodeSelectorRequirement], to: list[NodeSelectorRequirement]) -> None:
    """addNewNodeSelectorRequirements: requirements not present yet (same key, operator, values)."""
    for req in source:
        if not any(
            x.key == req.key and x.operator == req.operator and set(x.values) == set(req.values) for x in to
        ):
            to.append(req)


def _opaque(cfg: Any) -> dict[str, Any]:
    return {"driver": cfg.driver, "parameters": cfg.parameters}
