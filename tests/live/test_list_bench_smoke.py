"""The live listing benchmark (benchmarks/live_list_bench.py) at a tiny size, so the script
cannot rot: its own fresh control plane, 5 nodes, 20 bound pods and 2 pending ones, listed
and simulated from the cluster."""

from __future__ import annotations

import json

import pytest

from ._kube import bench_script
from .conftest import REPO


def test_list_benchmark_runs_at_a_tiny_size(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    bench = bench_script(monkeypatch, "live_list_bench")
    assert bench.main(["--nodes", "5", "--pods", "20", "--pending", "2", "--rounds", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["counts"]["Node"] == 5 and out["counts"]["Pod"] == 22
    assert out["pending_scheduled"] == 2
    assert out["list_seconds"] > 0 and out["simulate_seconds"] > 0
    assert "live_list_bench.py" in (REPO / "benchmarks" / "README.md").read_text()
