"""The typer application; each command module registers itself here."""

from __future__ import annotations

import typer

from ._logging import show_warnings_on_stderr

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="kubesched: kube-scheduler's decisions, explained, in Python.")


@app.callback()
def _root() -> None:
    """kubesched: kube-scheduler's decisions, explained, in Python."""
    show_warnings_on_stderr()


def main() -> None:
    app()


# Command modules register themselves on ``app`` when imported.
from . import _bench, _explain, _simulate, _validate  # noqa: E402, F401
