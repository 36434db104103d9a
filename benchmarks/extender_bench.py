"""Latency and throughput of ``kubesched extender``'s ``/filter`` and ``/prioritize``.

The extender in its ``nodeCacheCapable: true`` shape: requests name the nodes (``NodeNames``),
node and pod state come from the engine's store. An embedded MemoryStore stands in for the
informers (ExtenderEngine takes any Store; the live store hands the same cache the same
objects): N nodes in three zones, two pods already bound on each, kube-scheduler's default
profile. One client on a keep-alive connection to the server on 127.0.0.1 sends, per size and
verb, ``--requests`` requests naming all N nodes for pods of a few shapes (plain, topology
spread over zones, pod anti-affinity); each latency is the client's, from the request written
to the answer decoded (JSON encoding, HTTP and the framework calls all count).

    python benchmarks/extender_bench.py [--sizes 500,1000,5000] [--requests 200] [--json]

Prints one line per (size, verb): requests/s, p50 and p99 in milliseconds, the process's CPU
time per request (client and server together: what a loaded machine does not inflate), the
time the cyclic garbage collector took during the measured requests (all of them together),
and the machine.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import statistics
import sys
import time
from typing import Any

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer
from kubesched.perf import machine_info

ZONES = ("zone-a", "zone-b", "zone-c")
PODS_PER_NODE = 2


def _node(i: int) -> dict[str, Any]:
    name = f"node-{i}"
    res = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": ZONES[i % 3],
                                                  "pool": f"pool-{i % 4}"}},
            "status": {"allocatable": res, "capacity": res,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _pod(name: str, app: str, node: str = "", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "registry.example.com/app:1",
                                            "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
                            **spec}
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid", "labels": {"app": app}},
            "spec": body}


def _cluster(n: int) -> MemoryStore:
    store = MemoryStore(VirtualClock())
    docs = [_node(i) for i in range(n)]
    docs += [_pod(f"run-{i}-{k}", f"app-{(i + k) % 10}", f"node-{i}")
             for i in range(n) for k in range(PODS_PER_NODE)]
    store.load([parse_object(d) for d in docs])
    return store


def _pods() -> list[dict[str, Any]]:
    """The pods asked about, in turn: plain, zone-spread, anti-affine to their own app."""
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
               "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "app-3"}}}]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "app-7"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    return [_pod("new-plain", "web"), _pod("new-spread", "app-3", topologySpreadConstraints=spread),
            _pod("new-anti", "app-7", affinity=anti)]


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[max(0, min(len(s) - 1, int(len(s) * p / 100 + 0.5) - 1))]


class _GcClock:
    """Time spent in the cyclic garbage collector (gc.callbacks), to tell it from the rest."""

    def __init__(self) -> None:
        self.total = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._start


def run(sizes: list[int], requests: int, warmup: int) -> list[dict[str, Any]]:
    gc_clock = _GcClock()
    gc.callbacks.append(gc_clock)
    try:
        return _run(sizes, requests, warmup, gc_clock)
    finally:
        gc.callbacks.remove(gc_clock)


def _run(sizes: list[int], requests: int, warmup: int, gc_clock: _GcClock) -> list[dict[str, Any]]:
    out = []
    for n in sizes:
        engine = ExtenderEngine(store=_cluster(n))
        engine.settle()  # as `kubesched extender` does once its engine is ready
        names = [f"node-{i}" for i in range(n)]
        bodies = [json.dumps({"Pod": p, "NodeNames": names}).encode() for p in _pods()]
        cpu0 = time.process_time()
        with ExtenderServer(engine, "127.0.0.1", 0) as server:
            host, port = server.address
            conn = http.client.HTTPConnection(host, port, timeout=60)
            for verb in ("filter", "prioritize"):
                lat: list[float] = []

                for i in range(warmup + requests):
                    body = bodies[i % len(bodies)]
                    t0 = time.perf_counter()
                    conn.request("POST", f"/{verb}", body, {"Content-Type": "application/json"})
                    resp = conn.getresponse()
                    answer = json.loads(resp.read())
                    dt = time.perf_counter() - t0
                    if resp.status != 200:
                        raise SystemExit(f"{verb} at {n} nodes: HTTP {resp.status}: {answer}")
                    if i >= warmup:
                        lat.append(dt)
                    elif i == warmup - 1:
                        gc_clock.total = 0.0
                        cpu0 = time.process_time()
                cpu = time.process_time() - cpu0
                total = sum(lat)
                out.append({"nodes": n, "verb": verb, "requests": len(lat),
                            "requestsPerSecond": round(len(lat) / total, 1),
                            "p50Ms": round(_pct(lat, 50) * 1e3, 2), "p99Ms": round(_pct(lat, 99) * 1e3, 2),
                            "meanMs": round(statistics.fmean(lat) * 1e3, 2),
                            "cpuMsPerRequest": round(cpu / len(lat) * 1e3, 2),
                            "gcMs": round(gc_clock.total * 1e3, 1)})
            conn.close()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="500,1000,5000", help="node counts, comma-separated")
    ap.add_argument("--requests", type=int, default=200, help="measured requests per size and verb")
    ap.add_argument("--warmup", type=int, default=10, help="unmeasured requests first")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rows = run(sizes, args.requests, args.warmup)
    if args.json:
        json.dump({"machine": machine_info(), "results": rows}, sys.stdout, indent=2)
        print()
        return
    m = machine_info()
    print(f"# {m['cpuModel']}, {m['nproc']} CPU(s), Python {m['python']}, numpy {m['numpy']}")
    print(f"{'nodes':>6} {'verb':<11} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'cpu ms':>8} {'gc ms':>8}")
    for r in rows:
        print(f"{r['nodes']:>6} {r['verb']:<11} {r['requestsPerSecond']:>8} {r['p50Ms']:>8} {r['p99Ms']:>8} "
              f"{r['cpuMsPerRequest']:>8} {r['gcMs']:>8}")


if __name__ == "__main__":
    main()
