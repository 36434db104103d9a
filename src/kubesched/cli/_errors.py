"""Internal errors: one line on stderr and an exit code of their own, in every command.

A bug in kubesched (an exception nothing expected: not bad input, which each command reports
with exit code 2, nor typer's usage errors) must not end a command with a page of traceback
nor look like bad input. :class:`CommandGroup`, the root command's click group, catches what
escapes a command and prints::

    error: internal error: KeyError: 'cpu' (this is a bug in kubesched; please report it,
    with -v for the traceback)

(on one line) and exits with :data:`EXIT_INTERNAL_ERROR`: 70, ``EX_SOFTWARE`` of BSD's
sysexits.h ("an internal software error has been detected"), clear of our 0/1/2, of click's
1 and 2 and of the 130 it gives an interrupted command. ``-v``/``--verbose``, an option of
every command, prints the traceback first; ``run``'s klog-like ``-v N`` counts when N > 0.
"""

from __future__ import annotations

import errno
import sys
import traceback
from typing import Any, Final

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from ._inputs import one_line

__all__ = ["EXIT_INTERNAL_ERROR", "CommandGroup", "record_verbosity", "report_internal_error"]

EXIT_INTERNAL_ERROR: Final = 70

_VERBOSITY_KEY: Final = "kubesched.verbosity"
"""Where the ``-v`` options leave their value: click's ``Context.meta``, shared by the root
context and every command's, so the group still sees it after the command's context is gone."""

_PASS_THROUGH: Final = (typer.Exit, typer.Abort, typer.TyperException, KeyboardInterrupt, EOFError)
"""What click itself turns into an exit: usage errors (2), ``Exit``, Ctrl-C (130)."""


def record_verbosity(ctx: typer.Context, value: int | None) -> int | None:
    """A ``-v`` option's callback: remember the highest verbosity asked for."""
    if value:
        ctx.meta[_VERBOSITY_KEY] = max(int(value), int(ctx.meta.get(_VERBOSITY_KEY, 0)))
    return value


def _verbose_holder(
    verbose: int = typer.Option(0, "-v", "--verbose", count=True, expose_value=False,
                                callback=record_verbosity,
                                help="On an internal error, print the traceback too."),
) -> None:
    """Only declares the option: typer builds the click parameter every command receives."""


def _verbose_option() -> Any:
    """The ``-v``/``--verbose`` click parameter, built by typer from :func:`_verbose_holder`
    (typer.main.get_command is typer's documented way to the click objects)."""
    holder = typer.Typer()
    holder.command()(_verbose_holder)
    return typer.main.get_command(holder).params[0]


def _has_short_v(command: Any) -> bool:
    return any("-v" in getattr(p, "opts", ()) for p in command.params)


def report_internal_error(exc: BaseException, verbosity: int = 0) -> None:
    """The traceback when ``verbosity`` > 0, then the one line."""
    err = Console(stderr=True)
    if verbosity > 0:
        sys.stderr.write("".join(traceback.format_exception(exc)))
        sys.stderr.flush()
    message = one_line(str(exc))
    what = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    err.print(Text("error: ", style="bold red") + Text(
        f"internal error: {what} (this is a bug in kubesched; please report it, with -v for the traceback)"),
        highlight=False, soft_wrap=True)


class CommandGroup(TyperGroup):
    """The root group: every command gets ``-v``/``--verbose`` unless it has a
    ``-v`` of its own (``run``'s ``-v N``), and an exception escaping a command is reported by
    :func:`report_internal_error` with exit code :data:`EXIT_INTERNAL_ERROR`."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._verbose = _verbose_option()
        for command in self.commands.values():
            self.with_verbose(command)

    def with_verbose(self, command: Any) -> Any:
        """``command`` with ``-v``/``--verbose`` added unless it has a ``-v`` of its own."""
        if not _has_short_v(command):
            command.params.append(self._verbose)
        return command

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except _PASS_THROUGH:
            raise
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # stdout closed early (| head): click exits quietly
                raise
            self._fail(ctx, exc)
        except Exception as exc:
            self._fail(ctx, exc)

    @staticmethod
    def _fail(ctx: typer.Context, exc: Exception) -> None:
        report_internal_error(exc, int(ctx.meta.get(_VERBOSITY_KEY, 0)))
        raise typer.Exit(EXIT_INTERNAL_ERROR) from exc
