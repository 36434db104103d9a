"""GPU fragmentation as the FGD paper defines it, and the cluster GPU metrics.

Mirrors pkg/utils/frag.go of hkust-adsl/kubernetes-scheduler-simulator (@8f3d641):

- **typical pods** (``GetTypicalPods``): the distinct pod shapes (non-zero cpu, GPU milli, GPU
  count, GPU models) of the workload, most frequent first, the top ones covering 95 % of pods
  (``podPopularityThreshold: 95``, ``podIncreaseStep: 1``, CPU-only pods included, as every run
  of the paper's artifact), their frequencies renormalised to sum to 1;
- a node's **fragment** (``NodeGpuShareFragAmount`` without Q3): for each typical pod, weighted
  by its frequency, the node's idle GPU milli that pod cannot use. A pod that fits (Q3) cannot
  use the GPUs with less milli left than it asks per GPU; a pod that does not fit (short of GPU,
  of cpu, or of the right model), and a CPU-only pod, can use none of them;
- **fragmentation amount** = the sum over nodes; **ratio** = amount / idle GPU milli;
- **GPU allocation rate** = allocated GPU milli / total GPU milli.

Every function takes a node's GPU state as rows (``left[N, G]`` with ``-1`` padding, see
``_gpu.py``) so the FGD plugin and the metric recorder share one vectorised implementation.
Sums run over the typical pods with numpy (pairwise), not one by one as Go does: amounts agree to
float rounding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._gpu import MILLI, PodGpu, accessible

__all__ = [
    "FragModel",
    "TypicalPod",
    "arrived_gpu_demand",
    "gpu_allocation",
    "typical_pods",
]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

POPULARITY_THRESHOLD = 95
INCREASE_STEP = 1


@dataclass(frozen=True, slots=True)
class TypicalPod:
    cpu: int
    milli: int
    count: int
    spec: str
    freq: float


def _less(a: PodGpu, b: PodGpu) -> bool:
    """PodResource.Less: cpu, then milli, then count, then model."""
    return (a.cpu, a.milli, a.count, a.spec) < (b.cpu, b.milli, b.count, b.spec)


def typical_pods(requests: Iterable[PodGpu], threshold: int = POPULARITY_THRESHOLD,
                 step: int = INCREASE_STEP) -> tuple[TypicalPod, ...]:
    """GetTypicalPods (isInvolvedCpuPods, gpuResWeight 0): shapes by decreasing count (ties: the
    greater shape first, as ``sort.Reverse`` of Less), cut where the cumulated count first reaches
    ``threshold`` % of all pods, taking ``step`` shapes at a time, then renormalised."""
    counts = Counter((r.cpu, r.milli, r.count, r.spec) for r in requests)
    total = float(sum(counts.values()))
    if not counts:
        return ()
    shapes = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    expected = threshold * total / 100.0
    cum, i, upto = 0.0, 0, 0
    while cum < expected:
        upto += step
        while i < upto and i < len(shapes):
            cum += shapes[i][1]
            i += 1
        if i >= len(shapes):
            break
    chosen = shapes[:i]
    norm = sum(c for _, c in chosen)
    return tuple(TypicalPod(cpu, milli, count, spec, c / norm) for (cpu, milli, count, spec), c in chosen)


def arrived_gpu_demand(requests: Iterable[PodGpu]) -> int:
    """The GPU milli the pods ask for in total (the x axis of the paper's curves)."""
    return sum(r.total for r in requests)


def gpu_allocation(left: I64) -> float:
    """Allocated GPU milli / total GPU milli over the rows (0 when there are no GPUs)."""
    have = left >= 0
    capacity = int(np.count_nonzero(have)) * MILLI
    if capacity == 0:
        return 0.0
    idle = int(np.where(have, left, 0).sum())
    return (capacity - idle) / capacity


class FragModel:
    """The typical pod mix as arrays, and a node's fragment (amount) computed over many rows."""

    def __init__(self, typical: Sequence[TypicalPod]) -> None:
        self.typical = tuple(typical)
        self.cpu = np.array([t.cpu for t in typical], dtype=np.int64)
        self.milli = np.array([t.milli for t in typical], dtype=np.int64)
        self.count = np.array([t.count for t in typical], dtype=np.int64)
        self.freq = np.array([t.freq for t in typical], dtype=np.float64)
        self.gpu_pod = self.milli > 0
        self._access: dict[str, npt.NDArray[np.bool_]] = {}

    def access(self, models: Sequence[str]) -> npt.NDArray[np.bool_]:
        """[N, K]: may typical pod k use the GPUs of row n (its model in the pod's list)."""
        rows = []
        for m in models:
            hit = self._access.get(m)
            if hit is None:
                hit = self._access[m] = np.array([accessible(m, t.spec) for t in self.typical], dtype=bool)
            rows.append(hit)
        if not rows:
            return np.zeros((0, len(self.typical)), dtype=bool)
        return np.stack(rows)

    def fragment(self, cpu_left: I64, left: I64, access: npt.NDArray[np.bool_]) -> F64:
        """NodeGpuShareFragAmountScore per row: Σ_k freq_k · (Q3 ? milli on GPUs too small for
        k : all idle milli). ``cpu_left[N]``, ``left[N, G]``, ``access[N, K]``."""
        have = left >= 0
        idle = np.where(have, left, 0)
        total = idle.sum(axis=1)  # [N]
        milli = self.milli[None, :, None]  # [1, K, 1]
        fits = left[:, None, :] >= milli  # [N, K, G]  (padding -1 never fits a GPU pod)
        small = np.where(fits, 0, idle[:, None, :]).sum(axis=2)  # [N, K]
        q3 = (fits.sum(axis=2) >= self.count[None, :]) & (cpu_left[:, None] >= self.cpu[None, :])
        q3 &= access & self.gpu_pod[None, :]
        amount = np.where(q3, small, total[:, None]).astype(np.float64)
        return amount @ self.freq

    def fragment_if_shared(self, cpu_left: I64, left: I64, access: npt.NDArray[np.bool_],
                           req: PodGpu) -> F64:
        """[N, G]: each row's fragment after a sharing pod ``req`` took its milli (and cpu) on GPU
        g; ``nan`` where GPU g cannot take it. Only GPU g changes, so each typical pod's terms
        are updated from the current ones instead of recomputed."""
        have = left >= 0
        idle = np.where(have, left, 0)
        total = idle.sum(axis=1)
        milli = self.milli[None, :, None]
        fits = left[:, None, :] >= milli  # [N, K, G]
        small = np.where(fits, 0, idle[:, None, :]).sum(axis=2)  # [N, K]
        nfit = fits.sum(axis=2)  # [N, K]
        after = left - req.milli  # [N, G]: GPU g after taking the pod
        fits_after = after[:, None, :] >= milli  # [N, K, G]
        small_g = np.where(fits[..., :], 0, idle[:, None, :])  # GPU g's share of small [N, K, G]
        small_after_g = np.where(fits_after, 0, np.maximum(after, 0)[:, None, :])
        small_new = small[:, :, None] - small_g + small_after_g  # [N, K, G]
        nfit_new = nfit[:, :, None] - fits + fits_after
        cpu_ok = (cpu_left - req.cpu)[:, None] >= self.cpu[None, :]  # [N, K]
        q3 = (nfit_new >= self.count[None, :, None]) & (cpu_ok & access & self.gpu_pod[None, :])[:, :, None]
        total_new = (total[:, None] - req.milli)[:, None, :]  # [N, 1, G]
        amount = np.where(q3, small_new, total_new).astype(np.float64)
        out = np.einsum("nkg,k->ng", amount, self.freq)
        return np.where(left >= req.milli, out, np.nan)
