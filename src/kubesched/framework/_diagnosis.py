"""Why a pod did not fit: NodeToStatus, Diagnosis and FitError with upstream's message.

Mirrors pkg/scheduler/framework/types.go (master 2026), where these types live in the framework
(the scheduler, preemption and the explain report all build them): ``NodeToStatus`` keeps explicit per-node
statuses plus one status for the nodes absent from the map (nodes PreFilter excluded, or all
nodes when PreFilter rejected the pod); ``Diagnosis`` collects the rejecting plugins that the
queue uses to decide which cluster events may help; ``FitError.error()`` builds the aggregated
message written to the pod's PodScheduled condition and the FailedScheduling event:
``0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s). preemption: ...``
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from ._status import Code, Status

if TYPE_CHECKING:
    from ..api import Pod

__all__ = [
    "EXTENDER_NAME",
    "NO_NODE_AVAILABLE_MSG",
    "Diagnosis",
    "FitError",
    "NodeToStatus",
]

class _Chunk(NamedTuple):
    """Nodes ``names[i]`` with status ``table[keys[i]]``; ``rows``: their rows in the snapshot
    whose ``names_array()`` is ``source`` (None when the writer did not give them)."""

    names: npt.NDArray[np.object_]
    keys: npt.NDArray[np.intp]
    table: list[Status]
    rows: npt.NDArray[np.int64] | None = None
    source: object = None
"""(node names, an index per node into the table, the table of distinct statuses)."""

_DEFAULT_ABSENT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
"""NewDefaultNodeToStatus's absent-nodes status (Status is immutable: one serves all)."""

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
"""NoNodeAvailableMsg (types.go)."""

EXTENDER_NAME = "Extender"
"""framework.ExtenderName: put in UnschedulablePlugins when an extender rejected nodes, so that
any cluster event requeues the pod (extenders register no events; kubernetes#122019)."""


_SMALL_CHUNK = 16
"""A chunk of at most this many names is checked against a later chunk for repeats."""


def _codes_of(table: list[Status]) -> npt.NDArray[np.int8]:
    """The code of each status of a chunk's table (index by the chunk's keys)."""
    return np.fromiter((int(t.code) for t in table), dtype=np.int8, count=len(table))


def _stamped_by(table: list[Status], plugin: str) -> npt.NDArray[np.bool_]:
    """Per status of a chunk's table: was it stamped by ``plugin`` (index by the chunk's keys)."""
    return np.fromiter((st.plugin == plugin for st in table), dtype=bool, count=len(table))


class NodeToStatus:
    """framework.NodeToStatus: explicit statuses of rejected nodes and the status of absent ones.

    Nodes that passed Filter are not in the map. The absent status defaults to
    UnschedulableAndUnresolvable with no reason (NewDefaultNodeToStatus).

    The batch filter rejects thousands of nodes per cycle with a handful of distinct statuses,
    so it records them as chunks (node names, an index per node into a small status table);
    the name -> Status map is built only when someone asks for one node. The reason histogram
    of the FitError message and ``nodes_for_status_code`` read the chunks directly."""

    __slots__ = ("_absent", "_chunks", "_later", "_map")

    def __init__(self) -> None:
        self._map: dict[str, Status] = {}
        self._absent = _DEFAULT_ABSENT
        self._chunks: list[_Chunk] = []
        self._later: list[tuple[int, Callable[[], _Chunk]]] = []

    def _resolve(self) -> None:
        """Turn the deferred chunks (:meth:`set_many_later`) into chunks, in order."""
        if self._later:
            later, self._later = self._later, []
            for _, produce in later:
                self._add_chunk(produce())

    def _materialize(self) -> None:
        self._resolve()
        if not self._chunks:
            return
        m = self._map
        for names, keys, table, _, _ in self._chunks:
            m.update(zip(names.tolist(), [table[k] for k in keys.tolist()], strict=True))
        self._chunks.clear()

    def get(self, node_name: str) -> Status:
        """The node's status, or the absent-nodes status when it has none of its own. Reads
        the chunks in place (one comparison over their names): preemption asks for the
        nominated node's status on every attempt, and building the whole map for it cost more
        than the rest of a PostFilter that finds no candidate."""
        self._resolve()
        if self._map:
            return self._map.get(node_name, self._absent)
        # The chunks' names are distinct (set_many), and chunks exist only while the map is
        # empty (set_many and set merge them into a non-empty map).
        for names, keys, table, _, _ in self._chunks:
            hit = np.flatnonzero(names == node_name)
            if len(hit):
                return table[int(keys[hit[0]])]
        return self._absent

    def set(self, node_name: str, status: Status) -> None:
        self._materialize()
        self._map[node_name] = status

    def set_many_later(self, count: int, produce: Callable[[], _Chunk]) -> None:
        """:meth:`set_many` of ``count`` new nodes, computed only when a status is read: a
        pod that is scheduled never reads the statuses of the nodes that rejected it, only
        how many there were (``len``), and building them was a tenth of a busy cycle."""
        if count:
            self._later.append((count, produce))

    def set_many(self, node_names: npt.NDArray[np.object_], keys: npt.NDArray[np.intp],
                 table: list[Status]) -> None:
        """``node_names[i]`` gets ``table[keys[i]]``; the names must be distinct (one filter
        pass over distinct nodes). They may repeat names of a small earlier chunk (the
        nominated-node pass before the pass over all nodes, which upstream's map overwrites):
        those are dropped from it, which keeps ``len`` exact without building the map. Two
        large chunks must not share names (the filter passes over all nodes are disjoint)."""
        self._resolve()
        self._add_chunk(_Chunk(node_names, keys, table))

    def _add_chunk(self, chunk: _Chunk) -> None:
        if not len(chunk.names):
            return
        if self._chunks:
            self._drop_repeats(chunk.names)
        self._chunks.append(chunk)
        if self._map:  # the names may repeat explicit ones: merge now so that ``len`` stays exact
            self._materialize()

    def _drop_repeats(self, node_names: npt.NDArray[np.object_]) -> None:
        """Remove ``node_names`` from the earlier chunks where one side is small."""
        kept = []
        for chunk in self._chunks:
            if min(len(chunk.names), len(node_names)) <= _SMALL_CHUNK:
                again = np.isin(chunk.names, node_names)
                if again.any():
                    keep = ~again
                    chunk = chunk._replace(names=chunk.names[keep], keys=chunk.keys[keep],
                                           rows=None if chunk.rows is None else chunk.rows[keep])
            if len(chunk.names):
                kept.append(chunk)
        self._chunks = kept

    def __len__(self) -> int:
        return (len(self._map) + sum(len(c.names) for c in self._chunks)
                + sum(count for count, _ in self._later))

    def __contains__(self, node_name: object) -> bool:
        self._materialize()
        return node_name in self._map

    def items(self) -> Iterator[tuple[str, Status]]:
        """ForEachExplicitNode."""
        self._materialize()
        return iter(self._map.items())

    def reason_counts(self) -> Counter[str]:
        """How many explicit nodes carry each reason (the FitError histogram), without building
        the map."""
        self._resolve()
        out: Counter[str] = Counter()
        for _names, keys, table, _, _ in self._chunks:
            for k, count in enumerate(np.bincount(keys, minlength=len(table)).tolist()):
                if count:
                    for r in table[k].reasons:
                        out[r] += count
        if self._map:
            # Thousands of nodes share a handful of Status objects: count those, then reasons.
            by_id = Counter(map(id, self._map.values()))
            statuses = {id(st): st for st in self._map.values()}
            for key, count in by_id.items():
                for r in statuses[key].reasons:
                    out[r] += count
        return out

    def names_with_plugin(self, plugin: str) -> builtins.set[str]:
        """The explicit nodes whose status was stamped by ``plugin``, without building the
        map (preemption's dry run asks this once instead of ``get`` for every node)."""
        self._resolve()
        out: builtins.set[str] = builtins.set()
        for names, keys, table, _, _ in self._chunks:
            by_key = _stamped_by(table, plugin)
            if by_key.any():
                out.update(names[by_key[keys]].tolist())
        out.update(name for name, st in self._map.items() if st.plugin == plugin)
        return out

    def rows_with_plugin(self, plugin: str, source: object) -> npt.NDArray[np.int64] | None:
        """:meth:`names_with_plugin` as rows of the snapshot whose ``names_array()`` is
        ``source``, read from the chunks without a name lookup; None unless every explicit
        status sits in a chunk that carries such rows."""
        chunks = self._chunks_with_rows(source)
        if chunks is None:
            return None
        parts = [rows[by_key[keys]] for keys, table, rows in chunks
                 if (by_key := _stamped_by(table, plugin)).any()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def absent_nodes_status(self) -> Status:
        return self._absent

    def set_absent_nodes_status(self, status: Status) -> None:
        self._absent = status

    def rows_for_status_code(self, code: Code, source: object, num_rows: int) -> npt.NDArray[np.bool_] | None:
        """:meth:`nodes_for_status_code` of all nodes of the snapshot whose ``names_array()`` is
        ``source`` (``num_rows`` of them), as a row mask read from the chunks' rows; None
        unless every explicit status sits in a chunk carrying such rows."""
        chunks = self._chunks_with_rows(source)
        if chunks is None:
            return None
        mask = np.full(num_rows, self._absent.code == code, dtype=bool)
        for keys, table, rows in chunks:
            mask[rows] = _codes_of(table)[keys] == int(code)
        return mask

    def _chunks_with_rows(self, source: object,
                          ) -> list[tuple[npt.NDArray[np.intp], list[Status], npt.NDArray[np.int64]]] | None:
        """The explicit statuses as (keys, table, rows) of chunks carrying rows of the snapshot
        whose ``names_array()`` is ``source``; None when some status is not in such a chunk."""
        self._resolve()
        if self._map:
            return None
        out = []
        for c in self._chunks:
            if c.rows is None or c.source is not source:
                return None
            out.append((c.keys, c.table, c.rows))
        return out

    def nodes_for_status_code(self, node_names: list[str], code: Code) -> list[str]:
        """NodesForStatusCode: the given nodes (snapshot order) whose status has ``code``;
        absent nodes count with the absent status."""
        self._resolve()
        if self._chunks and not self._map:
            # Read the chunks: which explicit nodes have the code, which have another one.
            hit: set[str] = set()
            miss: set[str] = set()
            for names, keys, table, _, _ in self._chunks:
                codes = _codes_of(table)
                sel = codes[keys] == int(code)
                hit.update(names[sel].tolist())
                miss.update(names[~sel].tolist())
            if self._absent.code == code:
                return [n for n in node_names if n not in miss]
            return [n for n in node_names if n in hit]
        m, absent = self._map, self._absent
        return [n for n in node_names if m.get(n, absent).code == code]


class Diagnosis:
    """framework.Diagnosis.

    The batch filter defers building the statuses of the nodes that rejected a pod
    (:meth:`add_rejected_later`): they are built, and their plugins recorded, the first time
    the statuses or the plugin sets are read. A pod that is scheduled never reads them."""

    __slots__ = ("_later", "_pending_plugins", "_unschedulable_plugins", "node_to_status",
                 "post_filter_msg", "pre_filter_msg")

    def __init__(self, node_to_status: NodeToStatus | None = None,
                 unschedulable_plugins: set[str] | None = None, pending_plugins: set[str] | None = None,
                 pre_filter_msg: str = "", post_filter_msg: str = "") -> None:
        self.node_to_status = node_to_status if node_to_status is not None else NodeToStatus()
        self._unschedulable_plugins = unschedulable_plugins if unschedulable_plugins is not None else set()
        self._pending_plugins = pending_plugins if pending_plugins is not None else set()
        self.pre_filter_msg = pre_filter_msg
        self.post_filter_msg = post_filter_msg
        self._later: list[Callable[[], list[Status]]] = []

    def _resolve(self) -> None:
        if self._later:
            later, self._later = self._later, []
            for table in later:
                for st in table():
                    self.add_plugin_status(st)

    @property
    def unschedulable_plugins(self) -> set[str]:
        self._resolve()
        return self._unschedulable_plugins

    @unschedulable_plugins.setter
    def unschedulable_plugins(self, plugins: set[str]) -> None:
        self._resolve()
        self._unschedulable_plugins = plugins

    @property
    def pending_plugins(self) -> set[str]:
        self._resolve()
        return self._pending_plugins

    @pending_plugins.setter
    def pending_plugins(self, plugins: set[str]) -> None:
        self._resolve()
        self._pending_plugins = plugins

    def add_plugin_status(self, status: Status) -> None:
        """AddPluginStatus: record the plugin behind a rejection (Pending goes to both sets,
        as upstream: Pending counts as rejected)."""
        if not status.plugin:
            return
        if status.is_rejected():
            self._unschedulable_plugins.add(status.plugin)
        if status.code == Code.PENDING:
            self._pending_plugins.add(status.plugin)

    def add_rejected_later(self, names: npt.NDArray[np.object_],
                           statuses: Callable[[], tuple[npt.NDArray[np.intp], list[Status]]],
                           rows: npt.NDArray[np.int64] | None = None, source: object = None) -> None:
        """Nodes ``names`` rejected the pod with ``statuses()`` (keys per node into a table),
        as ``set_many`` plus AddPluginStatus for each distinct status, computed on first read.
        ``rows``/``source``: the nodes' snapshot rows and that snapshot's ``names_array()``
        (see :meth:`NodeToStatus.rows_with_plugin`)."""
        if not len(names):
            return
        memo: list[tuple[npt.NDArray[np.intp], list[Status]]] = []

        def keys_and_table() -> tuple[npt.NDArray[np.intp], list[Status]]:
            if not memo:
                memo.append(statuses())
            return memo[0]

        self.node_to_status.set_many_later(
            len(names), lambda: _Chunk(names, *keys_and_table(), rows, source))
        self._later.append(lambda: keys_and_table()[1])


class FitError(Exception):
    """framework.FitError: no node fits the pod; ``str()`` is upstream's Error() message."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def __str__(self) -> str:
        return self.error()

    def reason_counts(self) -> Counter[str]:
        """How many nodes gave each reason: the histogram of Error()'s filter part (explicit
        nodes plus the absent ones with the absent-nodes reasons); when PreFilter rejected the
        pod, its message for every node."""
        d = self.diagnosis
        if d.pre_filter_msg:
            return Counter({d.pre_filter_msg: self.num_all_nodes})
        reasons = d.node_to_status.reason_counts()
        absent = self.num_all_nodes - len(d.node_to_status)
        if absent > 0:
            for r in d.node_to_status.absent_nodes_status().reasons:
                reasons[r] += absent
        return reasons

    def error(self) -> str:
        """FitError.Error: ``0/X nodes are available: <PreFilterMsg>. <FilterMsg>. <PostFilterMsg>``.

        The filter part is a histogram of reasons over the explicit nodes plus the absent ones
        (with the absent-nodes reasons), rendered ``"<count> <reason>"`` and sorted as strings
        (so "10 x" sorts before "2 y", exactly as Go's sort.Strings). When PreFilter rejected
        the pod the node map only repeats its message, so it is not counted again."""
        d = self.diagnosis
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            hist = sorted(f"{v} {k}" for k, v in self.reason_counts().items())
            if hist:
                msg += f" {', '.join(hist)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg
