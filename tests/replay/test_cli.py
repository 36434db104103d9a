"""``kubesched replay`` / ``compare`` / ``sweep`` through the CLI: outputs, files, exit codes."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.cli._replay import parse_seeds
from kubesched.replay import RunSpec, run_many

from ._traces import create, node, pod, write_jsonl

EXAMPLE = Path(__file__).parents[2] / "examples" / "replay"
TRACE = str(EXAMPLE / "trace.jsonl")
CLUSTER = str(EXAMPLE / "cluster.yaml")
LEAST = str(EXAMPLE / "least-allocated.yaml")
MOST = str(EXAMPLE / "most-allocated.yaml")

runner = CliRunner()


def _invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_replay_writes_series_summary_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _invoke("replay", TRACE, "--cluster", CLUSTER, "--out", str(out), "-o", "json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert json.loads((out / "summary.json").read_text()) == summary
    for key in ("pods", "scheduled", "unschedulable", "gpuAllocation", "wallSeconds"):
        assert key in summary
    assert summary["pods"] == 46 and summary["evictions"] >= 1 and summary["events"] == 45
    header = (out / "metrics.csv").read_text().splitlines()[0].split(",")
    assert header[:3] == ["time", "events", "arrivedDemand"] and "allocation:cpu" in header
    for fig in ("allocation-vs-time", "pods-vs-time", "latency-vs-demand"):
        assert (out / f"{fig}.png").stat().st_size > 0 and (out / f"{fig}.svg").stat().st_size > 0


def test_replay_table(tmp_path: Path) -> None:
    result = _invoke("replay", TRACE, "--cluster", CLUSTER, "--until", "100")
    assert result.exit_code == 0, result.output
    assert "Replay of trace" in result.stdout and "virtualSeconds" in result.stdout


def test_bad_line_is_exit_2_with_nothing_written(tmp_path: Path) -> None:
    trace = write_jsonl(tmp_path / "t.jsonl", [create(0, node("n1")), create(1, pod("a"))])
    with trace.open("a") as f:
        f.write('{"time": 2, "op": "cordon", "name": "n1"}\n{"time": 3, "op": "cordon", "name": "n2"}\n')
    out = tmp_path / "out"
    result = _invoke("replay", str(trace), "--out", str(out))
    assert result.exit_code == 2
    assert f"{trace}:4: cordon: Node n2 not found" in result.stderr
    assert result.stdout == "" and not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--format", "csv"], "unknown trace format 'csv'", id="unknown-format"),
        pytest.param(["--config", "/nonexistent.yaml"], "nonexistent", id="missing-config"),
        pytest.param(["--sample-every", "0"], "sample interval must be positive", id="bad-interval"),
    ],
)
def test_bad_options_exit_2(args: list[str], message: str) -> None:
    result = _invoke("replay", TRACE, "--cluster", CLUSTER, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_snapshot_format_from_the_cli() -> None:
    quickstart = str(EXAMPLE.parent / "quickstart")
    args = [
        "replay",
        "--format",
        "snapshot",
        quickstart,
        "--arrival",
        "shuffled",
        "--tune",
        "1.3",
        "-o",
        "json",
    ]
    a = json.loads(_invoke(*args, "--seed", "3").stdout)
    b = json.loads(_invoke(*args, "--seed", "3").stdout)
    c = json.loads(_invoke(*args, "--seed", "4").stdout)
    assert a["arrivedDemand"] >= 1.3 and a["unschedulable"] > 0
    drop = lambda s: {k: v for k, v in s.items() if k != "wallSeconds"}  # noqa: E731
    assert drop(a) == drop(b) and drop(a) != drop(c)


def test_compare_side_by_side(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    result = _invoke(
        "compare", TRACE, "--cluster", CLUSTER, "--config", LEAST, "--config", MOST, "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert "LEAST-ALLOCATED" in result.stdout and "MOST-ALLOCATED" in result.stdout
    both = json.loads((out / "compare.json").read_text())
    assert set(both) == {"least-allocated", "most-allocated"}
    assert both["least-allocated"]["seed"] == both["most-allocated"]["seed"] == 0
    assert both["least-allocated"]["attempts"] != both["most-allocated"]["attempts"]  # the configs matter
    assert (out / "least-allocated" / "metrics.csv").exists() and (out / "compare-pods-vs-time.svg").exists()


def test_parse_seeds() -> None:
    assert parse_seeds("0..3,7") == [0, 1, 2, 3, 7]
    assert parse_seeds("42..51") == list(range(42, 52))
    with pytest.raises(ValueError, match="neither"):
        parse_seeds("a")
    with pytest.raises(ValueError, match="empty range"):
        parse_seeds("3..1")


def _specs(out: Path | None = None) -> list[RunSpec]:
    return [
        RunSpec(
            paths=(TRACE,),
            cluster=(CLUSTER,),
            config=c,
            label=Path(c).stem,
            seed=s,
            out=str(out / Path(c).stem / str(s)) if out else None,
        )
        for c in (LEAST, MOST)
        for s in (0, 1)
    ]


def _strip(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in s.items() if k != "wallSeconds"} for s in summaries]


def test_sweep_pool_gives_the_in_process_results(tmp_path: Path) -> None:
    inline = run_many(_specs(tmp_path / "a"), workers=1)
    pooled = run_many(_specs(tmp_path / "b"), workers=2)
    assert _strip(inline) == _strip(pooled)
    for spec_a, spec_b in zip(_specs(tmp_path / "a"), _specs(tmp_path / "b"), strict=True):
        assert (Path(spec_a.out or "") / "metrics.csv").read_text() == (
            Path(spec_b.out or "") / "metrics.csv"
        ).read_text()


def test_sweep_cli_aggregates(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    result = _invoke(
        "sweep",
        TRACE,
        "--cluster",
        CLUSTER,
        "--config",
        LEAST,
        "--config",
        MOST,
        "--seeds",
        "0..2",
        "--jobs",
        "2",
        "--out",
        str(out),
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    assert set(table) == {"least-allocated", "most-allocated"}
    agg = table["most-allocated"]["attempts"]
    assert agg["n"] == 3 and agg["min"] <= agg["mean"] <= agg["max"]
    assert (out / "sweep.csv").read_text().startswith("config,metric,mean,min,max,n\n")
    assert (out / "sweep-gpuAllocation.png").exists() and (
        out / "most-allocated" / "seed-2" / "summary.json"
    ).exists()


def test_sweep_on_ray_gives_the_local_results(tmp_path: Path) -> None:
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("KUBESCHED_REQUIRE_RAY"):
            pytest.fail("KUBESCHED_REQUIRE_RAY is set but ray is not installed (pip install '.[ray]')")
        pytest.skip("ray is not installed (pip install '.[ray]')")
    local = run_many(_specs(), workers=2)
    on_ray = run_many(_specs(), ray="local")
    assert _strip(local) == _strip(on_ray)


def test_sweep_ray_without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_ray(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    result = _invoke("sweep", TRACE, "--cluster", CLUSTER, "--seeds", "0", "--ray", "local")
    assert result.exit_code == 2 and "pip install 'kubesched[ray]'" in result.stderr


def test_skipped_events_are_told_on_stderr(tmp_path: Path) -> None:
    pc = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    trace = write_jsonl(
        tmp_path / "t.jsonl",
        [
            create(0, node("n1", cpu="2")),
            create(0, pc),
            create(1, pod("low", "2", grace=0)),
            create(2, pod("high", "2", priority="high")),
            {"time": 9, "op": "delete", "kind": "Pod", "name": "low"},
        ],
    )
    result = _invoke("replay", str(trace))
    assert result.exit_code == 0, result.output
    assert (
        'warning: 1 trace event(s) skipped, their object gone by then: delete: pods "low" not found (1)'
        in result.stderr
    )
    assert "skipped." not in result.stdout


TRACE_FLAGS = ("--format", "--cluster", "--until", "--arrival", "--tune", "--interval", "--demand",
               "--sample-every", "--drop-unschedulable")


@pytest.mark.parametrize("command", ["replay", "compare", "sweep"])
def test_trace_commands_take_the_one_trace_group(command: str) -> None:
    """The three commands read a trace with the same options (one group, documented once)."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert all(f" {flag} " in result.output for flag in TRACE_FLAGS), result.output


def test_compare_passes_the_trace_options_to_every_run(tmp_path: Path) -> None:
    """--until reaches each configuration's run, as it reaches replay's."""
    result = _invoke("compare", TRACE, "--cluster", CLUSTER, "--config", LEAST, "--config", MOST,
                     "--until", "100", "--no-plots", "-o", "json")
    assert result.exit_code == 0, result.output
    both = json.loads(result.output)
    assert set(both) == {"least-allocated", "most-allocated"}
    assert all(s["virtualSeconds"] <= 100 for s in both.values())
