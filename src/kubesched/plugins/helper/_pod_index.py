"""An incremental index of the snapshot's pods, grouped by what affinity and spreading read.

Upstream's PreFilter/PreScore of InterPodAffinity and PodTopologySpread scan every pod of every
node each cycle (in parallel goroutines). In Python that scan dominates a cycle, so the plugins
share this index instead: pods are grouped by (namespace, labels, terminating) - replicas of one
workload fall into one group - and existing pods' affinity terms are grouped by term. A rule is
then evaluated once per group and the per-node counts of the matching groups are summed, which
gives exactly the counts of the per-pod scan. The index follows the nodes incrementally: a node
is re-read only when its NodeInfo ``generation`` changed. Rules asked for again and again are
answered from materialized per-row count arrays (:mod:`._index_views`) that move with the deltas
of the re-read nodes.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...api import Pod
from ...cache import NodeInfo, label_domains_of
from ...framework import SnapshotRows
from ._affinity_terms import AffinityTerm, PodTermsCache
from ._index_views import GroupView, TermKey, TermView, ViewCache

if TYPE_CHECKING:
    from ...cache import Snapshot
    from ...framework import Handle

__all__ = ["NodeView", "PodIndex", "TermKind", "ValueCodes", "cycle_snapshot"]

# "required_affinity" | "required_anti_affinity" | "preferred_affinity" | "preferred_anti_affinity"
TermKind = str
_KINDS = ("required_affinity", "required_anti_affinity", "preferred_affinity", "preferred_anti_affinity")

GroupKey = tuple[str, frozenset[tuple[str, str]], bool]
_PREFERRED = frozenset({"preferred_affinity", "preferred_anti_affinity"})


@dataclass
class _NodeEntry:
    generation: int
    info: NodeInfo
    groups: dict[int, int] = field(default_factory=dict)
    terms: dict[TermKind, dict[TermKey, int]] = field(default_factory=dict)
    # id(pod) -> (the pod, its group, its term keys): a re-read reuses what it read of the pods
    # the node already had (the pod is kept so that its id stays its own)
    pods: dict[int, tuple[Pod, int, list[tuple[TermKind, TermKey]]]] = field(default_factory=dict)


def _diff(old: Mapping[Any, int], new: Mapping[Any, int]) -> dict[Any, int]:
    """new - old, nonzero entries only."""
    d = {k: n - old.get(k, 0) for k, n in new.items()}
    for k, n in old.items():
        if k not in new:
            d[k] = -n
    return {k: n for k, n in d.items() if n}


def _add(target: dict[Any, dict[str, int]], key: Any, node: str, n: int) -> None:
    per_node = target.setdefault(key, {})
    c = per_node.get(node, 0) + n
    if c:
        per_node[node] = c
    else:
        per_node.pop(node, None)
        if not per_node:
            del target[key]


class PodIndex:
    def __init__(self, terms: PodTermsCache | None = None) -> None:
        """``terms``: index existing pods' affinity terms too (InterPodAffinity needs them,
        PodTopologySpread does not)."""
        self._terms = terms
        self._nodes: dict[str, _NodeEntry] = {}
        self._group_ids: dict[GroupKey, int] = {}
        # gid -> (a representative pod: namespace and labels, terminating, key); dropped with the group
        self._group_info: dict[int, tuple[Pod, bool, GroupKey]] = {}
        self._next_gid = 0
        self._group_nodes: dict[int, dict[str, int]] = {}
        self._term_nodes: dict[TermKind, dict[TermKey, dict[str, int]]] = {k: {} for k in _KINDS}
        self._by_id: dict[int, _NodeEntry] = {}  # id(NodeInfo) -> entry, for the cheap walk
        self._snap_ref: weakref.ref[Snapshot] | None = None
        self._fp: tuple[int, int, int] | None = None
        # node name -> row of the node list last synced (the snapshot's node_index when synced
        # with a snapshot's list); the views' arrays are aligned with it.
        self._layout: Mapping[str, int] = {}
        self._layout_names: list[str] | None = None  # the names, for layouts not from a snapshot
        self._nrows = 0
        self._group_views: ViewCache[GroupView] = ViewCache(64)
        self._term_views: ViewCache[TermView] = ViewCache(16)

    # -- maintenance ----------------------------------------------------------------------------
    def sync(self, nodes: Sequence[NodeInfo], snapshot: Snapshot | None = None) -> None:
        """Bring the index up to date with ``nodes`` (re-reading changed nodes only).

        When ``nodes`` is the node list of a snapshot the cache keeps up to date (its
        ``generation`` is set by Cache.update_snapshot), an unchanged (snapshot, generation, node
        tree version) pair means nothing changed since the last sync and the walk is skipped."""
        self._set_layout(nodes, snapshot)
        fp = None
        if snapshot is not None and snapshot.node_info_list is nodes and snapshot.generation > 0:
            fp = (snapshot.generation, snapshot.tree_version, len(nodes))
            if self._snap_ref is not None and self._snap_ref() is snapshot and self._fp is not None:
                if self._fp == fp:
                    return
                prev_gen, rewritten = snapshot.last_update
                if self._fp[1:] == fp[1:] and self._fp[0] == prev_gen:
                    # Synced at the previous generation: only the nodes the last snapshot
                    # update rewrote can differ (same node list, same tree).
                    self._sync_nodes(nodes, rewritten)
                    self._fp = fp
                    return
        self._sync_nodes(nodes, nodes)
        if fp is not None and snapshot is not None:
            self._snap_ref, self._fp = weakref.ref(snapshot), fp
        else:
            self._snap_ref = None

    def _set_layout(self, nodes: Sequence[NodeInfo], snapshot: Snapshot | None) -> None:
        """Adopt the rows of ``nodes``; a different layout drops every view."""
        self._nrows = len(nodes)
        if snapshot is not None and snapshot.node_info_list is nodes:
            layout = snapshot.node_index
            if layout is self._layout:
                return
            self._layout, self._layout_names = layout, None
        else:
            names = [ni.name for ni in nodes]
            if names == self._layout_names:
                return
            self._layout, self._layout_names = {n: j for j, n in enumerate(names)}, names
        self._drop_views()

    def _drop_views(self) -> None:
        self._group_views.clear()
        self._term_views.clear()

    def _sync_nodes(self, nodes: Sequence[NodeInfo], candidates: Sequence[NodeInfo]) -> None:
        """Re-read those of ``candidates`` whose entry is missing or stale."""
        by_id = self._by_id
        changed = []
        for ni in candidates:
            e = by_id.get(id(ni))
            if e is None or e.info is not ni or e.generation != ni.generation:
                changed.append(ni)
        if changed or len(nodes) != len(self._nodes):
            self._resync(nodes, changed)

    def _resync(self, nodes: Sequence[NodeInfo], changed: list[NodeInfo]) -> None:
        for ni in changed:
            node = ni.node
            if node is None:
                continue
            name = node.name
            old = self._nodes.get(name)
            if old is not None:
                self._by_id.pop(id(old.info), None)
                if old.generation == ni.generation:
                    old.info = ni  # a snapshot copy of an unchanged node: same generation, same contents
                    self._by_id[id(ni)] = old
                    continue
            e = self._read(ni, old)
            self._update_views(name, old, e)
            self._nodes[name] = e
            self._by_id[id(ni)] = e
            # The new counts first: a group only on this node must not vanish in between.
            self._apply(e, 1)
            if old is not None:
                self._apply(old, -1)
        if len(nodes) != len(self._nodes):
            present = {ni.name for ni in nodes if ni.node is not None}
            for name in [n for n in self._nodes if n not in present]:
                e = self._nodes.pop(name)
                self._by_id.pop(id(e.info), None)
                self._update_views(name, e, None)
                self._apply(e, -1)

    def _update_views(self, name: str, old: _NodeEntry | None, new: _NodeEntry | None) -> None:
        """Move the views by the difference between a node's old and new entries."""
        gviews, tviews = self._group_views.values(), self._term_views.values()
        if not gviews and not tviews:
            return
        row = self._layout.get(name)
        if row is None:  # not in the layout the views were built for: rebuild them when asked
            self._drop_views()
            return
        if gviews:
            deltas = _diff(old.groups if old is not None else {}, new.groups if new is not None else {})
            if deltas:
                for gv in gviews:
                    gv.apply(row, deltas, self._group_info)
        term_deltas: dict[TermKind, dict[Any, int]] = {}
        for tv in tviews:
            tdeltas = term_deltas.get(tv.kind)
            if tdeltas is None:
                tdeltas = term_deltas[tv.kind] = _diff(old.terms.get(tv.kind, {}) if old is not None else {},
                                                      new.terms.get(tv.kind, {}) if new is not None else {})
            if tdeltas:
                tv.apply(row, tdeltas)

    def _group(self, pod: Pod) -> int:
        terminating = pod.meta.deletion_timestamp is not None
        key: GroupKey = (pod.namespace, frozenset(pod.labels.items()), terminating)
        gid = self._group_ids.get(key)
        if gid is None:
            gid = self._group_ids[key] = self._next_gid
            self._next_gid += 1
            self._group_info[gid] = (pod, terminating, key)
        return gid

    def _term_keys(self, pod: Pod) -> list[tuple[TermKind, TermKey]]:
        if self._terms is None or pod.affinity is None:
            return []
        t = self._terms.get(pod)
        return [*(("required_affinity", (x, 0)) for x in t.required_affinity),
                *(("required_anti_affinity", (x, 0)) for x in t.required_anti_affinity),
                *(("preferred_affinity", (w.term, w.weight)) for w in t.preferred_affinity),
                *(("preferred_anti_affinity", (w.term, w.weight)) for w in t.preferred_anti_affinity)]

    def _read(self, ni: NodeInfo, old: _NodeEntry | None = None) -> _NodeEntry:
        """The node's groups and terms. Pods ``old`` (the node's previous entry, still applied,
        so its group ids are alive) already read are not read again: its counts are adjusted
        by the pods that came and went (a node gains one pod per binding; re-reading all of a
        node's pods per cycle cost more than the rest of the index)."""
        e = _NodeEntry(ni.generation, ni)
        if old is not None and old.pods:
            cur = {id(pi.pod): pi.pod for pi in ni.pods}
            if len(cur) == len(ni.pods):
                self._read_delta(e, old, cur)
                return e
        for pi in ni.pods:
            pod = pi.pod
            self._count(e, id(pod), (pod, self._group(pod), self._term_keys(pod)), 1)
        return e

    def _read_delta(self, e: _NodeEntry, old: _NodeEntry, cur: dict[int, Pod]) -> None:
        """``e`` = ``old`` minus the pods no longer on the node plus the new ones (``cur``: the
        node's pods by id; ``old`` keeps its pods alive, so equal ids are the same pods)."""
        known = old.pods
        e.pods = dict(known)
        e.groups = dict(old.groups)
        e.terms = {kind: dict(counts) for kind, counts in old.terms.items()}
        for k in known.keys() - cur.keys():
            self._count(e, k, e.pods.pop(k), -1)
        for k in cur.keys() - known.keys():
            pod = cur[k]
            self._count(e, k, (pod, self._group(pod), self._term_keys(pod)), 1)

    @staticmethod
    def _count(e: _NodeEntry, key: int, hit: tuple[Pod, int, list[tuple[TermKind, TermKey]]],
               sign: int) -> None:
        """Add (``sign`` 1) or remove (-1) one pod's group and terms; zero counts are dropped."""
        if sign > 0:
            e.pods[key] = hit
        groups, terms = e.groups, e.terms
        gid = hit[1]
        n = groups.get(gid, 0) + sign
        if n:
            groups[gid] = n
        else:
            del groups[gid]
        for kind, k in hit[2]:
            d = terms.get(kind)
            if d is None:
                d = terms[kind] = {}
            m = d.get(k, 0) + sign
            if m:
                d[k] = m
            else:
                del d[k]
                if not d:
                    del terms[kind]

    def _apply(self, e: _NodeEntry, sign: int) -> None:
        name = e.info.name
        for gid, n in e.groups.items():
            _add(self._group_nodes, gid, name, sign * n)
            if gid not in self._group_nodes:  # no node holds the group any more
                _, _, key = self._group_info.pop(gid)
                del self._group_ids[key]
                for gv in self._group_views.values():
                    gv.member.pop(gid, None)
        for kind, counts in e.terms.items():
            for k, n in counts.items():
                _add(self._term_nodes[kind], k, name, sign * n)

    # -- queries ----------------------------------------------------------------------------------
    def group_rows(self, key: Hashable, pred: Callable[[Pod], bool],
                   skip_terminating: bool = False) -> npt.NDArray[np.int64]:
        """Per row of the last synced node list, the number of pods whose namespace and labels
        satisfy ``pred``. ``key`` names the rule: equal
        keys must mean the same ``pred``. The array is the index's own and moves with later
        syncs: read it, do not keep or change it."""
        return self._group_view(key, pred, skip_terminating).rows

    def group_domain_sums(self, key: Hashable, pred: Callable[[Pod], bool], codes: npt.NDArray[np.int32],
                          num_codes: int, skip_terminating: bool = False) -> npt.NDArray[np.int64]:
        """:meth:`group_rows` summed per label code (``codes``: a label column over the same
        rows, -1 for no label), kept up to date with the rows across syncs while ``codes`` is
        the same array. The index's own array: read it, do not keep or change it."""
        return self._group_view(key, pred, skip_terminating).domain_sums(codes, num_codes)

    def _group_view(self, key: Hashable, pred: Callable[[Pod], bool], skip_terminating: bool) -> GroupView:
        full_key = (key, skip_terminating)
        v = self._group_views.get(full_key)
        if v is None:
            v = GroupView(pred, skip_terminating, self._nrows)
            v.fill(self._group_nodes, self._group_info, self._layout)
            self._group_views.put(full_key, v)
        return v

    def term_rows(self, kind: TermKind, key: Hashable,
                  pred: Callable[[AffinityTerm], bool]) -> Mapping[str, npt.NDArray[np.int64]]:
        """Per topology key, per row of the last synced node list: the existing pods' terms of
        ``kind`` that satisfy ``pred``, each counted ``weight`` times per pod carrying it
        (once for required terms). Keys no such term uses are absent. ``key`` names ``pred``;
        the arrays are the index's own (read, do not keep)."""
        full_key = (kind, key)
        v = self._term_views.get(full_key)
        if v is None:
            v = TermView(kind, pred, kind in _PREFERRED, self._nrows)
            v.fill(self._term_nodes[kind], self._layout)
            self._term_views.put(full_key, v)
        return v.rows


class NodeView:
    """The nodes a PreFilter/PreScore call received, with their topology values as integer codes
    per label key (``-1``: no such label) and their positions by name. Uses the snapshot's columns
    when ``nodes`` is the snapshot's node list, else computes them."""

    def __init__(self, nodes: Sequence[NodeInfo], snapshot: Any = None) -> None:
        self.nodes = nodes
        same = snapshot is not None and snapshot.node_info_list is nodes
        # the snapshot whose rows the view's rows are (None: rows of ``nodes`` only)
        self.snapshot: Any = snapshot if same else None
        self._columns = snapshot.columns if same else None
        self._pos: dict[str, int] | None = snapshot.node_index if same else None
        self._row_of_id: dict[int, int] | None = snapshot.row_of_id if same else None
        self._cache: dict[str, tuple[npt.NDArray[np.int32], list[str]]] = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def codes(self, key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if self._columns is not None:
            hit = self._columns.label_column(key)
        else:
            ids: dict[str, int] = {}
            codes = np.full(len(self.nodes), -1, dtype=np.int32)
            for j, ni in enumerate(self.nodes):
                v = ni.node.labels.get(key) if ni.node is not None else None
                if v is not None:
                    codes[j] = ids.setdefault(v, len(ids))
            hit = (codes, list(ids))
        self._cache[key] = hit
        return hit

    def has_node(self) -> npt.NDArray[np.bool_]:
        """Rows holding a Node (a snapshot's rows always do)."""
        if self._columns is not None:
            return np.ones(len(self.nodes), dtype=bool)
        return np.array([ni.node is not None for ni in self.nodes], dtype=bool)

    def label_domains(self, key: str) -> tuple[bool, list[int]]:
        """Whether every row holds a node labelled ``key``, and the codes present, ascending
        (kept by the snapshot's columns across cycles)."""
        if self._columns is not None:
            return self._columns.label_domains(key)
        return label_domains_of(self.codes(key)[0], self.has_node())

    def rows_of(self, subset: Sequence[NodeInfo]) -> npt.NDArray[np.int64]:
        """The rows of ``subset``'s nodes (a subset of ``nodes``), in no particular order."""
        if len(subset) == len(self.nodes):
            return np.arange(len(self.nodes), dtype=np.int64)
        if isinstance(subset, SnapshotRows):  # the batch filter's feasible nodes: snapshot rows
            rows, infos = subset.rows, subset.infos
            if (len(infos) == len(self.nodes) and len(rows)
                    and infos[int(rows[0])] is self.nodes[int(rows[0])]):
                return np.asarray(rows, dtype=np.int64)
        if self._row_of_id is not None:
            try:  # the snapshot's own NodeInfos: rows by identity, without reading names
                return np.fromiter(map(self._row_of_id.__getitem__, map(id, subset)), dtype=np.int64,
                                   count=len(subset))
            except KeyError:
                pass
        pos = self.positions()
        return np.fromiter((pos[ni.name] for ni in subset if ni.node is not None), dtype=np.int64)

    def positions(self) -> dict[str, int]:
        if self._pos is None:
            self._pos = {ni.name: j for j, ni in enumerate(self.nodes)}
        return self._pos


class ValueCodes:
    """Per-value arrays over a label column: ``array(key, values, counts)[code]`` is the count of
    the value with that code, with a trailing 0 for code -1 (no label). The value -> code map is
    built once per label column (kept while the snapshot's ``values`` list object is current)."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[list[str], dict[str, int]]] = {}

    def array(self, key: str, values: list[str], counts: Mapping[str, int]) -> npt.NDArray[np.int64]:
        hit = self._cache.get(key)
        if hit is None or hit[0] is not values:
            hit = self._cache[key] = (values, {v: i for i, v in enumerate(values)})
        inv = hit[1]
        arr = np.zeros(len(values) + 1, dtype=np.int64)
        get = inv.get
        rows = [(i, c) for v, c in counts.items() if (i := get(v)) is not None]
        if rows:  # one vectorized store (values are distinct, so are their codes)
            ii, cc = zip(*rows, strict=True)
            arr[list(ii)] = cc
        return arr


def cycle_snapshot(handle: Handle | None) -> Snapshot | None:
    """The cycle's snapshot from the handle (upstream's shared lister), or None without a handle
    or when the handle has no (non-empty) snapshot: the plugin then sees only the nodes it is
    given."""
    if handle is None:
        return None
    try:
        snap = handle.snapshot()
    except (AttributeError, LookupError, RuntimeError):
        return None
    return snap if snap is not None and snap.node_info_list else None
