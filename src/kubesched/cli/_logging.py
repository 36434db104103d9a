"""Warnings from the library on stderr: what the scheduler logs (for example an ignorable
extender it skips) reaches the user of the command line as ``warning: ...`` lines."""

from __future__ import annotations

import logging
import sys
from typing import IO, Any

__all__ = ["show_warnings_on_stderr"]


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (a test runner may swap it)."""

    @property
    def stream(self) -> IO[str]:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        return


def show_warnings_on_stderr() -> None:
    """Attach (once) a stderr handler for WARNING and above to the ``kubesched`` loggers."""
    logger = logging.getLogger("kubesched")
    if any(isinstance(h, _StderrHandler) for h in logger.handlers):
        return
    handler = _StderrHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname_lower)s: %(message)s"))
    handler.addFilter(_lower_level)
    logger.addHandler(handler)


def _lower_level(record: logging.LogRecord) -> bool:
    record.levelname_lower = record.levelname.lower()
    return True
