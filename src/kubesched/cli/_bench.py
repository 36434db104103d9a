"""``kubesched bench [CONFIG.yaml] [--workload TEST/WORKLOAD ...] [-o table|json]``.

Runs scheduler_perf-style workloads (the bundled ones without CONFIG) and reports, per workload,
the throughput (average / p50 / p90 / p99 of 1-second samples, pods per second), the attempt
latency, the time per extension point and the peak RSS. ``--check-decisions`` runs each workload
again on the per-node plugin path with the same seed and fails (exit 1) unless every pod lands on
the same node. Exit codes: 0 when it ran, 1 on a decision mismatch or a failed check of an op
(checkPodScheduled, updateDeviceConditions), 2 on a bad config.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ..framework.config import ConfigError as SchedulerConfigError
from ..framework.config import SchedulerConfig, default_config
from ..framework.config import load_config as load_scheduler_config
from ..perf import (
    ConfigError,
    DecisionMismatch,
    WorkloadFailed,
    WorkloadResult,
    check_decisions,
    load_config,
    machine_info,
    run_workload,
    select_workloads,
)
from ._console import add_column, out_console, print_table
from ._features import FEATURE_GATES_HELP, KUBE_VERSION_HELP, parse_release
from ._inputs import reported_as_bad_input
from ._main import app

__all__ = ["BenchOutput", "bench", "bench_report", "render_bench"]

_MiB = 1024 * 1024


class BenchOutput(StrEnum):
    table = "table"
    json = "json"


def bench_report(results: list[WorkloadResult], machine: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document of ``-o json``: ``{"machine": {...}, "results": [...]}``."""
    return {"machine": machine if machine is not None else machine_info(),
            "results": [r.to_dict() for r in results]}


def render_bench(console: Console, results: list[WorkloadResult], machine: dict[str, Any]) -> None:
    console.print(f"[bold]machine[/]: {machine['nproc']} CPUs, {machine['cpuModel']}, "
                  f"Python {machine['python']}")
    t = Table(title="Scheduling throughput (pods/s, 1-second samples)", show_header=True)
    for col in ("workload", "nodes", "measured", "average", "p50", "p90", "p99", "threshold",
                "seconds", "cpu s", "attempt p50 ms", "attempt p99 ms", "peak RSS MiB", "scheduled",
                "unschedulable"):
        add_column(t, col, justify="left" if col == "workload" else "right")
    for r in results:
        tp, lat = r.throughput, r.attempt_latency
        below = r.threshold and tp.average < r.threshold
        t.add_row(r.name, str(r.nodes), str(r.measured_pods),
                  f"[red]{tp.average:.0f}[/]" if below else f"{tp.average:.0f}",
                  f"{tp.p50:.0f}", f"{tp.p90:.0f}", f"{tp.p99:.0f}",
                  f"{r.threshold:.0f}" if r.threshold else "-", f"{r.seconds:.2f}", f"{r.cpu_seconds:.2f}",
                  f"{lat.p50 * 1000:.2f}", f"{lat.p99 * 1000:.2f}", f"{r.peak_rss_bytes / _MiB:.0f}",
                  str(r.scheduled), str(r.unschedulable))
    print_table(console, t)
    e = Table(title="Time per extension point (seconds over the measured pods, largest first)",
              show_header=True)
    add_column(e, "workload")
    add_column(e, "extension points", free_text=True)
    for r in results:
        top = sorted(r.extension_points.items(), key=lambda kv: -kv[1])
        e.add_row(r.name, ", ".join(f"{p} {s:.3f}" for p, s in top))
    print_table(console, e)


@app.command("bench")
def bench(
    config: Path | None = typer.Argument(
        None, help="A scheduler_perf performance config (the bundled one if omitted)."),
    workload: list[str] = typer.Option([], "--workload", "-w",
                                       help="TEST/WORKLOAD or TEST to run (repeatable); all by default."),
    label: list[str] = typer.Option([], "--label", "-l", help="Only workloads with this label (repeatable)."),
    output: BenchOutput = typer.Option(BenchOutput.table, "-o", "--output", help="Output format."),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", help=FEATURE_GATES_HELP),
    kube_version: str | None = typer.Option(None, "--kube-version", help=KUBE_VERSION_HELP),
    check: bool = typer.Option(False, "--check-decisions",
                               help="Run again on the per-node path; fail unless placements are identical."),
) -> None:
    """Run scheduler_perf-style workloads and report throughput, latency and memory."""
    err = Console(stderr=True)
    with reported_as_bad_input():
        release = parse_release(kube_version, feature_gates)
    try:
        workloads = select_workloads(load_config(config), workload, label)
    except ConfigError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    results = []
    for wl in workloads:
        try:
            # The release's defaults, with the gates of the flag and then the workload's; the
            # test case's schedulerConfigPath instead of the defaults when it has one.
            gates = {**release.features, **wl.feature_gates}
            cfg: SchedulerConfig | None
            if wl.scheduler_config is not None:
                cfg = load_scheduler_config(wl.scheduler_config, features=gates,
                                            kube_version=release.kube_version)
            else:
                cfg = (default_config(gates, release.kube_version)
                       if release.kube_version is not None or release.features else None)
        except SchedulerConfigError as exc:
            err.print(f"[red]error:[/] {wl.full_name}: {exc}", soft_wrap=True)
            raise typer.Exit(2) from exc
        except ValueError as exc:  # the workload needs a gate this release does not have
            err.print(f"skipping {wl.full_name}: its featureGates: {exc}", soft_wrap=True)
            continue
        err.print(f"running {wl.full_name} ...")
        try:
            result = (check_decisions(wl, seed, config=cfg) if check
                      else run_workload(wl, seed, config=cfg))
        except ConfigError as exc:
            err.print(f"[red]error:[/] {wl.full_name}: {exc}")
            raise typer.Exit(2) from exc
        except DecisionMismatch as exc:
            err.print(f"[red]decision mismatch:[/] {exc}")
            raise typer.Exit(1) from exc
        except WorkloadFailed as exc:  # an op's check (checkPodScheduled, ...) failed
            err.print(f"[red]workload failed:[/] {wl.full_name}: {exc}")
            raise typer.Exit(1) from exc
        if check:
            err.print(f"  decisions identical on the per-node path ({len(result.placements)} pods)")
        results.append(result)
    machine = machine_info()
    if output is BenchOutput.json:
        sys.stdout.write(json.dumps(bench_report(results, machine), indent=2) + "\n")
    else:
        render_bench(out_console(), results, machine)
