"""What every command starts with: manifests and an optional scheduler configuration.

The input is manifest files, a live cluster (``--kubeconfig PATH``, ``--from-cluster``,
``--context NAME``: one LIST per kind through the client ``kubesched run`` uses, read-only,
see :func:`kubesched.cluster.live.list_cluster`), or both: the files' objects are added on top
of the cluster's ("what if these pods or nodes were added"), a duplicate being an error.

Bad input (an unreadable or invalid manifest, an object admission refuses, an invalid
configuration) is reported once, naming the file and object, on stderr, with exit code 2.
What the loader skipped and what admission accepted with a warning (a pod keeping the priority
of a PriorityClass the input lacks) is told once each, as ``warning: ...`` lines on stderr.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn
from rich.text import Text

from ..api import AdmissionWarning, KubeVersion
from ..api.loader import LoadedObjects, LoadError, ProgressFn, kind_of, load_paths, manifest_files
from ..api.start import DEFAULT_START, start_time
from ..cluster import StoreError
from ..controllers import planned_pods

__all__ = [
    "CONTEXT_OPTION",
    "DEFAULT_MAX_PODS",
    "DEFAULT_START",
    "EXIT_BAD_INPUT",
    "EXIT_UNSCHEDULABLE",
    "FROM_CLUSTER_OPTION",
    "KUBECONFIG_OPTION",
    "LARGE_INPUT_BYTES",
    "MAX_PODS_HELP",
    "PATHS_ARGUMENT",
    "STRICT_HELP",
    "ClusterSource",
    "Inputs",
    "bad_input",
    "check_max_pods",
    "cluster_source",
    "live_extra_missing",
    "load_inputs",
    "one_line",
    "reported_as_bad_input",
    "start_time",
    "warn",
]

EXIT_BAD_INPUT = 2
EXIT_UNSCHEDULABLE = 1

BAD_INPUT_ERRORS: tuple[type[BaseException], ...] = (ValueError, StoreError, OSError)
"""LoadError, ConfigError, FrameworkBuildError and admission errors are ValueErrors/StoreErrors."""

LARGE_INPUT_BYTES: Final = 8 * 2**20
"""Inputs at least this large get a progress bar while loading (when stderr is a terminal)."""

DEFAULT_MAX_PODS: Final = 1_000_000
MAX_PODS_HELP: Final = ("Refuse an input that would create more pods than this (replicas, completions, "
                        "DaemonSets x nodes, pods), before running anything.")

STRICT_HELP: Final = ("Refuse objects of kinds the scheduler does not read (ConfigMap, Event, ...) "
                      "instead of skipping them.")


PATHS_ARGUMENT: Final = typer.Argument(
    None, help="Manifest files or directories; '-' reads stdin. With a cluster: added on top of it.")
KUBECONFIG_OPTION: Final = typer.Option(
    None, "--kubeconfig", metavar="PATH", help="Read the live cluster this kubeconfig points at (read-only).")
FROM_CLUSTER_OPTION: Final = typer.Option(
    False, "--from-cluster",
    help="Read the live cluster (read-only); kubeconfig found as `kubesched run` finds it.")
CONTEXT_OPTION: Final = typer.Option(
    None, "--context", metavar="NAME", help="The kubeconfig context to read (implies --from-cluster).")


@dataclass(frozen=True, slots=True)
class ClusterSource:
    """A live cluster to read: ``kubeconfig`` (None: resolved as ``kubesched run`` does: the
    configuration's clientConnection.kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster)
    and its ``context`` (None: the current one)."""

    kubeconfig: str | None = None
    context: str | None = None


def cluster_source(kubeconfig: str | None, from_cluster: bool, context: str | None) -> ClusterSource | None:
    """The cluster the flags name, or None when none does."""
    if kubeconfig is None and not from_cluster and context is None:
        return None
    return ClusterSource(kubeconfig, context)


@dataclass(frozen=True, slots=True)
class Inputs:
    loaded: LoadedObjects
    config: Any  # SchedulerConfig, or None for kube-scheduler's defaults


def load_inputs(paths: Sequence[str] | None, config: Path | None, *, strict: bool = False,
                features: Mapping[str, bool] | None = None, max_pods: int | None = None,
                cluster: ClusterSource | None = None, kube_version: KubeVersion | None = None,
                schedules: bool = True) -> Inputs:
    """Load the cluster's objects (if any), the manifests on top, and the configuration;
    raises one of BAD_INPUT_ERRORS. The skipped objects (kinds the scheduler does not read)
    are told in one warning. ``features``: the feature gates the configuration's defaults
    depend on (the default plugin set); ``max_pods``: see :func:`check_max_pods`;
    ``kube_version``: the release whose defaults apply (without a file too); without it and
    with a ``cluster``, the API server's release when the command ``schedules`` (see
    :func:`._release.release_config`)."""
    cfg = None
    if config is not None or kube_version is not None or features or (cluster is not None and schedules):
        from ._features import Release
        from ._release import release_config

        # against a cluster, without --kube-version: the API server's release, told in one line
        cfg = release_config(config, Release(kube_version, dict(features or {})),
                             kubeconfig=cluster.kubeconfig if cluster is not None else None,
                             context=cluster.context if cluster is not None else None,
                             live=cluster is not None and schedules)
    if not paths and cluster is None:
        raise LoadError("no input: give manifest files or directories, or a cluster "
                        "(--kubeconfig PATH, --from-cluster, --context NAME)")
    loaded = _list(cluster, cfg) if cluster is not None else LoadedObjects()
    if paths:
        loaded.extend(_load(manifest_files(paths), strict))
    if max_pods is not None:
        check_max_pods(loaded, max_pods)
    for message in loaded.warnings():
        warn(message)
    return Inputs(loaded, cfg)


def check_max_pods(loaded: LoadedObjects, max_pods: int) -> None:
    """Refuse (ValueError) an input whose workloads and pods would make more than ``max_pods``
    pods (``controllers.planned_pods``), naming the object that asks for the most: a
    ``replicas: 2147483647`` would otherwise keep the run going for days, silently."""
    planned = planned_pods(loaded.objects)
    total = sum(p.pods for p in planned)
    if total <= max_pods:
        return
    most = max(planned, key=lambda p: p.pods)  # the first of the largest, in input order
    where = loaded.origin_of(most.obj)
    obj = f"{kind_of(most.obj)} {most.obj.meta.key}"
    raise ValueError(f"{where + ' ' if where else ''}({obj}): {most.why}: the input would create "
                     f"{total:,} pods, more than --max-pods {max_pods:,} (raise --max-pods to run it)")


def _list(cluster: ClusterSource, cfg: Any) -> LoadedObjects:
    """The cluster's objects through the client ``kubesched run`` builds from the same flags
    and the configuration's clientConnection, with progress on a terminal."""
    try:
        from ..cluster.live import list_cluster, rest_client_for
    except ImportError as exc:
        live_extra_missing("--kubeconfig", exc)
    from ..framework.config import default_config

    cc = (cfg if cfg is not None else default_config()).client_connection
    rest, _ = rest_client_for(cc, cluster.kubeconfig, cluster.context)
    try:
        with _progress(lambda: True) as progress:
            return list_cluster(rest, cluster_kinds(cfg), progress=progress)
    finally:
        rest.close()


def cluster_kinds(cfg: Any) -> Mapping[str, str] | tuple[str, ...]:
    """The kinds a cluster input lists, and ``ui --kubeconfig`` then follows: as the release
    of ``cfg`` simulated reads them (its scheduler's DeviceTaintRules, in its version,
    ``read_kinds``), or the kinds every release reads without one."""
    from ..cluster.live import READ_KINDS, read_kinds

    return read_kinds(cfg.kube_version, cfg.features) if cfg is not None else READ_KINDS


@contextmanager
def _progress(large: Callable[[], bool]) -> Iterator[ProgressFn | None]:
    """A progress bar on stderr (transient) when stderr is a terminal and ``large()``."""
    err = Console(stderr=True)
    if not err.is_terminal or not large():
        yield None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), console=err,
                  transient=True) as bar:
        task = bar.add_task("loading", total=None)

        def progress(what: str, done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total or None)

        yield progress


def _load(files: Sequence[str | Path], strict: bool) -> LoadedObjects:
    """load_paths, with a progress bar on stderr for a large input when stderr is a terminal."""
    with _progress(lambda: sum(Path(f).stat().st_size for f in files if f != "-") >= LARGE_INPUT_BYTES
                   ) as progress:
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
