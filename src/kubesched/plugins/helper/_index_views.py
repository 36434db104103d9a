"""Materialized per-node counts over the pod index, kept up to date as nodes change.

The pod index answers "how many pods matching this rule sit on each node?" by evaluating the
rule once per pod group (or per distinct affinity term) and adding the groups' per-node counts.
Done per scheduling cycle in Python, that addition walks every node holding a matching pod: a
thousand dictionary steps per cycle for a thousand replicas. The rules a workload asks about are
few and repeat from cycle to cycle (every replica of a deployment asks the same), so each rule
gets a *view*: a numpy array of counts per node row, built once and then moved by the deltas of
the nodes that changed (usually one per cycle). Plugins then aggregate per topology domain with
``np.bincount``. There is no upstream counterpart: upstream rescans every pod in parallel
goroutines (interpodaffinity/filtering.go, podtopologyspread/filtering.go).

A view is valid for one node layout (node name -> row); the index drops every view when the
layout changes (a node added, removed or re-ordered). Views are kept least-recently-used, a few
dozen at most, so memory stays bounded (one int64 per node per view and topology key).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ...api import Pod
from ._affinity_terms import AffinityTerm

__all__ = ["GroupView", "TermKey", "TermView", "ViewCache", "per_value_sums"]

I64 = npt.NDArray[np.int64]
TermKey = tuple[AffinityTerm, int]  # (term, weight); required terms have weight 0
# gid -> (a representative pod, terminating, group key)
GroupInfo = Mapping[int, tuple[Pod, bool, Any]]


_DOMAIN_COLUMNS = 4
"""Label columns a group view keeps per-domain sums for (the topology keys asked about)."""


class GroupView:
    """Per-row count of the pods whose group satisfies ``pred`` (terminating pods left out when
    ``skip_terminating``)."""

    __slots__ = ("_domains", "member", "pred", "rows", "skip_terminating")

    def __init__(self, pred: Callable[[Pod], bool], skip_terminating: bool, n: int) -> None:
        self.pred = pred
        self.skip_terminating = skip_terminating
        self.member: dict[int, bool] = {}  # gid -> does the group count
        self.rows: I64 = np.zeros(n, dtype=np.int64)
        # (label codes per row, per-code sums of ``rows``): kept by ``apply`` for the label
        # columns asked about (:meth:`domain_sums`), the newest last
        self._domains: list[tuple[npt.NDArray[np.int32], I64]] = []

    def domain_sums(self, codes: npt.NDArray[np.int32], num_codes: int) -> I64:
        """``rows`` summed per label code (``codes[row]``; -1, no label, left out): a
        ``bincount`` over every row when first asked for this label column (by identity), then
        moved by the same deltas as the rows. Read it, do not keep or change it."""
        for known, sums in self._domains:
            if known is codes and len(sums) == num_codes:
                return sums
        labeled = codes >= 0
        sums = np.bincount(codes[labeled], weights=self.rows[labeled], minlength=num_codes).astype(np.int64)
        self._domains.append((codes, sums))
        if len(self._domains) > _DOMAIN_COLUMNS:
            del self._domains[0]
        return sums

    def includes(self, gid: int, info: GroupInfo) -> bool:
        m = self.member.get(gid)
        if m is None:
            pod, terminating, _ = info[gid]
            m = self.member[gid] = not (self.skip_terminating and terminating) and bool(self.pred(pod))
        return m

    def fill(self, group_nodes: Mapping[int, Mapping[str, int]], info: GroupInfo,
             layout: Mapping[str, int]) -> None:
        rows = self.rows
        for gid, per_node in group_nodes.items():
            if self.includes(gid, info):
                for name, n in per_node.items():
                    rows[layout[name]] += n

    def apply(self, row: int, deltas: Mapping[int, int], info: GroupInfo) -> None:
        total = 0
        for gid, d in deltas.items():
            if self.includes(gid, info):
                total += d
        if total:
            self.rows[row] += total
            for codes, sums in self._domains:
                code = int(codes[row])
                if code >= 0:
                    sums[code] += total


class TermView:
    """Per topology key, per-row sum over existing pods' terms of one kind that satisfy
    ``pred``: ``weight`` times the pods carrying the term (weight 1 for required terms)."""

    __slots__ = ("kind", "member", "n", "pred", "rows", "weighted")

    def __init__(self, kind: str, pred: Callable[[AffinityTerm], bool], weighted: bool, n: int) -> None:
        self.kind = kind
        self.pred = pred
        self.weighted = weighted
        self.n = n
        self.member: dict[TermKey, bool] = {}
        self.rows: dict[str, I64] = {}

    def _add(self, tk: TermKey, row: int, count: int) -> None:
        m = self.member.get(tk)
        if m is None:
            m = self.member[tk] = bool(self.pred(tk[0]))
        if not m:
            return
        term, weight = tk
        arr = self.rows.get(term.topology_key)
        if arr is None:
            arr = self.rows[term.topology_key] = np.zeros(self.n, dtype=np.int64)
        arr[row] += count * weight if self.weighted else count

    def fill(self, term_nodes: Mapping[TermKey, Mapping[str, int]], layout: Mapping[str, int]) -> None:
        for tk, per_node in term_nodes.items():
            for name, n in per_node.items():
                self._add(tk, layout[name], n)

    def apply(self, row: int, deltas: Mapping[TermKey, int]) -> None:
        for tk, d in deltas.items():
            self._add(tk, row, d)


V = TypeVar("V")


class ViewCache(Generic[V]):
    """Views by key, least recently used first out beyond ``capacity``."""

    __slots__ = ("_capacity", "_views")

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._views: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable) -> V | None:
        v = self._views.get(key)
        if v is not None:
            self._views.move_to_end(key)
        return v

    def put(self, key: Hashable, view: V) -> None:
        self._views[key] = view
        while len(self._views) > self._capacity:
            self._views.popitem(last=False)

    def values(self) -> list[V]:
        return list(self._views.values())

    def clear(self) -> None:
        self._views.clear()

    def __len__(self) -> int:
        return len(self._views)


def per_value_sums(rows: I64, codes: npt.NDArray[np.int32], nvalues: int) -> I64:
    """``rows`` summed per label value code (rows whose node lacks the label, code -1, count
    nowhere): the count of each topology domain. Exact: the sums stay far below 2**53."""
    has = codes >= 0
    return np.bincount(codes[has], weights=rows[has], minlength=nvalues).astype(np.int64)
