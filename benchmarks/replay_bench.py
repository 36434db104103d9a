"""Replay throughput and memory on a synthetic trace: events per second and peak RSS.

The trace is written as JSON Lines (streamed, never held in memory): ``--nodes`` nodes at
time 0, then pods arriving every ``--gap`` seconds, each deleted ``--life`` seconds later
(grace period 0), so the cluster holds about life/gap pods at any time while the trace grows
to ``--events`` events. The replay samples metrics every ``--sample-every`` virtual seconds
into a CSV. RSS is read from /proc at 10% steps of the run: flat memory means the later
readings do not grow with the number of events.

    python benchmarks/replay_bench.py --events 1000000            # the README figure
    python benchmarks/replay_bench.py --events 100000 --nodes 50  # a quicker look
"""

from __future__ import annotations

import argparse
import heapq
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from kubesched.replay import CsvSink, Replay, read_trace


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def write_trace(path: Path, events: int, nodes: int, gap: float, life: float) -> None:
    """``nodes`` node creations, then pod creations and deletions merged in time order."""
    with path.open("w") as f:
        for i in range(nodes):
            f.write(json.dumps({"time": 0, "op": "create", "object": {
                "apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
                "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}}}}) + "\n")
        deletes: list[tuple[float, int]] = []
        written, i = nodes, 0
        while written < events:
            t = i * gap
            while deletes and deletes[0][0] <= t and written < events:
                dt, j = heapq.heappop(deletes)
                f.write(json.dumps({"time": dt, "op": "delete", "kind": "Pod", "name": f"p{j}"}) + "\n")
                written += 1
            if written >= events:
                break
            f.write(json.dumps({"time": t, "op": "create", "object": {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
                "spec": {"terminationGracePeriodSeconds": 0, "containers": [
                    {"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}}}) + "\n")
            heapq.heappush(deletes, (t + life, i))
            written += 1
            i += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between pod arrivals")
    ap.add_argument("--life", type=float, default=600.0, help="seconds a pod lives")
    ap.add_argument("--sample-every", type=float, default=60.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trace_path = Path(tmp) / "trace.jsonl"
        t0 = time.perf_counter()
        write_trace(trace_path, args.events, args.nodes, args.gap, args.life)
        gen = time.perf_counter() - t0
        readings: list[tuple[int, int]] = []
        step = max(1, args.events // 10)
        rss_start = rss_bytes()

        def progress(done: int, virtual: float) -> None:
            if done % step == 0:
                readings.append((done, rss_bytes()))
                print(f"  {done:>9} events  RSS {rss_bytes() / 2**20:7.1f} MiB", file=sys.stderr)

        t1 = time.perf_counter()
        rep = Replay(read_trace([trace_path]), sample_every=args.sample_every)
        check = time.perf_counter() - t1
        sink = CsvSink(Path(tmp) / "metrics.csv", rep.recorder.columns)
        rep.recorder.sink = sink
        t2 = time.perf_counter()
        cpu0 = time.process_time()
        res = rep.run(progress)
        run = time.perf_counter() - t2
        cpu = time.process_time() - cpu0
        sink.close()
        rows = sum(1 for _ in (Path(tmp) / "metrics.csv").open()) - 1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({
        "events": res.summary["events"], "nodes": args.nodes, "podsCreated": res.summary["pods"],
        "scheduled": res.summary["scheduled"], "virtualSeconds": res.summary["virtualSeconds"],
        "metricRows": rows, "generateSeconds": round(gen, 1), "checkSeconds": round(check, 1),
        "runSeconds": round(run, 1), "runCpuSeconds": round(cpu, 1),
        "eventsPerSecond": round(res.summary["events"] / run),
        "eventsPerCpuSecond": round(res.summary["events"] / cpu) if cpu else None,
        "rssStartMiB": round(rss_start / 2**20, 1),
        "rssByEventsMiB": {str(d): round(r / 2**20, 1) for d, r in readings},
        "peakRSSMiB": round(peak / 2**20, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
