"""The Alibaba GPU trace (openb), the FGD simulator's GPU-share model and the paper's metrics.

- :func:`read_openb`: the node and pod CSVs as a :class:`~kubesched.replay.Trace`;
- the GPU model (``_gpu.py``): annotation names, a pod's request, a node's GPUs left;
- metrics (``_frag.py``): typical pods, fragmentation, GPU allocation, arrived demand;
- :func:`run_fgd`: the paper's arrival (one pod at a time, failures skipped) through kubesched's
  Scheduler, returning the metric curve.

The scheduling policies themselves are out-of-tree plugins: ``examples/gpushare``.
"""

from ._cluster import (
    GpuAllocation,
    GpuDemand,
    GpuState,
    gpu_metrics,
    gpu_state,
    held_request,
    request_of,
)
from ._driver import CURVE_COLUMNS, FgdCurve, GpuMetrics, curve_summary, run_fgd, run_fgd_csv
from ._frag import FragModel, TypicalPod, arrived_gpu_demand, gpu_allocation, typical_pods
from ._gpu import (
    GPU_COUNT,
    GPU_INDEX,
    GPU_MILLI,
    GPU_MODEL,
    MILLI,
    NO_GPU,
    PodGpu,
    accessible,
    exclusive_gpu_ids,
    format_gpu_ids,
    node_gpu_count,
    node_gpu_left,
    node_gpu_model,
    parse_gpu_ids,
    pod_gpu,
)
from ._reader import OpenbFormatError, OpenbPod, read_openb, read_openb_nodes, read_openb_pods

__all__ = [
    "CURVE_COLUMNS",
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "MILLI",
    "NO_GPU",
    "FgdCurve",
    "FragModel",
    "GpuAllocation",
    "GpuDemand",
    "GpuMetrics",
    "GpuState",
    "OpenbFormatError",
    "OpenbPod",
    "PodGpu",
    "TypicalPod",
    "accessible",
    "arrived_gpu_demand",
    "curve_summary",
    "exclusive_gpu_ids",
    "format_gpu_ids",
    "gpu_allocation",
    "gpu_metrics",
    "gpu_state",
    "held_request",
    "node_gpu_count",
    "node_gpu_left",
    "node_gpu_model",
    "parse_gpu_ids",
    "pod_gpu",
    "read_openb",
    "read_openb_nodes",
    "read_openb_pods",
    "request_of",
    "run_fgd",
    "run_fgd_csv",
    "typical_pods",
]
