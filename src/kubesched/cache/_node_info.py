"""NodeInfo: one node and what its pods use, aggregated.

Mirrors pkg/scheduler/framework/types.go NodeInfo (master 2026):

- ``requested`` sums the pods' ``resource.PodRequests`` (cpu, memory, ephemeral-storage and the
  scalar resources upstream's ``Resource`` tracks); ``non_zero_requested`` holds cpu/memory with
  the scoring defaults for missing container requests (``Non0CPU``/``Non0Mem``).
- ``allocatable`` is ``NewResource(node.status.allocatable)``: the same resource names, plus pods.
- ``pods_with_affinity`` lists pods whose spec has a ``podAffinity`` or ``podAntiAffinity``
  (even empty), ``pods_with_required_anti_affinity`` those with required anti-affinity terms, and
  ``pods_with_required_non_host_scoped_anti_affinity`` those with a required anti-affinity term
  whose topologyKey is not ``kubernetes.io/hostname`` (InterPodAffinityHostnameFastPath).
- Removing a pod swaps the last pod into its slot (``removeFromSlice``), so pod order matches
  upstream's after removals.
- ``generation`` increases on every change so the snapshot copies only changed nodes; a node
  holding many pods also logs the changes to its pod list, so that the snapshot's copy of it is
  brought up to date by replaying them rather than by copying every pod (``_PodLog``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import Node, Pod, PodAffinityTerm, ResourceList, WeightedPodAffinityTerm

__all__ = [
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "PodInfo",
    "is_scalar_resource_name",
    "next_generation",
    "tracked_resources",
]

_generation = itertools.count(1)

LABEL_HOSTNAME = "kubernetes.io/hostname"
_NATIVE = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})


def next_generation() -> int:
    """A process-wide increasing counter, as upstream's nextGeneration (atomic int64): generations
    never collide, even for a node deleted and added back under the same name (issue 63262)."""
    return next(_generation)


def is_scalar_resource_name(name: str) -> bool:
    """v1helper.IsScalarResourceName: extended (``domain/name``), prefixed native
    (``kubernetes.io/...``), ``hugepages-*`` and ``attachable-volumes-*`` resources."""
    return "/" in name or name.startswith(("hugepages-", "attachable-volumes-"))


def tracked_resources(rl: Mapping[str, int]) -> ResourceList:
    """The part of a resource list that upstream's ``Resource.Add`` keeps: cpu, memory,
    ephemeral-storage, pods and scalar resources; other names are dropped."""
    return {k: v for k, v in rl.items() if k in _NATIVE or is_scalar_resource_name(k)}


def _tracked_view(rl: ResourceList) -> ResourceList:
    """``rl`` itself when every name is tracked (the common case; callers never mutate it),
    else the tracked part."""
    for k in rl:
        if k not in _NATIVE and not is_scalar_resource_name(k):
            return tracked_resources(rl)
    return rl


def _affinity_raw(pod: Pod) -> Mapping[str, Any]:
    spec = pod.raw.get("spec") or {}
    return spec.get("affinity") or {}


class PodInfo:
    """A pod with what the scheduler derives from it once (framework.PodInfo): its resource
    requests (``CalculateResource``, cached as newest upstream does), PVC keys, and which
    affinity lists of a NodeInfo it belongs to. Computed eagerly: a PodInfo is built for every
    assumed pod, so this is on the scheduling hot path."""

    __slots__ = ("has_affinity", "has_required_anti_affinity", "has_required_non_host_scoped_anti_affinity",
                 "non0", "pod", "pvc_keys", "resource")

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.resource: ResourceList = _tracked_view(pod.requests)
        nz = pod.non_zero_requests
        self.non0: tuple[int, int] = (nz.get("cpu", 0), nz.get("memory", 0))
        claims = pod.pvc_names
        ns = pod.namespace
        self.pvc_keys: tuple[str, ...] = tuple(dict.fromkeys(f"{ns}/{c}" for c in claims)) if claims else ()
        a = pod.affinity
        if a is None:
            self.has_affinity = self.has_required_anti_affinity = False
            self.has_required_non_host_scoped_anti_affinity = False
        else:
            # podWithAffinity tests the podAffinity / podAntiAffinity pointers, not the term lists.
            raw = _affinity_raw(pod)
            self.has_affinity = raw.get("podAffinity") is not None or raw.get("podAntiAffinity") is not None
            self.has_required_anti_affinity = bool(a.pod_anti_affinity_required)
            self.has_required_non_host_scoped_anti_affinity = any(
                t.topology_key != LABEL_HOSTNAME for t in a.pod_anti_affinity_required
            )

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"

    def rebound(self, pod: Pod) -> PodInfo:
        """``PodInfo(pod)`` for ``pod`` derived from ``self.pod`` by edits that re-parse none of
        what a PodInfo reads (binding: nodeName, status, resourceVersion). When ``pod`` carries
        the very same parsed containers, overhead, pod-level requests, volumes and affinity (and
        the same affinity manifest, name and namespace), every value computed for ``self.pod``
        is its value; otherwise they are computed afresh."""
        old = self.pod
        if (pod.containers is not old.containers or pod.init_containers is not old.init_containers
                or pod.overhead is not old.overhead or pod.pod_level_requests is not old.pod_level_requests
                or pod.volumes is not old.volumes or pod.affinity is not old.affinity
                or (pod.affinity is not None and _affinity_raw(pod) is not _affinity_raw(old))
                or pod.meta.name != old.meta.name or pod.meta.namespace != old.meta.namespace):
            return PodInfo(pod)
        new = PodInfo.__new__(PodInfo)
        new.pod = pod
        new.resource = self.resource
        new.non0 = self.non0
        new.pvc_keys = self.pvc_keys
        new.has_affinity = self.has_affinity
        new.has_required_anti_affinity = self.has_required_anti_affinity
        new.has_required_non_host_scoped_anti_affinity = self.has_required_non_host_scoped_anti_affinity
        return new

    @property
    def required_affinity_terms(self) -> tuple[PodAffinityTerm, ...]:
        a = self.pod.affinity
        return a.pod_affinity_required if a else ()

    @property
    def required_anti_affinity_terms(self) -> tuple[PodAffinityTerm, ...]:
        a = self.pod.affinity
        return a.pod_anti_affinity_required if a else ()

    @property
    def preferred_affinity_terms(self) -> tuple[WeightedPodAffinityTerm, ...]:
        a = self.pod.affinity
        return a.pod_affinity_preferred if a else ()

    @property
    def preferred_anti_affinity_terms(self) -> tuple[WeightedPodAffinityTerm, ...]:
        a = self.pod.affinity
        return a.pod_anti_affinity_preferred if a else ()


@dataclass(frozen=True, slots=True)
class ImageStateSummary:
    """An image on a node: its size and on how many nodes it is (for ImageLocality's spread)."""

    size: int
    num_nodes: int


class HostPortInfo:
    """Used host ports: ip -> set of (protocol, port), with 0.0.0.0 as the wildcard.

    Mirrors fwk.HostPortInfo (types.go): a set per ip, not a count, so removing one of two pods
    that use the same ip/protocol/port frees it, as upstream; CheckConflict treats 0.0.0.0 as
    conflicting with every ip for the same protocol and port."""

    DEFAULT_IP = "0.0.0.0"

    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return (ip or HostPortInfo.DEFAULT_IP, protocol or "TCP")

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self._ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        m = self._ports.get(ip)
        if m is None:
            return
        m.discard((protocol, port))
        if not m:
            del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == self.DEFAULT_IP:
            return any(pp in m for m in self._ports.values())
        return pp in self._ports.get(ip, ()) or pp in self._ports.get(self.DEFAULT_IP, ())

    def items(self) -> list[tuple[str, str, int]]:
        """(ip, protocol, port) triples, sorted (for tests and dumps)."""
        return sorted((ip, proto, port) for ip, m in self._ports.items() for proto, port in m)

    def __len__(self) -> int:
        return sum(len(m) for m in self._ports.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HostPortInfo) and self._ports == other._ports

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> HostPortInfo:
        c = HostPortInfo()
        if self._ports:
            c._ports = {ip: set(m) for ip, m in self._ports.items()}
        return c


def _index_of(lst: list[PodInfo], uid: str) -> int:
    """The slot of ``uid`` in ``lst``, or -1.

    Searched from the end: uids are unique, so the slot found is upstream's, and the pod removed
    most often (an assumed pod replaced by its bound self) was added last; a node holding
    thousands of pods (a DaemonSet-style workload) is then not scanned on every bind."""
    for i in range(len(lst) - 1, -1, -1):
        if lst[i].pod.uid == uid:
            return i
    return -1


def _remove_at(lst: list[PodInfo], i: int) -> PodInfo:
    """removeFromSlice: swap the last element into the removed slot."""
    pi = lst[i]
    last = lst.pop()
    if i < len(lst):
        lst[i] = last
    return pi


def _remove_from(lst: list[PodInfo], uid: str) -> PodInfo | None:
    """removeFromSlice by uid (see :func:`_index_of`); None when absent."""
    i = _index_of(lst, uid)
    return None if i < 0 else _remove_at(lst, i)


_APPEND = -1
"""The slot of a pod-list log entry that appends (see :class:`_PodLog`)."""

_LOG_MIN_PODS = 64
"""Nodes with fewer pods keep no log: copying their pod list is as cheap as replaying."""

_LOG_KEEP = 32
"""Entries kept when a log is trimmed; a snapshot older than those copies the whole list."""


class _PodLog:
    """The changes to a cached NodeInfo's ``pods`` list since generation ``base``: entries
    ``(generation after the change, slot removed or _APPEND, PodInfo appended)``.

    UpdateSnapshot clones the pod slice of every changed node (cheap in Go); here a node holding
    tens of thousands of pods (SchedulingDaemonset) would copy them all every cycle. Replaying
    the few changes made since the snapshot's copy onto the snapshot's own list gives the same
    list (same order: removals replay removeFromSlice's swap) in time proportional to the changes.
    The snapshot's list is never shared with the cache, so it stays isolated from later changes."""

    __slots__ = ("base", "entries")

    def __init__(self, base: int) -> None:
        self.base = base
        self.entries: list[tuple[int, int, PodInfo | None]] = []

    def record(self, generation: int, slot: int, pi: PodInfo | None) -> None:
        entries = self.entries
        entries.append((generation, slot, pi))
        if len(entries) > 2 * _LOG_KEEP:
            self.base = entries[-_LOG_KEEP - 1][0]
            del entries[:-_LOG_KEEP]

    def since(self, generation: int) -> list[tuple[int, int, PodInfo | None]] | None:
        """The entries after ``generation`` (a generation this log's node had), or None when
        some were trimmed."""
        if generation < self.base:
            return None
        entries = self.entries
        i = len(entries)
        while i > 0 and entries[i - 1][0] > generation:
            i -= 1
        return entries[i:]


@dataclass(eq=False)
class NodeInfo:
    node: Node | None = None
    pods: list[PodInfo] = field(default_factory=list)
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    requested: ResourceList = field(default_factory=dict)
    non_zero_requested: ResourceList = field(default_factory=dict)
    allocatable: ResourceList = field(default_factory=dict)
    used_ports: HostPortInfo = field(default_factory=HostPortInfo)
    # Shared, never mutated in place: the cache replaces the dict when image counts change.
    image_states: dict[str, ImageStateSummary] = field(default_factory=dict)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)  # "ns/claim" -> pods using it
    generation: int = field(default_factory=next_generation)
    pods_with_required_non_host_scoped_anti_affinity: list[PodInfo] = field(default_factory=list)
    # Changes to ``pods`` (kept once the node holds many pods) and, on a snapshot copy, the log
    # of the NodeInfo it was copied from: see _PodLog and update_into.
    _log: _PodLog | None = field(default=None, repr=False)
    _log_src: _PodLog | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        node = self.node  # read on every node of every cycle: one attribute chain, no property
        return node.meta.name if node is not None else ""

    def set_node(self, node: Node) -> None:
        """SetNode: the node object and its allocatable (NewResource)."""
        self.node = node
        self.allocatable = tracked_resources(node.allocatable)
        self.generation = next_generation()

    def remove_node(self) -> None:
        """RemoveNode: drop the node object, keep the pods (a "ghost" until they are gone)."""
        self.node = None
        self.generation = next_generation()

    def add_pod(self, pod: Pod) -> None:
        self.add_pod_info(PodInfo(pod))

    def add_pod_info(self, pi: PodInfo) -> None:
        """NodeInfo.AddPodInfo."""
        self.pods.append(pi)
        if pi.has_affinity:
            self.pods_with_affinity.append(pi)
            if pi.has_required_anti_affinity:
                self.pods_with_required_anti_affinity.append(pi)
                if pi.has_required_non_host_scoped_anti_affinity:
                    self.pods_with_required_non_host_scoped_anti_affinity.append(pi)
        self._update(pi, 1)
        self._log_change(_APPEND, pi)

    def _log_change(self, slot: int, pi: PodInfo | None) -> None:
        """Log the change just made to ``pods`` (at the current generation); a node that has
        just reached _LOG_MIN_PODS pods by an append starts its log."""
        log = self._log
        if log is not None:
            log.record(self.generation, slot, pi)
        elif slot == _APPEND and len(self.pods) >= _LOG_MIN_PODS:
            self._log = _PodLog(self.generation)

    def remove_pod(self, pod: Pod) -> bool:
        """NodeInfo.RemovePod, by uid. The affinity lists are filtered according to ``pod``'s
        own spec, as upstream. False when the pod is not on this node."""
        uid = pod.uid
        if self.pods_with_affinity and pod.affinity is not None:
            probe = PodInfo(pod)
            if probe.has_affinity:
                _remove_from(self.pods_with_affinity, uid)
            if probe.has_required_anti_affinity:
                _remove_from(self.pods_with_required_anti_affinity, uid)
            if probe.has_required_non_host_scoped_anti_affinity:
                _remove_from(self.pods_with_required_non_host_scoped_anti_affinity, uid)
        i = _index_of(self.pods, uid)
        if i < 0:
            return False
        self._update(_remove_at(self.pods, i), -1)
        self._log_change(i, None)
        return True

    def replace_pod(self, old: Pod, new: Pod) -> bool:
        """``remove_pod(old)`` then ``add_pod(new)`` (the cache confirming an assumed pod),
        with the same end state: the slot swap, the append, two generations. When both count
        the same (requests, no affinity, ports or claims: the bound copy of an assumed pod) the
        sums are left as they are instead of being subtracted and added back, and the PodInfo
        is derived from the old one (PodInfo.rebound). False when ``old`` is not on this node
        (nothing changed)."""
        pods = self.pods
        i = len(pods) - 1
        if i < 0 or pods[i].pod is not old:  # (the assumed pod was usually added last)
            i = _index_of(pods, old.uid)
            if i < 0:
                return False
        prev = pods[i]
        pi = prev.rebound(new) if prev.pod is old else PodInfo(new)
        # (the same non0 object: rebound reused everything, host ports included)
        if (pi.has_affinity or prev.has_affinity or prev.pvc_keys or pi.pvc_keys
                or (self.pods_with_affinity and old.affinity is not None) or prev.pod.host_ports
                or (pi.non0 is not prev.non0
                    and (prev.non0 != pi.non0 or prev.resource != pi.resource or pi.pod.host_ports))):
            self.remove_pod(old)
            self.add_pod_info(pi)
            return True
        _remove_at(pods, i)
        self.generation = next_generation()
        self._log_change(i, None)
        pods.append(pi)
        self.generation = next_generation()
        self._log_change(_APPEND, pi)
        return True

    def _update(self, pi: PodInfo, sign: int) -> None:
        """NodeInfo.update: requested, non-zero requested, ports, PVC counts, generation."""
        req = self.requested
        for k, v in pi.resource.items():
            req[k] = req.get(k, 0) + sign * v
        cpu, mem = pi.non0
        nz = self.non_zero_requested
        nz["cpu"] = nz.get("cpu", 0) + sign * cpu
        nz["memory"] = nz.get("memory", 0) + sign * mem
        pod = pi.pod
        ports = pod.host_ports
        if ports:
            for p in ports:
                if sign > 0:
                    self.used_ports.add(p.host_ip, p.protocol, p.host_port)
                else:
                    self.used_ports.remove(p.host_ip, p.protocol, p.host_port)
        keys = pi.pvc_keys
        if keys:
            counts = self.pvc_ref_counts
            for key in keys:
                n = counts.get(key, 0) + sign
                if n > 0:
                    counts[key] = n
                else:
                    counts.pop(key, None)
        self.generation = next_generation()

    def copy_into(self, dst: NodeInfo) -> None:
        """Overwrite ``dst`` with a snapshot copy of this NodeInfo, keeping ``dst``'s identity
        (UpdateSnapshot's ``*existing = *clone``). ``image_states`` is shared (never mutated)."""
        dst.pods = list(self.pods)
        self._copy_rest_into(dst)

    def update_into(self, dst: NodeInfo) -> None:
        """:meth:`copy_into` for ``dst`` holding an earlier copy of this NodeInfo (a snapshot's
        node): its own ``pods`` list is brought up to date by replaying the logged changes since
        ``dst.generation`` when there are few, instead of being copied whole."""
        log = self._log
        if log is not None and dst._log_src is log:
            changes = log.since(dst.generation)
            pods = dst.pods
            if changes is not None and pods is not self.pods:
                for _, slot, pi in changes:
                    if slot == _APPEND:
                        pods.append(pi)  # type: ignore[arg-type]
                    else:
                        _remove_at(pods, slot)
                if len(pods) == len(self.pods):
                    self._copy_rest_into(dst)
                    return
        self.copy_into(dst)

    def _copy_rest_into(self, dst: NodeInfo) -> None:
        """copy_into without the pod list."""
        dst.node = self.node
        dst._log = None
        dst._log_src = self._log
        dst.pods_with_affinity = list(self.pods_with_affinity)
        dst.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        dst.pods_with_required_non_host_scoped_anti_affinity = list(
            self.pods_with_required_non_host_scoped_anti_affinity
        )
        dst.requested = dict(self.requested)
        dst.non_zero_requested = dict(self.non_zero_requested)
        dst.allocatable = dict(self.allocatable)
        dst.used_ports = self.used_ports.copy()
        dst.image_states = self.image_states
        dst.pvc_ref_counts = dict(self.pvc_ref_counts)
        dst.generation = self.generation

    def snapshot_copy(self) -> NodeInfo:
        """NodeInfo.Snapshot: a copy whose lists and maps can be changed independently."""
        c = NodeInfo.__new__(NodeInfo)
        self.copy_into(c)
        return c

    @staticmethod
    def of(node: Node | None, pods: Iterable[Pod] = ()) -> NodeInfo:
        ni = NodeInfo()
        if node is not None:
            ni.set_node(node)
        for p in pods:
            ni.add_pod(p)
        return ni
