"""Nodes carrying nominated pods in the batch Filter pass, without cloning them.

Upstream's ``RunFilterPluginsWithNominatedPods`` (pkg/scheduler/framework/runtime/framework.go,
master 2026) runs the filter chain twice on a node holding nominated pods of equal or higher
priority: first on a copy with those pods added (their PreFilter state updated through AddPod),
then, if that passed, on the node itself. The batch path used to do exactly that for each such
node, on cloned NodeInfos. With many pending preemptors (every one nominates a node, and on the
virtual clock none of them lands before the others have been tried) those clones dominated.

Most of those cycles have a simple shape: every Filter plugin that is not skipped is either
NodeResourcesFit or a *node-static* plugin (its verdict reads only the node object and the
cycle state written in PreFilter, never the pods on the node: NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity), and no PreFilter plugin that runs has AddPod/RemovePod
extensions. Then for such a node, with ``f`` the position of Fit in the filter order:

- a node rejected by a plugin before Fit is rejected by it in the first pass too (that plugin
  reads nothing the nominated pods change, the earlier ones passed on the same inputs);
- otherwise the first pass reaches Fit, now on the node's requests plus the nominated pods'.
  If Fit rejects, that is the answer; if it passes, the first pass continues exactly as the
  plain pass (the later plugins are static) and, if it passed, the second pass *is* the plain
  pass. Either way the plain pass's status is the answer.

So only Fit needs re-running, on the nodes' ``requested`` rows plus the nominated pods'
requests, which :func:`refilter_with_nominated` does with Fit's own ``filter_batch`` over a view
of the columns. A nominated pod with a resource the columns lack (or any other shape) leaves
its node to the per-node two-pass path.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._batch import NodeBatch
from ._results import FilterOutcome

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import PodInfo
    from ..cache._columns import NodeColumns
    from ._cycle_state import CycleState

__all__ = ["GE_NOMINATED_KEY", "GENominatedPods", "SnapshotView", "columns_view", "ge_nominated_rows",
           "refilter_with_nominated", "resource_only_fit"]

I64 = npt.NDArray[np.int64]


def columns_view(cols: NodeColumns, rows: I64, requested: I64) -> NodeColumns:
    """The columns restricted to ``rows`` (every per-node array gathered), with ``requested``
    (and the pod counts it implies) in place of the cached rows."""
    view = copy.copy(cols)
    n = len(cols.pod_count)
    for attr, value in vars(cols).items():
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == n:
            setattr(view, attr, value[rows])
    view.requested = requested
    view.pod_count = requested[:, cols.resource_index["pods"]].copy()
    if hasattr(view, "_label_cache"):
        view._label_cache = {}
    return view


class SnapshotView:
    """What a batch filter reads of a Snapshot: its columns."""

    __slots__ = ("columns",)

    def __init__(self, columns: NodeColumns) -> None:
        self.columns = columns


def _node_static_and_fit() -> tuple[tuple[type, ...], type]:
    # Imported here: the framework does not depend on the plugins at import time.
    from ..plugins.defaultpreemption._resource_victims import NODE_STATIC_FILTERS
    from ..plugins.noderesources import Fit

    return NODE_STATIC_FILTERS, Fit


def resource_only_fit(fwk: Any, state: CycleState) -> tuple[bool, Any, int]:
    """Whether this cycle's active filters have the shape of the module docstring:
    ``(ok, fit plugin or None, Fit's position among the active filter plugins)``."""
    if getattr(fwk, "per_node", True):
        return False, None, -1  # the reference mode keeps upstream's two passes
    static, fit_type = _node_static_and_fit()
    skip = state.skip_filter_plugins
    fit = None
    pos = -1
    k = 0
    for pl in fwk.filter_plugins:
        if skip and pl.name() in skip:
            continue
        t = type(pl)
        if t is fit_type and fit is None:
            fit, pos = pl, k
        elif t not in static:
            return False, None, -1
        k += 1
    for pl in fwk.pre_filter_plugins:
        if pl.pre_filter_extensions() is not None and not (skip and pl.name() in skip):
            return False, None, -1
    return True, fit, pos


GE_NOMINATED_KEY = "kubesched.io/GENominatedPods"
"""CycleState key of the :class:`GENominatedPods` the batch Filter pass saw."""


class GENominatedPods:
    """What the batch Filter pass learnt from the nominator for one pod in one cycle: for each
    node it checked, the nominated pods of equal or higher priority (addGENominatedPods' pods),
    and which nodes had any nominated pod at all.

    Preemption's dry run in the same cycle asks the same question for the nodes it visits;
    nothing changes the queue between Filter and PostFilter of a cycle, so it reads the answer
    here instead of asking the queue again (:meth:`lookup`; None: ask the queue)."""

    __slots__ = ("by_node", "priority", "uid", "with_nominated")

    def __init__(self, pod: Pod, with_nominated: set[str]) -> None:
        self.uid = pod.uid
        self.priority = pod.priority_value
        self.with_nominated = with_nominated
        self.by_node: dict[str, list[PodInfo]] = {}

    def clone(self) -> GENominatedPods:
        return self  # never modified once the Filter phase is over

    def matches(self, pod: Pod) -> bool:
        return self.uid == pod.uid and self.priority == pod.priority_value

    def lookup(self, node_name: str) -> list[PodInfo] | None:
        """The equal-or-higher-priority nominated pods of ``node_name``, or None if unknown."""
        ge = self.by_node.get(node_name)
        if ge is not None:
            return ge
        if node_name not in self.with_nominated:
            return []
        return None


def ge_nominated_rows(nom: Any, batch: NodeBatch, pod: Pod,
                      state: CycleState | None = None) -> list[tuple[int, list[PodInfo]]]:
    """(batch row, nominated pods of priority >= the pod's other than itself) for every batch
    node that has any, in batch order: the nodes addGENominatedPods would add pods to. With
    ``state``, the answers are also kept there (:class:`GENominatedPods`)."""
    infos = batch.snapshot.node_info_list
    prio, uid = pod.priority_value, pod.uid
    rows: Any = enumerate(batch.indices.tolist())
    names_fn = getattr(nom, "nominated_node_names", None)
    seen: GENominatedPods | None = None
    if names_fn is not None:
        # Most cycles see no nominated pod at all: ask once instead of once per node.
        nominated = names_fn()
        if state is not None:
            seen = state.get(GE_NOMINATED_KEY)
            if (not isinstance(seen, GENominatedPods) or not seen.matches(pod)
                    or seen.with_nominated != nominated):
                seen = GENominatedPods(pod, nominated)
                state.write(GE_NOMINATED_KEY, seen)
        if not nominated:
            return []
        index = batch.snapshot.node_index
        marked = np.zeros(len(infos), dtype=bool)
        marked[[i for i in map(index.get, nominated) if i is not None]] = True
        hit = np.flatnonzero(marked[batch.indices])
        rows = zip(hit.tolist(), batch.indices[hit].tolist(), strict=True)
    out: list[tuple[int, list[PodInfo]]] = []
    for row, idx in rows:
        name = infos[idx].name
        ge = [pi for pi in nom.nominated_pods_for_node(name)
              if pi.pod.priority_value >= prio and pi.pod.uid != uid]
        if seen is not None:
            seen.by_node[name] = ge
        if ge:
            out.append((row, ge))
    return out


def _requests(pods: Sequence[PodInfo], ridx: dict[str, int], pods_col: int, width: int) -> list[int] | None:
    """The pods' requests (and their count) as a requested row, as NodeInfo.AddPodInfo adds
    them to ``requested``; None when a resource has no column."""
    row = [0] * width
    get = ridx.get
    for pi in pods:
        for name, v in pi.resource.items():
            c = get(name)
            if c is None:
                return None
            row[c] += v
    row[pods_col] += len(pods)
    return row


def refilter_with_nominated(out: FilterOutcome, state: CycleState, pod: Pod, fit: Any, fit_pos: int,
                            active_names: Sequence[str], special: Sequence[tuple[int, list[PodInfo]]],
                            ) -> list[int]:
    """Turn the plain batch outcome ``out`` into RunFilterPluginsWithNominatedPods' answer for
    the ``special`` rows (see the module docstring); returns the rows it could not decide
    (a nominated pod's resource without a column), for the per-node path."""
    if fit is None or not special:
        return []  # no pod-dependent filter runs: both passes are the plain pass
    batch = out.batch
    cols = batch.snapshot.columns
    ridx = cols.resource_index
    pods_col = ridx["pods"]
    position = {name: k for k, name in enumerate(active_names)}
    width = cols.requested.shape[1]
    left: list[int] = []
    rows: list[int] = []
    adds: list[list[int]] = []
    codes = out.codes[[row for row, _ in special]].tolist()
    for (row, ge), code in zip(special, codes, strict=True):
        if code and position.get(out.status(row).plugin, fit_pos) < fit_pos:
            continue  # rejected before Fit: the first pass stops there too
        add = _requests(ge, ridx, pods_col, width)
        if add is None:
            left.append(row)
            continue
        rows.append(row)
        adds.append(add)
    if not rows:
        return left
    rows_a = np.asarray(rows, dtype=np.int64)
    snap_rows = batch.indices[rows_a]
    requested = cols.requested[snap_rows] + np.array(adds, dtype=np.int64)
    view = SnapshotView(columns_view(cols, snap_rows, requested))
    sub = NodeBatch(view, np.arange(len(rows), dtype=np.int64))  # type: ignore[arg-type]
    res = fit.filter_batch(state, pod, sub)
    out.record(fit.name(), res, rows_a)
    return left
