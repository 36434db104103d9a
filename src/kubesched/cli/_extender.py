"""``kubesched extender [--config FILE] [--profile NAME] --no-cache [--bind-address HOST:PORT]
[--tls-cert F --tls-key F] [--max-request-bytes N]``.

Serves a profile of the configuration as a scheduler extender for the real kube-scheduler
(see :mod:`kubesched.extender`). Prints ``serving on URL`` on stderr once the port is bound
(port 0 picks a free one) and serves until interrupted (SIGINT or SIGTERM). Bad options or an
invalid configuration: one error, exit code 2.

Only the ``--no-cache`` mode exists yet: the node state is the full Node objects of each
request (``nodeCacheCapable: false``) and the extender sees no pods on them; a warning says so
at start and the ``kubesched_extender_unseen_total`` metric counts the answers concerned.
"""

from __future__ import annotations

import logging
import signal
import ssl
import sys
import threading
from pathlib import Path
from types import FrameType

import typer

from ..extender import DEFAULT_MAX_REQUEST_BYTES, ExtenderEngine, ExtenderServer, parse_bind_address
from ._inputs import bad_input, reported_as_bad_input
from ._main import app

__all__ = ["extender"]

_log = logging.getLogger("kubesched.extender")


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
    no_cache: bool = typer.Option(False, "--no-cache",
                                  help="Take node state from the full Node objects of each request "
                                       "(nodeCacheCapable: false); pods on nodes are not seen."),
    bind_address: str = typer.Option("127.0.0.1:8888", "--bind-address", help="HOST:PORT to listen on."),
    tls_cert: Path | None = typer.Option(None, "--tls-cert", help="Serve HTTPS with this certificate (PEM)."),
    tls_key: Path | None = typer.Option(None, "--tls-key", help="The certificate's private key (PEM)."),
    max_request_bytes: int = typer.Option(DEFAULT_MAX_REQUEST_BYTES, "--max-request-bytes",
                                          help="Refuse larger request bodies (413)."),
) -> None:
    """Serve a profile as a scheduler extender for kube-scheduler (filter, prioritize, preempt)."""
    if not no_cache:
        bad_input(ValueError("only --no-cache is available: the informer-backed mode "
                             "(nodeCacheCapable: true) is not implemented yet"))
    with reported_as_bad_input():
        host, port = parse_bind_address(bind_address)
        if max_request_bytes <= 0:
            raise ValueError("--max-request-bytes: want a positive number")
        cfg = None
        if config is not None:
            from ..framework.config import load_config

            cfg = load_config(config)
        engine = ExtenderEngine(cfg, profile)
    ctx = _tls(tls_cert, tls_key)
    try:
        server = ExtenderServer(engine, host, port, tls=ctx, max_request_bytes=max_request_bytes)
    except OSError as exc:
        engine.close()
        bad_input(ValueError(f"--bind-address {bind_address}: {exc.strerror or exc}"))
    _log.warning("--no-cache: node state comes from each request's Node objects; pods on nodes "
                 "are not visible (inter-pod affinity, topology spread, resource fit count none)")
    print(f"serving profile {engine.profile_name!r} on {server.url}", file=sys.stderr, flush=True)

    def stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.close, daemon=True).start()

    previous = signal.signal(signal.SIGTERM, stop)
    server.start()
    try:
        while server.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
