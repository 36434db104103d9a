"""GpuShare: the Filter and Reserve of the FGD simulator's Open-Gpu-Share plugin
(pkg/simulator/plugin/open_gpu_share.go, hkust-adsl/kubernetes-scheduler-simulator @8f3d641).

- Filter: a pod asking for GPU milli needs a node with GPUs of a model it accepts and either
  one GPU with enough milli left (a sharing pod) or ``count`` wholly free GPUs. CPU and memory are
  NodeResourcesFit's job, as in the simulator.
- Reserve: picks the GPU indexes (``gpuSelMethod``: ``best`` the tightest GPU, ``worst`` the
  loosest, ``random``, or the name of a policy that registered a selector, e.g. ``FGDScore``);
  whole-GPU pods take the first free GPUs. It records them in the pod's
  ``alibabacloud.com/gpu-index`` annotation (the simulator patches the pod in Reserve too;
  Unreserve removes it), so a node's GPU state is derived from the pods bound to it.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np

from kubesched.api import DELETE, Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    ActionType,
    ArgsError,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeBatch,
    PluginArgs,
    PluginBase,
    QueueingHint,
    Status,
)
from kubesched.replay.openb import GPU_INDEX, PodGpu, accessible, exclusive_gpu_ids, format_gpu_ids

from ._state import GpuRows, request_of, shared_state

NAME = "GpuShare"
REASON_NO_GPU = "node(s) had no GPU"
REASON_MODEL = "node(s) didn't have the requested GPU model"
REASON_INSUFFICIENT = "Insufficient GPU"
BUILTIN_SELECTORS = ("best", "worst", "random")


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuShareArgs(PluginArgs):
    gpu_sel_method: str = "best"

    def validate(self) -> None:
        if not self.gpu_sel_method:
            raise ArgsError("gpuSelMethod: Required value")


def _after_pod_delete(pod: Pod, old_obj: object, new_obj: object) -> QueueingHint:
    """A deleted pod frees GPUs only if it held some: one bound to a node."""
    if isinstance(old_obj, Pod) and not old_obj.node_name:
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def _fails(rows: GpuRows, req: PodGpu) -> tuple[np.ndarray, np.ndarray]:
    """Per row: 0 fits, 1 no GPU, 2 wrong model, 3 not enough GPU (the rule, once)."""
    why = np.zeros(len(rows), dtype=np.int32)
    if not req.wants_gpu:
        return why, why
    enough = np.count_nonzero(rows.left >= req.milli, axis=1) >= req.count
    why[~enough] = 3
    if req.spec:
        ok = {m: accessible(m, req.spec) for m in set(rows.models.tolist())}
        why[~np.array([ok[m] for m in rows.models.tolist()], dtype=bool)] = 2
    why[rows.count == 0] = 1
    return why, why


_TABLE = [(), (REASON_NO_GPU,), (REASON_MODEL,), (REASON_INSUFFICIENT,)]
_CODES = np.array([Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                   Code.UNSCHEDULABLE], dtype=np.int8)


def select_best(rows: GpuRows, req: PodGpu) -> list[int]:
    """allocateGpuIdBasedOnBestFit: the GPU with the least milli left that fits (first on ties)."""
    left = rows.left[0]
    if not req.is_share:
        return exclusive_gpu_ids(left, req.count)
    fit = np.flatnonzero(left >= req.milli)
    return [int(fit[np.argmin(left[fit])])] if len(fit) else []


def select_worst(rows: GpuRows, req: PodGpu) -> list[int]:
    """allocateGpuIdBasedOnWorstFit: the GPU with the most milli left (first on ties)."""
    left = rows.left[0]
    if not req.is_share:
        return exclusive_gpu_ids(left, req.count)
    fit = np.flatnonzero(left >= req.milli)
    return [int(fit[np.argmax(left[fit])])] if len(fit) else []


class GpuShare(PluginBase):
    NAME = NAME
    Args = GpuShareArgs

    def __init__(self, args: PluginArgs | None = None, handle: object = None) -> None:
        super().__init__(args, handle)  # type: ignore[arg-type]
        self.state = shared_state(handle)

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        req = request_of(pod)
        if not req.wants_gpu:
            return None
        why = int(_fails(self.state.node_rows(node_info), req)[0][0])
        return None if why == 0 else Status(Code(int(_CODES[why])), _TABLE[why])

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        req = request_of(pod)
        if not req.wants_gpu:
            return BatchFilterResult.all_success(len(nodes))
        why, _ = _fails(self.state.rows(nodes.snapshot), req)  # every row: cheaper than a gather
        why = why[nodes.indices]
        return BatchFilterResult(_CODES[why], why, list(_TABLE))

    # -- EnqueueExtensions -----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """What can make a pod GpuShare rejected fit (EnqueueExtensions, as NodeResourcesFit):
        a bound pod leaving frees its GPUs, a node added or its capacity (GPU count) or labels
        (GPU model) changed. Without it the plugin counts as interested in every event, and a
        rejected pod's own status update sends it straight back to a new (failing) attempt."""
        node = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), _after_pod_delete),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node), None),
        ]

    # -- Reserve ----------------------------------------------------------------------------
    def _select(self, rows: GpuRows, req: PodGpu) -> list[int]:
        method = self.args.gpu_sel_method if isinstance(self.args, GpuShareArgs) else "best"
        if method == "worst":
            return select_worst(rows, req)
        if method == "random":
            return self._select_random(rows, req)
        custom = self.state.selectors.get(method)
        if custom is not None:
            return custom(rows, req)
        return select_best(rows, req)

    def _select_random(self, rows: GpuRows, req: PodGpu) -> list[int]:
        """allocateGpuIdBasedOnRandomFit: a uniform choice among the GPUs that fit."""
        left = rows.left[0]
        if not req.is_share:
            return exclusive_gpu_ids(left, req.count)
        fit = np.flatnonzero(left >= req.milli)
        if not len(fit):
            return []
        rng = self.handle.rng if self.handle is not None else random.Random(0)
        return [int(fit[rng.randrange(len(fit))])]

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        req = request_of(pod)
        if not req.wants_gpu:
            return None
        snap = self.handle.snapshot() if self.handle is not None else None
        row = snap.node_index.get(node_name) if snap is not None else None
        if snap is None or row is None:
            return Status(Code.ERROR, f"node {node_name} not found")
        # the cycle's rows: the node as the filters and scores saw it
        rows = self.state.rows(snap).take(np.array([row], dtype=np.int64))
        ids = self._select(rows, req) if int(_fails(rows, req)[0][0]) == 0 else []
        if len(ids) != req.count or any(rows.left[0][i] < req.milli for i in ids):
            return Status(Code.ERROR, f"failed to allocate gpu to pod({pod.namespace}/{pod.name}) "
                                      f"to node({node_name})")
        self.state.assigned[pod.uid] = ids
        self._record(pod, format_gpu_ids(ids))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if self.state.assigned.pop(pod.uid, None) is not None:
            self._record(pod, DELETE)

    def _record(self, pod: Pod, value: object) -> None:
        """Write (or, with DELETE, remove) the pod's ``gpu-index`` annotation in the store, as the
        simulator patches the pod in Reserve. The scheduler ignores updates of a pod it has
        assumed, and binding keeps the annotation, so the bound pod carries its GPUs."""
        store = self.handle.store if self.handle is not None else None
        current = store.try_get("Pod", pod.namespace, pod.name) if store is not None else None
        if store is None or current is None or current.uid != pod.uid or current.node_name:
            return
        if value is DELETE and GPU_INDEX not in current.meta.annotations:
            return
        store.update(current.with_changes({("metadata", "annotations", GPU_INDEX): value}))

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """The bound pod carries its GPUs now: the cache holds it, the choice can go."""
        self.state.assigned.pop(pod.uid, None)

