"""Per-shape answers of node-only plugins, kept across scheduling cycles.

No counterpart upstream: kube-scheduler runs every Filter and Score plugin for every pod.
Its opportunistic batch (KEP-5598) reuses one pod's sorted nodes for the next pod with the
same signature, but only in the narrow case where the chosen node is now full. This is the
same idea where upstream does not batch: a plugin that states it is a
:class:`~kubesched.framework.NodeShapePlugin` answers from the Node objects and from
``node_shape(pod)`` alone, so its verdicts and raw scores over every node are computed once
per distinct shape (the second time it is seen: one-off shapes would pay for arrays they
never reuse) and reused while the snapshot's columns are the same object and no Node object
changed (``NodeColumns.node_version``); the pods placed between two cycles change neither.

- Filter: each node-only filter's result over every row is kept (codes and reasons); a cycle
  takes the rows of its batch from it (nothing at all for a filter that passes every row)
  instead of calling the plugin, so rejected nodes get the plugin's own statuses and reasons.
- PreScore and Score: the plugin's PreScore status (Skip or not) and its raw scores over every
  row are kept; a cycle takes the batch's rows of the array and calls neither PreScore nor
  Score. NormalizeScore still runs on the batch's scores (it depends on which nodes are
  scored).

Decisions are those of calling the plugins (``kubesched bench --check-decisions`` compares
with upstream's per-node path, which never uses this memo). ``Framework(shape_memo=False)``
turns it off (``kubesched bench --no-shape-memo``, for A/B measurements).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._batch import BatchFilterResult, NodeBatch
from ._status import Code, Status

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeColumns, Snapshot
    from ._cycle_state import CycleState

__all__ = ["ShapeMemo"]

I64 = npt.NDArray[np.int64]


@dataclass(slots=True)
class _Entry:
    """One shape's answers on one state of the Node objects."""

    cols: NodeColumns
    version: int
    value: Any


class _Memo:
    """Answers by key, for one state of the Node objects each; a key seen for the first time
    gets none (the caller computes as usual); at most ``limit`` keys at once."""

    __slots__ = ("_entries", "_limit", "_seen")

    def __init__(self, limit: int = 64) -> None:
        self._entries: dict[Hashable, _Entry] = {}
        self._seen: set[Hashable] = set()
        self._limit = limit

    def get(self, key: Hashable, cols: NodeColumns) -> tuple[bool, Any]:
        """(known, value): known when ``key`` was stored for this columns object and version."""
        e = self._entries.get(key)
        if e is not None and e.cols is cols and e.version == cols.node_version:
            return True, e.value
        return False, None

    def worth_storing(self, key: Hashable) -> bool:
        """Whether ``key`` was asked for before (then its answers are worth keeping)."""
        if key in self._entries or key in self._seen:
            return True
        if len(self._seen) >= 4 * self._limit:
            self._seen.clear()
        self._seen.add(key)
        return False

    def put(self, key: Hashable, cols: NodeColumns, value: Any) -> None:
        if len(self._entries) >= self._limit and key not in self._entries:
            self._entries.clear()
        self._entries[key] = _Entry(cols, cols.node_version, value)


class ShapeMemo:
    """The node-only plugins of one profile and their answers per shape (module docstring)."""

    def __init__(self, filters: Sequence[tuple[Any, str]], scorers: Sequence[tuple[Any, str]]) -> None:
        """``filters``: (plugin, name) of the NodeShapePlugins among the batch filters;
        ``scorers``: among the batch scorers with a PreScore."""
        self._filters = list(filters)
        self._scorers = {name: pl for pl, name in scorers}
        self._filter_memo = _Memo()
        self._score_memo = _Memo()
        # Every NodeShapePlugin once, in a fixed order: a pod's shape is their node_shape values.
        self._shaped = list({id(pl): pl for pl, _ in (*filters, *scorers)}.values())
        # Shapes numbered as first seen (never reused), so that memo keys hash a small int and
        # not the shape's tolerations and affinity terms; the last pod's number is kept, as the
        # cycle asks for it at Filter and again at PreScore.
        self._shape_ids: dict[tuple[Hashable, ...], int] = {}
        self._next_id = 0
        self._last: tuple[Pod | None, int] = (None, -1)

    @property
    def scorer_names(self) -> frozenset[str]:
        return frozenset(self._scorers)

    def _shape_id(self, pod: Pod) -> int:
        """The number of ``pod``'s shape (see ``__init__``)."""
        last_pod, last_id = self._last
        if last_pod is pod:
            return last_id
        shape = tuple(pl.node_shape(pod) for pl in self._shaped)
        sid = self._shape_ids.get(shape)
        if sid is None:
            if len(self._shape_ids) >= 4096:
                self._shape_ids.clear()
            sid = self._shape_ids[shape] = self._next_id
            self._next_id += 1
        self._last = (pod, sid)
        return sid

    # -- Filter -----------------------------------------------------------------------------
    def filter_results(self, state: CycleState, pod: Pod, snapshot: Snapshot
                       ) -> Mapping[str, BatchFilterResult | None] | None:
        """The active node-only filters' results over every snapshot row, by plugin name (None
        for a plugin that passes every row), or None when the shape is not known yet."""
        skip = state.skip_filter_plugins
        active = [(pl, name) for pl, name in self._filters if not (skip and name in skip)]
        if not active:
            return None
        key = (self._shape_id(pod), *(name for _, name in active))
        cols = snapshot.columns
        known, value = self._filter_memo.get(key, cols)
        if not known:
            if not self._filter_memo.worth_storing(key):
                return None
            every = NodeBatch.all(snapshot)
            value = {}
            for pl, name in active:
                res: BatchFilterResult = pl.filter_batch(state, pod, every)
                value[name] = res if np.count_nonzero(res.codes) else None
            self._filter_memo.put(key, cols, value)
        return value

    # -- PreScore / Score -----------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, name: str, snapshot: Snapshot
                  ) -> tuple[bool, Status | None]:
        """PreScore of node-only scorer ``name`` from the memo: (answered, its status). When
        answered and not skipped, the raw scores over every row are in ``state.shape_scores``
        and the plugin is not called this cycle."""
        pl = self._scorers[name]
        key = (self._shape_id(pod), name)
        cols = snapshot.columns
        known, value = self._score_memo.get(key, cols)
        if not known:
            if not self._score_memo.worth_storing(key):
                return False, None
            value = self._scores(state, pod, pl, snapshot)
            if value is None:
                return False, None  # an error: the plugin reports it when called as usual
            self._score_memo.put(key, cols, value)
        status, scores = value
        if scores is not None:
            if state.shape_scores is None:
                state.shape_scores = {}
            state.shape_scores[name] = scores
        return True, status

    @staticmethod
    def _scores(state: CycleState, pod: Pod, pl: Any, snapshot: Snapshot
                ) -> tuple[Status | None, I64 | None] | None:
        """(PreScore's status, raw scores over every row or None when skipped); None when
        PreScore or Score fails (then nothing is kept)."""
        every = NodeBatch.all(snapshot)
        st = pl.pre_score(state, pod, snapshot.node_info_list)
        if st is not None and st.code != Code.SUCCESS:
            return (st, None) if st.code == Code.SKIP else None
        scores, sst = pl.score_batch(state, pod, every)
        if sst is not None and sst.code != Code.SUCCESS:
            return None
        scores = np.asarray(scores, dtype=np.int64)
        scores.setflags(write=False)
        return st, scores
