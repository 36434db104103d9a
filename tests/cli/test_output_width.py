"""Human outputs in pipes and logs: no value is ever cut, whatever the width.

CliRunner's stdout is not a terminal, as in CI logs and ``| less``. Without ``COLUMNS`` the
tables render at the width their content needs; with ``COLUMNS`` free text wraps between words
and names and numbers stay whole (the table grows past the width rather than cut them).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

FIXTURES = Path(__file__).parent / "fixtures"
LONG = FIXTURES / "long-values.yaml"
TRAINER = "payments-production/fraud-detection-model-trainer-nightly-28912345-abcde"
NODES = ["ip-10-0-123-45.eu-west-1.compute.internal", "ip-10-0-201-17.eu-west-1.compute.internal"]
PODS = ["kube-system/kube-proxy-ip-10-0-123-45.eu-west-1.compute.internal",
        "payments-production/checkout-service-api-7d9f8b6c5d-x2k4p", TRAINER,
        "payments-production/ledger-reconciler-5c8d7f9b4-q7w2e"]
MESSAGE = ("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
           "no new claims to deallocate, "
           "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
VALUES = [*PODS, *NODES, "Bound", "Scheduled", "Unschedulable", "2000001000", "1000000000"]

runner = CliRunner()
WIDTHS = [pytest.param(None, id="pipe"), pytest.param(60, id="COLUMNS=60"), pytest.param(30, id="COLUMNS=30")]


def _run(args: list[str], columns: int | None) -> str:
    env = {"COLUMNS": str(columns) if columns else ""}
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def _cells(out: str) -> set[str]:
    """Every table cell and every word outside tables, as whole strings."""
    cells: set[str] = set()
    for line in out.splitlines():
        for cell in re.split(r"[│┃]", line):
            cells.add(cell.strip())
            cells.update(cell.split())
    return cells


def _assert_whole(out: str, values: list[str]) -> None:
    cells = _cells(out)
    missing = [v for v in values if v not in cells]
    assert not missing, f"cut or missing: {missing}\n{out}"


def _assert_words_whole(out: str, text: str) -> None:
    """Free text may wrap, but only between words, and no word is lost."""
    _assert_whole(out, text.split())


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("wide", [False, True], ids=["table", "wide"])
def test_simulate_never_cuts_a_value(columns: int | None, wide: bool) -> None:
    out = _run(["simulate", str(LONG), *(["-o", "wide"] if wide else [])], columns)
    _assert_whole(out, VALUES)
    _assert_words_whole(out, MESSAGE)
    assert "…" not in out
    if columns is None:
        # A pipe: nothing wraps; the message is one line (after the pod, or in its row).
        assert any(MESSAGE in line for line in out.splitlines())
        assert max(map(len, out.splitlines())) < 400  # the content's width, not an "unlimited" one
    else:
        # Free text outside the tables keeps to the width.
        for line in out.splitlines():
            if not line.startswith(("┏", "┃", "┡", "│", "└")) and "(requested / allocatable)" not in line:
                assert len(line.rstrip()) <= columns, line


def test_force_color_colours_a_log_but_keeps_its_width() -> None:
    result = runner.invoke(app, ["simulate", str(LONG)], env={"COLUMNS": "", "FORCE_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert "\x1b[" in result.stdout  # rich treats it as a terminal: colours
    plain = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert any(MESSAGE in line for line in plain.splitlines())
    _assert_whole(plain, VALUES)


@pytest.mark.parametrize("columns", WIDTHS)
def test_explain_never_cuts_a_value(columns: int | None) -> None:
    out = _run(["explain", str(LONG), "--pod", TRAINER], columns)
    _assert_whole(out, [*NODES, "NodeUnschedulable", "TaintToleration", "NodeResourcesFit", "FAIL"])
    _assert_words_whole(out, "NodeResourcesFit: Insufficient cpu")
    _assert_words_whole(out, "TaintToleration: node(s) had untolerated taint(s); "
                             "NodeResourcesFit: Insufficient cpu")
    _assert_words_whole(out, MESSAGE)
    assert "…" not in out


@pytest.mark.parametrize("columns", WIDTHS)
def test_validate_never_cuts_a_value(columns: int | None) -> None:
    out = _run(["validate", str(LONG)], columns)
    _assert_whole(out, ["PriorityClass", "ephemeral-storage", "requested (pending)", "7920m", "1600m",
                        "64250m", "32001.02Mi", "177.98Gi"])


def test_columns_sets_the_width_of_wrapped_text() -> None:
    narrow = _run(["simulate", str(LONG)], 60)
    wide = _run(["simulate", str(LONG)], 200)
    summary = [line for line in narrow.splitlines() if "scheduling attempts" in line or "scheduled," in line]
    assert len(summary) >= 2, "the summary wraps at 60 columns"
    assert any("scheduled," in line and "scheduling attempts" in line for line in wide.splitlines())


def _node_row(out: str, node: str) -> list[str]:
    row = next(line for line in out.splitlines() if line.startswith("│ " + node))
    return [c.strip() for c in row.split("│")[2:-1]]


def test_one_unit_per_resource_column() -> None:
    out = _run(["simulate", str(LONG), "-o", "wide"], None)
    busy, idle = (_node_row(out, n) for n in NODES)
    # cpu: 1850m requested is not whole cores, so every cpu amount is in millicores (4 -> 4000m);
    # memory: 768Mi requested is under 1Gi, so the column is in Mi (15991828Ki -> 15617.02Mi).
    assert busy[:3] == ["1850m / 3920m (47%)", "768Mi / 15617.02Mi (4%)", "3 / 110 (2%)"]
    assert idle[:3] == ["0m / 4000m (0%)", "0Mi / 16384Mi (0%)", "0 / 110 (0%)"]
    assert busy[3] == idle[3] == "0Gi / 88.99Gi (0%)"  # ephemeral-storage: 95551679124 bytes


def test_whole_cores_and_gibibytes_when_every_amount_is_whole() -> None:
    out = _run(["simulate", str(Path(__file__).parents[2] / "examples" / "quickstart")], None)
    cpu = [_node_row(out, f"node-{n}")[0] for n in ("a1", "a2", "b3")]
    # node-a2's 3500m is not whole cores, so the column is in millicores throughout.
    assert cpu == ["3000m / 3900m (76%)", "3500m / 3900m (89%)", "2000m / 3900m (51%)"]
    mem = [_node_row(out, f"node-{n}")[1] for n in ("a1", "b3")]
    assert mem == ["6Gi / 15Gi (40%)", "8Gi / 15Gi (53%)"]


def test_bench_tables_never_cut() -> None:
    out = _run(["bench", str(Path(__file__).parents[1] / "perf" / "fixtures" / "tiny-config.yaml"),
                "-w", "TinyBasic"], 60)
    _assert_whole(out, ["TinyBasic/3Nodes", "unschedulable", "attempt p99 ms", "peak RSS MiB"])
    _assert_words_whole(out, "PreFilter Filter Score")
