"""Where a simulation's virtual clock starts, read from its input.

Shared by ``simulate`` (the CLI's engine) and ``replay``: the latest time written in the
manifests, never before :data:`DEFAULT_START`, so that a run never depends on the wall clock.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ._meta import parse_time
from .loader import ApiObject

__all__ = ["DEFAULT_START", "start_time"]

DEFAULT_START = 1_767_225_600.0
"""2026-01-01T00:00:00Z: the virtual clock's earliest start, so runs never depend on wall time."""


def start_time(objects: Sequence[ApiObject]) -> float:
    """Where the virtual clock starts: the latest time written in the manifests (creation,
    start and condition transition times), never before :data:`DEFAULT_START`. Deterministic,
    and "now" is after everything the input says already happened."""
    latest = DEFAULT_START
    for obj in objects:
        for t in _times(obj.raw):
            try:
                v = parse_time(t)
            except (ValueError, OverflowError):
                continue
            if v is not None and latest < v <= _LATEST:  # (a time beyond year 9999 is no time)
                latest = v
    return latest


_LATEST = 253_402_300_799.0  # 9999-12-31T23:59:59Z


def _times(raw: Any) -> Iterator[Any]:
    """The time stamps of a manifest, as written: not every kind's status is parsed (a PVC's
    conditions are not), so any of these may be of any type."""
    meta = raw.get("metadata") or {}
    yield meta.get("creationTimestamp")
    status = raw.get("status") or {}
    if isinstance(status, dict):
        yield status.get("startTime")
        conditions = status.get("conditions")
        for c in conditions if isinstance(conditions, list) else ():
            if isinstance(c, dict):
                yield c.get("lastTransitionTime")
