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

from ..api import AdmissionWarning, KubeVersion
from ..api.loader import LoadedObjects, load_paths, manifest_files
from ..api.start import DEFAULT_START, start_time
from ..cluster import StoreError

__all__ = ["DEFAULT_START", "EXIT_BAD_INPUT", "EXIT_UNSCHEDULABLE", "LARGE_INPUT_BYTES", "STRICT_HELP",
           "Inputs", "bad_input", "live_extra_missing", "load_inputs", "one_line", "reported_as_bad_input",
           "start_time", "warn"]

EXIT_BAD_INPUT = 2
EXIT_UNSCHEDULABLE = 1

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
                features: Mapping[str, bool] | None = None,
                kube_version: KubeVersion | None = None) -> Inputs:
    """Load manifests and the configuration; raises one of BAD_INPUT_ERRORS. The skipped
    objects (kinds the scheduler does not read) are told in one warning. ``features``: the
    feature gates the configuration's defaults depend on (the default plugin set);
    ``kube_version``: the release whose defaults apply (without a file too)."""
    cfg = None
    if config is not None:
        from ..framework.config import load_config

        cfg = load_config(config, features=features, kube_version=kube_version)
    elif kube_version is not None or features:
        from ..framework.config import default_config

        cfg = default_config(features, kube_version)
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
