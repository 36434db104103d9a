"""A replay's results are pinned: the openb sample's summary (``-o json``, the document
``--out`` writes as ``summary.json``), every figure but ``wallSeconds`` (the machine's), equals
the one recorded in ``tests/fixtures/openb/replay-summary.json``. A change that makes replay
faster must leave it as it was; one that changes a decision on purpose updates the file and
says why. Up to 9,600,000 virtual seconds: 19 pods, one of which fits nowhere and is retried
at every flush of the unschedulable pods (139 attempts)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kubesched.cli import app

OPENB = Path(__file__).parents[1] / "fixtures" / "openb"


def test_the_openb_samples_summary_is_unchanged() -> None:
    result = CliRunner().invoke(app, ["replay", "--format", "openb", str(OPENB / "nodes.csv"),
                                      str(OPENB / "pods.csv"), "--until", "9600000", "-o", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary.pop("wallSeconds") >= 0
    assert summary == json.loads((OPENB / "replay-summary.json").read_text())
