"""FGDScore (pkg/simulator/plugin/fgd_score.go): Fragmentation Gradient Descent. A node scores
``int(sigmoid((frag_before - frag_after) / 1000) * 100)``: the more the placement lowers the
node's GPU fragmentation against the typical pod mix (``kubesched.replay.openb.FragModel``), the
higher. A sharing pod is tried on each GPU that fits and the node keeps its best GPU, which is
also the GPU Reserve takes when ``GpuShare``'s ``gpuSelMethod`` is ``FGDScore`` (the simulator's
``allocateGpuIdBasedOnFGDScore``). Other pods are placed as the simulator's ``Sub`` does.

``typicalPods`` (args) is the pod mix, e.g. from ``kubesched.replay.openb.typical_pods`` over the
trace's pods. Scores are kept per node row and pod shape across cycles and recomputed only for
the nodes that changed (``kubesched.cache.RowMemo``): a trace has tens of pod shapes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kubesched.api import Pod
from kubesched.cache import RowMemo
from kubesched.framework import ArgsError, CycleState, NodeBatch, PluginArgs, Status
from kubesched.replay.openb import FragModel, PodGpu, TypicalPod, exclusive_gpu_ids

from ._policy import I64, GpuScorePlugin
from ._state import GpuRows, request_of

NAME = "FGDScore"
DEDUPE_FROM = 16


@dataclasses.dataclass(frozen=True, kw_only=True)
class FGDArgs(PluginArgs):
    """``typicalPods``: ``[{cpuMilli, gpuMilli, gpuCount, gpuModel, frequency}]``."""

    typical_pods: tuple[TypicalPod, ...] = ()

    @classmethod
    def decode_field(cls, name: str, value: Any) -> Any:
        if name != "typical_pods":
            return value
        out = []
        for i, t in enumerate(value or ()):
            try:
                out.append(TypicalPod(int(t["cpuMilli"]), int(t.get("gpuMilli", 0)),
                                      int(t.get("gpuCount", 0)), str(t.get("gpuModel", "")),
                                      float(t["frequency"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise ArgsError(f"typicalPods[{i}]: {exc}") from exc
        return tuple(out)

    def validate(self) -> None:
        for i, t in enumerate(self.typical_pods):
            if not 0 <= t.freq <= 1:
                raise ArgsError(f"typicalPods[{i}].frequency: must be in [0, 1], got {t.freq}")

    def to_dict(self) -> dict[str, Any]:
        return {"typicalPods": [{"cpuMilli": t.cpu, "gpuMilli": t.milli, "gpuCount": t.count,
                                 "gpuModel": t.spec, "frequency": t.freq} for t in self.typical_pods]}


def _sigmoid_score(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-(before - after) / 1000)) * 100).astype(np.int64)


def _sub(rows: GpuRows, req: PodGpu) -> tuple[I64, I64]:
    """NodeResource.Sub: cpu, and the pod's milli from the GPUs with least milli left that fit."""
    left = rows.left.copy()
    if req.count > 0:
        big = np.iinfo(np.int64).max
        order = np.argsort(np.where(left >= req.milli, left, big), axis=1, kind="stable")[:, :req.count]
        ok = np.take_along_axis(left, order, axis=1) >= req.milli
        np.put_along_axis(left, order, np.take_along_axis(left, order, axis=1) - req.milli * ok, axis=1)
    return rows.cpu_left - req.cpu, left


class FGDScore(GpuScorePlugin):
    NAME = NAME
    Args = FGDArgs

    def __init__(self, args: PluginArgs | None = None, handle: object = None) -> None:
        super().__init__(args, handle)
        typical = self.args.typical_pods if isinstance(self.args, FGDArgs) else ()
        self.frag = FragModel(typical)
        self._memo = RowMemo(limit=1024)
        self._by_state: dict[tuple[Any, ...], int] = {}
        self.state.selectors[NAME] = self.select_gpus

    def _gpu_scores(self, rows: GpuRows, req: PodGpu) -> np.ndarray:
        """[R, G] scores of a sharing pod on each GPU (-1 where it does not fit)."""
        access = self.frag.access(list(rows.models))
        now = self.frag.fragment(rows.cpu_left, rows.left, access)
        after = self.frag.fragment_if_shared(rows.cpu_left, rows.left, access, req)
        fits = ~np.isnan(after)
        s = _sigmoid_score(now[:, None], np.where(fits, after, 0.0))
        return np.where(fits, s, -1)

    def scores(self, rows: GpuRows, req: PodGpu, state: CycleState) -> I64:
        if len(rows) > DEDUPE_FROM:
            # a node's score depends on its cpu left, model and the multiset of its GPUs' milli
            # left: score each distinct state once (a cluster has far fewer states than nodes)
            _, codes = np.unique(rows.models.astype(str), return_inverse=True)
            key = np.column_stack([rows.cpu_left, codes.reshape(-1), np.sort(rows.left, axis=1)])
            uniq, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
            if len(uniq) < len(rows) // 2:
                return self._scores(rows.take(first), req)[inverse.reshape(-1)]
        return self._scores(rows, req)

    def _scores(self, rows: GpuRows, req: PodGpu) -> I64:
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64)
        if req.is_share:
            return np.maximum(self._gpu_scores(rows, req).max(axis=1), 0)
        access = self.frag.access(list(rows.models))
        now = self.frag.fragment(rows.cpu_left, rows.left, access)
        cpu_after, left_after = _sub(rows, req)
        return _sigmoid_score(now, self.frag.fragment(cpu_after, left_after, access))

    def score_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> tuple[I64, Status | None]:
        req = request_of(pod)
        all_rows = self.state.rows(nodes.snapshot)
        memo = self._memo.entry(nodes.snapshot.columns, (req.cpu, req.milli, req.count, req.spec), self.frag)
        if memo is None:
            return self.scores(all_rows.take(nodes.indices), req, state), None
        missing = memo.missing(nodes.indices)
        if len(missing) > DEDUPE_FROM:
            memo.put(missing, self.scores(all_rows.take(missing), req, state))
        elif len(missing):
            memo.put(missing, self._known_states(all_rows, missing, req))
        return memo.values[nodes.indices], None

    def _known_states(self, rows: GpuRows, missing: I64, req: PodGpu) -> list[int]:
        """The few rows that changed since the last cycle: a node state met before (on any
        node) is looked up, only new ones are computed."""
        shape = (req.cpu, req.milli, req.count, req.spec)
        keys = [(shape, int(rows.cpu_left[r]), rows.models[r], tuple(sorted(rows.left[r].tolist())))
                for r in missing.tolist()]
        new = [i for i, k in enumerate(keys) if k not in self._by_state]
        if new:
            got = self._scores(rows.take(missing[new]), req).tolist()
            if len(self._by_state) >= 500_000:
                self._by_state.clear()
            for i, s in zip(new, got, strict=True):
                self._by_state[keys[i]] = s
        return [self._by_state[k] for k in keys]

    def select_gpus(self, rows: GpuRows, req: PodGpu) -> list[int]:
        """allocateGpuIdBasedOnFGDScore for one node's row: a sharing pod takes the GPU with
        the best score (the first on ties), others the first free GPUs."""
        if not req.is_share:
            return exclusive_gpu_ids(rows.left[0], req.count)
        s = self._gpu_scores(rows, req)[0]
        return [int(np.argmax(s))] if (s >= 0).any() else []
