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
from pathlib import Path

import typer

from ..api.loader import KINDS, kind_of
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
from ._report import dump_yaml

__all__ = ["snapshot"]


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
        inputs = load_inputs(paths, None, strict=strict, cluster=cluster)
        order = {k: i for i, k in enumerate(KINDS)}
        objects = sorted(inputs.loaded.objects, key=lambda o: order[kind_of(o)])  # stable: input order
        text = dump_yaml(o.to_dict() for o in objects)
        if output == "-":
            sys.stdout.write(text)
        else:
            _write_whole(Path(output), text)
    if output != "-":
        counts = ", ".join(f"{k} {n}" for k, n in inputs.loaded.counts().items())
        typer.echo(f"wrote {len(objects)} objects to {output} ({counts})", err=True)
    elif not objects:
        warn("nothing to write: no object of a kind kubesched reads")


def _write_whole(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path`` and rename it over: never a half-written dump."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
