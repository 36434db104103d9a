"""Cython against pure Python on whole `kubesched bench` runs ("Compiled code" in docs/performance.md).

Builds three copies of ``src/kubesched`` in a temporary directory:

- ``pure``: the source as it is;
- ``cython``: the hot modules (:data:`HOT_MODULES`) compiled unchanged by Cython in pure-Python
  mode into extension modules beside their sources (a module Cython rejects stays Python and
  is listed with the compiler's first error);
- ``kernel``: the source as it is, but NodeResourcesFit's batch Filter answered, when every node
  fits (the usual case), by one typed Cython loop over the snapshot's resource columns
  (:data:`KERNEL`) instead of a dozen numpy calls; any other case falls back to the Python method.

Then it runs each workload once per variant and round, one process each, the three variants
side by side (a shared machine's drift then hits them alike), ``--seed 0``, the clock
unpaced (placements are then a function of the seed), and prints pods per CPU-second of the
measured op and whether the placements equal the pure copy's. ``--check`` also runs
the per-node path in each copy (``kubesched bench --check-decisions``'s check);
``--callgrind`` counts the instructions of whole runs under Valgrind instead (load-independent).
Nothing is installed: the project itself is never compiled. Needs ``pip install cython`` and a C
compiler; ``--callgrind`` needs valgrind.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "kubesched"
VARIANTS = ("pure", "cython", "kernel")

# The modules cProfile puts on a SchedulingBasic cycle's path (self time), relative to kubesched/.
HOT_MODULES = (
    "framework/_runtime.py", "framework/_status.py", "framework/_batch.py",
    "framework/_cycle_state.py", "framework/_opportunistic_batch.py",
    "scheduler/_schedule_one.py", "scheduler/_algorithm.py", "scheduler/_metrics.py",
    "scheduler/_eventhandlers.py", "scheduler/_scheduler.py",
    "queue/_scheduling_queue.py", "queue/_heap.py", "queue/_active_queue.py",
    "cache/_cache.py", "cache/_node_info.py", "cache/_columns.py", "cache/_snapshot.py",
    "cluster/_memory.py", "api/_pod.py", "api/_meta.py", "api/_fields.py", "api/_raw.py",
    "clock.py",
    "plugins/noderesources/fit.py", "plugins/noderesources/resource_allocation.py",
    "plugins/noderesources/balanced_allocation.py", "plugins/noderesources/least_allocated.py",
    "plugins/imagelocality/image_locality.py", "plugins/tainttoleration/taint_toleration.py",
    "plugins/nodeaffinity/node_affinity.py", "plugins/nodeaffinity/_match.py",
    "plugins/podtopologyspread/plugin.py", "plugins/podtopologyspread/common.py",
    "plugins/podtopologyspread/filtering.py", "plugins/podtopologyspread/scoring.py",
    "plugins/helper/_affinity_terms.py", "plugins/interpodaffinity/plugin.py",
    "plugins/volumebinding/volume_binding.py", "plugins/dynamicresources/dynamic_resources.py",
)

KERNEL = '''# cython: language_level=3, boundscheck=False, wraparound=False
"""NodeResourcesFit's batch Filter when every node fits: one pass over the batch's rows."""
from libc.stdint cimport int64_t
import numpy as np

cdef bint _all_fit(const int64_t[:, :] alloc, const int64_t[:, :] used, const int64_t[:] rows,
                   const int64_t[:] cols, const int64_t[:] wants):
    cdef Py_ssize_t i, k, r, c
    for i in range(rows.shape[0]):
        r = rows[i]
        for k in range(cols.shape[0]):
            c = cols[k]
            if wants[k] > alloc[r, c] - used[r, c]:
                return False
    return True


def install(cls, key, state_type, result_type):
    """Wrap ``cls.filter_batch``: the Python method answers whenever a node may fail."""
    slow = cls.filter_batch

    def filter_batch(self, state, pod, nodes):
        s = state.get(key)
        if type(s) is not state_type:
            return slow(self, state, pod, nodes)
        names, wants, served = self._filter_plan(s)
        cols = nodes.snapshot.columns
        idx = nodes.indices
        get = cols.resource_index.get
        picked = [get(name) for name in names]
        if served or None in picked or idx.dtype != np.int64:
            return slow(self, state, pod, nodes)
        if _all_fit(cols.allocatable, cols.requested, idx, np.array(picked, dtype=np.int64),
                    np.array(wants, dtype=np.int64)):
            return result_type.all_success(idx.shape[0])
        return slow(self, state, pod, nodes)

    cls.filter_batch = filter_batch
'''
KERNEL_HOOK = """
from kubesched.framework import BatchFilterResult as _BFR
from ._fit_kernel import install as _install_kernel

_install_kernel(Fit, PRE_FILTER_STATE_KEY, _PreFilterState, _BFR)
"""


def _cythonize(path: Path) -> str | None:
    """Compile one module in place; None, or the compiler's first error line."""
    proc = subprocess.run([sys.executable, "-m", "Cython.Build.Cythonize", "-i", "-3", "-q", str(path)],
                          cwd=path.parent, capture_output=True, text=True)
    if proc.returncode == 0:
        return None
    errors = [ln for ln in (proc.stdout + proc.stderr).splitlines() if re.search(r"\.pyx?:\d+:\d+:", ln)]
    return (errors or [proc.stderr.strip().splitlines()[-1]])[0]


def build(root: Path, jobs: int, modules: tuple[str, ...] = HOT_MODULES) -> dict[str, dict[str, str | None]]:
    """The three copies under ``root`` (a copy already there is kept); for each compiled copy,
    each module's error (or None)."""
    report: dict[str, dict[str, str | None]] = {}
    for variant in VARIANTS:
        pkg = root / variant / "kubesched"
        if (pkg / "built").exists():
            continue
        shutil.rmtree(pkg, ignore_errors=True)
        shutil.copytree(SRC, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        targets = [pkg / m for m in modules] if variant == "cython" else []
        if variant == "kernel":
            fit = pkg / "plugins/noderesources"
            (fit / "_fit_kernel.pyx").write_text(KERNEL)
            with (fit / "fit.py").open("a") as f:
                f.write(KERNEL_HOOK)
            targets = [fit / "_fit_kernel.pyx"]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            errors = dict(zip((str(t.relative_to(pkg)) for t in targets), pool.map(_cythonize, targets),
                              strict=True))
        if targets:
            report[variant] = errors
        for leftover in pkg.rglob("*.c"):
            leftover.unlink()
        for scratch in pkg.rglob("build"):
            shutil.rmtree(scratch)
        (pkg / "built").touch()
    return report


def _worker(workload: str, check: bool) -> None:
    """One run in this process (the copy is first on PYTHONPATH); JSON on stdout."""
    from kubesched.perf import check_decisions, load_config, run_workload, select_workloads

    wl = select_workloads(load_config(None), [workload], [])[0]
    res = check_decisions(wl, 0) if check else run_workload(wl, 0, pace=False)
    digest = hashlib.sha256(json.dumps(list(res.placements.items())).encode()).hexdigest()[:12]
    json.dump({"pods": res.measured_pods, "cpu": res.cpu_seconds, "placements": digest,
               "extensions": sorted(name for name, m in sys.modules.items() if name.startswith("kubesched")
                                    and (getattr(m, "__file__", None) or "").endswith(".so"))}, sys.stdout)


def run(root: Path, variant: str, workload: str, check: bool = False, callgrind: bool = False
        ) -> dict[str, object]:
    """One run in a fresh process; with ``callgrind``, also the instructions it executed."""
    cmd = [sys.executable, __file__, "--worker", workload] + (["--check"] if check else [])
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={root}/callgrind.%p", *cmd]
    env = {**os.environ, "PYTHONPATH": str(root / variant), "PYTHONHASHSEED": "0"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{variant} {workload} failed:\n{proc.stderr[-3000:]}")
    out: dict[str, object] = json.loads(proc.stdout)
    if callgrind:
        collected = re.findall(r"Collected : (\d+)", proc.stderr)
        out["instructions"] = int(collected[-1])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-w", "--workload", action="append",
                    help="TEST/WORKLOAD (repeatable); default: SchedulingBasic, TopologySpreading "
                         "and SchedulingNodeAffinity at 5000 nodes (500 with --callgrind or --check)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds, each running the three variants side by side")
    ap.add_argument("--check", action="store_true", help="also run the per-node path (--check-decisions)")
    ap.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    ap.add_argument("--modules", help="comma-separated modules to compile, relative to kubesched/ "
                                      "(default: every hot module)")
    ap.add_argument("--jobs", type=int, default=2, help="modules compiled at once")
    ap.add_argument("--keep", type=Path, help="build here and keep it (default: a temporary directory)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args.worker, args.check)
        return
    small = args.callgrind or args.check
    workloads = args.workload or [f"{t}/{'500Nodes' if small else n}" for t, n in (
        ("SchedulingBasic", "5000Nodes_10000Pods"), ("TopologySpreading", "5000Nodes_5000Pods"),
        ("SchedulingNodeAffinity", "5000Nodes_10000Pods"))]
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        modules = tuple(args.modules.split(",")) if args.modules else HOT_MODULES
        for variant, errors in build(root, args.jobs, modules).items():
            failed = {m: e for m, e in errors.items() if e}
            print(f"{variant}: {len(errors) - len(failed)} of {len(errors)} modules compiled")
            for m, e in failed.items():
                print(f"  not compiled: {m}: {e}")
        for wl in workloads:
            seen: dict[str, list[dict[str, object]]] = {v: [] for v in VARIANTS}
            for _ in range(1 if args.callgrind else args.rounds):
                # The variants side by side: a shared machine's drift then hits all three alike.
                with concurrent.futures.ThreadPoolExecutor(len(VARIANTS)) as pool:
                    outs = pool.map(run, [root] * 3, VARIANTS, [wl] * 3, [args.check] * 3,
                                    [args.callgrind] * 3)
                    for v, out in zip(VARIANTS, outs, strict=True):
                        seen[v].append(out)
            for v in VARIANTS:
                same = all(r["placements"] == seen["pure"][0]["placements"] for r in seen[v])
                figures = (f"{seen[v][0]['instructions']:,} instructions" if args.callgrind else
                           "pods per CPU-second " + ", ".join(
                               f"{float(r['pods']) / float(r['cpu']):.0f}" for r in seen[v]))  # type: ignore[arg-type]
                print(f"{wl} {v}: {figures}; placements {'= pure' if same else 'DIFFER'}; "
                      f"{len(seen[v][0]['extensions'])} extension modules loaded")  # type: ignore[arg-type]

if __name__ == "__main__":
    main()
