"""The GPU-share model of the FGD simulator: what a pod asks for, what a node has left.

kube-scheduler knows nothing of shared GPUs. The FGD simulator (hkust-adsl/kubernetes-scheduler-
simulator, ``pkg/type/open-gpu-share``) models them with annotations and labels, and so do we:

- a node has ``status.capacity["alibabacloud.com/gpu-count"]`` GPUs of 1000 milli each, of the
  model in its label ``alibabacloud.com/gpu-card-model``;
- a pod asks, in annotations, for ``alibabacloud.com/gpu-count`` GPUs of
  ``alibabacloud.com/gpu-milli`` milli each, restricted to the models listed (``|``-separated) in
  ``alibabacloud.com/gpu-card-model``; a sharing pod (one GPU, less than 1000 milli) shares one GPU
  with others, any other GPU pod needs that many wholly free GPUs;
- the GPUs a placed pod uses are recorded in its annotation ``alibabacloud.com/gpu-index``
  (``"3"`` or ``"0-1-2-3"``), so a node's GPU state is derived from the pods bound to it.

This module holds that model once, for the plugins (``examples/gpushare``) and for the metrics.
A node's GPU state is a row ``left[G]`` of milli left per GPU, padded with ``-1`` past its GPU
count, so every rule is written once with numpy over any number of rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "MILLI",
    "NO_GPU",
    "PodGpu",
    "accessible",
    "exclusive_gpu_ids",
    "format_gpu_ids",
    "node_gpu_count",
    "node_gpu_left",
    "node_gpu_model",
    "parse_gpu_ids",
    "pod_gpu",
]

GPU_MILLI = "alibabacloud.com/gpu-milli"
GPU_COUNT = "alibabacloud.com/gpu-count"
GPU_INDEX = "alibabacloud.com/gpu-index"
GPU_MODEL = "alibabacloud.com/gpu-card-model"
MILLI = 1000
NO_GPU = -1
"""The value of a padding slot in a ``left`` row (a GPU the node does not have)."""

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class PodGpu:
    """A pod's GPU request (utils.GetPodResource): ``cpu`` is the non-zero cpu request in milli
    (what the FGD simulator reads), ``milli`` per GPU, ``count`` GPUs, ``spec`` the allowed
    models (``""``: any)."""

    cpu: int
    milli: int = 0
    count: int = 0
    spec: str = ""

    @property
    def total(self) -> int:
        """TotalMilliGpu: what the pod adds to the arrived GPU demand."""
        return self.milli * self.count

    @property
    def wants_gpu(self) -> bool:
        """The GPU filter checks the pod (GetGpuMilliFromPodAnnotation > 0)."""
        return self.milli > 0

    @property
    def is_share(self) -> bool:
        """IsGpuShare: one GPU, part of it."""
        return self.count == 1 and self.milli < MILLI

    @property
    def affinity(self) -> str:
        """GetGpuAffinityFromPodAnnotation: ``no-gpu``, ``share-gpu`` or ``<n>-gpu``."""
        if self.count == 0:
            return "no-gpu"
        if self.count == 1 and self.milli < MILLI:
            return "share-gpu"
        return f"{self.count}-gpu"


def _int(value: Any) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        return 0


def pod_gpu(annotations: Mapping[str, str], cpu_milli: int) -> PodGpu:
    """The request read from a pod's annotations as the FGD simulator's getters do: a missing or
    unparsable count or milli is 0."""
    count = max(_int(annotations.get(GPU_COUNT, 0)), 0)
    milli = max(_int(annotations.get(GPU_MILLI, 0)), 0)
    return PodGpu(cpu_milli, milli, count, annotations.get(GPU_MODEL, ""))


def node_gpu_count(capacity: Mapping[str, Any]) -> int:
    """GetGpuCountOfNode: the node's ``alibabacloud.com/gpu-count`` capacity."""
    return max(_int(capacity.get(GPU_COUNT, 0)), 0)


def node_gpu_model(labels: Mapping[str, str]) -> str:
    """GetGpuModelOfNode: the node's ``alibabacloud.com/gpu-card-model`` label."""
    return labels.get(GPU_MODEL, "")


def accessible(node_model: str, spec: str) -> bool:
    """IsNodeAccessibleToPodByType: any model when the pod names none, else the node's model must
    be one of those listed (a GPU-less node has no model)."""
    wanted = [m for m in spec.split("|") if m]
    if not wanted:
        return True
    return bool(node_model) and node_model in wanted


def parse_gpu_ids(text: str) -> list[int] | None:
    """GpuIdStrToIntList: ``"0-1-2"`` -> [0, 1, 2]; None when malformed."""
    if not text:
        return []
    try:
        return [int(x) for x in text.split("-")]
    except ValueError:
        return None


def format_gpu_ids(ids: Iterable[int]) -> str:
    return "-".join(str(i) for i in ids)


def exclusive_gpu_ids(left: I64, count: int) -> list[int]:
    """AllocateExclusiveGpuId: the first ``count`` wholly free GPUs in index order."""
    return [int(i) for i in np.flatnonzero(left == MILLI)[:count]]


def _pack(left: I64, req: PodGpu) -> list[int]:
    """NodeResource.Sub's choice for a pod whose GPUs are not recorded: GPUs in ascending order of
    milli left (stable), each taken when the pod's milli fits."""
    order = np.argsort(left, kind="stable")
    out: list[int] = []
    for i in order.tolist():
        if len(out) == req.count:
            break
        if left[i] >= req.milli:
            out.append(int(i))
    return out


def node_gpu_left(
    count: int,
    pods: Iterable[tuple[PodGpu, str, str]],
    width: int,
    assigned: Callable[[str], list[int] | None] | None = None,
) -> I64:
    """A node's milli left per GPU (``width`` slots, ``NO_GPU`` past ``count``) from the pods on
    it, each given as (request, uid, ``gpu-index`` annotation). A pod's GPUs are its annotation,
    else ``assigned(uid)`` (what Reserve chose for a pod not bound yet), else where the FGD
    simulator's Sub would pack it; pods with recorded GPUs are subtracted first."""
    left = np.full(width, NO_GPU, dtype=np.int64)
    left[:count] = MILLI
    unplaced: list[PodGpu] = []
    for req, uid, index in pods:
        if not req.wants_gpu or req.count <= 0:
            continue
        ids = parse_gpu_ids(index) if index else None
        if not ids and assigned is not None:
            ids = assigned(uid)
        if ids and all(0 <= i < count for i in ids):
            for i in ids:
                left[i] -= req.milli
        else:
            unplaced.append(req)
    for req in unplaced:
        for i in _pack(left, req):
            left[i] -= req.milli
    return left
