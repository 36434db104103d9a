"""NodeInfo: one node and what its pods use, aggregated.

Mirrors pkg/scheduler/framework/types.go NodeInfo (master 2026). Requested resources are the
sum of the pods' ``PodRequests``; non-zero requested uses the scoring defaults for pods that
request no cpu/memory. ``generation`` increases on every change so the snapshot copies only
changed nodes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from ..api import Node, Pod, PodAffinityTerm
from ..api._resources import ResourceList

__all__ = ["HostPortInfo", "ImageStateSummary", "NodeInfo", "PodInfo", "next_generation"]

_generation = itertools.count(1)


def next_generation() -> int:
    """A process-wide increasing counter, as upstream's nextGeneration (atomic int64)."""
    return next(_generation)


@dataclass(eq=False)
class PodInfo:
    """A pod with its parsed affinity terms (framework.PodInfo)."""

    pod: Pod

    @cached_property
    def required_affinity_terms(self) -> tuple[PodAffinityTerm, ...]:
        a = self.pod.affinity
        return a.pod_affinity_required if a else ()

    @cached_property
    def required_anti_affinity_terms(self) -> tuple[PodAffinityTerm, ...]:
        a = self.pod.affinity
        return a.pod_anti_affinity_required if a else ()

    @property
    def has_affinity(self) -> bool:
        a = self.pod.affinity
        return bool(a and (a.pod_affinity_required or a.pod_affinity_preferred
                           or a.pod_anti_affinity_required or a.pod_anti_affinity_preferred))

    @property
    def has_required_anti_affinity(self) -> bool:
        return bool(self.required_anti_affinity_terms)


@dataclass(frozen=True, slots=True)
class ImageStateSummary:
    """An image on a node: its size and on how many nodes it is (for ImageLocality's spread)."""

    size: int
    num_nodes: int


class HostPortInfo:
    """Used host ports: ip -> set of (protocol, port), with 0.0.0.0 as the wildcard.

    Mirrors framework.HostPortInfo (types.go): CheckConflict treats 0.0.0.0 as conflicting with
    every ip for the same protocol and port."""

    DEFAULT_IP = "0.0.0.0"

    def __init__(self) -> None:
        self._ports: dict[str, dict[tuple[str, int], int]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return (ip or HostPortInfo.DEFAULT_IP, protocol or "TCP")

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        m = self._ports.setdefault(ip, {})
        m[(protocol, port)] = m.get((protocol, port), 0) + 1

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        m = self._ports.get(ip)
        if not m or (protocol, port) not in m:
            return
        m[(protocol, port)] -= 1
        if m[(protocol, port)] <= 0:
            del m[(protocol, port)]
        if not m:
            del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == self.DEFAULT_IP:
            return any(pp in m for m in self._ports.values())
        return pp in self._ports.get(ip, {}) or pp in self._ports.get(self.DEFAULT_IP, {})

    def __len__(self) -> int:
        return sum(len(m) for m in self._ports.values())

    def copy(self) -> HostPortInfo:
        c = HostPortInfo()
        c._ports = {ip: dict(m) for ip, m in self._ports.items()}
        return c


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
    image_states: dict[str, ImageStateSummary] = field(default_factory=dict)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)  # "ns/claim" -> pods using it
    generation: int = field(default_factory=next_generation)

    @property
    def name(self) -> str:
        return self.node.name if self.node else ""

    def set_node(self, node: Node) -> None:
        self.node = node
        self.allocatable = dict(node.allocatable)
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
        self._update(pi.pod, +1)

    def remove_pod(self, pod: Pod) -> bool:
        """NodeInfo.RemovePod: by uid; False when the pod is not here."""
        uid = pod.uid
        for i, pi in enumerate(self.pods):
            if pi.pod.uid == uid:
                del self.pods[i]
                self.pods_with_affinity = [p for p in self.pods_with_affinity if p.pod.uid != uid]
                self.pods_with_required_anti_affinity = [
                    p for p in self.pods_with_required_anti_affinity if p.pod.uid != uid
                ]
                self._update(pi.pod, -1)
                return True
        return False

    def _update(self, pod: Pod, sign: int) -> None:
        for k, v in pod.requests.items():
            self.requested[k] = self.requested.get(k, 0) + sign * v
        nz = pod.non_zero_requests
        for k in ("cpu", "memory"):
            self.non_zero_requested[k] = self.non_zero_requested.get(k, 0) + sign * nz.get(k, 0)
        for p in pod.host_ports:
            if sign > 0:
                self.used_ports.add(p.host_ip, p.protocol, p.host_port)
            else:
                self.used_ports.remove(p.host_ip, p.protocol, p.host_port)
        for claim in pod.pvc_names:
            key = f"{pod.namespace}/{claim}"
            n = self.pvc_ref_counts.get(key, 0) + sign
            if n > 0:
                self.pvc_ref_counts[key] = n
            else:
                self.pvc_ref_counts.pop(key, None)
        self.generation = next_generation()

    def snapshot_copy(self) -> NodeInfo:
        """NodeInfo.Snapshot: a copy whose lists and maps can be changed independently."""
        return NodeInfo(
            node=self.node,
            pods=list(self.pods),
            pods_with_affinity=list(self.pods_with_affinity),
            pods_with_required_anti_affinity=list(self.pods_with_required_anti_affinity),
            requested=dict(self.requested),
            non_zero_requested=dict(self.non_zero_requested),
            allocatable=dict(self.allocatable),
            used_ports=self.used_ports.copy(),
            image_states=dict(self.image_states),
            pvc_ref_counts=dict(self.pvc_ref_counts),
            generation=self.generation,
        )

    @staticmethod
    def of(node: Node | None, pods: Iterable[Pod] = ()) -> NodeInfo:
        ni = NodeInfo()
        if node is not None:
            ni.set_node(node)
        for p in pods:
            ni.add_pod(p)
        return ni
