"""Counts per topology pair (key, value), kept as arrays over a label column's value codes.

InterPodAffinity's PreFilter/PreScore produce counts per (topology key, value)
(topologyToMatchedTermCount and the scoring map in interpodaffinity/filtering.go and scoring.go).
Built from the pod index's per-row arrays they come out as one array per key over the
snapshot's label-value codes, which the batch paths gather per node directly; a dictionary per
key is made only when a per-node path reads a value or AddPod/RemovePod changes one.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from ._pod_index import ValueCodes

__all__ = ["TopologyValueCounts"]

I64 = npt.NDArray[np.int64]


class TopologyValueCounts:
    """(topology key, value) -> count; a value that is absent counts 0, and a dictionary never
    holds a 0.

    Per key either an array over the value codes of a label column (``values`` list and counts
    of the same length) or a value -> count dictionary, made from the array on first need."""

    __slots__ = ("_arrays", "_gathered", "_maps")

    def __init__(self) -> None:
        self._arrays: dict[str, tuple[list[str], I64]] = {}
        self._maps: dict[str, dict[str, int]] = {}
        # key -> (values, per-code counts with a trailing 0 for code -1), for the batch paths
        self._gathered: dict[str, tuple[list[str], I64]] = {}

    # -- building ---------------------------------------------------------------------------
    def add_array(self, key: str, values: list[str], counts: I64) -> None:
        """Add ``counts`` (one per code of ``values``) to ``key``'s counts."""
        self._gathered.pop(key, None)
        hit = self._arrays.get(key)
        if hit is None and key not in self._maps:
            self._arrays[key] = (values, counts)
        elif hit is not None and hit[0] is values:
            self._arrays[key] = (values, hit[1] + counts)
        else:  # already a dictionary, or another label column for the key
            for c in np.flatnonzero(counts).tolist():
                self.add(key, values[c], int(counts[c]))

    def add(self, key: str, value: str, delta: int) -> None:
        """Change one pair's count; a count that reaches 0 is deleted (as upstream's maps)."""
        self._gathered.pop(key, None)
        m = self._map(key)
        n = m.get(value, 0) + delta
        if n:
            m[value] = n
        else:
            m.pop(value, None)

    def _map(self, key: str) -> dict[str, int]:
        m = self._maps.get(key)
        if m is None:
            m = {}
            hit = self._arrays.pop(key, None)
            if hit is not None:
                values, counts = hit
                nz = np.flatnonzero(counts)
                m = dict(zip([values[c] for c in nz.tolist()], counts[nz].tolist(), strict=True))
            self._maps[key] = m
        return m

    # -- reading ----------------------------------------------------------------------------
    def get(self, key: str, value: str) -> int:
        m = self._maps.get(key)
        if m is None:
            if key not in self._arrays:
                return 0
            m = self._map(key)
        return m.get(value, 0)

    def nonzero_keys(self) -> list[str]:
        """Keys with a nonzero count, sorted."""
        out = {k for k, m in self._maps.items() if m}
        out.update(k for k, (_, a) in self._arrays.items() if a.any())
        return sorted(out)

    def __bool__(self) -> bool:
        return any(self._maps.values()) or any(
            a.any() for _, a in self._arrays.values())

    def per_code(self, key: str, values: list[str], vc: ValueCodes) -> I64:
        """``key``'s counts per code of the label column ``values`` plus a trailing 0 for code
        -1 (no such label): index it with the nodes' codes."""
        hit = self._gathered.get(key)
        if hit is not None and hit[0] is values:
            return hit[1]
        arr = self._arrays.get(key)
        if arr is not None and arr[0] is values:
            out = np.append(arr[1], 0)
        else:
            m = self._maps.get(key)
            if m is None and arr is not None:
                m = self._map(key)
            out = vc.array(key, values, m or {})
        self._gathered[key] = (values, out)
        return out

    def as_dict(self) -> dict[tuple[str, str], int]:
        """Every nonzero pair (for tests and explanations)."""
        out: dict[tuple[str, str], int] = {}
        for key in {*self._arrays, *self._maps}:
            for v, n in self._map(key).items():
                out[(key, v)] = n
        return out

    def copy(self) -> TopologyValueCounts:
        """Arrays are never changed in place, so the copy shares them."""
        c = TopologyValueCounts()
        c._arrays = dict(self._arrays)
        c._maps = {k: dict(m) for k, m in self._maps.items()}
        return c

    @staticmethod
    def of(pairs: Mapping[tuple[str, str], int]) -> TopologyValueCounts:
        c = TopologyValueCounts()
        for (k, v), n in pairs.items():
            c.add(k, v, n)
        return c
