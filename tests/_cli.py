"""Running ``kubesched`` in this process, as the CLI tests do."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from kubesched.cli import app


def json_output(*args: str) -> dict[str, Any]:
    """``kubesched ARGS... -o json``: its JSON on stdout; the command must succeed."""
    result = CliRunner().invoke(app, [*args, "-o", "json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out
