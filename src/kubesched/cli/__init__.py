"""The ``kubesched`` command line (typer). Commands live in their own modules; ``kubectl_main``
is the ``kubectl-kubesched`` plugin over the same commands."""

from ._kubectl import kubectl_main
from ._main import app, load_every_command, main

__all__ = ["app", "kubectl_main", "load_every_command", "main"]
