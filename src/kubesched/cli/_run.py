"""``kubesched run [--config FILE] [--kubeconfig PATH] [--leader-elect[=BOOL]]
[--bind-address IP|HOST:PORT] [--secure-port PORT] [--tls-cert-file F --tls-private-key-file F]
[-v N]``: schedule a real cluster.

Bad input (an unreadable or invalid configuration, no usable kubeconfig, a bad flag) exits
with code 2 before anything starts; SIGTERM and SIGINT stop popping pods, finish the binding
cycles in flight, release the Lease and exit 0; a lost Lease exits 1 (kube-scheduler's
OnStoppedLeading).

``--leader-elect`` is a Go boolean flag as upstream's (``--leader-elect``,
``--leader-elect=false``); it overrides ``leaderElection.leaderElect`` only when given
(options.go: a flag set on the command line wins over the file).
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from pathlib import Path

import typer

from ..app import DEFAULT_BIND_ADDRESS, DEFAULT_PORT
from ..serving import DelegatedAuth, join_host_port, self_signed_context
from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, parse_release
from ._inputs import bad_input, live_extra_missing, reported_as_bad_input
from ._main import app
from ._params import flag_bool
from ._release import release_config
from ._serving_flags import SERVING, ServingArgs, serving_flags, tls_from_files

__all__ = ["run"]


class _InfoHandler(logging.StreamHandler):
    """Info and debug lines on stderr; warnings and errors go through the handler every
    command installs (``show_warnings_on_stderr``)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname).1s %(name)s] %(message)s"))
        self.addFilter(lambda r: r.levelno < logging.WARNING)


def _configure_logging(verbosity: int) -> None:
    """klog-like: ``-v 0..2`` shows info lines, ``-v 3`` and more debug lines too."""
    logger = logging.getLogger("kubesched")
    logger.setLevel(logging.DEBUG if verbosity >= 3 else logging.INFO)
    if not any(isinstance(h, _InfoHandler) for h in logger.handlers):
        logger.addHandler(_InfoHandler())


def _leader_elect_flag(extra: list[str]) -> bool | None:
    """``--leader-elect[=BOOL]`` among the arguments typer left (strconv.ParseBool's
    spellings); None when not given. Anything else left over is an unknown flag."""
    value: bool | None = None
    for arg in extra:
        name, eq, text = arg.partition("=")
        if name != "--leader-elect":
            raise ValueError(f"unknown flag: {arg}")
        value = flag_bool(name, text if eq else None)
    return value


@app.command("run", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@serving_flags(bind_address=DEFAULT_BIND_ADDRESS,
               bind_help="The IP (with --secure-port) or HOST:PORT to serve /healthz, /livez, /readyz and "
                         "/metrics on (HTTPS); empty: do not serve.",
               verbosity_help="Log verbosity (klog's -v); above 0, an internal error's traceback too.")
def run(
    ctx: typer.Context,
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    kubeconfig: str | None = typer.Option(
        None, "--kubeconfig",
        help="kubeconfig file (else clientConnection.kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster)."),
    serving: ServingArgs = SERVING,
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kube_version: str | None = typer.Option(
        None, "--kube-version", help=KUBE_VERSION_HELP + " Default here: the API server's version."),
) -> None:
    """Schedule the pods of a real cluster whose schedulerName is one of the profiles.

    --leader-elect[=true|false]: elect a leader on the Lease of leaderElection before
    scheduling (default: the configuration's leaderElection.leaderElect, true by default).

    The serving port authenticates and authorizes every request as kube-scheduler's does
    (TokenReview, SubjectAccessReview); /healthz, /readyz and /livez are always allowed.
    --authentication-skip-lookup[=BOOL]: do not read the client CA from the cluster;
    --authentication-tolerate-lookup-failure[=BOOL] (default true): a failed lookup is a warning."""
    try:
        from ..app.server import LiveScheduler, SchedulerRun
    except ImportError as exc:
        live_extra_missing("run", exc)

    with reported_as_bad_input():
        try:
            auth_opts, extra = serving.auth(ctx.args)
            leader_elect = _leader_elect_flag(extra)
            serve = serving.serves
            if serve:
                host, port = serving.address(DEFAULT_PORT)
            tls = serving.tls_files()
            release = parse_release(kube_version, feature_gates)
        except ValueError as exc:
            bad_input(exc)
        cfg = release_config(config, release, kubeconfig=kubeconfig, live=True)
        if leader_elect is not None:
            cfg = dataclasses.replace(cfg, leader_election=dataclasses.replace(
                cfg.leader_election, leader_elect=leader_elect))
        live = LiveScheduler(cfg, kubeconfig)
        ssl_context = None
        auth: DelegatedAuth | None = None
        if serve:
            ssl_context = tls_from_files(tls) if tls is not None else self_signed_context(host)
            _configure_logging(serving.verbosity)  # the lookup's warnings
            auth = DelegatedAuth.from_options(auth_opts)
        runner = SchedulerRun(live, leader_elect=cfg.leader_election.leader_elect,
                              bind_address=join_host_port(host, port) if serve else None,
                              ssl_context=ssl_context, auth=auth)
    _configure_logging(serving.verbosity)
    code = runner.run_until_stopped()
    if code:
        raise typer.Exit(code)
