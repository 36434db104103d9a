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
  node) forgets that node; in any other pool, everything. The devices that changed come
  from the DRA manager's journals (:meth:`DRAManager.changed_devices`), not from comparing
  the whole allocated set with the last cycle's;
- a node object that is not the one the answer was computed for (labels changed) misses;
- claims are told apart by their ``spec.devices`` (the allocator reads nothing else of an
  unallocated claim for the results it returns).

Never used (the allocator runs as upstream's) while a device allows multiple allocations
(shares get fresh IDs per Allocate call) or shared-device state is in use. Only the outcomes
"allocated" and "does not fit on this node" are kept: errors that abort the pod are not.

When every slice names its node (the usual driver publishing per node), an answer depends on
the node's name alone, and :meth:`NodeAllocationMemo.columns` keeps the answers of a claims
key as arrays over the snapshot's rows as well: the batch Filter then reads the answers of
all candidate nodes with one fancy index and asks the allocator only where an entry is
missing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from kubesched.api import AllocationResult, Node, ResourceClaim, ResourceSlice
from kubesched.dra.structured import AllocatedState, DeviceID
from kubesched.plugins.helper.dra import JournalPosition

__all__ = ["Columns", "NodeAllocationMemo", "Outcome"]

Outcome = list[AllocationResult] | str
"""The allocations of the claims on the node, or the reason they do not fit there."""

MAX_CLAIM_KEYS: Final = 64
_SHARED: Final = ""  # the pool owner of a pool whose slices do not all name one node


ChangedDevices = Callable[[JournalPosition | None, JournalPosition | None], set[DeviceID] | None]
UNKNOWN: Final = -1  # Columns.reason: no answer kept for the row
FITS: Final = 0  # Columns.reason: the claims fit on the node (its allocations are in the memo)


@dataclass(slots=True)
class Columns:
    """The answers of one claims key by snapshot row: ``reason[row]`` is UNKNOWN, FITS, or
    the index + 1 in ``reasons`` of the reason the claims do not fit. ``names`` is the
    snapshot's node-name list the rows are of (compared by identity)."""

    names: list[str]
    index: dict[str, int]
    reason: npt.NDArray[np.int32]
    reasons: list[str] = field(default_factory=list)
    reason_ids: dict[str, int] = field(default_factory=dict)

    def set(self, name: str, outcome: Outcome | None) -> None:
        row = self.index.get(name)
        if row is None:
            return
        if outcome is None:
            self.reason[row] = UNKNOWN
        elif isinstance(outcome, str):
            rid = self.reason_ids.get(outcome)
            if rid is None:
                self.reasons.append(outcome)
                rid = self.reason_ids[outcome] = len(self.reasons)
            self.reason[row] = rid
        else:
            self.reason[row] = FITS


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
        self._position: JournalPosition | None = None
        self._node_local = False  # every slice names its node: an answer depends on its name only
        self._columns: dict[int, Columns] = {}

    def begin_cycle(self, world: tuple[object, ...], slices: Sequence[ResourceSlice],
                    allocated: AllocatedState, claims: Sequence[ResourceClaim],
                    position: JournalPosition | None = None,
                    changed_devices: ChangedDevices | None = None) -> int | None:
        """Bring the memo up to date with this cycle's inputs; the key of ``claims`` for
        :meth:`get` / :meth:`put`, or None when the memo must not be used this cycle.

        ``position`` is where the DRA manager's journals stood when it computed ``allocated``,
        ``changed_devices`` its :meth:`~DRAManager.changed_devices`; without them (or when the
        journals cannot tell) the whole allocated set is compared with the last cycle's."""
        if world != self._world:  # tuples compare elements by identity first: cheap
            self._reset(world, slices)
        if not self._usable or allocated.allocated_shared_device_ids or allocated.aggregated_capacity \
                or allocated.allocated_compatibility_groups:
            self._allocated = set()
            self._position = None
            self._clear()
            return None
        changed = None
        if changed_devices is not None and position is not None and self._position is not None:
            changed = changed_devices(self._position, position)
        if changed is not None:
            self._forget(changed)
        else:
            self._forget_changed(allocated.allocated_devices)
        self._allocated = allocated.allocated_devices
        self._position = position
        try:
            key: Hashable = tuple(c.devices for c in claims)
            if key not in self._claim_keys and len(self._claim_keys) >= MAX_CLAIM_KEYS:
                self._claim_keys.clear()  # bounded: answers for that many request shapes at most
                self._clear()
            return self._claim_keys.setdefault(key, len(self._claim_keys))
        except TypeError:  # a request with an unhashable part (an opaque config): no memo
            return None

    def columns(self, key: int, names: list[str], index: dict[str, int]) -> Columns | None:
        """The answers for ``key`` over the rows of a snapshot whose node names (in row order)
        are ``names`` and ``index`` (name -> row); None unless every slice names its node."""
        if not self._node_local:
            return None
        cols = self._columns.get(key)
        if cols is None or cols.names is not names:
            cols = Columns(names, index, np.full(len(names), UNKNOWN, dtype=np.int32))
            for name, (_, outcome) in self._entries.get(key, {}).items():
                cols.set(name, outcome)
            self._columns[key] = cols
        return cols

    def outcome(self, key: int, name: str) -> Outcome | None:
        """The answer kept for ``key`` on the node named ``name`` whatever its node object
        (valid while :meth:`columns` answers: every slice names its node)."""
        hit = self._entries.get(key, {}).get(name)
        return None if hit is None else hit[1]

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
        cols = self._columns.get(key)
        if cols is not None:
            cols.set(node.name, outcome)

    # -- internals -------------------------------------------------------------------------------
    def _reset(self, world: tuple[object, ...], slices: Sequence[ResourceSlice]) -> None:
        self._world = world
        self._clear()
        self._allocated = set()
        self._position = None
        self._claim_keys.clear()
        self._pool_node = {}
        self._usable = True
        self._node_local = True
        for s in slices:
            pool = (s.driver, s.pool.name)
            owner = s.node_name or _SHARED
            if owner == _SHARED:
                self._node_local = False
            if self._pool_node.setdefault(pool, owner) != owner:
                self._pool_node[pool] = _SHARED
            if any(d.allow_multiple_allocations for d in s.devices):
                self._usable = False

    def _clear(self) -> None:
        self._entries.clear()
        self._columns.clear()

    def _forget_changed(self, now: set[DeviceID]) -> None:
        """Drop the answers that the devices allocated or freed since the last cycle can change."""
        before = self._allocated
        if now is not before and now != before:
            self._forget(now ^ before)

    def _forget(self, devices: set[DeviceID]) -> None:
        """Drop the answers that a change of ``devices`` can change."""
        owners = set()
        for device in devices:
            owner = self._pool_node.get((device.driver, device.pool), _SHARED)
            if owner == _SHARED:
                self._clear()
                return
            owners.add(owner)
        for owner in owners:
            for answers in self._entries.values():
                answers.pop(owner, None)
            for cols in self._columns.values():
                cols.set(owner, None)
