"""``kubesched extender [--config FILE] [--profile NAME] [--kubeconfig PATH | --no-cache]
[--bind-address IP|HOST:PORT] [--secure-port PORT]
[--tls-cert-file F --tls-private-key-file F] [--max-request-bytes N] [--bind]
[--authentication-kubeconfig F] [--authorization-kubeconfig F] [--authorization-always-allow-paths P,...]
[-v N]``.

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

import logging
import sys
from pathlib import Path

import typer

from ..extender import (
    DEFAULT_MAX_REQUEST_BYTES,
    ExtenderEngine,
    ExtenderServer,
    profile_name,
    serve_until_stopped,
)
from ..serving import DelegatedAuth
from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, parse_release
from ._inputs import bad_input, live_extra_missing, reported_as_bad_input
from ._main import app
from ._release import release_config
from ._run import _configure_logging
from ._serving_flags import SERVING, ServingArgs, serving_flags, tls_from_files

DEFAULT_PORT = 8888
DEFAULT_BIND_ADDRESS = f"127.0.0.1:{DEFAULT_PORT}"


def _settle(engine: ExtenderEngine) -> None:
    """The engine's first snapshot and the process's collector policy (ExtenderEngine.settle)."""
    engine.settle()


__all__ = ["extender"]

_log = logging.getLogger("kubesched.extender")


@app.command("extender", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@serving_flags(bind_address=DEFAULT_BIND_ADDRESS,
               bind_help="The IP (with --secure-port) or HOST:PORT to listen on.",
               verbosity_help="Log verbosity (klog's -v): from 1 info lines (a refused request, a failed "
                              "TLS handshake), from 3 debug lines; 0: warnings only; above 0, an "
                              "internal error's traceback too.",
               old_tls_names=True)
def extender(
    ctx: typer.Context,
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
    max_request_bytes: int = typer.Option(DEFAULT_MAX_REQUEST_BYTES, "--max-request-bytes",
                                          help="Refuse larger request bodies (413)."),
    serving: ServingArgs = SERVING,
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kube_version: str | None = typer.Option(
        None, "--kube-version",
        help=KUBE_VERSION_HELP + " Default with informers: the API server's version."),
) -> None:
    """Serve a profile as a scheduler extender for kube-scheduler (filter, prioritize, preempt, bind).

    /metrics is authenticated and authorized as kube-scheduler's (TokenReview,
    SubjectAccessReview); /healthz and /readyz are always allowed; the verbs are not reviewed.
    --authentication-skip-lookup[=BOOL]: do not read the client CA from the cluster;
    --authentication-tolerate-lookup-failure[=BOOL] (default true): a failed lookup is a warning."""
    if no_cache and bind and kubeconfig is None:
        bad_input(ValueError("--bind needs the API server: drop --no-cache"))
    with reported_as_bad_input():
        auth_opts, extra = serving.auth(ctx.args)
        if extra:
            raise ValueError(f"unknown flag: {extra[0]}")
        host, port = serving.address(DEFAULT_PORT)
        tls_pair = serving.tls_files()
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
        try:
            auth = DelegatedAuth.from_options(auth_opts)
        except ImportError as exc:
            live_extra_missing("extender", exc)
    if serving.verbosity > 0:
        _configure_logging(serving.verbosity)
    with reported_as_bad_input():
        tls = tls_from_files(tls_pair) if tls_pair is not None else None
    try:
        server = ExtenderServer(engine, host, port, tls=tls, max_request_bytes=max_request_bytes, bind=bind,
                                ready=None if view is None else lambda: view.synced, auth=auth)
    except OSError as exc:
        if engine is not None:
            engine.close()
        if view is not None:
            view.close()
        auth.close()
        bad_input(ValueError(f"--bind-address {serving.bind_address}: {exc.strerror or exc}"))
    if engine is not None:
        profile_served = engine.profile_name

        def on_serving(url: str) -> None:
            _log.warning("--no-cache: node state comes from each request's Node objects; pods on nodes "
                         "are not visible (inter-pod affinity, topology spread, resource fit count none)")
            print(f"serving profile {profile_served!r} on {url}", file=sys.stderr, flush=True)
    else:
        assert view is not None
        profile_served, host = serve, view.host

        def on_serving(url: str) -> None:
            print(f"serving profile {profile_served!r} on {url} (informers of {host})",
                  file=sys.stderr, flush=True)
    serve_until_stopped(server, view, profile_served, nodes_from_request=no_cache, settle=_settle,
                        on_serving=on_serving)
