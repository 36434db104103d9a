"""NodeInfo aggregation, after pkg/scheduler/framework/types_test.go (TestNewNodeInfo,
TestNodeInfoRemovePod, TestHostPortInfo_AddRemove, TestHostPortInfo_Check)."""

from __future__ import annotations

import pytest

from kubesched.api import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, Pod
from kubesched.cache import HostPortInfo, NodeInfo, PodInfo, is_scalar_resource_name
from kubesched.testing.wrappers import make_node, make_pod


def _pod(name: str, cpu: str = "", mem: str = "", **kw: str) -> Pod:
    b = make_pod().name(name).uid(name).node("node-1")
    res = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v}
    res.update(kw)
    return b.req(res).obj()


def _port_pod(name: str, cpu: str, mem: str, port: int) -> Pod:
    return make_pod().name(name).uid(name).node("node-1").container({
        "name": "c", "resources": {"requests": {"cpu": cpu, "memory": mem}},
        "ports": [{"containerPort": port, "hostPort": port, "protocol": "TCP", "hostIP": "127.0.0.1"}],
    }).obj()


def test_new_node_info_aggregates_requests_ports_and_generation() -> None:
    # TestNewNodeInfo: 100m+200m cpu, 500+1K memory, ports 80 and 8080 used.
    ni = NodeInfo.of(None, [_port_pod("test-1", "100m", "500", 80), _port_pod("test-2", "200m", "1Ki", 8080)])
    assert ni.requested == {"cpu": 300, "memory": 1524}
    assert ni.non_zero_requested == {"cpu": 300, "memory": 1524}
    assert ni.used_ports.items() == [("127.0.0.1", "TCP", 80), ("127.0.0.1", "TCP", 8080)]
    assert [pi.pod.name for pi in ni.pods] == ["test-1", "test-2"]


def test_non_zero_uses_defaults_only_for_missing_requests() -> None:
    best_effort = make_pod().name("be").uid("be").node("n").container_image("busybox").obj()
    ni = NodeInfo.of(None, [best_effort])
    assert ni.requested.get("cpu", 0) == 0
    assert ni.non_zero_requested == {"cpu": DEFAULT_MILLI_CPU_REQUEST, "memory": DEFAULT_MEMORY_REQUEST}
    explicit_zero = _pod("zero", cpu="0", mem="0")
    ni = NodeInfo.of(None, [explicit_zero])
    assert ni.non_zero_requested == {"cpu": 0, "memory": 0}


@pytest.mark.parametrize(
    ("name", "scalar"),
    [
        pytest.param("example.com/gpu", True, id="extended"),
        pytest.param("kubernetes.io/something", True, id="prefixed-native"),
        pytest.param("hugepages-2Mi", True, id="hugepages"),
        pytest.param("attachable-volumes-csi-x", True, id="attachable-volumes"),
        pytest.param("foo", False, id="unqualified"),
        pytest.param("cpu", False, id="native"),
    ],
)
def test_is_scalar_resource_name(name: str, scalar: bool) -> None:
    assert is_scalar_resource_name(name) is scalar


def test_untracked_resources_are_dropped_like_upstream_resource_add() -> None:
    node = make_node().name("n").capacity({"cpu": "4", "foo": "3", "example.com/gpu": "2"}).obj()
    pod = make_pod().name("p").uid("p").node("n").req({"cpu": "1", "foo": "1", "example.com/gpu": "1"}).obj()
    ni = NodeInfo.of(node, [pod])
    assert ni.allocatable == {"cpu": 4000, "pods": 32, "example.com/gpu": 2}
    assert ni.requested == {"cpu": 1000, "example.com/gpu": 1}


def test_remove_pod_swaps_last_into_slot() -> None:
    # removeFromSlice: the last element takes the removed one's place.
    pods = [_pod(f"p{i}", cpu="1") for i in range(4)]
    ni = NodeInfo.of(None, pods)
    assert ni.remove_pod(pods[0])
    assert [pi.pod.name for pi in ni.pods] == ["p3", "p1", "p2"]
    assert ni.requested["cpu"] == 3000


def test_remove_missing_pod_reports_false_and_keeps_generation() -> None:
    ni = NodeInfo.of(None, [_pod("a", cpu="1")])
    gen = ni.generation
    assert not ni.remove_pod(_pod("b"))
    assert ni.generation == gen


def test_every_change_bumps_generation() -> None:
    ni = NodeInfo()
    g0 = ni.generation
    ni.set_node(make_node().name("n").obj())
    g1 = ni.generation
    ni.add_pod(_pod("a"))
    g2 = ni.generation
    ni.remove_node()
    assert g0 < g1 < g2 < ni.generation
    assert ni.node is None and len(ni.pods) == 1


def _aff_pod(name: str, **affinity: object) -> Pod:
    d = make_pod().name(name).uid(name).node("n").to_dict()
    d["spec"]["affinity"] = affinity
    return Pod.from_dict(d)


_TERM = {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "zone"}
_HOST_TERM = {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"}
_REQ = "requiredDuringSchedulingIgnoredDuringExecution"
_PREF = "preferredDuringSchedulingIgnoredDuringExecution"


@pytest.mark.parametrize(
    ("affinity", "lists"),
    [
        pytest.param({}, (False, False, False), id="no-affinity"),
        pytest.param({"nodeAffinity": {_PREF: [{"weight": 1, "preference": {"matchExpressions": [
            {"key": "a", "operator": "Exists"}]}}]}}, (False, False, False), id="node-affinity-only"),
        pytest.param({"podAffinity": {}}, (True, False, False), id="empty-pod-affinity-counts"),
        pytest.param({"podAntiAffinity": {_PREF: [{"weight": 1, "podAffinityTerm": _TERM}]}},
                     (True, False, False), id="preferred-anti-affinity"),
        pytest.param({"podAntiAffinity": {_REQ: [_HOST_TERM]}}, (True, True, False), id="required-hostname"),
        pytest.param({"podAntiAffinity": {_REQ: [_HOST_TERM, _TERM]}}, (True, True, True),
                     id="required-non-host-scoped"),
    ],
)
def test_affinity_lists(affinity: dict[str, object], lists: tuple[bool, bool, bool]) -> None:
    pod = _aff_pod("p", **affinity)
    ni = NodeInfo.of(None, [pod])
    got = (bool(ni.pods_with_affinity), bool(ni.pods_with_required_anti_affinity),
           bool(ni.pods_with_required_non_host_scoped_anti_affinity))
    assert got == lists
    assert ni.remove_pod(pod)
    assert not (ni.pods_with_affinity or ni.pods_with_required_anti_affinity
                or ni.pods_with_required_non_host_scoped_anti_affinity)


def test_pod_info_terms() -> None:
    anti = {_REQ: [_TERM], _PREF: [{"weight": 3, "podAffinityTerm": _TERM}]}
    pi = PodInfo(_aff_pod("p", podAntiAffinity=anti))
    assert [t.topology_key for t in pi.required_anti_affinity_terms] == ["zone"]
    assert [w.weight for w in pi.preferred_anti_affinity_terms] == [3]
    assert pi.required_affinity_terms == () and pi.preferred_affinity_terms == ()


def test_pvc_ref_counts() -> None:
    def with_claims(name: str, *claims: str) -> Pod:
        b = make_pod().name(name).uid(name).node("n")
        for c in claims:
            b.pvc(c)
        return b.obj()

    a, b = with_claims("a", "c1", "c2"), with_claims("b", "c1")
    ni = NodeInfo.of(None, [a, b])
    assert ni.pvc_ref_counts == {"default/c1": 2, "default/c2": 1}
    ni.remove_pod(a)
    assert ni.pvc_ref_counts == {"default/c1": 1}
    ni.remove_pod(b)
    assert ni.pvc_ref_counts == {}


def test_snapshot_copy_is_independent() -> None:
    ni = NodeInfo.of(make_node().name("n").capacity({"cpu": "2"}).obj(), [_pod("a", cpu="1")])
    c = ni.snapshot_copy()
    c.add_pod(_pod("b", cpu="1"))
    assert ni.requested["cpu"] == 1000 and len(ni.pods) == 1
    assert c.requested["cpu"] == 2000 and len(c.pods) == 2


# TestHostPortInfo_AddRemove / TestHostPortInfo_Check (framework/types_test.go).
@pytest.mark.parametrize(
    ("added", "removed", "length"),
    [
        pytest.param([("127.0.0.1", "TCP", 80), ("127.0.0.1", "UDP", 80), ("127.0.0.1", "TCP", 8080),
                      ("127.0.0.1", "UDP", 8080)], [("127.0.0.1", "TCP", 80), ("127.0.0.1", "UDP", 80)], 2,
                     id="normal-add-and-remove"),
        pytest.param([("", "TCP", 80), ("0.0.0.0", "TCP", 80)], [("", "TCP", 80)], 0,
                     id="empty-ip-is-0.0.0.0"),
        pytest.param([("127.0.0.1", "", 80), ("127.0.0.1", "TCP", 80)], [("127.0.0.1", "", 80)], 0,
                     id="empty-protocol-is-tcp"),
        pytest.param([("127.0.0.1", "TCP", 0), ("127.0.0.1", "TCP", -1)], [], 0,
                     id="non-positive-port-ignored"),
        pytest.param([("127.0.0.1", "TCP", 80), ("127.0.0.1", "TCP", 80)], [("127.0.0.1", "TCP", 80)], 0,
                     id="set-semantics-one-remove-frees"),
    ],
)
def test_host_port_info_add_remove(added: list[tuple[str, str, int]], removed: list[tuple[str, str, int]],
                                   length: int) -> None:
    h = HostPortInfo()
    for ip, proto, port in added:
        h.add(ip, proto, port)
    for ip, proto, port in removed:
        h.remove(ip, proto, port)
    assert len(h) == length


@pytest.mark.parametrize(
    ("added", "check", "conflict"),
    [
        pytest.param([("127.0.0.1", "TCP", 80)], ("127.0.0.1", "TCP", 80), True, id="same-ip-port"),
        pytest.param([("127.0.0.1", "TCP", 80)], ("127.0.0.2", "TCP", 80), False, id="other-ip"),
        pytest.param([("127.0.0.1", "TCP", 80)], ("127.0.0.1", "UDP", 80), False, id="other-protocol"),
        pytest.param([("127.0.0.1", "TCP", 80)], ("0.0.0.0", "TCP", 80), True, id="check-wildcard"),
        pytest.param([("0.0.0.0", "TCP", 80)], ("127.0.0.1", "TCP", 80), True, id="used-wildcard"),
        pytest.param([("0.0.0.0", "TCP", 80)], ("127.0.0.1", "TCP", 0), False, id="port-zero-never"),
    ],
)
def test_host_port_info_check(added: list[tuple[str, str, int]], check: tuple[str, str, int],
                              conflict: bool) -> None:
    h = HostPortInfo()
    for ip, proto, port in added:
        h.add(ip, proto, port)
    assert h.check_conflict(*check) is conflict
