"""Runs as values: one replay described by a picklable :class:`RunSpec`, and many of them.

``compare`` and ``sweep`` hand specs, not traces, to their workers (a trace may stream from
a file; a spec is a few strings and numbers), so the same function runs in this process, in a
local process pool, or on a Ray cluster, and gives the same summary and the same series for
the same spec wherever it runs (``wallSeconds`` aside).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..api import KubeVersion
from ..api.loader import ApiObject, load_paths, manifest_files
from ._engine import ProgressFn, Replay
from ._formats import ReaderOptions, read_format
from ._output import METRICS_CSV, SUMMARY_JSON, CsvSink, write_summary

if TYPE_CHECKING:
    from ..framework.config import SchedulerConfig

__all__ = [
    "AGGREGATES",
    "RunSpec",
    "aggregate",
    "config_labels",
    "flatten",
    "load_cluster",
    "prepare",
    "run_dropping",
    "run_many",
    "run_spec",
    "spec_config",
]

AGGREGATES: Final = ("mean", "min", "max")


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSpec:
    """One replay: the trace (``format`` and ``paths``, read with ``options``), the cluster
    (manifest paths), the configuration file, the seed (the scheduler's and the reader's),
    how far and how often to sample, and where to write (``out``: metrics.csv, summary.json;
    nothing when None). ``drop_unschedulable``: the FGD simulator's loop instead of a replay
    (:func:`run_dropping`). ``kube_version`` and ``feature_gates``: the release the scheduler
    behaves as and the gates set on top of its defaults (``--kube-version``, ``--feature-gates``)."""

    paths: tuple[str, ...]
    format: str = "kubesched"
    options: ReaderOptions = field(default_factory=ReaderOptions)
    cluster: tuple[str, ...] = ()
    config: str | None = None
    label: str = ""
    seed: int = 0
    until: float | None = None
    sample_every: float | None = None
    out: str | None = None
    drop_unschedulable: bool = False
    max_pods: int | None = None
    """Refuse a trace that would create more pods (``--max-pods``); None: no limit."""
    kube_version: KubeVersion | None = None
    feature_gates: tuple[tuple[str, bool], ...] = ()


def spec_config(spec: RunSpec) -> SchedulerConfig | None:
    """The spec's configuration: its file, or the release's defaults when a release or gates
    were asked for; None (kube-scheduler's newest defaults) otherwise."""
    from ..framework.config import default_config, load_config

    features = dict(spec.feature_gates)
    if spec.config is not None:
        return load_config(Path(spec.config), features=features, kube_version=spec.kube_version)
    if spec.kube_version is not None or features:
        return default_config(features, spec.kube_version)
    return None


def load_cluster(paths: Sequence[str]) -> list[ApiObject]:
    return load_paths(manifest_files(list(paths))).objects if paths else []


def prepare(spec: RunSpec, sink: Callable[[Sequence[float]], None] | None = None,
            cluster: Sequence[ApiObject] | None = None, *, config: SchedulerConfig | None = None) -> Replay:
    """Read the trace and the configuration and build the replay; raises on bad input.
    ``config``: a configuration already decoded (``kubesched ui``'s editor), instead of the
    spec's file or release defaults."""
    if config is None:
        config = spec_config(spec)
    trace = read_format(spec.format, list(spec.paths), replace(spec.options, seed=spec.seed))
    objects = list(cluster) if cluster is not None else load_cluster(spec.cluster)
    return Replay(trace, cluster=objects, config=config, seed=spec.seed, until=spec.until,
                  sample_every=spec.sample_every, sink=sink, label=spec.label, max_pods=spec.max_pods)


def run_spec(spec: RunSpec, progress: ProgressFn | None = None) -> dict[str, Any]:
    """Run one spec, writing its CSV and summary under ``spec.out``; returns the summary."""
    if spec.drop_unschedulable:
        return run_dropping(spec)
    if spec.out is None:
        rep = prepare(spec)
        return rep.run(progress).summary
    out = Path(spec.out)
    sink: CsvSink | None = None

    def write(row: Sequence[float]) -> None:
        assert sink is not None
        sink(row)

    rep = prepare(spec, write)
    sink = CsvSink(out / METRICS_CSV, rep.recorder.columns)
    try:
        summary = rep.run(progress).summary
    finally:
        sink.close()
    write_summary(out / SUMMARY_JSON, summary)
    return summary


def run_dropping(spec: RunSpec) -> dict[str, Any]:
    """The FGD simulator's loop (``kubesched.replay.openb.run_fgd_csv``): pods arrive one at a
    time, each scheduled before the next; one that fits nowhere is deleted, never retried; the
    GPU metrics logged after every pod. Only for ``--format openb --arrival shuffled``: the
    loop needs pods that never leave and the GPU metrics need the openb GPU model."""
    if spec.format != "openb" or spec.options.arrival != "shuffled":
        raise ValueError("--drop-unschedulable: only with --format openb --arrival shuffled "
                         "(the FGD simulator's loop)")
    if len(spec.paths) != 2:
        raise ValueError(f"--format openb takes two files, NODES.csv and PODS.csv, got {len(spec.paths)}")
    from .openb import CURVE_COLUMNS, run_fgd_csv

    config = spec_config(spec)
    sink = CsvSink(Path(spec.out) / METRICS_CSV, CURVE_COLUMNS) if spec.out is not None else None
    try:
        _, summary = run_fgd_csv(spec.paths[0], spec.paths[1], config, seed=spec.seed,
                                 tune=spec.options.tune, sink=sink)
    finally:
        if sink is not None:
            sink.close()
    summary["config"] = spec.config
    if spec.out is not None:
        write_summary(Path(spec.out) / SUMMARY_JSON, summary)
    return summary


DoneFn = Callable[[int, int], None]
"""(runs finished, runs in all) -> None."""


def run_many(specs: Sequence[RunSpec], *, workers: int | None = None, ray: str | None = None,
             done: DoneFn | None = None) -> list[dict[str, Any]]:
    """Every spec, in parallel: a local process pool (``workers`` processes, the CPU count by
    default), or Ray (``ray``: a cluster address, or ``local`` to start one in this process);
    summaries in spec order. ``done`` hears of each finished run."""
    tell = done or (lambda _n, _total: None)
    if ray is not None:
        return _on_ray(specs, ray, tell)
    n = workers or os.cpu_count() or 1
    out: list[dict[str, Any] | None] = [None] * len(specs)
    if n <= 1 or len(specs) <= 1:
        for i, s in enumerate(specs):
            out[i] = run_spec(s)
            tell(i + 1, len(specs))
    else:
        with ProcessPoolExecutor(max_workers=min(n, len(specs))) as pool:
            futures = {pool.submit(run_spec, s): i for i, s in enumerate(specs)}
            for k, fut in enumerate(as_completed(futures), 1):
                out[futures[fut]] = fut.result()
                tell(k, len(specs))
    return [s for s in out if s is not None]


def _on_ray(specs: Sequence[RunSpec], address: str, tell: DoneFn) -> list[dict[str, Any]]:
    try:
        import ray
    except ImportError as exc:
        raise ValueError("--ray needs the ray extra: pip install 'kubesched[ray]'") from exc
    started = not ray.is_initialized()
    if started:
        env = {"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}}
        ray.init(address=None if address == "local" else address, include_dashboard=False,
                 log_to_driver=False, runtime_env=env, configure_logging=False)
    try:
        task = ray.remote(run_spec)
        refs = [task.remote(s) for s in specs]
        pending, finished = list(refs), 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            finished += len(ready)
            tell(finished, len(refs))
        return list(ray.get(refs))
    finally:
        if started:
            ray.shutdown()


def config_labels(configs: Sequence[str | None]) -> list[str]:
    """A short unique label per configuration: the file's stem (``default`` for none), with
    ``-2``, ``-3`` ... for repeats."""
    out: list[str] = []
    for c in configs:
        base = Path(c).stem if c else "default"
        label, i = base, 2
        while label in out:
            label, i = f"{base}-{i}", i + 1
        out.append(label)
    return out


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """Numeric fields of a summary, nested ones as ``latencySeconds.p99`` (not the skipped
    events' reasons: their count is ``skippedEvents``)."""
    out: dict[str, float] = {}
    for k, v in summary.items():
        if k == "skipped" and not prefix:
            continue
        if isinstance(v, Mapping):
            out.update(flatten(v, f"{prefix}{k}."))
        elif isinstance(v, int | float) and not isinstance(v, bool) and k != "seed":
            out[f"{prefix}{k}"] = float(v)
    return out


def aggregate(groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, dict[str, float]]]:
    """``{label: [summary, ...]}`` -> ``{label: {metric: {mean, min, max, n}}}``."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    for label, summaries in groups.items():
        flat = [flatten(s) for s in summaries]
        metrics: dict[str, dict[str, float]] = {}
        keys = dict.fromkeys(k for f in flat for k in f)  # a run may lack a key: a level never reached
        for key in keys:
            vals = [f[key] for f in flat if key in f and not math.isnan(f[key])]
            if vals:
                metrics[key] = {"mean": sum(vals) / len(vals), "min": min(vals), "max": max(vals),
                                "n": float(len(vals))}
        table[label] = metrics
    return table
