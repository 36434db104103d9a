"""A run of dry-run nodes answered at once: the ones without victims, with their statuses.

DryRunPreemption visits nodes one by one and stops once it has enough candidates. Late in a
wave of preemptions most nodes it visits cannot help (their room is taken by nominated pods
or earlier preemptors), and recording them one by one cost more than deciding them. A
dry-run hook that decides a run of nodes with array operations hands the Evaluator this
record: which of the visit positions ``start .. end-1`` have no victims (and their statuses),
so that the Evaluator visits only the others, in order, and records the rest in one step up
to where it stopped (exactly the nodes the per-node loop would have recorded).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._diagnosis import NodeToStatus
from .._status import Status

__all__ = ["DecidedNodes"]


class DecidedNodes:
    """Visit positions ``start .. end-1``: ``failed[k]`` says position ``start + k`` has no
    victims, with status ``table[keys[k]]``; ``names[k]`` is that node's name."""

    __slots__ = ("end", "failed", "keys", "names", "start", "table")

    def __init__(self, start: int, end: int, failed: npt.NDArray[np.bool_], names: npt.NDArray[np.object_],
                 keys: npt.NDArray[np.intp], table: list[Status]) -> None:
        self.start = start
        self.end = end
        self.failed = failed
        self.names = names
        self.keys = keys
        self.table = table

    def is_failed(self, i: int) -> bool:
        return bool(self.failed[i - self.start])

    def status(self, i: int) -> Status:
        """The status of failed position ``i``."""
        return self.table[int(self.keys[i - self.start])]

    def undecided(self, i: int) -> list[int]:
        """The positions from ``i`` on that still need a visit, in order."""
        k = i - self.start
        return (np.flatnonzero(~self.failed[k:]) + i).tolist()

    def record(self, i: int, stop: int, statuses: NodeToStatus) -> None:
        """Record the failed positions in ``i .. stop-1`` in ``statuses``."""
        lo, hi = i - self.start, stop - self.start
        sel = np.flatnonzero(self.failed[lo:hi]) + lo
        if sel.size:
            statuses.set_many(self.names[sel], self.keys[sel], self.table)
