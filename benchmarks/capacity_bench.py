"""How fast ``kubesched capacity`` answers: copies per second, and the ``--add-nodes`` search.

Two workloads, built in memory (no YAML parsing in the measured time):

- ``copies``: N nodes (4 cpu, 16Gi, 110 pods; three zones), each running two pods of 1500m /
  2Gi, so 1 cpu is free per node; copies of a 100m / 128Mi pod are placed until one fails
  (10 per node: 50,000 on 5000 nodes). Measured: the copies loop alone (copies/s), and the
  whole command's work (the cluster brought to rest first).
- ``add-nodes``: N nodes of 4 cpu each running one 3-cpu pod, and P pending pods of 1500m / 1Gi
  (none fits an existing node); template node 4 cpu: the answer is ceil(P / 2). Measured: the
  whole search (every simulation), and how many simulations it took.

    python benchmarks/capacity_bench.py [--nodes 5000] [--add-nodes-nodes 1000] [--pending 1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from kubesched.api import Node, Pod
from kubesched.api.loader import LoadedObjects, parse_object
from kubesched.perf import machine_info
from kubesched.simulator import Simulator
from kubesched.simulator.capacity import count_copies, nodes_to_add, pod_copies

ZONES = ("zone-a", "zone-b", "zone-c")


def _node(name: str, zone: str, cpu: str = "4", memory: str = "16Gi") -> dict[str, Any]:
    res = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": zone}},
            "status": {"allocatable": res, "capacity": res}}


def _pod(name: str, cpu: str, memory: str, node: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "registry.example.com/app:1",
                                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": name.rsplit("-", 1)[0]}},
            "spec": spec}


def copies(nodes: int) -> dict[str, Any]:
    objs = []
    for i in range(nodes):
        name = f"node-{i}"
        objs.append(parse_object(_node(name, ZONES[i % 3])))
        objs += [parse_object(_pod(f"busy-{i}-{k}", "1500m", "2Gi", name)) for k in range(2)]
    t0 = time.perf_counter()
    simulator = Simulator(LoadedObjects(objects=objs))
    simulator.settle()
    simulator.controllers.close()
    template = parse_object(_pod("small", "100m", "128Mi"))
    assert isinstance(template, Pod)
    t1, c1 = time.perf_counter(), time.process_time()
    result = count_copies(simulator.sched, pod_copies(simulator.store, template, random.Random(0)))
    t2, c2 = time.perf_counter(), time.process_time()
    return {"workload": "copies", "nodes": nodes, "fits": result.fits,
            "copiesPerSecond": round(result.fits / (t2 - t1)),
            "copiesPerCpuSecond": round(result.fits / (c2 - c1)), "loopSeconds": round(t2 - t1, 2),
            "totalSeconds": round(t2 - t0, 2), "reasons": result.reasons}


def add_nodes(nodes: int, pending: int) -> dict[str, Any]:
    objs = []
    for i in range(nodes):
        name = f"node-{i}"
        objs.append(parse_object(_node(name, ZONES[i % 3])))
        objs.append(parse_object(_pod(f"busy-{i}", "3", "2Gi", name)))
    objs += [parse_object(_pod(f"pending-{i}", "1500m", "1Gi")) for i in range(pending)]
    template = parse_object(_node("new", "zone-a"))
    assert isinstance(template, Node)
    t0, c0 = time.perf_counter(), time.process_time()
    found = nodes_to_add(LoadedObjects(objects=objs), template)
    t1, c1 = time.perf_counter(), time.process_time()
    return {"workload": "add-nodes", "nodes": nodes, "pending": pending, "nodesToAdd": found.nodes_to_add,
            "expected": -(-pending // 2), "simulations": len(found.tried), "seconds": round(t1 - t0, 2),
            "cpuSeconds": round(c1 - c0, 2),
            "bounds": [found.lower, found.upper]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--add-nodes-nodes", type=int, default=1000)
    ap.add_argument("--pending", type=int, default=1000)
    ap.add_argument("--only", choices=("copies", "add-nodes"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = []
    if args.only in (None, "copies"):
        out.append(copies(args.nodes))
    if args.only in (None, "add-nodes"):
        out.append(add_nodes(args.add_nodes_nodes, args.pending))
    if args.json:
        print(json.dumps({"machine": machine_info(), "results": out}, indent=2))
        return
    for r in out:
        print(json.dumps(r))
    print(json.dumps(machine_info()))


if __name__ == "__main__":
    main()
