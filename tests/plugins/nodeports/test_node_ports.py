"""NodePorts (node_ports_test.go): PreFilter Skip, conflicts per protocol / hostIP, hints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kubesched.api import Pod
from kubesched.framework import Code, QueueingHint
from kubesched.plugins.nodeports import ERR_REASON, NodePorts
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import filter_all, simple
from ..strategies import Cluster, clusters, incoming_pods

Port = tuple[str, str, int]  # protocol, host ip, port
FAIL = (Code.UNSCHEDULABLE, (ERR_REASON,))
OK = (Code.SUCCESS, ())


def pod_ports(name: str, *ports: Port, node: str = "") -> Pod:
    b = make_pod().name(name).uid(name)
    for proto, ip, port in ports:
        b.host_port(port, proto, ip)
    if node:
        b.node(node)
    return b.obj()


CASES = [
    pytest.param([("UDP", "127.0.0.1", 8080)], [("UDP", "127.0.0.1", 8080)], FAIL, id="same udp port"),
    pytest.param([("TCP", "127.0.0.1", 8080)], [("TCP", "127.0.0.1", 8080)], FAIL, id="same tcp port"),
    pytest.param([("TCP", "127.0.0.1", 8080)], [("TCP", "127.0.0.2", 8080)], OK, id="different host ip"),
    pytest.param([("UDP", "127.0.0.1", 8080)], [("TCP", "127.0.0.1", 8080)], OK, id="different protocol"),
    pytest.param(
        [("UDP", "127.0.0.1", 8000), ("UDP", "127.0.0.1", 8080)],
        [("UDP", "127.0.0.1", 8080)],
        FAIL,
        id="second udp port conflict",
    ),
    pytest.param(
        [("TCP", "127.0.0.1", 8001), ("UDP", "127.0.0.1", 8080)],
        [("TCP", "127.0.0.1", 8001), ("UDP", "127.0.0.1", 8081)],
        FAIL,
        id="first tcp port conflict",
    ),
    pytest.param(
        [("TCP", "0.0.0.0", 8001)],
        [("TCP", "127.0.0.1", 8001)],
        FAIL,
        id="first tcp port conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        [("TCP", "10.0.10.10", 8001), ("TCP", "0.0.0.0", 8001)],
        [("TCP", "127.0.0.1", 8001)],
        FAIL,
        id="TCP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        [("TCP", "127.0.0.1", 8001)],
        [("TCP", "0.0.0.0", 8001)],
        FAIL,
        id="second tcp port conflict to 0.0.0.0 hostIP",
    ),
    pytest.param(
        [("UDP", "127.0.0.1", 8001)], [("TCP", "0.0.0.0", 8001)], OK, id="second different protocol"
    ),
    pytest.param(
        [("UDP", "127.0.0.1", 8001)],
        [("TCP", "0.0.0.0", 8001), ("UDP", "0.0.0.0", 8001)],
        FAIL,
        id="UDP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param([("TCP", "", 8001)], [("TCP", "127.0.0.1", 8001)], FAIL, id="empty hostIP means 0.0.0.0"),
]


@pytest.mark.parametrize(("want_ports", "used_ports", "want"), CASES)
def test_filter(want_ports: list[Port], used_ports: list[Port], want: tuple[Code, tuple[str, ...]]) -> None:
    existing = pod_ports("existing", *used_ports, node="n")
    snap = snapshot_of([make_node().name("n").obj()], [existing])
    assert simple(filter_all(NodePorts(), pod_ports("p", *want_ports), snap).statuses[0]) == want


def test_nothing_running_pre_filter_skips() -> None:
    run = filter_all(NodePorts(), make_pod().name("p").obj(), snapshot_of([make_node().name("n").obj()]))
    assert run.pre_filter_status is not None and run.pre_filter_status.code == Code.SKIP


def test_only_sidecar_init_container_ports_count() -> None:
    port = {"containerPort": 80, "hostPort": 80, "protocol": "TCP"}
    d = make_pod().name("p").to_dict()
    d["spec"]["initContainers"] = [{"name": "init", "ports": [port]}]
    assert Pod.from_dict(d).host_ports == ()
    d["spec"]["initContainers"][0]["restartPolicy"] = "Always"
    assert len(Pod.from_dict(d).host_ports) == 1


def test_pod_deleted_hint() -> None:
    pod_ev, node_ev = NodePorts().events_to_register()
    assert pod_ev.hint is not None and node_ev.hint is None
    p = pod_ports("p", ("TCP", "", 8080))
    assert pod_ev.hint(p, pod_ports("q", ("TCP", "", 8080), node="n"), None) == QueueingHint.QUEUE
    assert (
        pod_ev.hint(p, pod_ports("q", ("TCP", "", 8080)), None) == QueueingHint.QUEUE_SKIP
    )  # was unscheduled
    assert pod_ev.hint(p, pod_ports("q", ("TCP", "", 9090), node="n"), None) == QueueingHint.QUEUE_SKIP
    assert pod_ev.hint(p, pod_ports("q", node="n"), None) == QueueingHint.QUEUE_SKIP


@settings(max_examples=30, deadline=None, derandomize=True)
@given(cluster=clusters(), p=incoming_pods())
def test_batch_agrees(cluster: Cluster, p: Pod) -> None:
    filter_all(NodePorts(), p, cluster.snapshot())
