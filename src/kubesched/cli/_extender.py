"""``kubesched extender [--config FILE] [--profile NAME] [--kubeconfig PATH | --no-cache]
[--bind-address HOST:PORT] [--tls-cert F --tls-key F] [--max-request-bytes N] [--bind]``.

Serves a profile of the configuration as a scheduler extender for the real kube-scheduler
(see :mod:`kubesched.extender`). Prints ``serving ... on URL`` on stderr once the port is bound
(port 0 picks a free one) and serves until interrupted (SIGINT or SIGTERM). Bad options, an
invalid configuration or no client configuration: one error, exit code 2.

Two modes:

- by default, node and pod state come from a live cluster's informers (the kubeconfig is
  resolved as ``kubesched run`` does); kube-scheduler may send node names only
  (``nodeCacheCapable: true``). The port is served at once: ``/readyz`` and the verbs answer 503
  until the informers have synced. ``--bind`` serves ``/bind`` (kube-scheduler's ``bindVerb``);
- ``--no-cache``: the node state is the full Node objects of each request
  (``nodeCacheCapable: false``) and the extender sees no pods on them; a warning says so at
  start and the ``kubesched_extender_unseen_total`` metric counts the answers concerned;
- ``--no-cache --kubeconfig PATH``: the node state is the full Node objects of each request,
  the pods on those nodes come from the cluster's informers (as in the default mode).
"""

from __future__ import annotations

import gc
import logging
import signal
import ssl
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import typer

from ..extender import (
    DEFAULT_MAX_REQUEST_BYTES,
    ExtenderEngine,
    ExtenderServer,
    parse_bind_address,
    profile_name,
)
from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, parse_release
from ._inputs import bad_input, live_extra_missing, reported_as_bad_input
from ._main import app
from ._release import release_config

SERVING_GC_THRESHOLD = (10_000, 10, 10)
"""The cyclic collector's thresholds while serving: the young generation every 10,000
allocations instead of CPython's 700. Each request and each watch event allocates hundreds
of containers (a pod's manifest and its parse, the names of a request), so with the default
a young collection ran several times per pod scheduled, inside its requests."""


def _settle(engine: ExtenderEngine) -> None:
    """The engine's first snapshot and frozen heap (ExtenderEngine.settle), and the serving
    thresholds of the collector."""
    engine.settle()
    gc.set_threshold(*SERVING_GC_THRESHOLD)

if TYPE_CHECKING:
    from ..extender import InformerView

__all__ = ["extender"]

_log = logging.getLogger("kubesched.extender")

SYNC_LOG_INTERVAL = 10.0


def _tls(cert: Path | None, key: Path | None) -> ssl.SSLContext | None:
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        bad_input(ValueError("--tls-cert and --tls-key go together"))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as exc:
        bad_input(ValueError(f"--tls-cert {cert} / --tls-key {key}: {exc}"))
    return ctx


@app.command("extender")
def extender(
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    profile: str | None = typer.Option(None, "--profile",
                                       help="The profile (schedulerName) to serve; default: the first."),
    kubeconfig: str | None = typer.Option(
        None, "--kubeconfig", help="The cluster whose informers give node and pod state (default: "
                                   "clientConnection.kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster)."),
    no_cache: bool = typer.Option(False, "--no-cache",
                                  help="Take node state from the full Node objects of each request "
                                       "(nodeCacheCapable: false); pods on nodes come from the "
                                       "informers with --kubeconfig, else are not seen."),
    bind: bool = typer.Option(False, "--bind", help="Serve POST /bind: create the Binding through "
                                                    "the API server (kube-scheduler's bindVerb)."),
    bind_address: str = typer.Option("127.0.0.1:8888", "--bind-address", help="HOST:PORT to listen on."),
    tls_cert: Path | None = typer.Option(None, "--tls-cert", help="Serve HTTPS with this certificate (PEM)."),
    tls_key: Path | None = typer.Option(None, "--tls-key", help="The certificate's private key (PEM)."),
    max_request_bytes: int = typer.Option(DEFAULT_MAX_REQUEST_BYTES, "--max-request-bytes",
                                          help="Refuse larger request bodies (413)."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kube_version: str | None = typer.Option(
        None, "--kube-version",
        help=KUBE_VERSION_HELP + " Default with informers: the API server's version."),
) -> None:
    """Serve a profile as a scheduler extender for kube-scheduler (filter, prioritize, preempt, bind)."""
    if no_cache and bind and kubeconfig is None:
        bad_input(ValueError("--bind needs the API server: drop --no-cache"))
    with reported_as_bad_input():
        host, port = parse_bind_address(bind_address)
        if max_request_bytes <= 0:
            raise ValueError("--max-request-bytes: want a positive number")
        release = parse_release(kube_version, feature_gates)
        live = not (no_cache and kubeconfig is None)
        cfg = release_config(config, release, kubeconfig=kubeconfig, live=live)
        if not live:
            engine: ExtenderEngine | None = ExtenderEngine(cfg, profile)
            view = None
        else:
            try:
                from ..extender import InformerView
            except ImportError as exc:
                live_extra_missing("extender", exc)
            serve = profile_name(cfg, profile)
            engine = None
            view = InformerView(cfg, kubeconfig)
    ctx = _tls(tls_cert, tls_key)
    try:
        server = ExtenderServer(engine, host, port, tls=ctx, max_request_bytes=max_request_bytes, bind=bind,
                                ready=None if view is None else lambda: view.synced)
    except OSError as exc:
        if engine is not None:
            engine.close()
        if view is not None:
            view.close()
        bad_input(ValueError(f"--bind-address {bind_address}: {exc.strerror or exc}"))
    stopped = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopped.set()
        threading.Thread(target=server.close, daemon=True).start()

    previous = signal.signal(signal.SIGTERM, stop)
    server.start()
    try:
        if engine is not None:
            _settle(engine)
            _log.warning("--no-cache: node state comes from each request's Node objects; pods on nodes "
                         "are not visible (inter-pod affinity, topology spread, resource fit count none)")
            print(f"serving profile {engine.profile_name!r} on {server.url}", file=sys.stderr, flush=True)
        elif view is not None:
            print(f"serving profile {serve!r} on {server.url} (informers of {view.host})",
                  file=sys.stderr, flush=True)
            _sync(view, server, stopped, serve, nodes_from_request=no_cache)
        while server.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
        if view is not None:
            view.close()


def _sync(view: InformerView, server: ExtenderServer, stopped: threading.Event, profile: str,
          nodes_from_request: bool = False) -> None:
    """Start the informers, wait for their first list (logging every SYNC_LOG_INTERVAL), then
    answer with an engine over the synced caches (nodes from each request when
    ``nodes_from_request``)."""
    view.start()
    waited = 0.0
    while not view.wait_for_sync(SYNC_LOG_INTERVAL):
        if stopped.is_set():
            return
        waited += SYNC_LOG_INTERVAL
        _log.warning("waiting for the informers to sync with %s (%.0fs)", view.host, waited)
    if stopped.is_set():
        return
    engine = view.engine(profile, nodes_from_request=nodes_from_request)
    _settle(engine)
    server.set_engine(engine)
    _log.info("caches synced: answering for profile %r", profile)
