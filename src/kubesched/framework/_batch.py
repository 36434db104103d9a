"""The batch path: all candidate nodes at once.

A :class:`NodeBatch` names the candidate nodes as row positions into the snapshot's columns.
Batch filters return a :class:`BatchFilterResult`: one status code per candidate plus a reason
id into a small reason table, so a plugin whose reasons vary per node (NodeResourcesFit's
"Insufficient cpu", "Insufficient memory", …) encodes them without building a Status per node.
Batch scores return an int64 array aligned with the batch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, overload, runtime_checkable

import numpy as np
import numpy.typing as npt

from ._status import Code, Status

if TYPE_CHECKING:
    from ..cache import NodeInfo, Snapshot

__all__ = ["BatchFilterResult", "BatchNames", "NodeBatch", "SnapshotRows"]


@runtime_checkable
class SnapshotRows(Protocol):
    """Nodes handed to PreFilter or PreScore as a sequence that also knows their snapshot rows,
    as the batch filter pass's feasible nodes do: a plugin indexing the snapshot's rows takes
    them as they are instead of looking each NodeInfo up. No upstream counterpart (its
    PreScore gets a plain ``[]*NodeInfo``); a plain list has no rows and is looked up."""

    @property
    def rows(self) -> npt.NDArray[np.int64]:
        """The nodes' rows in ``infos``, in the sequence's order."""
        ...

    @property
    def infos(self) -> npt.NDArray[np.object_]:
        """The snapshot's NodeInfos by row (its ``infos_array``)."""
        ...


@dataclass(frozen=True, slots=True)
class NodeBatch:
    snapshot: Snapshot
    indices: npt.NDArray[np.int64]  # positions in snapshot.node_info_list

    def __len__(self) -> int:
        return len(self.indices)

    def node_infos(self) -> list[NodeInfo]:
        lst = self.snapshot.node_info_list
        return [lst[i] for i in self.indices.tolist()]

    def names(self) -> list[str]:
        """The batch's node names, in batch order."""
        return list(self.snapshot.names_array()[self.indices].tolist())

    def all_have_nodes(self) -> bool:
        """Every NodeInfo of the batch has its Node object (the snapshot's ``has_node`` column;
        a view over some rows, as preemption's, has its columns too)."""
        return bool(self.snapshot.columns.has_node[self.indices].all())

    def lazy_names(self) -> BatchNames:
        """The names as a sequence that reads the snapshot only for the entries asked for."""
        return BatchNames(self)

    @staticmethod
    def all(snapshot: Snapshot) -> NodeBatch:
        return NodeBatch(snapshot, np.arange(snapshot.num_nodes(), dtype=np.int64))


class BatchNames(Sequence[str]):
    """A batch's node names, built only when iterated or sliced.

    The score pass hands the scored nodes' names to normalizers and to its result, but a
    scheduling cycle usually reads one of them: the chosen host's (building 500 strings per
    cycle cost more than a score plugin)."""

    __slots__ = ("_batch", "_list")

    def __init__(self, batch: NodeBatch) -> None:
        self._batch = batch
        self._list: list[str] | None = None

    def _all(self) -> list[str]:
        if self._list is None:
            self._list = self._batch.names()
        return self._list

    def __len__(self) -> int:
        return len(self._batch.indices)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice) or self._list is not None:
            return self._all()[i]
        row = int(self._batch.indices[i])
        return str(self._batch.snapshot.node_info_list[row].name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BatchNames | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())


@dataclass(slots=True)
class BatchFilterResult:
    """codes[i] is a :class:`Code` value for ``batch.indices[i]``; reasons for a non-success
    entry are ``reason_table[reason_ids[i]]``."""

    codes: npt.NDArray[np.int8]
    reason_ids: npt.NDArray[np.int32]
    reason_table: list[tuple[str, ...]] = field(default_factory=list)

    @staticmethod
    def all_success(n: int) -> BatchFilterResult:
        """Every node passes. Shared per size, with read-only arrays: most filter calls of most
        cycles answer this, and nothing edits a result it did not build."""
        res = _ALL_SUCCESS.get(n)
        if res is None:
            codes, ids = np.zeros(n, dtype=np.int8), np.zeros(n, dtype=np.int32)
            codes.flags.writeable = ids.flags.writeable = False
            res = BatchFilterResult(codes, ids, [()])
            if len(_ALL_SUCCESS) >= 1024:
                _ALL_SUCCESS.clear()
            _ALL_SUCCESS[n] = res
        return res

    @staticmethod
    def uniform(n: int, status: Status) -> BatchFilterResult:
        return BatchFilterResult(np.full(n, int(status.code), dtype=np.int8),
                                 np.zeros(n, dtype=np.int32), [status.reasons])

    @staticmethod
    def from_mask(failed: npt.NDArray[np.bool_], code: Code, *reasons: str) -> BatchFilterResult:
        """One failure code and reason for the nodes where ``failed`` is true."""
        codes = np.where(failed, np.int8(int(code)), np.int8(0)).astype(np.int8)
        return BatchFilterResult(codes, failed.astype(np.int32), [(), tuple(reasons)])

    @staticmethod
    def from_statuses(statuses: list[Status | None]) -> BatchFilterResult:
        """Assemble from per-node statuses (the per-node fallback path)."""
        n = len(statuses)
        codes = np.zeros(n, dtype=np.int8)
        rids = np.zeros(n, dtype=np.int32)
        table: list[tuple[str, ...]] = [()]
        index: dict[tuple[str, ...], int] = {(): 0}
        for i, s in enumerate(statuses):
            if s is None or s.code == Code.SUCCESS:
                continue
            codes[i] = int(s.code)
            rid = index.get(s.reasons)
            if rid is None:
                rid = index[s.reasons] = len(table)
                table.append(s.reasons)
            rids[i] = rid
        return BatchFilterResult(codes, rids, table)

    def status(self, i: int, plugin: str = "") -> Status:
        code = Code(int(self.codes[i]))
        if code == Code.SUCCESS:
            return Status.success()
        return Status(code, self.reason_table[int(self.reason_ids[i])], plugin)


_ALL_SUCCESS: dict[int, BatchFilterResult] = {}
