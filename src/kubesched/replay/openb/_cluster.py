"""A cluster's GPU state read from its objects, and the paper's metrics over it.

For a metric recorder that samples a store (nodes and the pods bound to them) now and then:
``gpu_state(nodes, pods)`` derives every node's GPUs from its pods (``node_gpu_left``: recorded
``gpu-index`` annotations, else where the simulator would pack them) and ``gpu_metrics`` computes
allocation and fragmentation over it. ``GpuMetrics`` (``_driver.py``) keeps the same numbers up to
date pod by pod instead. ``GpuAllocation`` is the ``gpuAllocation`` column a replay of an openb
trace records (the reader attaches it, and ``GpuDemand`` as its arrived demand), right under the
sharing policies and the default plugins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...cluster import Store, WatchEvent
from .._metrics import GPU_ALLOCATION, GPU_RESOURCE, MetricProvider
from ._frag import FragModel, TypicalPod, gpu_allocation
from ._gpu import GPU_INDEX, MILLI, NO_GPU, PodGpu, node_gpu_count, node_gpu_left, node_gpu_model, pod_gpu

__all__ = ["GpuAllocation", "GpuDemand", "GpuState", "gpu_metrics", "gpu_state", "held_request",
           "request_of"]


def request_of(pod: Pod) -> PodGpu:
    """A pod's GPU request, cpu being its non-zero cpu request (utils.GetPodResource)."""
    return pod_gpu(pod.meta.annotations, int(pod.non_zero_requests.get("cpu", 0)))


@dataclass(frozen=True, slots=True)
class GpuState:
    """Per node: ``names``, ``models``, ``cpu_left`` (allocatable - requested, milli) and
    ``left[N, G]`` (milli left per GPU, ``-1`` past the node's GPUs)."""

    names: list[str]
    models: list[str]
    cpu_left: npt.NDArray[np.int64]
    left: npt.NDArray[np.int64]


def gpu_state(nodes: Sequence[Node], pods: Iterable[Pod]) -> GpuState:
    """The GPU state of ``nodes`` with the pods bound to them (pods elsewhere are ignored)."""
    on: dict[str, list[Pod]] = {n.name: [] for n in nodes}
    for p in pods:
        if p.node_name in on and not p.is_terminal:
            on[p.node_name].append(p)
    counts = [node_gpu_count(n.capacity) for n in nodes]
    width = max([1, *counts])
    left = np.full((len(nodes), width), NO_GPU, dtype=np.int64)
    cpu_left = np.zeros(len(nodes), dtype=np.int64)
    for i, n in enumerate(nodes):
        here = on[n.name]
        left[i] = node_gpu_left(counts[i], [(request_of(p), p.uid, p.meta.annotations.get(GPU_INDEX, ""))
                                            for p in here], width)
        cpu_left[i] = n.allocatable.get("cpu", 0) - sum(p.requests.get("cpu", 0) for p in here)
    return GpuState([n.name for n in nodes], [node_gpu_model(n.labels) for n in nodes], cpu_left, left)


def gpu_metrics(state: GpuState, typical: Sequence[TypicalPod]) -> dict[str, float]:
    """``allocation`` (0..1), ``frag_amount`` (GPU milli), ``frag_ratio`` (of the idle GPU milli)
    and ``capacity`` (GPU milli) of a cluster state."""
    model = FragModel(typical)
    frag = float(model.fragment(state.cpu_left, state.left, model.access(state.models)).sum())
    idle = float(np.where(state.left >= 0, state.left, 0).sum())
    capacity = float(np.count_nonzero(state.left >= 0) * 1000)
    return {"allocation": gpu_allocation(state.left), "frag_amount": frag,
            "frag_ratio": frag / idle if idle else 0.0, "capacity": capacity}


def held_request(pod: Pod) -> PodGpu:
    """What a bound pod holds of its node's GPUs. GpuShare records the GPUs it chose
    (``gpu-index``): the pod holds its share of each, as the simulator counts it. A pod placed
    by other plugins got whole devices from the device plugin (the ``nvidia.com/gpu`` it
    requests): a share holds a whole GPU there, and nobody else can use the rest of it."""
    req = request_of(pod)
    whole = int(pod.requests.get(GPU_RESOURCE, 0))
    if pod.meta.annotations.get(GPU_INDEX) or not whole:
        return req
    return PodGpu(req.cpu, MILLI, whole, req.spec)


class GpuAllocation(MetricProvider):
    """``gpuAllocation`` of a replay of an openb trace: the GPU milli the running pods ask for
    over the cluster's, the simulator's allocation rate, whatever placed them; kept as a running
    sum per watch event. Under the default plugins a share holds a whole GPU (``held_request``):
    the rest of that GPU is neither allocated nor free, and the lower rate shows that waste."""

    columns = (GPU_ALLOCATION,)

    def __init__(self) -> None:
        self._held: dict[str, int] = {}
        self._capacity: dict[str, int] = {}
        self.held = 0
        self.capacity = 0

    def start(self, store: Store) -> None:
        for node in store.list("Node"):
            self._node(node.name, node)
        for pod in store.list("Pod"):
            self._pod(pod.key, pod)

    def on_event(self, ev: WatchEvent) -> None:
        obj = ev.new if ev.new is not None else ev.old
        if isinstance(obj, Pod):
            self._pod(obj.key, ev.new if isinstance(ev.new, Pod) else None)
        elif isinstance(obj, Node):
            self._node(obj.name, ev.new if isinstance(ev.new, Node) else None)

    def _pod(self, key: str, pod: Pod | None) -> None:
        held = request_of(pod).total if pod is not None and pod.node_name and not pod.is_terminal else 0
        self.held += held - self._held.pop(key, 0)
        if held:
            self._held[key] = held

    def _node(self, name: str, node: Node | None) -> None:
        cap = node_gpu_count(node.capacity) * MILLI if node is not None else 0
        self.capacity += cap - self._capacity.pop(name, 0)
        if cap:
            self._capacity[name] = cap

    def sample(self) -> Sequence[float]:
        return (self.held / self.capacity if self.capacity else 0.0,)


class GpuDemand:
    """openb's arrived demand (:class:`~kubesched.replay.Demand`): the GPU milli pods ask for
    (``alibabacloud.com/gpu-milli`` x ``gpu-count``) over the cluster's, as the FGD simulator's
    ``-tune`` and the paper's x axis count it; what ``run_fgd`` logs as arrived demand."""

    name = "gpu-milli"

    def of_pod(self, pod: Pod) -> float:
        return float(request_of(pod).total)

    def capacity(self, nodes: Iterable[Node]) -> float:
        return float(sum(node_gpu_count(n.capacity) for n in nodes) * MILLI)
