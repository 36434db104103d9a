"""Reading the Alibaba GPU cluster trace (cluster-trace-gpu-v2023, "openb") into a :class:`Trace`.

Each CSV row becomes a Kubernetes manifest, as the FGD simulator's ``data/pod_csv_to_yaml.py`` and
``data/node_yaml/openb_node_list_gpu_node.yaml`` (hkust-adsl/kubernetes-scheduler-simulator @8f3d641)
map them (the GPU model in ``_gpu.py``):

- node ``sn,cpu_milli,memory_mib,gpu,model`` -> a Node with capacity = allocatable ``cpu``,
  ``memory``, ``pods: 1001``, ``alibabacloud.com/gpu-count`` and ``alibabacloud.com/gpu-milli``
  (``gpu * 1000``) and the label ``alibabacloud.com/gpu-card-model``;
- pod ``name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...`` -> a Pod in ``default`` with one
  container requesting (and limited to) the cpu and memory, and, for a GPU pod, the annotations
  ``alibabacloud.com/gpu-count``, ``gpu-milli`` and ``gpu-card-model`` (``gpu_spec``).

The annotations are the FGD simulator's GPU-share model, which only its plugins read
(``examples/gpushare``). So that the default plugins see GPUs too, and the default
configuration is a real baseline beside the sharing policies, a GPU node also advertises its
GPUs as the extended resource a device plugin registers (``nvidia.com/gpu: <gpu>``) and a GPU pod
requests (and is limited to) whole ones: ``num_gpu`` of them, one for a sharing pod (a device
plugin hands out whole devices: under the default scheduler a fractional share takes a whole
GPU). The sharing configurations have NodeResourcesFit ignore that resource
(``ignoredResources``), as the simulator, whose pods carry none, so their decisions are the
annotations' alone.

Arrival, ``arrival=``:

- ``"trace"``: each pod is created at its ``creation_time`` and deleted at its ``deletion_time``
  (seconds; pods ordered by creation time then name, each pod's deletion right after its creation
  when the times tie, as the simulator's event sort);
- ``"shuffled"``: as the paper's experiments (``--shuffle-pod=true``, ``-tune``): pods sorted by
  name, shuffled with the seed, then, with ``tune``, re-sampled copies (``<name>-tuned-<i>``)
  appended while the total GPU request stays within ``tune`` x the cluster's GPU capacity (or
  random pods dropped while above it); pod *i* is created at time *i* and never leaves. Nodes
  are renamed ``<rank>-<name>`` (``0042-openb-node-0007``) with ranks a permutation drawn from
  the same seed, and listed in rank order, as the simulator does: its scheduler breaks score
  ties by the smallest node name (``examples/gpushare``, ``name_order.py``). The random stream
  is numpy's, not Go's: the same seed gives another order than the simulator, the same
  distribution.

Bad rows are refused, all at once, with ``FILE:LINE`` and the object named
(:class:`OpenbFormatError`).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .._metrics import GPU_RESOURCE
from .._trace import ObjectRef, Trace, TraceEvent
from ._cluster import GpuAllocation, GpuDemand
from ._gpu import GPU_COUNT, GPU_MILLI, GPU_MODEL, MILLI, PodGpu

__all__ = ["OpenbFormatError", "OpenbPod", "read_openb", "read_openb_nodes", "read_openb_pods"]

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
NAMESPACE = "default"
MAX_PODS = 1001  # the simulator's node YAML


class OpenbFormatError(ValueError):
    """A bad openb CSV; the message lists every bad row as ``FILE:LINE: object: problem``."""


@dataclass(frozen=True, slots=True)
class OpenbPod:
    """One pod row: its manifest, request and times (``deletion`` None: never deleted)."""

    name: str
    manifest: Mapping[str, Any]
    request: PodGpu
    creation: float
    deletion: float | None
    source: str


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        fh = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise OpenbFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise OpenbFormatError(f"{path}:1: missing column(s): {', '.join(missing)}")
        for row in reader:
            if None in row:  # more fields than the header
                raise OpenbFormatError(f"{path}:{reader.line_num}: more fields than the header has")
            yield reader.line_num, {k: (v or "").strip() for k, v in row.items()}


def _nonneg(row: Mapping[str, str], col: str, errs: list[str], where: str) -> int:
    text = row.get(col, "")
    try:
        v = int(text)
    except ValueError:
        errs.append(f"{where}: {col}: not an integer: {text!r}")
        return 0
    if v < 0:
        errs.append(f"{where}: {col}: must be >= 0, got {v}")
    return v


def _raise(errs: list[str]) -> None:
    if errs:
        more = f"\n... and {len(errs) - 20} more" if len(errs) > 20 else ""
        raise OpenbFormatError("\n".join(errs[:20]) + more)


def _row_place(path: Path, line: int, what: str, name: str, column: str, seen: dict[str, int],
               errs: list[str]) -> str:
    """Where a row is, for its errors (``FILE:LINE: node NAME``); an empty name, or one an
    earlier row (``seen``: name -> line) has, is an error of the row."""
    where = f"{path}:{line}: {what} {name or '(no name)'}"
    if not name:
        errs.append(f"{where}: {column}: empty")
    elif name in seen:
        errs.append(f"{where}: duplicate of line {seen[name]}")
    seen.setdefault(name, line)
    return where


def read_openb_nodes(path: str | Path) -> list[dict[str, Any]]:
    """The node list CSV as Node manifests, in file order."""
    path = Path(path)
    errs: list[str] = []
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line, row in _rows(path, NODE_COLUMNS):
        name = row["sn"]
        where = _row_place(path, line, "node", name, "sn", seen, errs)
        cpu = _nonneg(row, "cpu_milli", errs, where)
        mem = _nonneg(row, "memory_mib", errs, where)
        gpu = _nonneg(row, "gpu", errs, where)
        model = row["model"]
        if gpu > 0 and not model:
            errs.append(f"{where}: model: empty for a node with {gpu} GPU(s)")
        res: dict[str, str] = {"cpu": f"{cpu}m", "memory": f"{mem}Mi", "pods": str(MAX_PODS)}
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
        if gpu > 0:
            res[GPU_COUNT] = str(gpu)
            res[GPU_MILLI] = str(gpu * MILLI)
            res[GPU_RESOURCE] = str(gpu)
            labels[GPU_MODEL] = model
        out.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "status": {"capacity": dict(res), "allocatable": dict(res)},
        })
    _raise(errs)
    return out


def _time(row: Mapping[str, str], col: str, errs: list[str], where: str) -> float | None:
    text = row.get(col, "")
    if text == "":
        return None
    try:
        v = float(text)
    except ValueError:
        errs.append(f"{where}: {col}: not a number: {text!r}")
        return None
    if not v >= 0:
        errs.append(f"{where}: {col}: must be >= 0, got {text}")
        return None
    return v


def pod_manifest(name: str, cpu: int, mem: int, req: PodGpu) -> dict[str, Any]:
    res = {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}
    meta: dict[str, Any] = {"name": name, "namespace": NAMESPACE}
    if req.count > 0:
        res[GPU_RESOURCE] = str(req.count)  # whole GPUs: a share takes one (the count is 1)
        ann = {GPU_MILLI: str(req.milli), GPU_COUNT: str(req.count)}
        if req.spec:
            ann[GPU_MODEL] = req.spec
        meta["annotations"] = ann
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"containers": [{"name": "main", "image": "openb",
                                 "resources": {"requests": dict(res), "limits": dict(res)}}]},
    }


def read_openb_pods(path: str | Path, *, need_times: bool = False) -> list[OpenbPod]:
    """The pod list CSV, in file order. ``need_times``: ``creation_time`` must be given."""
    path = Path(path)
    errs: list[str] = []
    out: list[OpenbPod] = []
    seen: dict[str, int] = {}
    required = (*POD_COLUMNS, "creation_time") if need_times else POD_COLUMNS
    for line, row in _rows(path, required):
        name = row["name"]
        where = _row_place(path, line, "pod", name, "name", seen, errs)
        n = len(errs)
        cpu = _nonneg(row, "cpu_milli", errs, where)
        mem = _nonneg(row, "memory_mib", errs, where)
        count = _nonneg(row, "num_gpu", errs, where)
        milli = _nonneg(row, "gpu_milli", errs, where)
        spec = "|".join(m for m in row.get("gpu_spec", "").split("|") if m)
        if len(errs) == n:
            if count == 0 and milli > 0:
                errs.append(f"{where}: gpu_milli: {milli} for a pod without GPUs (num_gpu 0)")
            elif count > 0 and not 0 < milli <= MILLI:
                errs.append(f"{where}: gpu_milli: must be in 1..{MILLI} for a GPU pod, got {milli}")
            elif count > 1 and milli != MILLI:
                errs.append(f"{where}: gpu_milli: a pod with {count} GPUs takes whole GPUs "
                            f"({MILLI}), got {milli}")
        created = _time(row, "creation_time", errs, where)
        deleted = _time(row, "deletion_time", errs, where)
        if need_times and created is None and row.get("creation_time", "") == "":
            errs.append(f"{where}: creation_time: empty")
        if created is not None and deleted is not None and deleted < created:
            errs.append(f"{where}: deletion_time {row['deletion_time']} is before creation_time "
                        f"{row['creation_time']}")
        if count == 0:
            milli, spec = 0, ""
        req = PodGpu(cpu if cpu > 0 else 100, milli, count, spec)
        out.append(OpenbPod(name, pod_manifest(name, cpu, mem, req), req, created or 0.0, deleted,
                            f"{path}:{line}"))
    _raise(errs)
    return out


def _tuned(pods: list[OpenbPod], workload: list[OpenbPod], capacity: int, tune: float,
           rng: np.random.Generator) -> list[OpenbPod]:
    """TunePodsByNodeTotalResource: append re-sampled copies of the (name-sorted) workload up to
    ``tune * capacity`` GPU milli, or drop random pods down to it. As the simulator, growing
    checks a copy's milli per GPU (not its total) against the room left, and stops at the first
    copy that does not fit."""
    target = tune * capacity
    total = sum(p.request.total for p in pods)
    pods = list(pods)
    if total > target:
        while total > target and pods:
            victim = pods.pop(int(rng.integers(len(pods))))
            total -= victim.request.total
        return pods
    i = 0
    while workload:
        src = workload[int(rng.integers(len(workload)))]
        if total + src.request.milli > target:
            break
        name = f"{src.name}-tuned-{i}"
        manifest = dict(src.manifest)
        manifest["metadata"] = {**src.manifest["metadata"], "name": name}
        pods.append(OpenbPod(name, manifest, src.request, 0.0, None, src.source))
        total += src.request.total
        i += 1
    return pods


def _ranked(nodes: list[dict[str, Any]], rng: np.random.Generator) -> list[dict[str, Any]]:
    """syncClusterResourceList: nodes sorted by name, each renamed ``<rank>-<name>`` with ranks a
    seeded permutation (``%04d``), listed in rank order. The simulator's scheduler breaks score
    ties by the smallest node name, so the rank is the nodes' random preference order."""
    nodes = sorted(nodes, key=lambda n: n["metadata"]["name"])
    width = max(4, len(str(len(nodes) - 1)))
    out: list[dict[str, Any]] = [{}] * len(nodes)
    for node, rank in zip(nodes, rng.permutation(len(nodes)).tolist(), strict=True):
        name = f"{rank:0{width}d}-{node['metadata']['name']}"
        labels = {**node["metadata"]["labels"], "kubernetes.io/hostname": name}
        out[rank] = {**node, "metadata": {**node["metadata"], "name": name, "labels": labels}}
    return out


def _trace(nodes: list[dict[str, Any]], events: list[TraceEvent], name: str) -> Trace:
    """The trace, measured in GPUs: arrived GPU milli as its demand, ``gpuAllocation`` as the
    GPU milli held (``_cluster.py``)."""
    return Trace(cluster=list(nodes), events=events, name=name, demand=GpuDemand(), metrics=[GpuAllocation()])


def read_openb(
    nodes_csv: str | Path,
    pods_csv: str | Path,
    *,
    seed: int = 0,
    arrival: Literal["trace", "shuffled"] = "trace",
    tune: float | None = None,
) -> Trace:
    """The openb node and pod lists as a :class:`Trace` (see the module docstring)."""
    if arrival not in ("trace", "shuffled"):
        raise ValueError(f"arrival: must be 'trace' or 'shuffled', got {arrival!r}")
    if tune is not None and arrival != "shuffled":
        raise ValueError("tune: only with arrival='shuffled'")
    if tune is not None and not tune > 0:
        raise ValueError(f"tune: must be > 0, got {tune}")
    nodes = read_openb_nodes(nodes_csv)
    pods = read_openb_pods(pods_csv, need_times=arrival == "trace")
    name = f"openb:{Path(pods_csv).stem}"
    events: list[TraceEvent] = []
    if arrival == "trace":
        pods.sort(key=lambda p: (p.creation, p.name))
        for p in pods:
            events.append(TraceEvent(p.creation, "create", obj=p.manifest, source=p.source))
            if p.deletion is not None:
                ref = ObjectRef("Pod", p.name, NAMESPACE)
                events.append(TraceEvent(p.deletion, "delete", ref=ref, source=p.source))
        events.sort(key=lambda e: e.time)  # stable: a pod's deletion stays after its creation
        return _trace(nodes, events, name)
    rng = np.random.default_rng(seed)
    pods.sort(key=lambda p: p.name)
    workload = list(pods)
    pods = [pods[i] for i in rng.permutation(len(pods)).tolist()]
    if tune is not None:
        capacity = sum(int(n["status"]["capacity"].get(GPU_MILLI, 0)) for n in nodes)
        pods = _tuned(pods, workload, capacity, tune, rng)
    nodes = _ranked(nodes, rng)
    events = [TraceEvent(float(i), "create", obj=p.manifest, source=p.source) for i, p in enumerate(pods)]
    return _trace(nodes, events, name)

