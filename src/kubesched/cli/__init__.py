"""The ``kubesched`` command line (typer). Commands live in their own modules."""

from ._main import app, main

__all__ = ["app", "main"]
