"""``kubesched ui [PATH...] [--kubeconfig PATH | --from-cluster | --context NAME] [--config FILE]
[--kube-version X.Y] [--feature-gates ...] [--port N] [--bind-address ADDR] [--allow-remote]
[--trace PATH... [--trace-format F] [--trace-cluster PATH...]]``.

Reads the inputs as ``simulate`` and ``explain`` read them (their one input parameter group,
:func:`~._input_flags.input_flags`: manifests, a live cluster, or both), runs the simulation
``simulate`` runs, and serves the web app of
:mod:`kubesched.ui` on the serving stack of ``run`` and ``extender`` until interrupted. With a
cluster, the view follows it through informers (read-only). Served on 127.0.0.1 by default;
any other address needs ``--allow-remote`` (exit 2 otherwise): the page shows the cluster's
objects and has no authentication of its own. The what-if, configuration, compare and over-time
pages (:class:`~kubesched.ui.WhatIfRoutes`) start from the ``--config`` file's text and offer
the ``--trace`` (read as ``kubesched replay`` reads its trace) beside the bundled example.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ..process import HeapFreezer
from ..replay import FORMATS
from ..serving import HTTPServer, join_host_port, parse_bind_address, stop_on_signals
from ..simulator import ProgressFn
from ..ui import TraceInput, UIApp, WhatIfRoutes, Workspace, startup_config_text
from ._input_flags import INPUTS, InputArgs, input_flags
from ._inputs import (
    PATHS_ARGUMENT,
    STRICT_HELP,
    ClusterSource,
    bad_input,
    cluster_kinds,
    live_extra_missing,
    load_inputs,
    reported_as_bad_input,
)
from ._main import app
from ._progress import PlainProgress
from ._trace_flags import TRACE, TraceArgs, trace_flags

if TYPE_CHECKING:
    from ..ui.live import LiveFollower

__all__ = ["DEFAULT_UI_PORT", "ui"]

DEFAULT_UI_PORT = 10280

GC_FREEZE_INTERVAL = 5.0
"""Seconds between the heap freezer's ticks (as ``run``'s): each freezes what a decision or a
new view built since the last one."""


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _progress_lines() -> ProgressFn:
    """A line on stderr every few seconds of a long simulation (the page shows the progress of
    the later ones too)."""
    state = [0, 0]
    tick = PlainProgress(lambda: f"kubesched ui: {state[0]:,} of {state[1]:,} pods placed")

    def progress(done: int, total: int) -> None:
        state[0], state[1] = done, total
        tick()

    return progress


def _describe(paths: list[str] | None, context: str | None, live: bool) -> str:
    parts = []
    if live:
        parts.append(f"cluster {context}" if context else "live cluster")
    if paths:
        parts.append(", ".join(paths))
    return " + ".join(parts)


@app.command("ui")
@input_flags()
@trace_flags(ui=True)
def ui(
    paths: list[str] | None = PATHS_ARGUMENT,
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice (ties, preemption offset)."),
    port: int | None = typer.Option(None, "--port", min=0, max=65535, show_default=False,
                                    help=f"The port to serve on (0: a free one; default {DEFAULT_UI_PORT})."),
    bind_address: str = typer.Option("127.0.0.1", "--bind-address", metavar="ADDR",
                                     help="The address to serve on (an IP, or HOST:PORT)."),
    allow_remote: bool = typer.Option(
        False, "--allow-remote",
        help="Allow an address other machines reach (the page has no authentication of its own)."),
    trace_args: TraceArgs = TRACE,
    inputs_args: InputArgs = INPUTS,
) -> None:
    """Serve a local web page over the engine: the cluster, every pod's decision, exports."""
    with reported_as_bad_input():
        host, bound_port = parse_bind_address(bind_address, port, DEFAULT_UI_PORT)
        if not allow_remote and not is_loopback(host):
            raise ValueError(f"--bind-address {bind_address}: not a loopback address; the page shows the "
                             "cluster to whoever reaches it and has no authentication: pass --allow-remote "
                             "to serve it there")
        inputs_args.release()  # bad flags, a missing trace: refused before anything runs
        cluster = inputs_args.cluster()
        traces = _traces(trace_args)

        release, inputs = inputs_args.load(paths, config, strict=strict)
        reread = None if paths and "-" in paths else (
            lambda: inputs_args.load(paths, config, strict=strict)[1].loaded)
        typer.echo("kubesched ui: simulating...", err=True)
        workspace = Workspace(inputs.loaded, inputs.config, seed=seed, features=release.features,
                              reload=reread,
                              describe=_describe(paths, inputs_args.context, cluster is not None),
                              live=cluster is not None, progress=_progress_lines())
        follower = _follow(workspace, cluster, inputs.config, paths, strict) if cluster is not None else None
    lab = WhatIfRoutes(workspace, config_text=startup_config_text(inputs.config), traces=traces,
                        strict=strict)
    ui_app = UIApp(workspace, allow_remote=allow_remote)
    lab.mount(ui_app)
    try:
        server = HTTPServer(ui_app, host, bound_port, name="kubesched-ui")
    except OSError as exc:
        lab.close()
        workspace.close()
        if follower is not None:
            follower.stop()
        bad_input(OSError(f"--bind-address {join_host_port(host, bound_port)}: cannot listen: "
                          f"{exc.strerror or exc}"))
    stopped = threading.Event()
    # The view, and from the first decision on the explainer's store and scheduler, live as
    # long as the server: kept out of the collector's full walks (which cost a decision about
    # a second at 5000 nodes), as ``run`` and ``extender`` keep theirs (kubesched.process).
    freezer = HeapFreezer()
    freezer.settle()
    server.start()
    typer.echo(f"kubesched ui: serving on {server.url}/ (Ctrl-C to stop)", err=True)
    try:
        with stop_on_signals(stopped.set):
            next_tick = time.monotonic() + GC_FREEZE_INTERVAL
            while not stopped.wait(0.5) and server.wait(0):
                if time.monotonic() >= next_tick:
                    freezer.tick()
                    next_tick = time.monotonic() + GC_FREEZE_INTERVAL
    finally:
        freezer.release()
        if follower is not None:
            follower.stop()
        lab.close()
        workspace.close()
        server.close()


def _traces(trace_args: TraceArgs) -> list[TraceInput]:
    """The ``--trace`` files as the one trace the Over time page offers besides the bundled
    example (read when replayed; a missing file or an unknown format is refused here)."""
    paths, fmt, cluster = trace_args.files or [], trace_args.format, trace_args.cluster or []
    if not paths:
        if cluster:
            raise ValueError("--trace-cluster: give the trace too (--trace PATH)")
        return []
    if fmt not in FORMATS:
        raise ValueError(f"--trace-format: unknown trace format {fmt!r} (known: {', '.join(FORMATS)})")
    for p in [*paths, *cluster]:
        if not Path(p).exists():
            raise ValueError(f"{p}: no such file or directory")
    return [TraceInput(", ".join(Path(p).name for p in paths), fmt, tuple(paths), tuple(cluster))]


def _follow(workspace: Workspace, cluster: ClusterSource, config: Any, paths: list[str] | None,
            strict: bool) -> LiveFollower:
    """Informers on the cluster (a client as ``kubesched run`` builds it from the same flags and
    the configuration's clientConnection), the manifests read again on top."""
    try:
        from ..cluster.live import rest_client_for
        from ..ui.live import LiveFollower
    except ImportError as exc:
        live_extra_missing("ui --kubeconfig", exc)
    from ..framework.config import default_config

    extra = load_inputs(paths, None, strict=strict).loaded if paths else None
    cc = (config if config is not None else default_config()).client_connection
    rest, _ = rest_client_for(cc, cluster.kubeconfig, cluster.context)
    # the kinds (DeviceTaintRules too, in the release's version) the first listing read
    return LiveFollower(rest, workspace, extra, kinds=cluster_kinds(config)).start()
