"""Opportunistic batching (KEP-5598): throughput with the gate on and off, and the placements.

A burst of identical pods, one per node (each asks for the same host port), on nodes of distinct
sizes, under the default plugins with system default spreading off (upstream batches only
profiles whose every PreFilter/Filter/PreScore/Score plugin can sign the pod; the system default
topology spread constraints make every pod unsignable). ``--kube-version 1.35`` semantics:
DRAExtendedResource off, so NodeResourcesFit can sign.

    python benchmarks/opportunistic_batching_bench.py [--nodes 500] [--seeds 5]

Prints pods/s for each gate setting and how many pods both runs placed on the same node. With
100 nodes or more they differ, as upstream's do: scores are integers, so many nodes tie (the
batch pops ties in scoring order, a full cycle draws one at random), and with
percentageOfNodesToScore below 100 the kept nodes are the sample the first cycle scored while
a full cycle samples from the next rotation offset. tests/scheduler/test_opportunistic_batching.py
checks exact equality where the scores are distinct.
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework.config import from_dict
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing.wrappers import make_node, make_pod


def _config(spread_defaults: bool) -> Any:
    prof: dict[str, Any] = {"schedulerName": "default-scheduler"}
    if not spread_defaults:
        prof["pluginConfig"] = [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]
    return from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                      "profiles": [prof]})


def run(nodes: int, pods: int, gate: bool, seed: int, spread_defaults: bool = False
        ) -> tuple[float, dict[str, str], dict[str, float]]:
    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    for i in range(nodes):
        # distinct memory sizes in MiB: every node scores differently under LeastAllocated
        store.create(make_node().name(f"n{i:05d}").capacity(
            {"cpu": "64", "memory": f"{65536 + 997 * i}Mi", "pods": "110"}).obj())
    sched = Scheduler(store, clock, _config(spread_defaults), seed=seed, options=SchedulerOptions(
        features={"OpportunisticBatching": gate, "DRAExtendedResource": False}))
    for j in range(pods):
        store.create(make_pod().name(f"p{j:05d}").uid(f"p{j:05d}")
                     .req({"cpu": "100m", "memory": "64Mi"}).host_port(8080).obj())
    t0 = time.perf_counter()
    sched.run_until_idle()
    dt = time.perf_counter() - t0
    placed = {p.name: p.node_name for p in store.list("Pod")}
    m = {k: v for k, v in (
        ("hint_used", sched.metrics.value("scheduler_batch_attempts_total",
                                          {"profile": "default-scheduler", "result": "hint_used"})),
        ("no_hint", sched.metrics.value("scheduler_batch_attempts_total",
                                        {"profile": "default-scheduler", "result": "no_hint"})))}
    return dt, placed, m


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=0, help="default: one per node")
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    pods = a.pods or a.nodes
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    for seed in range(a.seeds):
        off_t, off_p, _ = run(a.nodes, pods, False, seed)
        on_t, on_p, m = run(a.nodes, pods, True, seed)
        same = sum(on_p[k] == off_p[k] for k in on_p)
        print(f"seed {seed}: {a.nodes} nodes, {pods} pods: gate off {pods / off_t:8.1f} pods/s, "
              f"gate on {pods / on_t:8.1f} pods/s (x{off_t / on_t:.2f}); hints used {m['hint_used']:.0f}, "
              f"same node for {same}/{pods} pods")


if __name__ == "__main__":
    main()
