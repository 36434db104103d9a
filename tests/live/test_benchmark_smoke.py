"""The side-by-side live benchmark (benchmarks/live_side_by_side.py) at a tiny size, kubesched
only, so the script cannot rot: its own fresh control plane, 5 nodes, 2 bound pods, 20 pods
created and all bound by ``kubesched run``, a peak RSS, a rate and (``--thread-cpu``) the CPU
per thread reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ._kube import bench_script
from .conftest import REPO


def test_side_by_side_benchmark_runs_kubesched_at_a_tiny_size(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    bench = bench_script(monkeypatch, "live_side_by_side")
    code = bench.main(["--nodes", "5", "--bound-pods", "2", "--pods", "20", "--creators", "4",
                       "--scheduler", "kubesched", "--settle", "0.2", "--timeout", "60",
                       "--thread-cpu"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (res,) = out["results"]
    assert res["scheduler"] == "kubesched"
    # --thread-cpu: the loop thread's CPU and the collector's, over the measured phase
    assert isinstance(res["thread_cpu"]["threads"], dict)
    assert len(res["thread_cpu"]["gc_seconds"]) == 3 and len(res["thread_cpu"]["gc_collections"]) == 3
    assert res["scheduled"] == 20 and not res["timed_out"]
    assert res["pods_per_second"] > 0 and res["creation_per_second"] > 0
    assert 10 < res["peak_rss_mib"] < 2000
    assert res["scheduler_cpu_seconds"] >= 0 and res["apiserver_cpu_seconds"] > 0
    assert Path(REPO / "benchmarks" / "README.md").read_text().count("live_side_by_side.py") >= 1


def test_side_by_side_benchmark_runs_kube_scheduler_with_the_extender(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The ``kube-scheduler+extender`` mode at a tiny size: the real kube-scheduler binds every
    pod and asked ``kubesched extender`` to filter and prioritize for them."""
    bench = bench_script(monkeypatch, "live_side_by_side")
    code = bench.main(["--nodes", "5", "--bound-pods", "2", "--pods", "20", "--creators", "4",
                       "--scheduler", "kube-scheduler+extender", "--settle", "0.2", "--timeout", "60"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (res,) = out["results"]
    assert res["scheduler"] == "kube-scheduler+extender"
    assert res["scheduled"] == 20 and not res["timed_out"]
    calls = {note.split(":")[0]: int(note.split(": ")[1].split()[0])
             for note in res["notes"] if note.startswith("extender /")}
    assert calls["extender /filter"] >= 20 and calls["extender /prioritize"] >= 1, res["notes"]


def test_side_by_side_benchmark_prequeued_runs_both_schedulers_and_reports_cpu_per_pod(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--prequeued``: the pods are created before each scheduler starts, every one is bound,
    timed from the start; both schedulers' CPU per pod and the ratio of their rates are reported;
    ``--rounds 2`` measures each twice, the second round in the reverse order."""
    bench = bench_script(monkeypatch, "live_side_by_side")
    code = bench.main(["--nodes", "5", "--bound-pods", "2", "--pods", "20", "--creators", "4",
                       "--prequeued", "--rounds", "2", "--timeout", "60"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["prequeued"] is True and out["release"] == "1.32"
    order = [(r["round"], r["scheduler"]) for r in out["results"]]
    assert order == [(1, "kube-scheduler"), (1, "kubesched"), (2, "kubesched"), (2, "kube-scheduler")]
    for res in out["results"]:
        assert res["scheduled"] == 20 and not res["timed_out"] and res["prequeued"]
        assert res["cpu_ms_per_pod"] > 0 and res["lag_seconds"] == res["seconds"] > 0
    assert len(out["ratio_pods_per_second_rounds"]) == 2 and out["ratio_pods_per_second"] > 0


def test_side_by_side_benchmark_runs_the_extender_with_node_objects_for_comparison(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``kube-scheduler+extender-nodes``: kube-scheduler's extenders entry says
    ``nodeCacheCapable: false`` (Node objects in every request), the default entry ``true``;
    the informer-mode extender answers both, and every pod is bound."""
    bench = bench_script(monkeypatch, "live_side_by_side")
    names = bench.scheduler_config(tmp_path / "names.yaml", 10, "k", extender="http://x").read_text()
    objects = bench.scheduler_config(tmp_path / "objects.yaml", 10, "k", extender="http://x",
                                     node_cache=False).read_text()
    assert "nodeCacheCapable: true" in names and "nodeCacheCapable: false" in objects
    code = bench.main(["--nodes", "5", "--bound-pods", "2", "--pods", "20", "--creators", "4",
                       "--scheduler", "kube-scheduler+extender-nodes", "--settle", "0.2",
                       "--timeout", "60"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (res,) = out["results"]
    assert res["scheduler"] == "kube-scheduler+extender-nodes"
    assert res["scheduled"] == 20 and not res["timed_out"]
    calls = {note.split(":")[0]: int(note.split(": ")[1].split()[0])
             for note in res["notes"] if note.startswith("extender /")}
    assert calls["extender /filter"] >= 20 and calls["extender /prioritize"] >= 1, res["notes"]
