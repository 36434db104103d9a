"""The extender's work per pod as kube-scheduler drives it, in one process: the CPU per pod.

Per pod, what the extender sees when the real kube-scheduler (``nodeCacheCapable: true``,
its default ``percentageOfNodesToScore``) schedules the basic workload on N nodes: the pending
pod written to the store (the informers' add), ``/filter`` for 42% of the node names taken
from a rotating start, ``/prioritize`` for the names the filter kept, and the binding to the
best-scored node (the informers' update). The requests go through
``ExtenderServer.handle`` (JSON in and out, no socket) with their after-answer work (scoring
ahead) run before the next one, as the handler does. The pod is the scheduler_perf pod-default
as the API server returns it (defaults, tolerations, managed fields) and as kube-scheduler
sends it (no ``kind``/``apiVersion``). An embedded MemoryStore stands in for the informers.

    python benchmarks/extender_cycle.py [--nodes 1000] [--pods 2000] [--warmup 100]

Prints the process's CPU milliseconds per pod over the measured pods (client work included:
building and decoding the JSON). For a count that does not depend on the machine's load, run
it under Valgrind at two ``--pods`` values and divide the difference (see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from typing import Any

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer

_RES = {"cpu": "100m", "memory": "500Mi"}
_POD: dict[str, Any] = {
    "metadata": {"managedFields": [{
        "manager": "unknown", "operation": "Update", "apiVersion": "v1", "time": "2026-01-01T00:00:00Z",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {
            "f:containers": {'k:{"name":"pause"}': {
                ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resizePolicy": {},
                "f:resources": {".": {}, "f:limits": {".": {}, "f:cpu": {}, "f:memory": {}},
                                "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}},
                "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
            "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
            "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}}}}]},
    "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                             "resources": {"limits": _RES, "requests": _RES},
                             "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                                              {"resourceName": "memory", "restartPolicy": "NotRequired"}],
                             "terminationMessagePath": "/dev/termination-log",
                             "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
             "restartPolicy": "Always", "terminationGracePeriodSeconds": 0, "dnsPolicy": "ClusterFirst",
             "securityContext": {}, "schedulerName": "default-scheduler",
             "tolerations": [{"key": f"node.kubernetes.io/{t}", "operator": "Exists", "effect": "NoExecute",
                              "tolerationSeconds": 300} for t in ("not-ready", "unreachable")],
             "priority": 0, "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority"},
    "status": {"phase": "Pending", "qosClass": "Guaranteed"}}


def _node(i: int) -> dict[str, Any]:
    res = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}"}},
            "status": {"allocatable": res, "capacity": res,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _pod(name: str, namespace: str, node: str = "") -> dict[str, Any]:
    doc = copy.deepcopy(_POD)
    doc["metadata"].update(name=name, namespace=namespace, uid=f"{namespace}-{name}")
    if node:
        doc["spec"]["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", **doc}


def _args(pod: dict[str, Any], names: list[str]) -> bytes:
    return json.dumps({"Pod": pod, "Nodes": None, "NodeNames": names}).encode()


class Cycle:
    """The cluster (``nodes`` nodes, as many pods bound) and the extender serving it."""

    def __init__(self, nodes: int) -> None:
        self.store = MemoryStore(VirtualClock())
        self.store.load([parse_object(_node(i)) for i in range(nodes)]
                        + [parse_object(_pod(f"bound-{i}", "bound", f"node-{i}")) for i in range(nodes)])
        self.engine = ExtenderEngine(store=self.store)
        self.engine.settle()
        self.server = ExtenderServer(self.engine)
        self.names = [f"node-{i}" for i in range(nodes)]
        # kube-scheduler's numFeasibleNodesToFind: max(100, nodes * (50 - nodes / 125)%)
        self.ask = min(nodes, max(100, nodes * max(5, 50 - nodes // 125) // 100))
        self.start = 0
        self.count = 0

    def _call(self, verb: str, body: bytes) -> Any:
        after: list[Any] = []
        code, _, out = self.server.handle("POST", f"/{verb}", str(len(body)), lambda n: body, after)
        if code != 200:
            raise SystemExit(f"/{verb}: HTTP {code}: {out[:300]!r}")
        for fn in after:
            fn()
        return json.loads(out)

    def close(self) -> None:
        """The engine closed: the process's collector as it was before ``settle``."""
        self.engine.close()

    def one(self) -> None:
        """One pod: created pending, filtered, prioritized, bound."""
        name = f"pod-{self.count}"
        self.count += 1
        self.store.create(parse_object(_pod(name, "bench")))
        held = self.store.get("Pod", "bench", name).raw  # as kube-scheduler sends it: no TypeMeta
        sent = {k: v for k, v in held.items() if k not in ("kind", "apiVersion")}
        n = len(self.names)
        ask = [self.names[(self.start + j) % n] for j in range(self.ask)]
        self.start = (self.start + self.ask) % n
        kept = self._call("filter", _args(sent, ask))["NodeNames"]
        scores = self._call("prioritize", _args(sent, kept))
        self.store.bind("bench", name, max(scores, key=lambda hp: hp["Score"])["Host"], None)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=2000, help="measured pods")
    ap.add_argument("--warmup", type=int, default=100, help="unmeasured pods first")
    args = ap.parse_args(argv)
    cycle = Cycle(args.nodes)
    try:
        for _ in range(args.warmup):
            cycle.one()
        cpu0 = time.process_time()
        for _ in range(args.pods):
            cycle.one()
        cpu = time.process_time() - cpu0
    finally:
        cycle.close()
    per_pod = cpu / max(1, args.pods) * 1e3
    print(f"{args.nodes} nodes, {cycle.ask} names per /filter: {per_pod:.3f} CPU ms per pod "
          f"over {args.pods} pods")


if __name__ == "__main__":
    main()
