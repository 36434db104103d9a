"""Random small clusters as Kubernetes manifests (plain dicts), drawn by hypothesis.

Nodes in one to three zones with labels, taints, cordons, allocatable cpu / memory / pods / an
extended resource and images; priority classes (one with ``preemptionPolicy: Never``); pods
already bound (some terminating, some overcommitting their node); pending pods with requests,
tolerations, node selectors, required node affinity, pod (anti-)affinity, topology spread
constraints, host ports, priorities and scheduling gates; PodDisruptionBudgets. Manifests rather
than builders so that the same input feeds the Python API and the CLI.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yaml
from hypothesis import strategies as st

from kubesched.api.loader import LoadedObjects, load_documents

__all__ = ["APPS", "GPU", "HOSTNAME", "ZONE", "ClusterSpec", "clusters"]

T = TypeVar("T")
Draw = Callable[[st.SearchStrategy[T]], T]
Manifest = dict[str, Any]

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
GPU = "example.com/gpu"
APPS = ("web", "db", "batch")
PRIORITY_CLASSES: tuple[tuple[str, int, str], ...] = (
    ("low", 10, "PreemptLowerPriority"),
    ("mid", 100, "PreemptLowerPriority"),
    ("high", 1000, "PreemptLowerPriority"),
    ("high-never", 1000, "Never"),
)
TAINTS: tuple[Manifest, ...] = (
    {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
    {"key": "dedicated", "value": "infra", "effect": "NoExecute"},
    {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
)
IMAGES = ("registry.example/app:1", "registry.example/db:2", "registry.example/big:3")


@dataclass
class ClusterSpec:
    """The manifests of one generated cluster, in load order."""

    nodes: list[Manifest] = field(default_factory=list)
    priority_classes: list[Manifest] = field(default_factory=list)
    pods: list[Manifest] = field(default_factory=list)
    pdbs: list[Manifest] = field(default_factory=list)

    @property
    def manifests(self) -> list[Manifest]:
        return [*self.priority_classes, *self.nodes, *self.pods, *self.pdbs]

    def yaml(self) -> str:
        return yaml.safe_dump_all(self.manifests, sort_keys=False)

    def loaded(self) -> LoadedObjects:
        return load_documents(self.yaml(), "cluster.yaml")


def _node(draw: Draw[Any], i: int, zones: int) -> Manifest:
    name = f"n{i}"
    labels = {HOSTNAME: name, ZONE: f"zone-{draw(st.integers(0, zones - 1))}"}
    if draw(st.booleans()):
        labels["disk"] = draw(st.sampled_from(["ssd", "hdd"]))
    alloc: dict[str, Any] = {
        "cpu": draw(st.sampled_from(["1", "2", "4", "1500m"])),
        "memory": draw(st.sampled_from(["2Gi", "4Gi", "8Gi"])),
        "pods": draw(st.sampled_from([2, 4, 110])),
    }
    if draw(st.integers(0, 3)) == 0:
        alloc[GPU] = draw(st.sampled_from([1, 2]))
    spec: Manifest = {}
    taints = draw(st.lists(st.sampled_from(TAINTS), max_size=2, unique_by=lambda t: t["key"]))
    if taints:
        spec["taints"] = taints
    if draw(st.integers(0, 9)) == 0:
        spec["unschedulable"] = True
    status: Manifest = {"capacity": dict(alloc), "allocatable": alloc}
    images = draw(st.lists(st.sampled_from(IMAGES), max_size=2, unique=True))
    if images:
        status["images"] = [{"names": [img], "sizeBytes": 300 * 2**20} for img in images]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": spec, "status": status}


def _requests(draw: Draw[Any]) -> Manifest:
    req: Manifest = {"cpu": draw(st.sampled_from(["100m", "250m", "500m", "1", "2"])),
                     "memory": draw(st.sampled_from(["128Mi", "512Mi", "1Gi", "3Gi"]))}
    if draw(st.integers(0, 5)) == 0:
        req[GPU] = 1
    return req


def _selector(app: str) -> Manifest:
    return {"matchLabels": {"app": app}}


def _constraints(draw: Draw[Any], app: str, zones: int) -> Manifest:
    """Scheduling constraints of a pod spec (tolerations, node selector, node and pod
    (anti-)affinity, topology spread), each drawn independently."""
    spec: Manifest = {}
    if draw(st.integers(0, 2)) == 0:
        spec["tolerations"] = [draw(st.sampled_from([
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            {"key": "dedicated", "operator": "Exists"},
            {"operator": "Exists"},
        ]))]
    if draw(st.integers(0, 4)) == 0:
        spec["nodeSelector"] = {"disk": draw(st.sampled_from(["ssd", "hdd"]))}
    affinity: Manifest = {}
    if draw(st.integers(0, 4)) == 0:
        chosen = draw(st.lists(st.integers(0, zones - 1), min_size=1, max_size=2, unique=True))
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": ZONE, "operator": "In", "values": [f"zone-{z}" for z in sorted(chosen)]}]}]}}
    kind = draw(st.integers(0, 5))
    if kind == 0:
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": _selector(app), "topologyKey": draw(st.sampled_from([HOSTNAME, ZONE]))}]}
    elif kind == 1:
        other = draw(st.sampled_from(APPS))
        affinity["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": _selector(other), "topologyKey": ZONE}]}
    elif kind == 2:
        affinity["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": {"labelSelector": _selector(app), "topologyKey": HOSTNAME}}]}
    if affinity:
        spec["affinity"] = affinity
    if draw(st.integers(0, 2)) == 0:
        constraint: Manifest = {
            "maxSkew": draw(st.integers(1, 2)),
            "topologyKey": draw(st.sampled_from([HOSTNAME, ZONE])),
            "whenUnsatisfiable": draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
            "labelSelector": _selector(app)}
        if constraint["whenUnsatisfiable"] == "DoNotSchedule" and draw(st.integers(0, 3)) == 0:
            constraint["minDomains"] = draw(st.integers(1, 4))
        spec["topologySpreadConstraints"] = [constraint]
    return spec


def _pod(draw: Draw[Any], i: int, spec_: ClusterSpec, templates: Mapping[str, Manifest], zones: int,
         bound: bool) -> Manifest:
    """A pod of one of the apps: most use their app's constraints (replicas of a workload),
    the others draw their own."""
    app = draw(st.sampled_from(APPS))
    name = f"{'b' if bound else 'p'}{i}-{app}"
    container: Manifest = {"name": "c", "image": draw(st.sampled_from(IMAGES)),
                           "resources": {"requests": _requests(draw)}}
    if draw(st.integers(0, 4)) == 0:
        port: Manifest = {"containerPort": 80, "hostPort": draw(st.sampled_from([8080, 9090]))}
        if draw(st.integers(0, 3)) == 0:
            port["protocol"] = "UDP"
        if draw(st.integers(0, 3)) == 0:
            port["hostIP"] = "127.0.0.1"
        container["ports"] = [port]
    own = draw(st.integers(0, 3)) == 0
    spec: Manifest = {"containers": [container],
                      "terminationGracePeriodSeconds": draw(st.sampled_from([0, 5, 30])),
                      **copy.deepcopy(_constraints(draw, app, zones) if own else templates[app])}
    pc = draw(st.sampled_from([None, *(p[0] for p in PRIORITY_CLASSES)]))
    if pc is not None:
        spec["priorityClassName"] = pc
    namespace = "team" if draw(st.integers(0, 7)) == 0 else "default"
    meta: Manifest = {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": {"app": app},
                      "creationTimestamp": "2026-01-01T00:00:00Z"}
    pod: Manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if bound:
        spec["nodeName"] = draw(st.sampled_from(spec_.nodes))["metadata"]["name"]
        pod["status"] = {"phase": "Running", "startTime": f"2026-01-01T00:00:{i:02d}Z",
                         "conditions": [{"type": "Ready", "status": "True"}]}
        if draw(st.integers(0, 7)) == 0:
            meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    else:
        if draw(st.integers(0, 15)) == 0:
            spec["schedulingGates"] = [{"name": "example.com/wait"}]
        if draw(st.integers(0, 15)) == 0:
            spec["schedulerName"] = "other-scheduler"
    return pod


def _pdb(draw: Draw[Any], app: str) -> Manifest:
    budget = draw(st.sampled_from([{"minAvailable": 1}, {"maxUnavailable": 0}, {"maxUnavailable": 1},
                                   {"minAvailable": "50%"}]))
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": f"pdb-{app}", "namespace": "default"},
            "spec": {**budget, "selector": _selector(app)}}


@st.composite
def clusters(draw: Draw[Any], max_nodes: int = 12, max_bound: int = 8, max_pending: int = 10) -> ClusterSpec:
    """A ClusterSpec: 3..max_nodes nodes in 1..3 zones, bound and pending pods, PDBs."""
    zones = draw(st.integers(1, 3))
    spec = ClusterSpec()
    spec.nodes = [_node(draw, i, zones) for i in range(draw(st.integers(3, max_nodes)))]
    spec.priority_classes = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
         "value": value, "preemptionPolicy": policy}
        for name, value, policy in PRIORITY_CLASSES]
    templates = {app: _constraints(draw, app, zones) for app in APPS}
    n_bound = draw(st.integers(0, max_bound))
    spec.pods = [_pod(draw, i, spec, templates, zones, True) for i in range(n_bound)]
    n_pending = draw(st.integers(1, max_pending))
    spec.pods += [_pod(draw, i, spec, templates, zones, False) for i in range(n_pending)]
    spec.pdbs = [_pdb(draw, app) for app in draw(st.lists(st.sampled_from(APPS), max_size=2, unique=True))]
    return spec
