"""``kubesched snapshot [PATH...] [--kubeconfig PATH | --from-cluster | --context NAME] [-o FILE]``.

Writes the input every other command would read (the live cluster's objects, one list per
kind, and the manifests on top) as one multi-document YAML file that the loader reads back:
``kubesched simulate FILE`` then gives the answers ``simulate --kubeconfig`` gave, offline,
and the file can be shared. Objects are written whole, as the API server sent them
(``metadata.resourceVersion`` and ``managedFields`` included: the loader reads them, and a
store that admits them sets its own versions). The file is written whole or not at all.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import typer

from ..simulator import snapshot_pieces, snapshot_text
from ._inputs import (
    CONTEXT_OPTION,
    FROM_CLUSTER_OPTION,
    KUBECONFIG_OPTION,
    PATHS_ARGUMENT,
    STRICT_HELP,
    cluster_source,
    load_inputs,
    reported_as_bad_input,
    warn,
)
from ._main import app

__all__ = ["snapshot", "snapshot_text", "write_whole"]


@app.command("snapshot")
def snapshot(
    paths: list[str] | None = PATHS_ARGUMENT,
    kubeconfig: str | None = KUBECONFIG_OPTION,
    from_cluster: bool = FROM_CLUSTER_OPTION,
    context: str | None = CONTEXT_OPTION,
    output: str = typer.Option("-", "-o", "--output", metavar="FILE", help="Where to write ('-': stdout)."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
) -> None:
    """Write the cluster's (and the manifests') objects as one YAML file the other commands read."""
    with reported_as_bad_input():
        cluster = cluster_source(kubeconfig, from_cluster, context)
        inputs = load_inputs(paths, None, strict=strict, cluster=cluster, schedules=False)
        pieces = snapshot_pieces(inputs.loaded)  # written as made: never the whole text at once
        if output == "-":
            sys.stdout.writelines(pieces)
        else:
            write_whole(Path(output), pieces)
    n = len(inputs.loaded.objects)
    if not n:
        warn("nothing written: no object of a kind kubesched reads")
    elif output != "-":
        counts = ", ".join(f"{k} {c}" for k, c in inputs.loaded.counts().items())
        typer.echo(f"wrote {n} objects to {output} ({counts})", err=True)


def write_whole(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, as they come) to a temporary file beside ``path`` and
    rename it over: never a half-written dump. An OSError names ``path``."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise OSError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if isinstance(text, str):
                f.write(text)
            else:
                f.writelines(text)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OSError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise
