"""``kubesched run [--config FILE] [--kubeconfig PATH] [-v N]``: schedule a real cluster.

Bad input (an unreadable or invalid configuration, no usable kubeconfig) exits with code 2
before anything starts; SIGTERM and SIGINT stop popping pods, finish the binding cycles in
flight and exit 0.
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path
from types import FrameType

import typer

from ._inputs import reported_as_bad_input
from ._main import app

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


@app.command("run")
def run(
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    kubeconfig: str | None = typer.Option(
        None, "--kubeconfig",
        help="kubeconfig file (else clientConnection.kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster)."),
    verbosity: int = typer.Option(0, "-v", "--v", help="Log verbosity (klog's -v)."),
) -> None:
    """Schedule the pods of a real cluster whose schedulerName is one of the profiles."""
    from ..app import LiveScheduler
    from ..framework.config import load_config

    with reported_as_bad_input():
        cfg = load_config(config) if config is not None else None
        live = LiveScheduler(cfg, kubeconfig)
    _configure_logging(verbosity)

    def on_signal(_sig: int, _frame: FrameType | None) -> None:
        live.stop()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    try:
        if live.start():
            live.run()
    finally:
        live.close()
