"""Plots of the time series (matplotlib, the ``plot`` extra), PNG and SVG beside the data.

One figure per group of columns (allocation per resource, GPU, pods, latency, disruptions, and
one per metric provider column left over), each against virtual time and, when the arrived
demand moves, against it (the FGD paper's x axis). Several runs (``compare``) overlay in one
figure, one line per run. A sweep gets one bar chart per summary metric: mean with min..max.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from ._metrics import BASE_COLUMNS
from ._output import read_series

__all__ = ["PlotUnavailable", "plot_runs", "plot_sweep"]

FORMATS: Final = ("png", "svg")
_GROUPS: Final = {
    "allocation": ("allocation:", "gpuAllocation"),
    "pods": ("pending", "unschedulable", "running"),
    "latency": ("latencyP50", "latencyP90", "latencyP99"),
    "disruptions": ("preemptions", "evictions"),
}
_X: Final = {"time": ("time", "virtual time (s)"), "demand": ("arrivedDemand", "arrived demand / capacity")}


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotUnavailable("plots need matplotlib: pip install 'kubesched[plot]'") from exc
    return plt


def _save(plt: Any, fig: Any, stem: Path) -> list[Path]:
    """Lay the figure out, write it as ``stem.png`` and ``stem.svg`` and close it."""
    fig.tight_layout()
    written = [Path(f"{stem}.{fmt}") for fmt in FORMATS]
    for path in written:
        fig.savefig(path)
    plt.close(fig)
    return written


def _groups(columns: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    used: set[str] = set(BASE_COLUMNS) | {c for c in columns if c.startswith(("requested:", "allocatable:"))}
    for group, patterns in _GROUPS.items():
        cols = [c for c in columns if any(c == p or (p.endswith(":") and c.startswith(p)) for p in patterns)]
        if cols:
            out[group] = cols
            used.update(cols)
    for c in columns:
        if c not in used:
            out[c.replace(":", "-").replace("/", "-")] = [c]
    return out


def plot_runs(runs: Sequence[tuple[str, Path]], out_dir: Path, prefix: str = "") -> list[Path]:
    """Figures of the runs' metrics CSVs (label, path), overlaid; returns the files written."""
    plt = _pyplot()
    series = [(label, *read_series(path)) for label, path in runs]
    columns = series[0][1]
    written: list[Path] = []
    for group, cols in _groups(columns).items():
        for xname, (xcol, xlabel) in _X.items():
            if xname == "demand" and not any(np.nanmax(d[:, c.index(xcol)], initial=0) > 0
                                            for _, c, d in series if len(d)):
                continue
            fig, ax = plt.subplots(figsize=(8, 4.5))
            for label, cs, data in series:
                if not len(data):
                    continue
                x = data[:, cs.index(xcol)]
                for col in cols:
                    if col not in cs:
                        continue
                    name = col if not label else (f"{label}: {col}" if len(cols) > 1 else label)
                    ax.plot(x, data[:, cs.index(col)], label=name, drawstyle="steps-post", linewidth=1.2)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(group)
            ax.grid(True, alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize="small")
            written += _save(plt, fig, out_dir / f"{prefix}{group}-vs-{xname}")
    return written


def plot_sweep(table: Mapping[str, Mapping[str, Mapping[str, float]]], out_dir: Path,
               metrics: Sequence[str]) -> list[Path]:
    """``table[config][metric] = {"mean", "min", "max"}``: one bar chart per metric."""
    plt = _pyplot()
    written: list[Path] = []
    configs = list(table)
    for metric in metrics:
        means = np.array([table[c][metric]["mean"] for c in configs])
        lo = means - np.array([table[c][metric]["min"] for c in configs])
        hi = np.array([table[c][metric]["max"] for c in configs]) - means
        fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(configs) + 2), 4))
        ax.bar(range(len(configs)), means, yerr=[lo, hi], capsize=4)
        ax.set_xticks(range(len(configs)), configs, rotation=20, ha="right")
        ax.set_ylabel(f"{metric} (mean, min..max)")
        ax.grid(True, axis="y", alpha=0.3)
        written += _save(plt, fig, out_dir / f"sweep-{metric}")
    return written
