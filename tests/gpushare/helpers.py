"""Tiny clusters for the GPU-share plugins, run through kubesched's Scheduler."""

from __future__ import annotations

from typing import Any

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework.config import from_dict
from kubesched.replay.openb import GPU_COUNT, GPU_INDEX, GPU_MILLI, GPU_MODEL, TypicalPod
from kubesched.scheduler import Scheduler


def node(name: str, cpu: int = 32000, gpus: int = 2, model: str = "T4") -> dict[str, Any]:
    res: dict[str, str] = {"cpu": f"{cpu}m", "memory": "64Gi", "pods": "110"}
    labels = {}
    if gpus:
        res |= {GPU_COUNT: str(gpus), GPU_MILLI: str(gpus * 1000)}
        labels[GPU_MODEL] = model
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": res, "allocatable": res}}


def pod(name: str, cpu: int = 1000, milli: int = 0, count: int = 0, spec: str = "",
        on: str = "", index: str = "") -> dict[str, Any]:
    ann = {}
    if count:
        ann = {GPU_MILLI: str(milli), GPU_COUNT: str(count)}
        if spec:
            ann[GPU_MODEL] = spec
    if index:
        ann[GPU_INDEX] = index
    spec_: dict[str, Any] = {"containers": [{"name": "c", "image": "i", "resources": {
        "requests": {"cpu": f"{cpu}m", "memory": "1Gi"}}}]}
    if on:
        spec_["nodeName"] = on
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
            "annotations": ann}, "spec": spec_}


def run(policy: str, cluster: list[dict[str, Any]], pending: list[dict[str, Any]],
        typical: tuple[TypicalPod, ...] = (), seed: int = 0) -> MemoryStore:
    """Load ``cluster`` (nodes, bound pods), then schedule ``pending`` one by one."""
    from kubesched_gpushare.experiment import policy_config

    clock = VirtualClock()
    store = MemoryStore(clock)
    store.load([parse_object(m) for m in cluster])
    sched = Scheduler(store, clock, from_dict(policy_config(policy, typical)), seed=seed)
    for m in pending:
        store.create(parse_object(m))
        sched.run_until_idle()
    sched.close()
    return store


def placed(store: MemoryStore, name: str) -> tuple[str, str]:
    p = store.get("Pod", "default", name)
    return p.node_name, p.meta.annotations.get(GPU_INDEX, "")
