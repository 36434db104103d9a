"""Which pools a node sees, and whether they can be used (structured/internal/*/pools_*.go).

GatherPools: the slices of one node (its own and those without a node name), grouped by
(driver, pool), only the newest generation of each; a pool whose slices on this node are not
all there is looked up among all slices: obsolete (a newer generation exists) pools are
dropped, still-incomplete ones are kept as *incomplete* (never allocated from, and a request
for "All" devices fails), and a pool with duplicate device names or broken counter
references is *invalid*. Pools are sorted by driver and pool name, pools with binding
conditions last, so allocation is deterministic.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ...api import CounterSet, Device, Node, NodeSelector, ResourceSlice
from ._types import DeviceID, Features

__all__ = ["Pool", "PoolCache", "PoolID", "available_counters", "gather_pools", "node_matches"]


@dataclass(frozen=True, slots=True, order=True)
class PoolID:
    driver: str
    pool: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}"


@dataclass(slots=True)
class Pool:
    """One pool as the allocator sees it from one node."""

    id: PoolID
    is_incomplete: bool = False
    is_invalid: bool = False
    invalid_reason: str = ""
    slices_targeting_node: list[ResourceSlice] = field(default_factory=list)
    slices_not_targeting_node: list[ResourceSlice] = field(default_factory=list)
    counter_sets: Mapping[str, CounterSet] = field(default_factory=dict)


def node_matches(
    node: Node | None, node_name: str, all_nodes: bool, node_selector: NodeSelector | None
) -> bool:
    """NodeMatches: a node name, all nodes, or a node selector (nodeaffinity semantics)."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if node_selector is not None:
        return node is not None and node_selector.matches(node.name, node.labels)
    return False


def _device_matches(node: Node, d: Device) -> bool:
    return node_matches(node, d.node_name or "", bool(d.all_nodes), d.node_selector)


def _relevant(s: ResourceSlice, node: Node) -> bool | None:
    """Whether a slice is for ``node`` (None: a slice with no node selection at all, skipped)."""
    if s.node_name or s.all_nodes or s.node_selector is not None:
        return node_matches(node, s.node_name or "", s.all_nodes, s.node_selector)
    if s.per_device_node_selection:
        return any(_device_matches(node, d) for d in s.devices)
    return None


def gather_pools(
    slices_for_node: Sequence[ResourceSlice],
    node: Node,
    features: Features,
    all_slices: Sequence[ResourceSlice],
) -> list[Pool]:
    """GatherPools."""
    result, with_binding_conditions = _pools_of(_group(slices_for_node, node, features), features, all_slices)
    return result + with_binding_conditions


def _group(
    slices: Sequence[ResourceSlice], node: Node, features: Features
) -> dict[PoolID, list[ResourceSlice]]:
    """GatherPools' first loop: the slices for ``node``, by pool, newest generation only."""
    pools: dict[PoolID, list[ResourceSlice]] = {}
    for s in slices:
        if not features.partitionable_devices and (s.per_device_node_selection or s.shared_counters):
            continue
        if _relevant(s, node):
            _add_slice(pools, s)
    return pools


def _pools_of(
    pools: Mapping[PoolID, list[ResourceSlice]], features: Features, all_slices: Sequence[ResourceSlice]
) -> tuple[list[Pool], list[Pool]]:
    """GatherPools' second loop: each pool built, checked against all slices when not all of
    its slices are here; (pools without binding conditions, those with), each sorted."""
    result: list[Pool] = []
    with_binding_conditions: list[Pool] = []
    for pool_id, pool_slices in pools.items():
        first = pool_slices[0].pool
        if len(pool_slices) == first.resource_slice_count:
            pool = _build_pool(pool_id, pool_slices, features, ())
        else:
            obsolete, all_for_pool = _slices_in_pool(all_slices, pool_id, first.generation)
            if obsolete:
                continue
            if len(all_for_pool) != first.resource_slice_count:
                result.append(Pool(pool_id, is_incomplete=True))
                continue
            pool = _build_pool(pool_id, pool_slices, features, all_for_pool)
        (with_binding_conditions if _has_binding_conditions(pool) else result).append(pool)
    result.sort(key=_pool_key)
    with_binding_conditions.sort(key=_pool_key)
    return result, with_binding_conditions


def _pool_key(p: Pool) -> tuple[str, str]:
    return (p.id.driver, p.id.pool)


def _selector_label_keys(selector: NodeSelector | None, keys: set[str]) -> bool:
    """Adds the label keys ``selector`` reads to ``keys``; whether it reads the node name."""
    if selector is None:
        return False
    reads_name = False
    for term in selector.terms:
        keys.update(r.key for r in term.match_expressions)
        reads_name = reads_name or bool(term.match_fields)
    return reads_name


class PoolCache:
    """GatherPools for many nodes over one fixed set of slices, without redoing the work per
    node: the slices without a node name (often pools selected by a label, seen by every
    node) are matched and built into pools once per distinct *view*, i.e. the values of
    the node labels their selectors read (and the node name when one reads it), and only
    the node's own slices are added per node. Same result as :func:`gather_pools` on the
    node's slices: when a node's own slices share a pool with the shared ones, that node
    takes the plain path. The slices are immutable for the cache's lifetime (it is kept per
    slice tuple, see the allocator's slice index); the pool lists returned are read-only."""

    def __init__(
        self,
        slices_on_node: Mapping[str, list[ResourceSlice]],
        shared: Sequence[ResourceSlice],
        all_slices: Sequence[ResourceSlice],
    ) -> None:
        self.slices_on_node = slices_on_node
        self.shared = shared
        self.all_slices = all_slices
        keys: set[str] = set()
        reads_name = False
        for s in shared:
            if s.node_name or s.all_nodes:
                continue
            if s.node_selector is not None:
                reads_name = _selector_label_keys(s.node_selector, keys) or reads_name
            elif s.per_device_node_selection:
                for d in s.devices:
                    reads_name = reads_name or bool(d.node_name)
                    reads_name = _selector_label_keys(d.node_selector, keys) or reads_name
        self._label_keys = tuple(sorted(keys))
        self._reads_name = reads_name
        self._views: dict[Hashable, tuple[dict[PoolID, list[ResourceSlice]], list[Pool], list[Pool]]] = {}
        self.device_ids: dict[int, tuple[ResourceSlice, list[DeviceID]]] = {}
        """The IDs of each slice's devices (see StructuredAllocator.device_ids)."""

    def _view(self, node: Node, features: Features) -> Hashable:
        labels = node.labels
        return (
            features,
            node.name if self._reads_name else None,
            tuple((k in labels, labels.get(k)) for k in self._label_keys),
        )

    def shared_view(self, node: Node, features: Features) -> Hashable | None:
        """What ``node``'s pools and the devices usable on it depend on when it has no slices
        of its own and no shared slice reads node names: nodes with the same view see the
        same pools and devices (None otherwise)."""
        if self._reads_name or self.slices_on_node.get(node.name):
            return None
        return self._view(node, features)

    def pools_for(self, node: Node, features: Features) -> list[Pool]:
        """GatherPools(node)."""
        view = self._view(node, features)
        entry = self._views.get(view)
        if entry is None:
            groups = _group(self.shared, node, features)
            plain, binding = _pools_of(groups, features, self.all_slices)
            entry = (groups, plain, binding)
            self._views[view] = entry
        groups, plain, binding = entry
        own = self.slices_on_node.get(node.name)
        if not own:
            return plain + binding
        own_groups = _group(own, node, features)
        if any(pid in groups for pid in own_groups):
            return gather_pools([*own, *self.shared], node, features, self.all_slices)
        own_plain, own_binding = _pools_of(own_groups, features, self.all_slices)
        if own_plain:
            plain = list(plain)
            for p in own_plain:
                bisect.insort(plain, p, key=_pool_key)
        if own_binding:
            binding = list(binding)
            for p in own_binding:
                bisect.insort(binding, p, key=_pool_key)
        return plain + binding


def _add_slice(pools: dict[PoolID, list[ResourceSlice]], s: ResourceSlice) -> None:
    """addSlice: only the newest generation of a pool is kept."""
    pid = PoolID(s.driver, s.pool.name)
    current = pools.get(pid)
    if current is None or s.pool.generation > current[0].pool.generation:
        pools[pid] = [s]
    elif s.pool.generation == current[0].pool.generation:
        current.append(s)


def _slices_in_pool(
    all_slices: Sequence[ResourceSlice], pid: PoolID, generation: int
) -> tuple[bool, list[ResourceSlice]]:
    """checkSlicesInPool: (obsolete, the slices of this generation anywhere)."""
    out = []
    for s in all_slices:
        if s.driver != pid.driver or s.pool.name != pid.pool:
            continue
        if s.pool.generation == generation:
            out.append(s)
        elif s.pool.generation > generation:
            return True, []
    return False, out


def _build_pool(
    pid: PoolID, slices: list[ResourceSlice], features: Features, all_for_pool: Sequence[ResourceSlice]
) -> Pool:
    """buildPool: device slices (sorted by name), counter-set slices, and the pool's slices on
    other nodes (their allocated devices consume shared counters too); validated."""
    slices = sorted(slices, key=lambda s: s.name)
    device_slices: list[ResourceSlice] = []
    counter_slices: list[ResourceSlice] = []
    for s in slices:
        (counter_slices if features.partitionable_devices and s.shared_counters else device_slices).append(s)
    not_targeting: list[ResourceSlice] = []
    if len(slices) < len(all_for_pool):
        names = {s.name for s in slices}
        for s in all_for_pool:
            if s.name in names:
                continue
            (
                counter_slices if features.partitionable_devices and s.shared_counters else not_targeting
            ).append(s)

    def invalid(reason: str) -> Pool:
        return Pool(pid, is_invalid=True, invalid_reason=reason)

    problem = _duplicate_device(device_slices)
    if problem:
        return invalid(problem)
    if not features.partitionable_devices:
        return Pool(pid, slices_targeting_node=device_slices)
    counter_sets: dict[str, CounterSet] = {}
    for s in counter_slices:
        for cs in s.shared_counters:
            if cs.name in counter_sets:
                return invalid(f"duplicate counter set name {cs.name}")
            counter_sets[cs.name] = cs
    problem = _counter_consumption_problem(counter_sets, device_slices) or _counter_consumption_problem(
        counter_sets, not_targeting
    )
    if problem:
        return invalid(problem)
    return Pool(
        pid,
        slices_targeting_node=device_slices,
        slices_not_targeting_node=not_targeting,
        counter_sets=counter_sets,
    )


def _duplicate_device(slices: Sequence[ResourceSlice]) -> str:
    seen: set[str] = set()
    for s in slices:
        for d in s.devices:
            if d.name in seen:
                return f"duplicate device name {d.name}"
            seen.add(d.name)
    return ""


def _counter_consumption_problem(
    counter_sets: Mapping[str, CounterSet], slices: Sequence[ResourceSlice]
) -> str:
    """validateDeviceCounterConsumption: every consumed counter exists."""
    for s in slices:
        for d in s.devices:
            for c in d.consumes_counters:
                cs = counter_sets.get(c.counter_set)
                if cs is None:
                    return f"counter set {c.counter_set} not found"
                for name in c.counters:
                    if name not in cs.counters:
                        return f"counter {name} not found in counter set {cs.name}"
    return ""


def _has_binding_conditions(pool: Pool) -> bool:
    return any(d.binding_conditions for s in pool.slices_targeting_node for d in s.devices)


def available_counters(
    pool: Pool, is_allocated: Callable[[DeviceID], bool]
) -> dict[str, dict[str, Fraction]]:
    """The pool's counters less what its allocated devices (on any node) consume
    (checkAvailableCounters' first part); ``is_allocated`` says which devices are. The result
    may go negative: that reads as nothing left."""
    out = {name: dict(cs.counters) for name, cs in pool.counter_sets.items()}
    for s in (*pool.slices_targeting_node, *pool.slices_not_targeting_node):
        for d in s.devices:
            if not d.consumes_counters or not is_allocated(DeviceID(s.driver, s.pool.name, d.name)):
                continue
            for c in d.consumes_counters:
                avail = out.get(c.counter_set)
                if avail is None:
                    continue
                for name, value in c.counters.items():
                    if name in avail:
                        avail[name] -= value
    return out
