"""A cluster's GPU state read from its objects, and the paper's metrics over it.

For a metric recorder that samples a store (nodes and the pods bound to them) now and then:
``gpu_state(nodes, pods)`` derives every node's GPUs from its pods (``node_gpu_left``: recorded
``gpu-index`` annotations, else where the simulator would pack them) and ``gpu_metrics`` computes
allocation and fragmentation over it. ``GpuMetrics`` (``_driver.py``) keeps the same numbers up to
date pod by pod instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ._frag import FragModel, TypicalPod, gpu_allocation
from ._gpu import GPU_INDEX, NO_GPU, PodGpu, node_gpu_count, node_gpu_left, node_gpu_model, pod_gpu

__all__ = ["GpuState", "gpu_metrics", "gpu_state", "request_of"]


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
