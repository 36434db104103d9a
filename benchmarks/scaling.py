"""How cost grows with the cluster: the bundled ``scaling`` workloads, one process per run.

Each of SchedulingBasic and TopologySpreading at 500, 5,000, 15,000 and 50,000 nodes with ten
pods per node (``<shape>/<N>Nodes_<10N>Pods`` in the bundled performance config: one pod per
node placed during setup, nine measured) runs as its own ``kubesched bench -w ... -o json``
process, so each peak RSS is that run's alone: it is the child's ``ru_maxrss`` as ``wait4``
returns it (the same figure as the JSON's ``peakRSSBytes``, read from outside). Recorded per
run: pods/s (upstream's average), measured pods per CPU-second, peak RSS, setup seconds (store
and scheduler built, nodes created, setup pods scheduled, measured pods created: what loading
the cluster costs) and the process's CPU time outside the measured op (the same on a loaded
machine), the process's wall and CPU time, and the load average before and after (the machine
is shared; wall-clock figures depend on it, CPU-second figures much less).

    python benchmarks/scaling.py --out scaling/                          # every run, then the plot
    python benchmarks/scaling.py --out scaling/ --nodes 500,5000         # a quicker look
    python benchmarks/scaling.py --out scaling/ --plot-only              # redraw from scaling/

A run whose JSON is already in ``--out`` is not run again (delete it to re-measure), so an
interrupted sweep resumes. ``scaling.json`` and ``scaling.csv`` in ``--out`` hold every run;
the plot (matplotlib, the ``plot`` extra) goes to ``--plot`` (default
``docs/images/scaling.svg``): pods per CPU-second, peak RSS and setup CPU time against the node
count, one line per shape; on a shared machine the CPU-second figures are the ones to read.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SHAPES = ("SchedulingBasic", "TopologySpreading")
NODES = (500, 5000, 15000, 50000)
PODS_PER_NODE = 10
MiB = 1024 * 1024
ROOT = Path(__file__).resolve().parent.parent


def workload(shape: str, nodes: int) -> str:
    return f"{shape}/{nodes}Nodes_{nodes * PODS_PER_NODE}Pods"


def run_one(shape: str, nodes: int, out: Path, seed: int, timeout: float) -> dict[str, Any]:
    """``kubesched bench -w WORKLOAD -o json`` in a child process; its figures and rusage."""
    name = workload(shape, nodes)
    stem = name.replace("/", "_")
    raw, log = out / f"{stem}.bench.json", out / f"{stem}.stderr"
    load_before = os.getloadavg()
    cmd = [sys.executable, "-c", "from kubesched.cli import main; main()",
           "bench", "-w", name, "-o", "json", "--seed", str(seed)]
    started = time.perf_counter()
    with raw.open("w") as stdout, log.open("w") as stderr:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.5)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{name}: exit code {proc.returncode} after {wall:.0f} s (see {log})")
    result = json.loads(raw.read_text())["results"][0]
    measured, cpu = result["measuredPods"], result["cpuSeconds"]
    return {
        "workload": name, "shape": shape, "nodes": nodes, "pods": nodes * PODS_PER_NODE,
        "measuredPods": measured, "scheduled": result["scheduled"],
        "podsPerSecond": result["throughput"]["average"],
        "podsPerCpuSecond": measured / cpu if cpu else 0.0,
        "measuredSeconds": result["seconds"], "measuredCpuSeconds": cpu,
        "setupSeconds": result["setupSeconds"],
        "peakRSSBytes": usage.ru_maxrss * 1024,  # KiB on Linux
        "processWallSeconds": wall, "processCpuSeconds": usage.ru_utime + usage.ru_stime,
        # CPU time outside the measured op: imports, setup (the cluster loaded), teardown.
        "setupCpuSeconds": usage.ru_utime + usage.ru_stime - cpu,
        "loadAverageBefore": load_before[0], "loadAverageAfter": os.getloadavg()[0],
        "seed": seed,
    }


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "kubesched-scaling"  # the same file for the same data
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    panels = (("podsPerCpuSecond", "measured pods per CPU-second", 1.0),
              ("peakRSSBytes", "peak RSS (MiB)", MiB),
              ("setupCpuSeconds", "CPU-s outside the measured pods (setup)", 1.0))
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 3.8))
    for ax, (key, label, unit) in zip(axes, panels, strict=True):
        for shape, marker in zip(SHAPES, ("o", "s"), strict=True):
            pts = sorted((r["nodes"], r[key] / unit) for r in rows if r["shape"] == shape)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=shape)
        ax.set_xscale("log")
        ax.set_xticks(sorted({r["nodes"] for r in rows}))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 10 else f"{v:g}"))
        ax.set_xlabel(f"nodes ({PODS_PER_NODE} pods per node)")
        ax.set_title(label, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
    plt.close(fig)


def write(rows: list[dict[str, Any]], out: Path) -> None:
    rows = sorted(rows, key=lambda r: (SHAPES.index(r["shape"]), r["nodes"]))
    (out / "scaling.json").write_text(json.dumps(rows, indent=2) + "\n")
    with (out / "scaling.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="directory for each run's JSON and the tables")
    ap.add_argument("--nodes", default=",".join(map(str, NODES)), help="node counts, comma-separated")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="test cases, comma-separated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=4 * 3600,
                    help="wall seconds before a run is killed (a 50,000-node run on a busy machine is long)")
    ap.add_argument("--plot", type=Path, default=ROOT / "docs" / "images" / "scaling.svg")
    ap.add_argument("--plot-only", action="store_true", help="redraw from the JSON in --out")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.plot_only:
        for shape in args.shapes.split(","):
            for nodes in (int(n) for n in args.nodes.split(",")):
                done = args.out / f"{workload(shape, nodes).replace('/', '_')}.json"
                if done.exists():
                    continue
                print(f"running {workload(shape, nodes)} ...", file=sys.stderr, flush=True)
                row = run_one(shape, nodes, args.out, args.seed, args.timeout)
                done.write_text(json.dumps(row, indent=2) + "\n")
                print(f"  {row['podsPerSecond']:.0f} pods/s, {row['podsPerCpuSecond']:.0f} per CPU-s, "
                      f"{row['peakRSSBytes'] / MiB:.0f} MiB, setup {row['setupSeconds']:.1f} s, "
                      f"load {row['loadAverageBefore']:.1f}/{row['loadAverageAfter']:.1f}",
                      file=sys.stderr, flush=True)
    rows = [json.loads(p.read_text()) for p in sorted(args.out.glob("*.json"))
            if p.name != "scaling.json" and not p.name.endswith(".bench.json")]
    if not rows:
        raise SystemExit(f"no runs in {args.out}")
    for r in rows:  # runs recorded before the field existed
        r.setdefault("setupCpuSeconds", r["processCpuSeconds"] - r["measuredCpuSeconds"])
    write(rows, args.out)
    plot(rows, args.plot)
    print(f"wrote {args.out / 'scaling.json'}, {args.out / 'scaling.csv'} and {args.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
