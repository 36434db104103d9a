"""The typer application; each command module registers itself here.

``-h`` works wherever ``--help`` does (click's ``help_option_names``, inherited by every
command's context); ``--version`` prints ``kubesched <version>`` from the installed package's
metadata; typer adds ``--install-completion`` / ``--show-completion`` (shell detected with
shellingham: bash, zsh, fish, PowerShell). An exception escaping any command is one line and
exit code 70 (:mod:`._errors`).

Each command's module is imported when that command runs (or its help is shown), not when the
command line starts: click's lazily loaded subcommands ("Advanced Patterns" in click's
documentation). ``kubesched replay`` thus never loads the web UI, the live client, the extender
or the benchmark's workloads, which cost more CPU than a small replay itself; the root
``--help`` loads them all to list them.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final

import typer

from ._errors import CommandGroup
from ._logging import show_warnings_on_stderr

DIST_NAME = "kubesched"

COMMAND_MODULES: Final = {
    "bench": "_bench", "capacity": "_capacity", "explain": "_explain", "run": "_run",
    "extender": "_extender", "snapshot": "_snapshot", "replay": "_replay", "compare": "_replay",
    "sweep": "_replay", "simulate": "_simulate", "ui": "_ui", "validate": "_validate",
}
"""Each command, in the order the root ``--help`` lists them, and the module that registers it
on :data:`app` when imported."""


def load_every_command() -> None:
    """Import every command's module, so that :data:`app` has them all registered (the root
    ``--help``, and tests that walk every command)."""
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        importlib.import_module(f".{module}", __package__)


class _LazyGroup(CommandGroup):
    """The root group, with each command built from its module on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMAND_MODULES)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in COMMAND_MODULES:
            importlib.import_module(f".{COMMAND_MODULES[cmd_name]}", __package__)
            info = next(i for i in app.registered_commands if i.name == cmd_name)
            command = typer.main.get_command_from_info(
                info, pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode)
            self.add_command(self.with_verbose(command), cmd_name)
        return command

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in COMMAND_MODULES:  # "no such command": suggest from them all
            for name in COMMAND_MODULES:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


app = typer.Typer(cls=_LazyGroup, no_args_is_help=True, add_completion=True,
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

