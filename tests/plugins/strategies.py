"""Hypothesis strategies for small random clusters, shared by the plugin tests.

Everything is built as manifests (dicts) and parsed with the api objects, so a generated
cluster is exactly what a user could load. Sizes stay small so that property tests (batch path
== per-node path) run fast; value pools are small too, so that collisions (same labels, same
ports, same taints, same images) happen often enough to exercise every branch.

Use::

    from ..strategies import clusters, incoming_pods

    @given(cluster=clusters(), pod=incoming_pods())
    def test_agree(cluster, pod): snap = cluster.snapshot(); ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import Snapshot

__all__ = [
    "EXTENDED",
    "HOSTNAME",
    "IMAGES",
    "TAINT_POOL",
    "ZONE",
    "Cluster",
    "affinities",
    "clusters",
    "incoming_pods",
    "node_manifests",
    "pod_manifests",
    "snapshot_of",
    "tolerations",
]

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
HOSTNAME = "kubernetes.io/hostname"
EXTENDED = "example.com/gpu"
HUGEPAGES = "hugepages-2Mi"
MI = 1024 * 1024

# (name on nodes, size in bytes); pods refer to some by their short name (normalized to :latest)
IMAGES: tuple[tuple[str, int], ...] = (
    ("gcr.io/10:latest", 10 * MI),
    ("gcr.io/50:v1", 50 * MI),
    ("gcr.io/300:latest", 300 * MI),
    ("gcr.io/2000:latest", 2000 * MI),
)
POD_IMAGES = ("gcr.io/10", "gcr.io/50:v1", "gcr.io/300:latest", "gcr.io/2000", "gcr.io/none:latest")

TAINT_POOL: tuple[dict[str, str], ...] = (
    {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
    {"key": "dedicated", "value": "infra", "effect": "NoExecute"},
    {"key": "spot", "value": "", "effect": "PreferNoSchedule"},
    {"key": "flaky", "value": "yes", "effect": "PreferNoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "value": "", "effect": "NoSchedule"},
)

LABEL_VALUES = {
    ZONE: ("z1", "z2", "z3"),
    REGION: ("r1", "r2"),
    "disk": ("ssd", "hdd"),
    "num": ("1", "5", "10", "x"),
}


def tolerations() -> st.SearchStrategy[list[dict[str, Any]]]:
    one = st.one_of(
        st.sampled_from(TAINT_POOL).map(
            lambda t: {"key": t["key"], "operator": "Equal", "value": t["value"], "effect": t["effect"]}
        ),
        st.sampled_from(TAINT_POOL).map(lambda t: {"key": t["key"], "operator": "Exists"}),
        st.just({"operator": "Exists", "effect": "PreferNoSchedule"}),
        st.just({"operator": "Exists"}),
    )
    return st.lists(one, max_size=2)


@st.composite
def node_manifests(draw: st.DrawFn, name: str) -> dict[str, Any]:
    labels: dict[str, str] = {HOSTNAME: name}
    for key, values in LABEL_VALUES.items():
        if draw(st.booleans()):
            labels[key] = draw(st.sampled_from(values))
    alloc: dict[str, Any] = {
        "cpu": f"{draw(st.integers(0, 8000))}m",
        "memory": str(draw(st.integers(0, 16)) * 512 * MI),
        "pods": str(draw(st.integers(0, 6))),
    }
    if draw(st.booleans()):
        alloc["ephemeral-storage"] = str(draw(st.integers(0, 10)) * 1024 * MI)
    if draw(st.booleans()):
        alloc[EXTENDED] = str(draw(st.integers(0, 4)))
    if draw(st.integers(0, 3)) == 0:
        alloc[HUGEPAGES] = str(draw(st.integers(0, 4)) * 2 * MI)
    taints = draw(
        st.lists(st.sampled_from(TAINT_POOL), max_size=3, unique_by=lambda t: (t["key"], t["effect"]))
    )
    images = draw(st.lists(st.sampled_from(IMAGES), max_size=3, unique=True))
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"unschedulable": draw(st.integers(0, 4)) == 0, "taints": taints},
        "status": {
            "capacity": alloc,
            "allocatable": alloc,
            "images": [{"names": [n], "sizeBytes": s} for n, s in images],
        },
    }


@st.composite
def _requests(draw: st.DrawFn) -> dict[str, str]:
    r: dict[str, str] = {}
    if draw(st.booleans()):
        r["cpu"] = f"{draw(st.integers(0, 4000))}m"
    if draw(st.booleans()):
        r["memory"] = str(draw(st.integers(0, 8)) * 256 * MI)
    if draw(st.integers(0, 3)) == 0:
        r["ephemeral-storage"] = str(draw(st.integers(0, 4)) * 1024 * MI)
    if draw(st.integers(0, 3)) == 0:
        r[EXTENDED] = str(draw(st.integers(0, 3)))
    if draw(st.integers(0, 5)) == 0:
        r[HUGEPAGES] = str(draw(st.integers(0, 2)) * 2 * MI)
    return r


_ports = st.lists(
    st.builds(
        lambda port, proto, ip: {"containerPort": 80, "hostPort": port, "protocol": proto, "hostIP": ip},
        st.sampled_from([0, 80, 443, 8080]),
        st.sampled_from(["TCP", "UDP"]),
        st.sampled_from(["", "0.0.0.0", "127.0.0.1", "10.0.0.1"]),
    ),
    max_size=2,
)


def _requirement(draw: st.DrawFn) -> dict[str, Any]:
    key = draw(st.sampled_from([*LABEL_VALUES, "missing"]))
    op = draw(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]))
    if op in ("Exists", "DoesNotExist"):
        return {"key": key, "operator": op}
    if op in ("Gt", "Lt"):
        return {"key": "num", "operator": op, "values": [draw(st.sampled_from(["0", "3", "7"]))]}
    pool = LABEL_VALUES.get(key, ("a",))
    values = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))
    return {"key": key, "operator": op, "values": values}


@st.composite
def node_selector_terms(draw: st.DrawFn, node_names: tuple[str, ...] = ("n0", "n1")) -> dict[str, Any]:
    term: dict[str, Any] = {}
    exprs = [_requirement(draw) for _ in range(draw(st.integers(0, 2)))]
    if exprs:
        term["matchExpressions"] = exprs
    if draw(st.integers(0, 2)) == 0:
        term["matchFields"] = [
            {
                "key": "metadata.name",
                "operator": draw(st.sampled_from(["In", "NotIn"])),
                "values": [draw(st.sampled_from(node_names))],
            }
        ]
    return term


@st.composite
def affinities(draw: st.DrawFn, node_names: tuple[str, ...] = ("n0", "n1")) -> dict[str, Any] | None:
    """A random node affinity (required and/or preferred terms), or None."""
    if draw(st.booleans()):
        return None
    na: dict[str, Any] = {}
    if draw(st.booleans()):
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": draw(st.lists(node_selector_terms(node_names), min_size=1, max_size=2))
        }
    if draw(st.booleans()):
        na["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": draw(st.integers(1, 100)), "preference": draw(node_selector_terms(node_names))}
            for _ in range(draw(st.integers(1, 3)))
        ]
    return {"nodeAffinity": na}


@st.composite
def pod_manifests(
    draw: st.DrawFn, name: str, node_name: str = "", node_names: tuple[str, ...] = ("n0", "n1")
) -> dict[str, Any]:
    """A pod manifest; ``node_name`` places it. Incoming pods also get selectors/affinity."""
    containers = [
        {
            "name": f"c{i}",
            "image": draw(st.sampled_from(POD_IMAGES)),
            "resources": {"requests": draw(_requests())},
            "ports": draw(_ports),
        }
        for i in range(draw(st.integers(1, 2)))
    ]
    spec: dict[str, Any] = {
        "containers": containers,
        "tolerations": draw(tolerations()),
        "priority": draw(st.integers(0, 3)),
    }
    if draw(st.integers(0, 3)) == 0:
        spec["initContainers"] = [
            {
                "name": "init",
                "image": draw(st.sampled_from(POD_IMAGES)),
                "resources": {"requests": draw(_requests())},
            }
        ]
    if draw(st.integers(0, 4)) == 0:
        spec["overhead"] = {
            "cpu": f"{draw(st.integers(0, 500))}m",
            "memory": str(draw(st.integers(0, 2)) * 64 * MI),
        }
    if draw(st.integers(0, 5)) == 0:
        spec["resources"] = {"requests": {"cpu": f"{draw(st.integers(1, 3000))}m"}}
    if node_name:
        spec["nodeName"] = node_name
    else:
        if draw(st.integers(0, 2)) == 0:
            key = draw(st.sampled_from(list(LABEL_VALUES)))
            spec["nodeSelector"] = {key: draw(st.sampled_from(LABEL_VALUES[key]))}
        aff = draw(affinities(node_names))
        if aff is not None:
            spec["affinity"] = aff
        if draw(st.integers(0, 5)) == 0:
            spec["nodeName"] = draw(st.sampled_from(node_names))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": name,
            "labels": {"app": draw(st.sampled_from(["a", "b"]))},
        },
        "spec": spec,
    }


def snapshot_of(nodes: list[Node], pods: list[Pod]) -> Snapshot:
    """A snapshot with pods placed by ``spec.nodeName`` and image states counted across nodes
    as the cache does (Snapshot.from_objects)."""
    return Snapshot.from_objects(nodes, pods)


@dataclass(frozen=True)
class Cluster:
    nodes: list[Node]
    pods: list[Pod]

    @property
    def node_names(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes)

    def snapshot(self) -> Snapshot:
        return snapshot_of(self.nodes, self.pods)


@st.composite
def clusters(draw: st.DrawFn, min_nodes: int = 1, max_nodes: int = 6, max_pods: int = 8) -> Cluster:
    """Nodes n0..nK with random labels/taints/resources/images and pods placed on them."""
    k = draw(st.integers(min_nodes, max_nodes))
    names = tuple(f"n{i}" for i in range(k))
    nodes = [Node.from_dict(draw(node_manifests(nm))) for nm in names]
    pods = [
        Pod.from_dict(draw(pod_manifests(f"p{j}", node_name=draw(st.sampled_from(names)))))
        for j in range(draw(st.integers(0, max_pods)))
    ]
    return Cluster(nodes, pods)


def incoming_pods(node_names: tuple[str, ...] = ("n0", "n1", "n2")) -> st.SearchStrategy[Pod]:
    """The pod to schedule: requests, ports, tolerations, node selector / affinity, images."""
    return pod_manifests("incoming", node_names=node_names).map(Pod.from_dict)
