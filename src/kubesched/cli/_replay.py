"""``kubesched replay`` / ``compare`` / ``sweep``: traces over time on the virtual clock.

The commands parse options into :class:`~kubesched.replay.RunSpec` values, run them through
the library (one in this process with a progress bar; several in a process pool or on Ray)
and render the summaries here. Bad input (a bad trace line, manifest or configuration) is
exit code 2 with one error naming the file and line, before anything runs.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from ..replay import (
    METRICS_CSV,
    PlotUnavailable,
    RunSpec,
    aggregate,
    config_labels,
    plot_runs,
    plot_sweep,
    run_many,
    run_spec,
)
from ._console import add_column, out_console, print_table
from ._features import parse_release
from ._input_flags import INPUTS, InputArgs, input_flags
from ._inputs import MAX_PODS_HELP, ClusterSource, bad_input, load_inputs, reported_as_bad_input, warn
from ._main import app
from ._progress import PlainProgress, virtual_time
from ._release import release_config
from ._snapshot import snapshot_text, write_whole
from ._trace_flags import TRACE, TraceArgs, trace_flags

__all__ = ["compare", "parse_seeds", "replay", "sweep"]

SUMMARY_FIELDS = ("pods", "scheduled", "unschedulable", "pending", "gpuAllocation",
                  "atArrivedDemand.100%.gpuAllocation", "atArrivedDemand.130%.gpuAllocation",
                  "atArrivedDemand.100%.gpuFragAmount", "atArrivedDemand.130%.gpuFragAmount",
                  "allocation.cpu", "allocation.memory", "attempts", "preemptions", "evictions",
                  "latencySeconds.p50", "latencySeconds.p99", "virtualSeconds", "wallSeconds")
SWEEP_PLOTS = ("gpuAllocation", "allocation.cpu", "unschedulable", "latencySeconds.p99")


class Output(StrEnum):
    table = "table"
    json = "json"


_no_plots = typer.Option(False, "--no-plots", help="Write no plots.")
_output = typer.Option(Output.table, "-o", "--output", help="Summary on stdout as a table or JSON.")
_MAX_PODS_HELP = MAX_PODS_HELP.replace("an input", "a trace (with its cluster)")


def _release(inputs_args: InputArgs) -> dict[str, Any]:
    """RunSpec's release and size fields from the input flags; exit 2 when bad."""
    with reported_as_bad_input():
        r = inputs_args.release()
    return {"kube_version": r.kube_version, "feature_gates": tuple(sorted(r.features.items())),
            "max_pods": inputs_args.max_pods}


@app.command("replay")
@input_flags(max_pods_help=_MAX_PODS_HELP)
@trace_flags()
def replay(
    traces: list[str] | None = typer.Argument(
        None, help="Trace files (openb: NODES.csv PODS.csv; snapshot: manifests, on top of a cluster read)."),
    trace_args: TraceArgs = TRACE,
    config: Path | None = typer.Option(None, "--config", help="A KubeSchedulerConfiguration file."),
    seed: int = typer.Option(0, "--seed", help="Seed of the scheduler and of a shuffled arrival."),
    inputs_args: InputArgs = INPUTS,
    out: Path | None = typer.Option(None, "--out", help="Write metrics.csv, summary.json and plots here."),
    no_plots: bool = _no_plots,
    output: Output = _output,
) -> None:
    """Replay a trace on the virtual clock: metrics over time, a summary, plots."""
    release = _release(inputs_args)
    source = inputs_args.cluster()
    with tempfile.TemporaryDirectory(prefix="kubesched-replay-") as tmp:
        paths = _snapshot_of_cluster(source, traces or [], trace_args.format, Path(tmp))
        if source is not None and inputs_args.kube_version is None:
            with reported_as_bad_input():  # the API server's release, told in one line
                release["kube_version"] = release_config(
                    config, parse_release(None, inputs_args.feature_gates), kubeconfig=source.kubeconfig,
                    context=source.context, live=True).kube_version
        spec = trace_args.spec(paths, seed=seed, config=str(config) if config else None,
                               label=config.stem if config else "default", out=str(out) if out else None,
                               release=release)
        _replay(spec, out, no_plots, output)


def _snapshot_of_cluster(source: ClusterSource | None, traces: list[str], fmt: str, tmp: Path) -> list[str]:
    """The trace files; with a cluster (``--format snapshot`` only), one snapshot file in
    ``tmp`` holding the cluster's objects with the files' on top (``kubesched snapshot``'s),
    so that the replay is the one of that snapshot."""
    if source is None:
        if not traces:
            bad_input(ValueError("no trace: give trace files (or, with --format snapshot, a cluster)"))
        return traces
    with reported_as_bad_input():
        if fmt != "snapshot":
            raise ValueError(f"--kubeconfig/--from-cluster/--context read a cluster for --format snapshot, "
                             f"not --format {fmt}")
        dump = tmp / "cluster.yaml"
        write_whole(dump, snapshot_text(load_inputs(traces, None, cluster=source, schedules=False).loaded))
    return [str(dump)]


def _replay(spec: RunSpec, out: Path | None, no_plots: bool, output: Output) -> None:
    with reported_as_bad_input():
        summary = _run_with_progress(spec)
    skipped = summary.get("skipped") or {}
    if skipped:
        warn(f"{summary['skippedEvents']} trace event(s) skipped, their object gone by then: "
             + "; ".join(f"{reason} ({n})" for reason, n in skipped.items()))
    if out is not None and not no_plots:
        _plots([("", out / METRICS_CSV)], out)
    if output is Output.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        _render_summaries(out_console(), {spec.label: summary})


def _run_with_progress(spec: RunSpec) -> dict[str, Any]:
    err = Console(stderr=True)
    if not err.is_terminal:
        state = [0, 0.0]
        tick = PlainProgress(
            lambda: f"replay: {int(state[0]):,} events applied, virtual time {virtual_time(state[1])}")

        def plain(done: int, virtual: float) -> None:
            state[0], state[1] = done, virtual
            tick()

        return run_spec(spec, plain)
    with Progress(TextColumn("replaying"), BarColumn(), MofNCompleteColumn(), TextColumn("events"),
                  TextColumn("{task.fields[vt]}"), console=err, transient=True) as bar:
        task = bar.add_task("replay", total=None, vt="")

        def progress(done: int, virtual: float) -> None:
            if done % 64 == 0:
                bar.update(task, completed=done, vt=f"t={virtual:,.0f}s")

        return run_spec(spec, progress)


def _run_many_with_progress(specs: list[RunSpec], what: str, *, workers: int | None,
                            ray: str | None = None) -> list[dict[str, Any]]:
    """run_many, with a bar of finished runs on stderr when it is a terminal."""
    err = Console(stderr=True)
    if not err.is_terminal:
        tick = PlainProgress(lambda: f"{what}: {finished[0]:,} of {len(specs):,} runs done")
        finished = [0]

        def plain(n: int, _total: int) -> None:
            finished[0] = n
            tick()

        return run_many(specs, workers=workers, ray=ray, done=plain)
    with Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TextColumn("runs"), console=err,
                  transient=True) as bar:
        task = bar.add_task(what, total=len(specs))

        def done(n: int, total: int) -> None:
            bar.update(task, completed=n, total=total)

        return run_many(specs, workers=workers, ray=ray, done=done)


@app.command("compare")
@input_flags(cluster=False, max_pods_help=_MAX_PODS_HELP)
@trace_flags()
def compare(
    traces: list[str] = typer.Argument(..., help="Trace files, as for replay."),
    configs: list[Path] = typer.Option(
        ..., "--config", help="A KubeSchedulerConfiguration; repeat per config."),
    trace_args: TraceArgs = TRACE,
    seed: int = typer.Option(0, "--seed", help="The one seed every config runs with."),
    inputs_args: InputArgs = INPUTS,
    out: Path | None = typer.Option(None, "--out", help="Per config a folder; overlaid plots here."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Configs run in parallel in this many processes."),
    no_plots: bool = _no_plots,
    output: Output = _output,
) -> None:
    """The same trace under each configuration (same seed): summaries side by side, plots overlaid."""
    labels = config_labels([str(c) for c in configs])
    release = _release(inputs_args)
    specs = [trace_args.spec(traces, seed=seed, config=str(c), label=label,
                             out=str(out / label) if out else None, release=release)
             for c, label in zip(configs, labels, strict=True)]
    with reported_as_bad_input():
        summaries = _run_many_with_progress(specs, "comparing", workers=jobs)
    if out is not None and not no_plots:
        _plots([(s.label, Path(s.out or "") / METRICS_CSV) for s in specs], out, prefix="compare-")
    by_label = dict(zip(labels, summaries, strict=True))
    if out is not None:
        (out / "compare.json").write_text(json.dumps(by_label, indent=2) + "\n")
    if output is Output.json:
        sys.stdout.write(json.dumps(by_label, indent=2) + "\n")
    else:
        _render_summaries(out_console(), by_label)


_SEEDS = re.compile(r"^\s*(-?\d+)\s*(?:\.\.\s*(-?\d+)\s*)?$")


def parse_seeds(text: str) -> list[int]:
    """``0..9`` (inclusive), ``1,5,7``, or both: ``0..3,10``."""
    seeds: list[int] = []
    for part in text.split(","):
        m = _SEEDS.match(part)
        if m is None:
            raise ValueError(f"--seeds: {part.strip()!r} is neither a seed nor a range A..B")
        lo = int(m[1])
        hi = int(m[2]) if m[2] is not None else lo
        if hi < lo:
            raise ValueError(f"--seeds: empty range {lo}..{hi}")
        seeds.extend(range(lo, hi + 1))
    return seeds


@app.command("sweep")
@input_flags(cluster=False, max_pods_help=_MAX_PODS_HELP)
@trace_flags()
def sweep(
    traces: list[str] = typer.Argument(..., help="Trace files, as for replay."),
    configs: list[Path] | None = typer.Option(
        None, "--config", help="A configuration; repeatable (none: defaults)."),
    seeds: str = typer.Option("0..9", "--seeds", help="Seeds: 0..9, 1,2,3 or 0..3,7."),
    inputs_args: InputArgs = INPUTS,
    trace_args: TraceArgs = TRACE,
    out: Path | None = typer.Option(
        None, "--out", help="Per config and seed a folder; the table and plots here."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", help="Local processes (default: one per CPU)."),
    ray: str | None = typer.Option(None, "--ray", help="Run on Ray: a cluster address, or 'local'."),
    no_plots: bool = _no_plots,
    output: Output = _output,
) -> None:
    """Every configuration x seed, in parallel; mean, min and max per metric."""
    release = _release(inputs_args)
    with reported_as_bad_input():
        seed_list = parse_seeds(seeds)
        config_list: list[str | None] = [str(c) for c in configs] if configs else [None]
        labels = config_labels(config_list)
        specs = [trace_args.spec(traces, seed=s, config=c, label=label,
                                 out=str(out / label / f"seed-{s}") if out else None, release=release)
                 for c, label in zip(config_list, labels, strict=True) for s in seed_list]
        summaries = _run_many_with_progress(specs, "sweeping", workers=jobs, ray=ray)
    groups: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    for spec, summary in zip(specs, summaries, strict=True):
        groups[spec.label].append(summary)
    table = aggregate(groups)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "sweep.json").write_text(json.dumps({"seeds": seed_list, "aggregate": table,
                                                    "runs": summaries}, indent=2) + "\n")
        _write_sweep_csv(out / "sweep.csv", table)
        if not no_plots:
            try:
                plot_sweep(table, out, [m for m in SWEEP_PLOTS if all(m in t for t in table.values())])
            except PlotUnavailable as exc:
                warn(str(exc))
    if output is Output.json:
        sys.stdout.write(json.dumps(table, indent=2) + "\n")
    else:
        _render_sweep(out_console(), table, len(seed_list))


def _write_sweep_csv(path: Path, table: dict[str, dict[str, dict[str, float]]]) -> None:
    lines = ["config,metric,mean,min,max,n"]
    for label, metrics in table.items():
        for metric, agg in metrics.items():
            lines.append(f"{label},{metric},{agg['mean']:.10g},{agg['min']:.10g},{agg['max']:.10g},"
                         f"{agg['n']:g}")
    path.write_text("\n".join(lines) + "\n")


def _plots(runs: Sequence[tuple[str, Path]], out: Path, prefix: str = "") -> None:
    try:
        plot_runs(runs, out, prefix)
    except PlotUnavailable as exc:
        warn(str(exc))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if not value.is_integer() or abs(value) >= 1e6 else f"{value:.0f}"
    return str(value)


def _render_summaries(console: Console, summaries: dict[str, dict[str, Any]]) -> None:
    """One row per summary field, one column per run."""
    from ..replay import flatten

    flat = {k: flatten(v) for k, v in summaries.items()}
    table = Table(title=f"Replay of {next(iter(summaries.values())).get('trace', '')}", title_justify="left")
    add_column(table, "METRIC")
    for label in summaries:
        add_column(table, label.upper(), justify="right")
    fields = [f for f in SUMMARY_FIELDS if any(f in v for v in flat.values())]
    rest = {k for v in flat.values() for k in v if not k.startswith("atArrivedDemand.")}
    fields += sorted(rest - set(fields) - {"events", "skippedEvents"})
    fields += ["events", "skippedEvents"]
    for f in fields:
        table.add_row(f, *(_fmt(flat[label].get(f, "")) for label in summaries))
    print_table(console, table)


def _render_sweep(console: Console, agg: dict[str, dict[str, dict[str, float]]], n: int) -> None:
    table = Table(title=f"Sweep: mean (min..max) over {n} seed(s)", title_justify="left")
    add_column(table, "METRIC")
    for label in agg:
        add_column(table, label.upper(), justify="right")
    fields = [f for f in SUMMARY_FIELDS if any(f in v for v in agg.values())]
    for f in fields:
        cells = []
        for label in agg:
            a = agg[label].get(f)
            cells.append(f"{_fmt(a['mean'])} ({_fmt(a['min'])}..{_fmt(a['max'])})" if a else "")
        table.add_row(f, *cells)
    print_table(console, table)
