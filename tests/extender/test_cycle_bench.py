"""benchmarks/extender_cycle.py runs (at a tiny size), so that its README figure can be
reproduced."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "extender_cycle.py"


def test_the_cycle_benchmark_schedules_pods_through_filter_and_prioritize(
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("extender_cycle", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cycle = mod.Cycle(20)
    for _ in range(6):
        cycle.one()
    bound = [p for p in cycle.store.list("Pod", "bench") if p.node_name]
    cycle.close()
    assert len(bound) == 6
    mod.main(["--nodes", "20", "--pods", "3", "--warmup", "1"])
    assert "20 nodes, 20 names per /filter:" in capsys.readouterr().out
