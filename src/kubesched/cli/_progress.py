"""Progress of a long run on stderr when stderr is not a terminal (a CI log, a pipe, ``nohup``).

A terminal gets a rich progress bar (as loading a large input does); a log would get its
redraws as garbage, so there a long run says where it is in one plain line every
:data:`PLAIN_PROGRESS_SECONDS` of wall time instead::

    simulate: 12,345 pods scheduled, 3 pending, virtual time 1h02m

A run shorter than that prints nothing (outputs stay comparable). The wall clock only paces
these lines: what the run does and prints on stdout never depends on it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Final

__all__ = ["PLAIN_PROGRESS_SECONDS", "PlainProgress", "virtual_time"]

PLAIN_PROGRESS_SECONDS: Final = 5.0


class PlainProgress:
    """Call it as often as the run makes progress (it is cheap: one clock read); it prints
    ``line()`` on stderr when ``interval`` seconds of ``wall`` time have passed since the start
    or since the last line."""

    def __init__(self, line: Callable[[], str], *, interval: float = PLAIN_PROGRESS_SECONDS,
                 wall: Callable[[], float] = time.monotonic) -> None:
        self._line = line
        self._interval = interval
        self._wall = wall
        self._due = wall() + interval

    def __call__(self) -> None:
        now = self._wall()
        if now < self._due:
            return
        self._due = now + self._interval
        sys.stderr.write(self._line() + "\n")
        sys.stderr.flush()


def virtual_time(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``: a span of virtual time, as precise as a progress line needs."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
