"""The typer application; each command module registers itself here.

``-h`` works wherever ``--help`` does (click's ``help_option_names``, inherited by every
command's context); ``--version`` prints ``kubesched <version>`` from the installed package's
metadata; typer adds ``--install-completion`` / ``--show-completion`` (shell detected with
shellingham: bash, zsh, fish, PowerShell). An exception escaping any command is one line and
exit code 70 (:mod:`._errors`).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import typer

from ._errors import CommandGroup
from ._logging import show_warnings_on_stderr

DIST_NAME = "kubesched"

app = typer.Typer(cls=CommandGroup, no_args_is_help=True, add_completion=True,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="kubesched: kube-scheduler's decisions, explained, in Python.")


def package_version() -> str:
    """The installed distribution's version (what ``pip show kubesched`` says)."""
    try:
        return version(DIST_NAME)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"{DIST_NAME} {package_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                      help="Print kubesched's version and exit."),
) -> None:
    """kubesched: kube-scheduler's decisions, explained, in Python."""
    show_warnings_on_stderr()


def main() -> None:
    app(prog_name=DIST_NAME)


# Command modules register themselves on ``app`` when imported.
from . import (  # noqa: E402, F401
    _bench,
    _capacity,
    _explain,
    _extender,
    _replay,
    _run,
    _simulate,
    _snapshot,
    _ui,
    _validate,
)
