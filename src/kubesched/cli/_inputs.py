"""What every command starts with: manifests and an optional scheduler configuration.

Bad input (an unreadable or invalid manifest, an object admission refuses, an invalid
configuration) is reported once, naming the file and object, on stderr, with exit code 2.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from ..api import parse_time
from ..api.loader import ApiObject, LoadedObjects, load_paths
from ..cluster import StoreError

__all__ = ["DEFAULT_START", "EXIT_BAD_INPUT", "EXIT_UNSCHEDULABLE", "Inputs", "bad_input", "load_inputs",
           "one_line", "reported_as_bad_input", "start_time"]

EXIT_BAD_INPUT = 2
EXIT_UNSCHEDULABLE = 1

DEFAULT_START = 1_767_225_600.0
"""2026-01-01T00:00:00Z: the virtual clock's earliest start, so runs never depend on wall time."""

BAD_INPUT_ERRORS: tuple[type[BaseException], ...] = (ValueError, StoreError, OSError)
"""LoadError, ConfigError, FrameworkBuildError and admission errors are ValueErrors/StoreErrors."""


@dataclass(frozen=True, slots=True)
class Inputs:
    loaded: LoadedObjects
    config: Any  # SchedulerConfig, or None for kube-scheduler's defaults


def load_inputs(paths: Sequence[str], config: Path | None) -> Inputs:
    """Load manifests and the configuration; raises one of BAD_INPUT_ERRORS."""
    cfg = None
    if config is not None:
        from ..framework.config import load_config

        cfg = load_config(config)
    return Inputs(load_paths(paths), cfg)


def bad_input(exc: BaseException) -> NoReturn:
    """Print the error on stderr, on one line (for logs and ``grep``), and exit with code 2."""
    Console(stderr=True).print(Text("error: ", style="bold red") + Text(one_line(str(exc))),
                               highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT) from exc


def one_line(text: str) -> str:
    """A message that may span lines (a YAML parser's, with the offending line and a caret
    under the mark; a name holding a newline) on one line: lines joined by ``; ``, caret
    lines dropped."""
    if "\n" not in text and "\r" not in text:
        return text
    parts = (line.strip() for line in text.splitlines())
    return "; ".join(p for p in parts if p and p.strip("^ ") != "")


@contextmanager
def reported_as_bad_input() -> Iterator[None]:
    """Turn bad-input errors raised inside the block into exit code 2."""
    try:
        yield
    except BAD_INPUT_ERRORS as exc:
        bad_input(exc)


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
