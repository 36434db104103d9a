"""Consoles and tables for the human outputs: a value is never cut.

rich, left alone, renders at 80 columns when stdout is not a terminal and squeezes a table into
the width by cropping cells (``Bo`` for ``Bound``, ``2000`` for a priority of 2000001000). Here:

- the width is ``COLUMNS`` when set, else the terminal's; when stdout is not a terminal (a pipe,
  a log) and ``COLUMNS`` is unset, there is no limit: tables render at the width their content
  needs and text lines are not wrapped;
- a table column is either a *value* column (names, numbers, amounts, verdicts), never wrapped
  nor cut, or a *free text* column (messages, reasons), wrapped between words to fit the width;
- when even that does not fit, the table is printed wider than the width rather than cut.
"""

from __future__ import annotations

import os
from typing import IO, Literal

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table

__all__ = ["UNLIMITED_WIDTH", "add_column", "out_console", "print_table"]

UNLIMITED_WIDTH = 1_000_000
"""The width of a console without a limit (stdout not a terminal, no ``COLUMNS``)."""


def _columns_env() -> int | None:
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def out_console() -> Console:
    """The console for a command's human output on stdout (see the module docstring). Whether
    stdout is a terminal is asked of the file itself: ``FORCE_COLOR`` (set by many CI systems)
    makes rich treat a log as a terminal, which may colour it but must not narrow it."""
    width = _columns_env()
    console = Console(width=width)
    if width is None and not _isatty(console.file):
        console.width = UNLIMITED_WIDTH
    return console


def _isatty(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed file
        return False


def add_column(table: Table, header: str, *, justify: Literal["left", "right"] = "left",
               free_text: bool = False) -> None:
    """A value column (never wrapped) or, with ``free_text``, one wrapped between words."""
    table.add_column(header, justify=justify, no_wrap=not free_text, overflow="fold")


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` without cutting a cell: each value column is at least as wide as its
    widest cell (header included), each free-text column as its longest word; if their sum does
    not fit the console, the table is printed that much wider."""
    unlimited = console.options.update_width(UNLIMITED_WIDTH)
    for column in table.columns:
        cells: list[RenderableType] = [column.header, *column.cells]
        sizes = [Measurement.get(console, unlimited, c) for c in cells]
        column.min_width = max((s.maximum if column.no_wrap else s.minimum) for s in sizes)
    needed = Measurement.get(console, unlimited, table).minimum
    width = console.width
    if needed > width:
        console.width = needed
    try:
        # crop=False: rich may still lay a column out wider than its share; print it whole.
        console.print(table, crop=False)
    finally:
        console.width = width
