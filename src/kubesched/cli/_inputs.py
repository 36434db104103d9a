"""What every command starts with: manifests and an optional scheduler configuration.

Bad input (an unreadable or invalid manifest, an object admission refuses, an invalid
configuration) is reported once, naming the file and object, on stderr, with exit code 2.
What the loader skipped and what admission accepted with a warning (a pod keeping the priority
of a PriorityClass the input lacks) is told once each, as ``warning: ...`` lines on stderr.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn
from rich.text import Text

from ..api import AdmissionWarning, parse_time
from ..api.loader import ApiObject, LoadedObjects, load_paths, manifest_files
from ..cluster import StoreError

__all__ = ["DEFAULT_START", "EXIT_BAD_INPUT", "EXIT_UNSCHEDULABLE", "LARGE_INPUT_BYTES", "STRICT_HELP",
           "Inputs", "bad_input", "live_extra_missing", "load_inputs", "one_line", "reported_as_bad_input",
           "start_time", "warn"]

EXIT_BAD_INPUT = 2
EXIT_UNSCHEDULABLE = 1

DEFAULT_START = 1_767_225_600.0
"""2026-01-01T00:00:00Z: the virtual clock's earliest start, so runs never depend on wall time."""

BAD_INPUT_ERRORS: tuple[type[BaseException], ...] = (ValueError, StoreError, OSError)
"""LoadError, ConfigError, FrameworkBuildError and admission errors are ValueErrors/StoreErrors."""

LARGE_INPUT_BYTES: Final = 8 * 2**20
"""Inputs at least this large get a progress bar while loading (when stderr is a terminal)."""

STRICT_HELP: Final = ("Refuse objects of kinds the scheduler does not read (ConfigMap, Event, ...) "
                      "instead of skipping them.")


@dataclass(frozen=True, slots=True)
class Inputs:
    loaded: LoadedObjects
    config: Any  # SchedulerConfig, or None for kube-scheduler's defaults


def load_inputs(paths: Sequence[str], config: Path | None, *, strict: bool = False,
                features: Mapping[str, bool] | None = None) -> Inputs:
    """Load manifests and the configuration; raises one of BAD_INPUT_ERRORS. The skipped
    objects (kinds the scheduler does not read) are told in one warning. ``features``: the
    feature gates the configuration's defaults depend on (the default plugin set)."""
    cfg = None
    if config is not None:
        from ..framework.config import load_config

        cfg = load_config(config, features=features)
    loaded = _load(manifest_files(paths), strict)
    for message in loaded.warnings():
        warn(message)
    return Inputs(loaded, cfg)


def _load(files: Sequence[str | Path], strict: bool) -> LoadedObjects:
    """load_paths, with a progress bar on stderr for a large input when stderr is a terminal."""
    err = Console(stderr=True)
    if not err.is_terminal or sum(Path(f).stat().st_size for f in files if f != "-") < LARGE_INPUT_BYTES:
        return load_paths(files, strict=strict)
    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), console=err,
                  transient=True) as bar:
        task = bar.add_task("loading", total=None)

        def progress(what: str, done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total or None)

        return load_paths(files, strict=strict, progress=progress)


def warn(message: str) -> None:
    """Print one warning on stderr."""
    Console(stderr=True).print(Text("warning: ", style="bold yellow") + Text(message), highlight=False,
                               soft_wrap=True)


def bad_input(exc: BaseException) -> NoReturn:
    """Print the error on stderr, on one line (for logs and ``grep``), and exit with code 2."""
    Console(stderr=True).print(Text("error: ", style="bold red") + Text(one_line(str(exc))),
                               highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT) from exc


def live_extra_missing(command: str, exc: ImportError) -> NoReturn:
    """``kubesched run`` / ``extender`` against a cluster without the ``live`` extra installed:
    say what to install (exit 2) instead of a traceback."""
    bad_input(ValueError(f"kubesched {command} needs the live extra: pip install 'kubesched[live]' "
                         f"({exc})"))


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
    """Turn bad-input errors raised inside the block into exit code 2; admission warnings
    raised inside it are printed once each when the block succeeds (an error is told alone)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AdmissionWarning)
        try:
            yield
        except BAD_INPUT_ERRORS as exc:
            bad_input(exc)
    seen: set[str] = set()
    for w in caught:
        if not issubclass(w.category, AdmissionWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif str(w.message) not in seen:
            seen.add(str(w.message))
            warn(str(w.message))


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
