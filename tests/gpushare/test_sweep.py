"""``kubesched sweep --drop-unschedulable``: the paper's table through the CLI, the same numbers
as ``run_fgd`` (one driver) on the shipped sample."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

FIX = Path(__file__).parents[1] / "fixtures" / "openb"
CONFIGS = Path(__file__).parents[2] / "examples" / "gpushare" / "configs"
ARGS = ["sweep", "--format", "openb", str(FIX / "nodes.csv"), str(FIX / "pods.csv"),
        "--arrival", "shuffled", "--tune", "1.3", "--drop-unschedulable", "--jobs", "1"]


def _sweep(*extra: str) -> dict:
    res = CliRunner().invoke(app, [*ARGS, *extra, "-o", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize(("policy", "file"), [("Packing", "packing.yaml"), ("FGD", "fgd-sample.yaml")])
def test_sweep_agrees_with_run_fgd(policy: str, file: str) -> None:
    from kubesched_gpushare.experiment import run_policy

    table = _sweep("--config", str(CONFIGS / file), "--seeds", "42..43")
    agg = table[Path(file).stem]
    curves = [run_policy(FIX / "nodes.csv", FIX / "pods.csv", policy, seed=s, tune=1.3) for s in (42, 43)]
    hit = 0
    for pct in range(10, 151, 10):  # the sample is small: a seed may have no pod near a level
        key = f"atArrivedDemand.{pct}%.gpuAllocation"
        vals = [v for v in (c.at(pct / 100) for c in curves) if not math.isnan(v)]
        if not vals:
            assert key not in agg
            continue
        hit += 1
        assert agg[key]["n"] == len(vals)
        assert agg[key]["mean"] == pytest.approx(sum(vals) / len(vals), abs=1e-12)
        assert agg[key]["min"] == pytest.approx(min(vals), abs=1e-12)
    assert hit >= 5
    assert agg["unschedulable"]["mean"] == pytest.approx(sum(c.failed for c in curves) / 2)
    assert agg["unschedulable"]["mean"] > 0  # tuned past the capacity: pods dropped, not retried
    assert agg["pending"]["max"] == 0


def test_replay_writes_the_curve(tmp_path: Path) -> None:
    from kubesched_gpushare.experiment import run_policy

    res = CliRunner().invoke(app, ["replay", "--format", "openb", str(FIX / "nodes.csv"),
                                   str(FIX / "pods.csv"), "--arrival", "shuffled", "--tune", "1.3",
                                   "--drop-unschedulable",
                                   "--seed", "7", "--config", str(CONFIGS / "bestfit.yaml"),
                                   "--out", str(tmp_path), "--no-plots", "-o", "json"])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    curve = run_policy(FIX / "nodes.csv", FIX / "pods.csv", "BestFit", seed=7, tune=1.3)
    assert summary["pods"] == len(curve.arrived) and summary["scheduled"] == curve.scheduled
    assert summary["gpuAllocation"] == pytest.approx(curve.allocation[-1])
    lines = (tmp_path / "metrics.csv").read_text().splitlines()
    assert lines[0] == "time,pods,arrivedDemand,gpuAllocation,gpuFragAmount,gpuFragRatio"
    assert len(lines) == len(curve.arrived) + 1


def test_drop_unschedulable_needs_the_shuffled_openb_arrival() -> None:
    res = CliRunner().invoke(app, ["sweep", "--format", "openb", str(FIX / "nodes.csv"),
                                   str(FIX / "pods.csv"), "--drop-unschedulable", "--seeds", "1",
                                   "--jobs", "1"])
    assert res.exit_code == 2
    assert "--drop-unschedulable: only with --format openb --arrival shuffled" in res.output


def _one_gpu_two_shares(tmp_path: Path) -> list[str]:
    """One node with one GPU; two pods asking half a GPU each, arriving a second apart."""
    nodes, pods = tmp_path / "nodes.csv", tmp_path / "pods.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,8000,32768,1,T4\n")
    pods.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,creation_time,deletion_time\n"
                    "a,1000,1024,1,500,,0,\nb,1000,1024,1,500,,1,\n")
    return ["replay", "--format", "openb", str(nodes), str(pods), "--no-plots", "-o", "json"]


def test_gpu_allocation_under_the_default_plugins_and_a_sharing_policy(tmp_path: Path) -> None:
    # The default plugins see whole GPUs (nvidia.com/gpu): the first share takes the GPU, the
    # second waits; allocated is what the first asks, half the GPU (the other half is wasted).
    # GpuShare puts both on it; NodeResourcesFit ignores the whole-GPU resource there, as the
    # simulator, whose pods carry none.
    args = _one_gpu_two_shares(tmp_path)
    default = json.loads(CliRunner().invoke(app, args).stdout)
    assert (default["scheduled"], default["pending"], default["gpuAllocation"]) == (1, 1, 0.5)
    assert (default["demand"], default["arrivedDemand"]) == ("gpu-milli", 1.0)  # 2 x 500 of 1000
    res = CliRunner().invoke(app, [*args, "--config", str(CONFIGS / "bestfit.yaml")])
    assert res.exit_code == 0, res.output
    shared = json.loads(res.stdout)
    assert (shared["scheduled"], shared["pending"], shared["gpuAllocation"]) == (2, 0, 1.0)
    # The paper's loop counts the same; the GPU the first share holds whole has nothing idle
    # left for fragmentation.
    fgd = [*args, "--arrival", "shuffled", "--drop-unschedulable"]
    default = json.loads(CliRunner().invoke(app, fgd).stdout)
    assert (default["scheduled"], default["unschedulable"], default["gpuAllocation"]) == (1, 1, 0.5)
    assert default["gpuFragAmount"] == 0.0
    res = CliRunner().invoke(app, [*fgd, "--config", str(CONFIGS / "bestfit.yaml")])
    assert res.exit_code == 0, res.output
    shared = json.loads(res.stdout)
    assert (shared["scheduled"], shared["unschedulable"], shared["gpuAllocation"]) == (2, 0, 1.0)
