"""The error the what-if and configuration editors answer with: every problem of the text, each
with the line it is about, so that the page shows them in place and the server never falls over
on bad input (a ValueError, as the command line's bad input is)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._locate import Problem

__all__ = ["InputProblems"]


class InputProblems(ValueError):
    """The text (``what``: ``manifests`` or ``configuration``) was refused; nothing ran."""

    def __init__(self, what: str, problems: Sequence[Problem]) -> None:
        self.what = what
        self.problems = list(problems)
        super().__init__("; ".join(p.message for p in self.problems))

    def to_dict(self) -> dict[str, Any]:
        return {"error": str(self), "what": self.what, "problems": [p.to_dict() for p in self.problems]}
