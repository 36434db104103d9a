"""The live listing benchmark (benchmarks/live_list_bench.py) at a tiny size, so the script
cannot rot: its own fresh control plane, 5 nodes, 20 bound pods and 2 pending ones, listed
and simulated from the cluster."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys

import pytest

from .conftest import REPO, _missing, k8s_dir


def test_list_benchmark_runs_at_a_tiny_size(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    script = k8s_dir() / "control-plane"
    if not script.is_file():
        _missing(f"{script} not found")
    for tool in ("curl", "openssl", "xz"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    monkeypatch.setenv("KUBESCHED_K8S_DIR", str(k8s_dir()))
    path = REPO / "benchmarks" / "live_list_bench.py"
    spec = importlib.util.spec_from_file_location("live_list_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    assert bench.main(["--nodes", "5", "--pods", "20", "--pending", "2", "--rounds", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["counts"]["Node"] == 5 and out["counts"]["Pod"] == 22
    assert out["pending_scheduled"] == 2
    assert out["list_seconds"] > 0 and out["simulate_seconds"] > 0
    assert "live_list_bench.py" in (REPO / "benchmarks" / "README.md").read_text()
