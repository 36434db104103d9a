"""The scheduler cache: node infos aggregated from assigned and assumed pods.

Mirrors pkg/scheduler/backend/cache/cache.go (master 2026):

- Pods reach the cache from the store's events (``add_pod``/``update_pod``/``remove_pod``, for
  pods with ``spec.nodeName``) or from the scheduler (``assume_pod`` after a placement decision,
  ``forget_pod`` when Reserve/Permit/binding fails). An assumed pod is *confirmed* when the store
  reports it bound (``add_pod`` of an assumed pod replaces it, on whatever node it landed).
- Removing a node that still has pods keeps a "ghost" NodeInfo (``node`` is None) until the pods'
  delete events arrive; ghosts are left out of snapshots.
- Nodes are kept in most-recently-updated order (upstream's doubly linked list with ``headNode``;
  here an ordered dict whose *end* is the head) so that :meth:`Cache.update_snapshot` walks only
  the nodes whose generation is newer than the snapshot's.

Assumed-pod expiry: newest upstream no longer expires assumed pods (``durationToExpireAssumedPod``
was 0 since issue 106361, and FinishBinding / cleanupAssumedPods were later removed). ``ttl=0``
(the default) keeps that behaviour; a positive ``ttl`` restores the older one: once
``finish_binding`` is called, a pod not confirmed within ``ttl`` seconds on the injected clock is
removed. Upstream polled every second and expired pods strictly after the deadline; we set a
timer for the deadline itself, so expiry time does not depend on the poll phase.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ..api import Node, Pod
from ..clock import Clock, Timer
from ._images import ImageRegistry
from ._node_info import NodeInfo, PodInfo
from ._node_tree import NodeTree
from ._pod_groups import PodGroupStates
from ._snapshot import Snapshot

__all__ = ["Cache", "CacheDump", "CacheError"]


class CacheError(RuntimeError):
    """An operation the cache refuses (upstream returns an error; for the "cache is corrupted"
    cases upstream exits the process)."""


@dataclass(slots=True)
class _PodState:
    pod: Pod
    binding_finished: bool = False
    deadline: float | None = None
    timer: Timer | None = None


@dataclass(frozen=True, slots=True)
class CacheDump:
    """Dump: copies of every NodeInfo (ghosts included) and the assumed pod keys."""

    nodes: dict[str, NodeInfo]
    assumed_pods: frozenset[str] = field(default_factory=frozenset)


class Cache:
    """Node infos, assumed pods and the node tree; keeps snapshots up to date incrementally.

    Thread-safe: every public method holds one re-entrant lock, so live mode (informer threads,
    binding goroutine equivalents, RealClock timers) can share it."""

    def __init__(self, clock: Clock, ttl: float = 0.0,
                 on_expired: Callable[[Pod], None] | None = None) -> None:
        if ttl < 0:
            raise ValueError(f"ttl must not be negative, got {ttl}")
        self._clock = clock
        self._ttl = float(ttl)
        self._on_expired = on_expired
        self._lock = threading.RLock()
        self._nodes: OrderedDict[str, NodeInfo] = OrderedDict()  # last = most recently updated
        self._tree = NodeTree()
        self._tree_version = 0
        self._pod_states: dict[str, _PodState] = {}
        self._assumed: set[str] = set()
        self._images = ImageRegistry()
        self._image_version: dict[str, int] = {}  # node name -> registry version of its image_states
        self.pod_groups = PodGroupStates()  # members of each pod group (GangScheduling reads them)

    @property
    def ttl(self) -> float:
        return self._ttl

    # -- pods -------------------------------------------------------------------
    def assume_pod(self, pod: Pod) -> None:
        """AssumePod: account ``pod`` (``node_name`` set) on its node before it is bound."""
        key = pod.uid
        with self._lock:
            if key in self._pod_states:
                raise CacheError(f"pod {key}({pod.key}) is in the cache, so can't be assumed")
            self._add_pod(pod, assume=True)
            self.pod_groups.assume_pod(pod)

    def finish_binding(self, pod: Pod) -> None:
        """FinishBinding (older upstream): the binding call returned; start the expiry deadline
        (only when ``ttl`` > 0)."""
        key = pod.uid
        with self._lock:
            state = self._pod_states.get(key)
            if state is None or key not in self._assumed:
                return
            state.binding_finished = True
            if self._ttl > 0:
                state.deadline = self._clock.now + self._ttl
                if state.timer is not None:
                    state.timer.cancel()
                state.timer = self._clock.schedule(self._ttl, lambda: self._expire(key, state))

    def forget_pod(self, pod: Pod) -> None:
        """ForgetPod: undo ``assume_pod``. A pod no longer in the cache is fine; a pod that is
        not assumed, or assumed on another node, is an error."""
        key = pod.uid
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                return
            self._validate_assumed(pod, key, state)
            self._remove_pod(pod)
            self.pod_groups.forget_pod(pod)

    def remove_assumed_pod(self, pod: Pod) -> None:
        """RemoveAssumedPod: the assumed pod was deleted from the cluster."""
        self.forget_pod(pod)

    def add_pod(self, pod: Pod) -> None:
        """AddPod: the store reports an assigned pod. An assumed pod is confirmed (replaced by
        the bound object, moved if it was bound elsewhere); a pod already added is an error."""
        key = pod.uid
        with self._lock:
            state = self._pod_states.get(key)
            if state is not None and key in self._assumed:
                self._confirm(state, pod)
            elif state is None:
                self._add_pod(pod, assume=False)
            else:
                raise CacheError(f"pod {key}({pod.key}) was already in added state")
            self.pod_groups.add_pod(pod)

    def update_pod(self, old: Pod, new: Pod) -> None:
        """UpdatePod: an added (not assumed) pod changed; it cannot change nodes."""
        key = old.uid
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    f"pod {key}({old.key}) is not added to scheduler cache, so cannot be updated")
            if key in self._assumed:
                raise CacheError(f"assumed pod {key}({old.key}) should not be updated")
            if state.pod.node_name != new.node_name:
                raise CacheError(
                    f"pod {key}({old.key}) updated on a different node than previously added to; "
                    "scheduler cache is corrupted"
                )
            self._update_pod(old, new)

    def remove_pod(self, pod: Pod) -> None:
        """RemovePod: the store deleted an assigned pod (removed as cached, wherever that is)."""
        key = pod.uid
        with self._lock:
            state = self._pod_states.get(key)
            if state is None:
                raise CacheError(
                    f"pod {key}({pod.key}) is not found in scheduler cache, so cannot be removed from it")
            if state.pod.node_name != pod.node_name and pod.node_name:
                raise CacheError(
                    f"pod {key}({pod.key}) was added to node {state.pod.node_name!r} but removed from "
                    f"{pod.node_name!r}; scheduler cache is corrupted"
                )
            self._remove_pod(state.pod)
            self.pod_groups.delete_pod(pod)

    def is_assumed_pod(self, pod: Pod) -> bool:
        with self._lock:
            return pod.uid in self._assumed

    def get_pod(self, pod: Pod) -> Pod | None:
        """GetPod: the cached object (possibly on a removed node); None when absent (upstream
        returns an error)."""
        with self._lock:
            state = self._pod_states.get(pod.uid)
            return None if state is None else state.pod

    def cleanup_assumed_pods(self, now: float | None = None) -> list[Pod]:
        """cleanupAssumedPods: expire assumed pods whose binding finished and whose deadline is
        before ``now`` (default: the clock's now). Returns the expired pods."""
        with self._lock:
            t = self._clock.now if now is None else now
            due = [
                key for key in self._assumed
                if (s := self._pod_states[key]).binding_finished and s.deadline is not None and t > s.deadline
            ]
            expired = [self._expire_now(key) for key in sorted(due)]
        self._notify_expired(expired)
        return expired

    def _expire(self, key: str, state: _PodState) -> None:
        with self._lock:
            if self._pod_states.get(key) is not state or key not in self._assumed:
                return
            state.timer = None
            expired = [self._expire_now(key)]
        self._notify_expired(expired)

    def _expire_now(self, key: str) -> Pod:
        pod = self._pod_states[key].pod
        self._remove_pod(pod)
        self.pod_groups.forget_pod(pod)
        return pod

    def _notify_expired(self, pods: list[Pod]) -> None:
        """Outside the lock, so that the callback may call back into the cache or take its
        own locks without deadlocking."""
        if self._on_expired is not None:
            for pod in pods:
                self._on_expired(pod)

    def _validate_assumed(self, pod: Pod, key: str, state: _PodState) -> None:
        if state.pod.node_name != pod.node_name:
            raise CacheError(
                f"pod {key}({pod.key}) was assumed on {pod.node_name} but assigned to {state.pod.node_name}")
        if key not in self._assumed:
            raise CacheError(f"pod {key}({pod.key}) is not assumed, so it cannot be removed or forgotten")

    def _add_pod(self, pod: Pod, assume: bool) -> None:
        pi = PodInfo(pod)  # first: what it derives from the pod can fail; nothing changed yet
        name = pod.node_name
        ni = self._nodes.get(name)
        if ni is None:
            ni = self._nodes[name] = NodeInfo()
        ni.add_pod_info(pi)
        self._nodes.move_to_end(name)
        self._pod_states[pod.uid] = _PodState(pod)
        if assume:
            self._assumed.add(pod.uid)

    def _confirm(self, state: _PodState, pod: Pod) -> None:
        """AddPod of an assumed pod: ``_update_pod(assumed, pod)``. Bound where it was assumed
        (the usual case) the NodeInfo swaps the pod in place (NodeInfo.replace_pod, same end
        state as removePod + addPod); otherwise the two steps run as they are."""
        old = state.pod
        name = pod.node_name
        ni = self._nodes.get(name) if old.node_name == name else None
        if ni is None or ni.node is None or not ni.replace_pod(old, pod):
            self._update_pod(old, pod)
            return
        nodes = self._nodes
        nodes.move_to_end(name)
        if state.timer is not None:
            state.timer.cancel()
        uid = old.uid
        states = self._pod_states
        del states[uid]  # removePod, then addPod: the state moves to the end
        self._assumed.discard(uid)
        states[pod.uid] = _PodState(pod)

    def _update_pod(self, old: Pod, new: Pod) -> None:
        self._remove_pod(old)
        self._add_pod(new, assume=False)

    def _remove_pod(self, pod: Pod) -> None:
        """removePod: also drops a ghost node once its last pod is gone."""
        name = pod.node_name
        ni = self._nodes.get(name)
        if ni is not None:
            if not ni.remove_pod(pod):
                raise CacheError(f"no corresponding pod {pod.name} in pods of node {name}")
            if not ni.pods and ni.node is None:
                del self._nodes[name]
            else:
                self._nodes.move_to_end(name)
        state = self._pod_states.pop(pod.uid, None)
        if state is not None and state.timer is not None:
            state.timer.cancel()
        self._assumed.discard(pod.uid)

    # -- nodes ------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        """AddNode (also used for a node seen again: its images are re-registered)."""
        with self._lock:
            ni = self._nodes.get(node.name)
            if ni is None:
                ni = self._nodes[node.name] = NodeInfo()
            else:
                self._images.remove_node(ni.node)
                self._nodes.move_to_end(node.name)
            if self._tree.add_node(node):
                self._tree_version += 1
            self._images.add_node(node)
            ni.set_node(node)

    def update_node(self, old: Node | None, new: Node) -> None:
        """UpdateNode: re-file it in the node tree when its zone changed.

        Upstream removes the node's image states and adds them again; when the image list is
        unchanged (most node updates are status heartbeats) that leaves every state as it was,
        so it is skipped here: the image counts do not change, and no node's image states are
        recomputed for nothing."""
        with self._lock:
            ni = self._nodes.get(new.name)
            same_images = False
            if ni is None:
                ni = self._nodes[new.name] = NodeInfo()
                if self._tree.add_node(new):
                    self._tree_version += 1
            else:
                same_images = ni.node is not None and ni.node.images == new.images
                if not same_images:
                    self._images.remove_node(ni.node)
                self._nodes.move_to_end(new.name)
            if self._tree.update_node(old, new):
                self._tree_version += 1
            if not same_images:
                self._images.add_node(new)
            ni.set_node(new)

    def remove_node(self, node: Node) -> None:
        """RemoveNode: out of the tree and snapshots at once; the NodeInfo stays as a ghost
        while pods remain (their delete events may come later on another watch)."""
        with self._lock:
            ni = self._nodes.get(node.name)
            if ni is None:
                raise CacheError(f"node {node.name} is not found")
            ni.remove_node()
            if not ni.pods:
                del self._nodes[node.name]
            else:
                self._nodes.move_to_end(node.name)
            removed = self._tree.remove_node(node)
            if removed:
                self._tree_version += 1
            self._images.remove_node(node)
            self._image_version.pop(node.name, None)
            if not removed:
                raise CacheError(f"node {node.name!r} was not found in the node tree")

    # -- inspection -------------------------------------------------------------
    def node_count(self) -> int:
        """NodeCount: NodeInfos in the cache, ghosts included."""
        with self._lock:
            return len(self._nodes)

    def pod_count(self) -> int:
        """PodCount: pods on every NodeInfo, ghosts included."""
        with self._lock:
            return sum(len(ni.pods) for ni in self._nodes.values())

    def assumed_pod_count(self) -> int:
        with self._lock:
            return len(self._assumed)

    def sizes(self) -> dict[str, int]:
        """updateMetrics' values for ``scheduler_scheduler_cache_size{type}``: assumed_pods,
        pods (every pod state, assumed included) and nodes (NodeInfos, ghosts included)."""
        with self._lock:
            return {"assumed_pods": len(self._assumed), "pods": len(self._pod_states),
                    "nodes": len(self._nodes)}

    def image_count(self) -> int:
        """Distinct image names over all nodes (len(imageStates))."""
        with self._lock:
            return len(self._images)

    def node(self, name: str) -> Node | None:
        """The Node object the cache holds for ``name`` (None: no such node, or a ghost)."""
        with self._lock:
            ni = self._nodes.get(name)
            return None if ni is None else ni.node

    def get_node_info(self, name: str) -> NodeInfo:
        """GetNode: a copy of the cached NodeInfo (tests and debugging)."""
        with self._lock:
            ni = self._nodes.get(name)
            if ni is None:
                raise CacheError(f"node {name} does not exist in scheduler cache")
            self._refresh_images(name, ni)
            return ni.snapshot_copy()

    def dump(self) -> CacheDump:
        """Dump: expensive; for debugging, never on the scheduling path."""
        with self._lock:
            nodes = {}
            for name, ni in self._nodes.items():
                self._refresh_images(name, ni)
                nodes[name] = ni.snapshot_copy()
            return CacheDump(nodes, frozenset(self._assumed))

    def node_tree_order(self) -> list[str]:
        with self._lock:
            return self._tree.list()

    def _refresh_images(self, name: str, ni: NodeInfo) -> None:
        """Recompute the node's image summaries if any image's node set changed since."""
        v = self._images.version
        if self._image_version.get(name) != v:
            self._image_version[name] = v
            ni.image_states = self._images.summaries(name) if ni.node is not None else {}

    # -- snapshot ---------------------------------------------------------------
    def update_snapshot(self, snapshot: Snapshot) -> None:
        """UpdateSnapshot: bring ``snapshot`` up to date, touching only what changed.

        Walks nodes from the most recently updated and stops at the first whose generation
        the snapshot already has; each changed node is copied into the snapshot's NodeInfo
        object (identity kept, so lists need no rebuild; a node with many pods replays its
        logged pod-list changes onto the snapshot's own list, NodeInfo.update_into) and its
        column row rewritten. The node
        list (and column order) is rebuilt only when the node tree changed; a node that gained
        or lost pods with affinity is inserted into / removed from the affinity lists in place
        (upstream re-scans every node).

        Deviation: upstream re-lists only when a node was added to or removed from the
        snapshot's map, so a node whose zone changed, or that was deleted and re-added between
        two cycles, keeps its old position until the next add/remove; we re-list on any tree
        change so the order always equals the tree's.

        All or nothing: an update that fails half-way (an error copying a node or writing its
        column row) resets the snapshot before the error goes up, so the next update rebuilds
        it whole from the cache instead of building on rows that no longer match the node list
        (which failed every later cycle with an index error).
        """
        with self._lock:
            try:
                self._update_snapshot(snapshot)
            except CacheError:
                raise  # the inconsistency check: the snapshot was re-listed already
            except Exception:
                snapshot.reset()
                raise

    def _update_snapshot(self, snapshot: Snapshot) -> None:
        with self._lock:  # (held already: re-entrant)
            snap_gen = snapshot.generation
            smap = snapshot._map
            update_all = snapshot.tree_version != self._tree_version
            flipped: list[tuple[NodeInfo, tuple[bool, bool, bool]]] = []
            changed: list[NodeInfo] = []
            nodes = self._nodes
            for name in reversed(nodes):
                ni = nodes[name]
                if ni.generation <= snap_gen:
                    break
                if ni.node is None:
                    continue
                existing = smap.get(name)
                if existing is None:
                    update_all = True
                    existing = smap[name] = NodeInfo.__new__(NodeInfo)
                    had = (False, False, False)
                else:
                    had = (bool(existing.pods_with_affinity), bool(existing.pods_with_required_anti_affinity),
                           bool(existing.pods_with_required_non_host_scoped_anti_affinity))
                    if existing.pvc_ref_counts:
                        snapshot.add_pvc_counts(existing.pvc_ref_counts, -1)
                if self._images.version != self._image_version.get(name):
                    self._refresh_images(name, ni)
                ni.update_into(existing)
                if existing.pvc_ref_counts:
                    snapshot.add_pvc_counts(existing.pvc_ref_counts, 1)
                if had != (bool(existing.pods_with_affinity), bool(existing.pods_with_required_anti_affinity),
                           bool(existing.pods_with_required_non_host_scoped_anti_affinity)):
                    flipped.append((existing, had))
                changed.append(existing)
            if nodes:
                snapshot.generation = nodes[next(reversed(nodes))].generation
            snapshot.last_update = (snap_gen, changed)

            if len(smap) > self._tree.num_nodes:
                self._remove_deleted_nodes_from_snapshot(snapshot)
                update_all = True

            if update_all:
                self._relist(snapshot, {id(ni) for ni in changed})
            else:
                for ni, had in flipped:
                    snapshot.update_affinity_membership(ni, had)
                if changed:
                    index = snapshot.node_index
                    fill = snapshot.columns.fill_row
                    for ni in changed:
                        fill(index[ni.name], ni)

            if len(snapshot.node_info_list) != self._tree.num_nodes:
                msg = ("snapshot state is not consistent, length of NodeInfoList="
                       f"{len(snapshot.node_info_list)} "
                       f"not equal to length of nodes in tree={self._tree.num_nodes}, length of NodeInfoMap="
                       f"{len(smap)}, length of nodes in cache={len(nodes)}, trying to recover")
                self._relist(snapshot, {id(ni) for ni in smap.values()})
                raise CacheError(msg)

    def _relist(self, snapshot: Snapshot, dirty: set[int]) -> None:
        smap = snapshot._map
        names = [name for name in self._tree.list() if name in smap]
        snapshot.set_node_list([smap[name] for name in names], dirty, names)
        snapshot.tree_version = self._tree_version

    def _remove_deleted_nodes_from_snapshot(self, snapshot: Snapshot) -> None:
        smap = snapshot._map
        for name in [n for n in smap if (ni := self._nodes.get(n)) is None or ni.node is None]:
            gone = smap.pop(name)
            if gone.pvc_ref_counts:
                snapshot.add_pvc_counts(gone.pvc_ref_counts, -1)
