"""What the structured allocator answered per node, kept across scheduling cycles for the
batch Filter path.

Upstream runs ``Allocate`` on every node Filter visits (dynamicresources.go Filter); so does
kubesched's per-node path. Its answer for a node is a pure function of the claims' device
requests, the node, the slices (with DeviceTaintRules applied), the device classes, the
feature gates and the devices already allocated in the pools the node sees. A stream of pods
with claims from one template asks the same question of every node again and again while one
node at a time changes, so the batch path asks this memo first and the allocator only when
one of those inputs changed:

- a new slice list, class set or gate set (``world``) forgets everything;
- a device allocated or freed in a pool that belongs to one node (all its slices name that
  node) forgets that node; in any other pool, everything;
- a node object that is not the one the answer was computed for (labels changed) misses;
- claims are told apart by their ``spec.devices`` (the allocator reads nothing else of an
  unallocated claim for the results it returns).

Never used (the allocator runs as upstream's) while a device allows multiple allocations
(shares get fresh IDs per Allocate call) or shared-device state is in use. Only the outcomes
"allocated" and "does not fit on this node" are kept: errors that abort the pod are not.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Final

from kubesched.api import AllocationResult, Node, ResourceClaim, ResourceSlice
from kubesched.dra.structured import AllocatedState, DeviceID

__all__ = ["NodeAllocationMemo", "Outcome"]

Outcome = list[AllocationResult] | str
"""The allocations of the claims on the node, or the reason they do not fit there."""

MAX_CLAIM_KEYS: Final = 64
_SHARED: Final = ""  # the pool owner of a pool whose slices do not all name one node


class NodeAllocationMemo:
    """One per plugin; :meth:`begin_cycle` once per scheduling cycle, then :meth:`get` /
    :meth:`put` per node (single-threaded: the batch path)."""

    def __init__(self) -> None:
        self._world: tuple[object, ...] | None = None
        self._usable = False
        self._pool_node: dict[tuple[str, str], str] = {}
        self._allocated: set[DeviceID] = set()
        self._claim_keys: dict[Hashable, int] = {}
        self._entries: dict[int, dict[str, tuple[Node, Outcome]]] = {}  # claims key -> node name -> answer

    def begin_cycle(self, world: tuple[object, ...], slices: Sequence[ResourceSlice],
                    allocated: AllocatedState, claims: Sequence[ResourceClaim]) -> int | None:
        """Bring the memo up to date with this cycle's inputs; the key of ``claims`` for
        :meth:`get` / :meth:`put`, or None when the memo must not be used this cycle."""
        if world != self._world:  # tuples compare elements by identity first: cheap
            self._reset(world, slices)
        if not self._usable or allocated.allocated_shared_device_ids or allocated.aggregated_capacity:
            self._allocated = set()
            self._entries.clear()
            return None
        self._forget_changed(allocated.allocated_devices)
        try:
            key: Hashable = tuple(c.devices for c in claims)
            if key not in self._claim_keys and len(self._claim_keys) >= MAX_CLAIM_KEYS:
                self._claim_keys.clear()  # bounded: answers for that many request shapes at most
                self._entries.clear()
            return self._claim_keys.setdefault(key, len(self._claim_keys))
        except TypeError:  # a request with an unhashable part (an opaque config): no memo
            return None

    def get(self, node: Node, key: int) -> Outcome | None:
        hit = self._entries.get(key, {}).get(node.name)
        if hit is None or hit[0] is not node:
            return None
        return hit[1]

    def answers(self, key: int) -> dict[str, tuple[Node, Outcome]]:
        """The answers kept for ``key`` by node name, each with the node object it is for
        (a caller must check that it is the node it asks about). Read-only."""
        return self._entries.get(key, {})

    def put(self, node: Node, key: int, outcome: Outcome) -> None:
        self._entries.setdefault(key, {})[node.name] = (node, outcome)

    # -- internals -------------------------------------------------------------------------------
    def _reset(self, world: tuple[object, ...], slices: Sequence[ResourceSlice]) -> None:
        self._world = world
        self._entries.clear()
        self._allocated = set()
        self._claim_keys.clear()
        self._pool_node = {}
        self._usable = True
        for s in slices:
            pool = (s.driver, s.pool.name)
            owner = s.node_name or _SHARED
            if self._pool_node.setdefault(pool, owner) != owner:
                self._pool_node[pool] = _SHARED
            if any(d.allow_multiple_allocations for d in s.devices):
                self._usable = False

    def _forget_changed(self, now: set[DeviceID]) -> None:
        """Drop the answers that the devices allocated or freed since the last cycle can change."""
        before = self._allocated
        if now is not before and now != before:
            for device in now ^ before:
                owner = self._pool_node.get((device.driver, device.pool), _SHARED)
                if owner == _SHARED:
                    self._entries.clear()
                    break
                for answers in self._entries.values():
                    answers.pop(owner, None)
        self._allocated = now
