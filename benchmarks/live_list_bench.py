"""Listing a large live cluster: how long ``simulate --kubeconfig`` takes to read it.

On a freshly started control plane (etcd + kube-apiserver, the ``control-plane`` script of
the k8s folder), create ``--nodes`` nodes (scheduler_perf's node-default: allocatable cpu 4 /
memory 32Gi / pods 110, Ready) and ``--pods`` pods bound round-robin to them (requests cpu
100m, memory 500Mi) plus ``--pending`` pods without a node, from ``--creators`` threads
(the helpers of live_side_by_side.py), then measure, best of ``--rounds``:

- ``list_seconds``: :func:`kubesched.cluster.live.list_cluster` in this process: one paged
  LIST per kind read, every object decoded into kubesched's api objects;
- ``simulate_seconds``: the whole ``kubesched simulate --kubeconfig K -o json`` command in a
  fresh process (start-up, listing, admission into the embedded store, scheduling the
  pending pods, the report).

    python benchmarks/live_list_bench.py --nodes 5000 --pods 50000
    python benchmarks/live_list_bench.py --nodes 5 --pods 20 --pending 2 --rounds 1   # smoke

The k8s folder is ``$KUBESCHED_K8S_DIR`` or ``../shared/k8s`` beside the repository. The JSON
result goes to stdout; progress to stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def _side_by_side() -> ModuleType:
    """live_side_by_side.py's API client, workload and control-plane helpers."""
    path = REPO / "benchmarks" / "live_side_by_side.py"
    spec = importlib.util.spec_from_file_location("live_side_by_side", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000, help="pods bound to the nodes")
    ap.add_argument("--pending", type=int, default=100, help="pods without a node")
    ap.add_argument("--creators", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    sbs = _side_by_side()
    from kubesched.cluster.live import RestClient, list_cluster, load_rest_config

    script = sbs.k8s_dir() / "control-plane"
    with tempfile.TemporaryDirectory(prefix="kubesched-list-bench-") as tmp, \
            sbs.control_plane(script, Path(tmp)) as (cp, env):
        api = sbs.Api(env["API_URL"], env["TOKEN"], cp / "ca.crt")
        t0 = time.monotonic()
        sbs.populate(api, args.nodes, args.pods, args.creators)
        sbs.log(f"populated in {time.monotonic() - t0:.1f}s")

        def one_pending(i: int) -> None:
            status, data = api.request("POST", f"/api/v1/namespaces/{sbs.MEASURED_NS}/pods",
                                       sbs.pod_doc(f"pending-{i}", sbs.MEASURED_NS))
            if status >= 300:
                raise RuntimeError(f"pending-{i}: HTTP {status}: {data[:300]!r}")

        sbs.parallel(args.pending, args.creators, one_pending)
        kubeconfig = env["KUBECONFIG"]
        lists: list[float] = []
        counts: dict[str, int] = {}
        for _ in range(args.rounds):
            rest = RestClient(load_rest_config(Path(kubeconfig)))
            t = time.monotonic()
            loaded = list_cluster(rest)
            lists.append(time.monotonic() - t)
            rest.close()
            counts = loaded.counts()
            del loaded
            sbs.log(f"listed in {lists[-1]:.1f}s: {counts}")
        sims: list[float] = []
        scheduled = 0
        for _ in range(args.rounds):
            t = time.monotonic()
            cmd = [str(Path(sys.executable).parent / "kubesched"), "simulate", "--kubeconfig", kubeconfig,
                   "-o", "json"]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=1800)
            sims.append(time.monotonic() - t)
            report: dict[str, Any] = json.loads(out.stdout)
            scheduled = sum(1 for p in report["pods"] if p.get("node") and p["pod"].startswith(
                f"{sbs.MEASURED_NS}/"))
            sbs.log(f"simulate --kubeconfig in {sims[-1]:.1f}s")
    result = {"nodes": args.nodes, "pods": args.pods, "pending": args.pending, "counts": counts,
              "list_seconds": round(min(lists), 2), "simulate_seconds": round(min(sims), 2),
              "pending_scheduled": scheduled}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
