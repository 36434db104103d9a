"""Over time: a trace replayed as kubesched replay replays it, its series kept for the charts."""

from __future__ import annotations

import json

import pytest

from kubesched.replay import ReaderOptions, RunSpec, run_spec
from kubesched.ui import SeriesSink, TraceInput, bundled_traces, parse_config, run_timeline

from ._fixtures import REPO


def test_the_bundled_trace_is_the_examples_one() -> None:
    (t,) = bundled_traces()
    for bundled, source in ((t.paths[0], "trace.jsonl"), (t.cluster[0], "cluster.yaml")):
        with open(bundled, encoding="utf-8") as f:
            assert f.read() == (REPO / "examples" / "replay" / source).read_text(encoding="utf-8")


def test_timeline_has_the_series_and_the_summary_of_kubesched_replay() -> None:
    (t,) = bundled_traces()
    seen: list[tuple[int, int]] = []
    tl = run_timeline(t, progress=lambda done, total, _virtual: seen.append((done, total)))
    d = tl.to_dict()
    assert d["charts"] == {"allocation": ["allocation:cpu", "allocation:memory", "allocation:pods"],
                           "pending": ["pending", "unschedulable"],
                           "latency": ["latencyP50", "latencyP90", "latencyP99"]}
    series = d["series"]
    assert set(series) == {"time", *(c for cols in d["charts"].values() for c in cols)}
    assert all(len(v) == d["points"] for v in series.values())
    assert series["time"] == sorted(series["time"])
    # The same figures as `kubesched replay` (same trace, cluster and seed) in summary.json.
    expected = run_spec(RunSpec(paths=t.paths, cluster=t.cluster, options=ReaderOptions(seed=0)))
    for key in ("pods", "scheduled", "pending", "unschedulable", "preemptions", "evictions", "events",
                "virtualSeconds", "latencySeconds", "allocation"):
        assert d["summary"][key] == expected[key], key
    json.dumps(d, allow_nan=False)  # JSON a browser parses: no NaN
    assert seen[-1][0] == seen[-1][1] == d["summary"]["events"]


def test_the_configuration_changes_the_run() -> None:
    (t,) = bundled_traces()
    most = parse_config((REPO / "examples" / "replay" / "most-allocated.yaml").read_text())
    a = run_timeline(t).to_dict()["summary"]
    b = run_timeline(t, most, label="B").to_dict()
    assert b["label"] == "B"
    assert (a["preemptions"], b["summary"]["preemptions"]) == (1, 0)


def test_a_bad_trace_is_refused_before_anything_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "trace.jsonl"
    bad.write_text('{"time": 1, "op": "create"}\n')
    with pytest.raises(ValueError, match=r"trace\.jsonl"):
        run_timeline(TraceInput("bad", "kubesched", (str(bad),)))


@pytest.mark.parametrize("n", [0, 1, 5, 9, 10, 11, 100, 1001])
def test_series_sink_keeps_at_most_the_limit_and_always_the_last_row(n: int) -> None:
    sink = SeriesSink(max_points=10)
    for i in range(n):
        sink([float(i)])
    rows = sink.series()
    assert len(rows) <= 11
    assert [r[0] for r in rows] == sorted({r[0] for r in rows})
    if n:
        assert rows[0] == [0.0] and rows[-1] == [float(n - 1)]
        assert len(rows) >= min(n, 5)  # thinned by halves, never to nothing
    else:
        assert rows == []
