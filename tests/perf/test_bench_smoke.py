"""A small run of the benchmark: every bundled test case at its smallest size, the decision check,
and ``kubesched bench -o json``. Correctness only: no timing assertions."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.perf import (
    DecisionMismatch,
    WorkloadResult,
    check_decisions,
    load_config,
    run_workload,
    select_workloads,
)

FIXTURES = Path(__file__).parent / "fixtures"
# The binding-condition cases measure nothing meaningful (their pods wait for a driver, some
# must stay unscheduled): tests/perf/test_binding_conditions_workloads.py runs them.
SMALL = [wl for wl in select_workloads(load_config(), labels=["integration-test"])
         if not wl.full_name.startswith("DRABindingConditions")]


@pytest.fixture(scope="module")
def small_results() -> dict[str, WorkloadResult]:
    return {wl.full_name: run_workload(wl, seed=3) for wl in SMALL}


@pytest.mark.parametrize("name", [wl.full_name for wl in SMALL])
def test_every_measured_pod_is_scheduled(small_results: dict[str, WorkloadResult], name: str) -> None:
    r = small_results[name]
    assert r.measured_pods > 0
    assert r.scheduled == r.measured_pods
    assert r.throughput.average > 0 and r.samples
    assert r.peak_rss_bytes > 0
    assert r.attempt_latency.p99 >= r.attempt_latency.p50 > 0
    assert "Filter" in r.extension_points or "PreFilter" in r.extension_points


def test_anti_affinity_spreads_one_pod_per_node(small_results: dict[str, WorkloadResult]) -> None:
    r = small_results["SchedulingPodAntiAffinity/5Nodes"]
    nodes = list(r.placements.values())
    assert len(nodes) == len(set(nodes)) == 5  # 1 init + 4 measured pods, required anti-affinity


def test_daemonset_pods_all_land_on_the_named_node(small_results: dict[str, WorkloadResult]) -> None:
    r = small_results["SchedulingDaemonset/5Nodes"]
    assert set(r.placements.values()) == {"scheduler-perf-node"}


def test_preemption_makes_room_for_every_high_priority_pod(small_results: dict[str, WorkloadResult]) -> None:
    r = small_results["PreemptionBasic/5Nodes"]
    assert r.scheduled == 5 and r.unschedulable >= 1  # each first attempt fails, then preempts


def test_same_seed_same_placements() -> None:
    wl = select_workloads(load_config(), ["TopologySpreading/5Nodes"])[0]
    assert run_workload(wl, seed=9).placements == run_workload(wl, seed=9).placements


@pytest.mark.parametrize("name", [
    "SchedulingBasic/5Nodes", "SchedulingPodAffinity/5Nodes", "SchedulingPreferredPodAntiAffinity/5Nodes",
    "TopologySpreading/5Nodes", "PreferredTopologySpreading/5Nodes", "MixedSchedulingBasePod/5Nodes",
    "PreemptionBasic/5Nodes", "SchedulingWithMixedChurn/10Nodes", "SchedulingCSIPVs/5Nodes",
    "SchedulingWithImages/5Nodes",
])
def test_check_decisions_batch_and_per_node_agree(name: str) -> None:
    wl = select_workloads(load_config(), [name])[0]
    result = check_decisions(wl, seed=5)
    assert len(result.placements) >= result.measured_pods


def test_check_decisions_reports_a_mismatch() -> None:
    wl = select_workloads(load_config(), ["SchedulingBasic/5Nodes"])[0]
    first = run_workload(wl, seed=5)
    first.placements[next(iter(first.placements))] = "no-such-node"
    with pytest.raises(DecisionMismatch, match="1 pods placed differently"):
        check_decisions(wl, seed=5, first=first)


def test_churn_ticks_replay_at_the_recorded_steps() -> None:
    wl = select_workloads(load_config(), ["SchedulingWithMixedChurn/10Nodes"])[0]
    replayed = run_workload(wl, seed=2, churn_replay=[[3, 40]])
    assert replayed.churn_steps == [3, 40]


def test_bench_cli_json_contract() -> None:
    result = CliRunner().invoke(app, ["bench", str(FIXTURES / "tiny-config.yaml"), "-o", "json",
                                      "--check-decisions"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"machine", "results"}
    assert {"nproc", "cpuModel", "python"} <= set(doc["machine"])
    basic, spread = doc["results"]
    assert basic["name"] == "TinyBasic/3Nodes" and spread["name"] == "TinySpread/6Nodes"
    for r in (basic, spread):
        assert {"name", "nodes", "measuredPods", "throughput", "seconds", "peakRSSBytes", "scheduled",
                "unschedulable"} <= set(r)
        assert set(r["throughput"]) == {"average", "p50", "p90", "p99"}
        assert r["setupSeconds"] > 0  # nodes and setup pods, before the measured op
    assert (basic["nodes"], basic["measuredPods"], basic["scheduled"]) == (3, 6, 6)
    assert (spread["nodes"], spread["measuredPods"], spread["scheduled"]) == (6, 12, 12)


def test_bench_cli_table_and_bad_workload() -> None:
    ok = CliRunner().invoke(app, ["bench", str(FIXTURES / "tiny-config.yaml"), "-w", "TinyBasic"],
                            env={"COLUMNS": "300"})
    assert ok.exit_code == 0, ok.output
    assert "TinyBasic/3Nodes" in ok.stdout and "Filter" in ok.stdout
    bad = CliRunner().invoke(app, ["bench", str(FIXTURES / "tiny-config.yaml"), "-w", "Nope"])
    assert bad.exit_code == 2


def test_a_run_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    wl = select_workloads(load_config(), ["SchedulingBasic/5Nodes"])[0]
    run_workload(wl, seed=1)  # freezes the heap before its measured op
    assert gc.get_freeze_count() == 0


def test_measured_ops_run_on_a_paced_clock_and_pace_false_keeps_it_virtual() -> None:
    wl = select_workloads(load_config(), ["PreemptionBasic/5Nodes"])[0]
    paced = run_workload(wl, seed=3)
    assert paced.clock_moves and all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(paced.clock_moves))
    frozen = run_workload(wl, seed=3, pace=False)
    assert frozen.clock_moves == [] and frozen.scheduled == frozen.measured_pods
