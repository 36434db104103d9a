"""Pod/Node parsing: PodRequests, QoS, API defaulting, copy-on-write edits and round trips."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.api import DELETE, Node, Pod, with_paths
from kubesched.api.loader import load_paths
from kubesched.testing import make_node, make_pod

FIXTURES = Path(__file__).parent.parent / "fixtures"
Gi = 2**30
Mi = 2**20


# -- PodRequests (k8s.io/component-helpers/resource/helpers.go) -------------------------------
@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        pytest.param(
            make_pod().name("p").req({"cpu": "1", "memory": "1Gi"}).req({"cpu": "2"}),
            {"cpu": 3000, "memory": Gi},
            id="two container resource requests",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "1"}).init_req({"cpu": "3"}),
            {"cpu": 3000},
            id="init container dominates",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "2"}).init_req({"cpu": "1"}),
            {"cpu": 2000},
            id="app containers dominate init",
        ),
        # sidecar 1 cpu started before init 2 cpu: init step = 1+2 = 3; app sum = 1 + 1 = 2 -> 3
        pytest.param(
            make_pod().name("p").req({"cpu": "1"}).sidecar_req({"cpu": "1"}).init_req({"cpu": "2"}),
            {"cpu": 3000},
            id="restartable init container counts before later init",
        ),
        # init 2 before sidecar 1: init step 2; app sum = 1 + 1 = 2 -> 2
        pytest.param(
            make_pod().name("p").req({"cpu": "1"}).init_req({"cpu": "2"}).sidecar_req({"cpu": "1"}),
            {"cpu": 2000},
            id="restartable init container after init",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "1"}).overhead({"cpu": "250m", "memory": "64Mi"}),
            {"cpu": 1250, "memory": 64 * Mi},
            id="pod overhead added",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "1", "memory": "1Gi"}).pod_level_req({"cpu": "3"}),
            {"cpu": 3000, "memory": Gi},
            id="pod-level cpu replaces container aggregate",
        ),
        pytest.param(
            make_pod()
            .name("p")
            .container({"name": "c", "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}),
            {"cpu": 2000, "memory": Gi},
            id="requests default to limits",
        ),
        pytest.param(make_pod().name("p").req({}), {}, id="best effort has no requests"),
    ],
)
def test_pod_requests(pod: Any, expected: dict[str, int]) -> None:
    assert pod.obj().requests == expected


@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        pytest.param(
            make_pod().name("p").container({"name": "c"}), {"cpu": 100, "memory": 200 * Mi}, id="defaults"
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "0"}),
            {"cpu": 0, "memory": 200 * Mi},
            id="explicit zero is not missing",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "1"}).container({"name": "c2"}),
            {"cpu": 1100, "memory": 400 * Mi},
            id="per container defaults",
        ),
    ],
)
def test_non_zero_requests(pod: Any, expected: dict[str, int]) -> None:
    assert pod.obj().non_zero_requests == expected


# -- QoS (pkg/apis/core/v1/helper/qos/qos.go) ---------------------------------------------------
@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        pytest.param(make_pod().name("p").container({"name": "c"}), "BestEffort", id="best-effort"),
        pytest.param(
            make_pod().name("p").req({"cpu": "1", "memory": "1Gi"}, limits={"cpu": "1", "memory": "1Gi"}),
            "Guaranteed",
            id="guaranteed",
        ),
        pytest.param(
            make_pod()
            .name("p")
            .container({"name": "c", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}),
            "Guaranteed",
            id="guaranteed-limits-only-defaulted",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "500m", "memory": "1Gi"}, limits={"cpu": "1", "memory": "1Gi"}),
            "Burstable",
            id="burstable-request-below-limit",
        ),
        pytest.param(
            make_pod().name("p").req({"cpu": "1"}, limits={"cpu": "1"}),
            "Burstable",
            id="burstable-no-memory-limit",
        ),
        pytest.param(
            make_pod()
            .name("p")
            .req({"cpu": "1", "memory": "1Gi"}, limits={"cpu": "1", "memory": "1Gi"})
            .container({"name": "c"}),
            "Burstable",
            id="burstable-one-container-unlimited",
        ),
    ],
)
def test_qos_class(pod: Any, expected: str) -> None:
    assert pod.obj().qos_class == expected


def test_qos_class_prefers_status() -> None:
    d = make_pod().name("p").to_dict()
    d["status"] = {"qosClass": "Guaranteed"}
    assert Pod.from_dict(d).qos_class == "Guaranteed"


# -- copy-on-write edits ----------------------------------------------------------------------------
def test_with_paths_copies_only_changed_paths() -> None:
    raw = {"metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}}
    before = copy.deepcopy(raw)
    out = with_paths(raw, {("spec", "nodeName"): "n1", ("metadata", "labels", "a"): DELETE})
    assert raw == before
    assert out["spec"]["nodeName"] == "n1"
    assert out["metadata"]["labels"] == {}
    assert out["spec"]["containers"] is raw["spec"]["containers"]


def test_pod_with_changes_cheap_path_keeps_spec() -> None:
    pod = make_pod().name("p").req({"cpu": "1"}).toleration("k").obj()
    bound = pod.with_changes({("spec", "nodeName"): "n1", ("status", "phase"): "Running"})
    assert (bound.node_name, bound.phase, bound.requests) == ("n1", "Running", {"cpu": 1000})
    assert bound.tolerations is pod.tolerations
    assert pod.node_name == "" and pod.raw["spec"].get("nodeName") is None


def test_pod_with_changes_reparses_other_spec() -> None:
    pod = make_pod().name("p").req({"cpu": "1"}).obj()
    changed = pod.with_changes({("spec", "nodeSelector"): {"zone": "a"}})
    assert changed.node_selector == {"zone": "a"}


def test_node_with_changes() -> None:
    node = make_node().name("n").capacity({"cpu": "2"}).obj()
    assert node.with_changes({("spec", "unschedulable"): True}).unschedulable


# -- builders ------------------------------------------------------------------------------------------
def test_make_node_capacity_defaults_pods_32() -> None:
    node = make_node().name("n").capacity({"cpu": "4", "memory": "8Gi"}).obj()
    assert node.allocatable == node.capacity == {"pods": 32, "cpu": 4000, "memory": 8 * Gi}


def test_make_pod_req_adds_a_container_per_call() -> None:
    pod = make_pod().name("p").req({"cpu": "1"}).req({"cpu": "1"}).obj()
    assert [c.name for c in pod.containers] == ["con0", "con1"]


def test_builder_affinity_and_spread() -> None:
    pod = (
        make_pod()
        .name("p")
        .node_affinity_in("zone", ["a", "b"])
        .pod_affinity_in("app", "zone", ["db"], kind="preferred", weight=5)
        .pod_anti_affinity("kubernetes.io/hostname", {"app": "web"})
        .spread_constraint(1, "zone", "DoNotSchedule", {"app": "web"}, min_domains=2)
        .obj()
    )
    assert pod.affinity is not None and pod.affinity.node_required is not None
    assert pod.affinity.node_required.matches("n", {"zone": "b"})
    assert pod.affinity.pod_affinity_preferred[0].weight == 5
    assert pod.affinity.pod_anti_affinity_required[0].topology_key == "kubernetes.io/hostname"
    assert pod.topology_spread_constraints[0].min_domains == 2


# -- round trips ------------------------------------------------------------------------------------------
def test_dump_round_trips_unchanged() -> None:
    raw = yaml.safe_load((FIXTURES / "kubectl-dump.yaml").read_text())
    loaded = load_paths([FIXTURES / "kubectl-dump.yaml"])
    assert len(loaded.objects) == len(raw["items"])
    for item, obj in zip(raw["items"], loaded.objects, strict=True):
        assert obj.to_dict() == item, item["metadata"]["name"]


def test_round_trip_preserves_unknown_fields() -> None:
    d = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n", "x-unknown": {"k": [1, 2]}},
        "spec": {"providerID": "x"},
        "status": {"nodeInfo": {"kubeletVersion": "v1.35.0"}},
    }
    assert Node.from_dict(d).to_dict() == d


def test_host_network_ports_default_host_port() -> None:
    d = (
        make_pod()
        .name("p")
        .container({"name": "c", "ports": [{"containerPort": 53, "protocol": "UDP"}]})
        .to_dict()
    )
    d["spec"]["hostNetwork"] = True
    ports = Pod.from_dict(d).host_ports
    assert [(p.host_port, p.protocol) for p in ports] == [(53, "UDP")]
    d["spec"]["hostNetwork"] = False
    assert Pod.from_dict(d).host_ports == ()


def test_snapshot_of_places_pods_on_their_nodes() -> None:
    from kubesched.testing import snapshot_of

    nodes = [make_node().name(n).capacity({"cpu": "4"}).images({"img:1": 100}).obj() for n in ("a", "b")]
    pods = [
        make_pod().name("p1").node("a").req({"cpu": "1"}).obj(),
        make_pod().name("p2").req({"cpu": "1"}).obj(),
        make_pod().name("p3").node("gone").obj(),
    ]
    snap = snapshot_of(nodes, pods)
    a, b = snap.get("a"), snap.get("b")
    assert a is not None and b is not None
    assert [pi.pod.name for pi in a.pods] == ["p1"] and b.pods == []
    assert a.requested.get("cpu") == 1000
