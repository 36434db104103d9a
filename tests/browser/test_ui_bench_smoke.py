"""The page benchmark (benchmarks/ui_bench.py) at a tiny size, so that the script cannot rot:
it generates the cluster, serves it, draws the cluster page and a decision in Chromium and
reports every figure with its target and the machine."""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from .conftest import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def _load_script() -> ModuleType:
    path = REPO / "benchmarks" / "ui_bench.py"
    spec = importlib.util.spec_from_file_location("ui_bench", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_ui_benchmark_measures_a_tiny_cluster(
        browser: Browser, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load_script()
    assert bench.main(["--nodes", "5", "--pods", "60", "--repeat", "1"], browser) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["nodes"], out["pods"]) == (5, 60)
    assert 0 < out["cluster_page_seconds"] < 60 and 0 < out["decision_seconds"] < 60
    assert 10 * 2**20 < out["server_peak_rss_bytes"] < 2**30
    assert len(out["decision_pods"]) == 2 and all("/" in p for p in out["decision_pods"])
    assert out["export_bytes"] > 60 * 1000 and out["export_seconds"] >= 0
    assert out["export_peak_rss_mib"] >= out["server_peak_rss_mib"]
    assert set(out["targets"]) == {"cluster_page_seconds", "decision_seconds", "server_peak_rss_bytes"}
    assert out["machine"]["cores"] >= 1
    assert "ui_bench.py" in (REPO / "benchmarks" / "README.md").read_text()


def test_the_ui_benchmark_measures_a_tiny_live_cluster(
        browser: Browser, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--live`` at a tiny size, so that its live mode cannot rot: its own control plane,
    filled, served by ``kubesched ui --kubeconfig``, drawn in this session's Chromium (one
    Playwright per process: a second would find the first one's event loop)."""
    from live._kube import bench_script

    bench = bench_script(monkeypatch, "ui_bench")  # skipped (failed in CI) without ../shared
    monkeypatch.setattr(bench, "SETTLE", 1.0)
    assert bench.main(["--live", "--nodes", "3", "--pods", "100", "--repeat", "1"], browser) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["input"] == "live" and (out["nodes"], out["pods"]) == (3, 100)
    assert 0 < out["cluster_page_seconds"] < 60 and 0 < out["decision_seconds"] < 60
    assert len(out["decision_pods"]) == 2
    assert all(p.startswith("bench/pending-") for p in out["decision_pods"])
    assert 10 * 2**20 < out["server_peak_rss_bytes"] < 2**30 and out["settle_seconds"] >= 1
    assert len(out["load_average"]) == 6
