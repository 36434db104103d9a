"""NodeResourcesFit Filter (fit_test.go TestEnoughRequests and friends), per-node and batch."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import KubeVersion, Pod
from kubesched.framework import Code
from kubesched.plugins.noderesources import Fit, NodeResourcesFitArgs, fits
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle, filter_all, simple

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_RES = "kubernetes.io/something"
HUGE_A = "hugepages-2Mi"

UNSCHED = Code.UNSCHEDULABLE
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
OK = (Code.SUCCESS, ())


def res(cpu: int = 0, mem: int = 0, **extra: int) -> dict[str, Any]:
    """Upstream's framework.Resource{MilliCPU, Memory, ScalarResources} as a request map."""
    out: dict[str, Any] = {"cpu": f"{cpu}m", "memory": str(mem)}
    names = {"ext_a": EXT_A, "ext_b": EXT_B, "k8s": K8S_RES, "huge": HUGE_A, "storage": "ephemeral-storage"}
    out.update({names[k]: str(v) for k, v in extra.items()})
    return out


def pod(
    *containers: dict[str, Any],
    init: tuple[dict[str, Any], ...] = (),
    overhead: dict[str, Any] | None = None,
    name: str = "p",
    node: str = "",
) -> Pod:
    b = make_pod().name(name).uid(name)
    for c in containers:
        b.req(c)
    for c in init:
        b.init_req(c)
    if overhead:
        b.overhead(overhead)
    if node:
        b.node(node)
    return b.obj()


# the node of upstream's tests: makeResources(10, 20, 32, 5, 20, 5) -> cpu 10m, memory 20, pods 32,
# example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5
NODE_RES = {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20", HUGE_A: "5"}


CASES = [
    pytest.param(pod(), pod(res(10, 20)), None, OK, id="no resources requested always fits"),
    pytest.param(
        pod(res(1, 1)),
        pod(res(10, 20)),
        None,
        (UNSCHED, ("Insufficient cpu", "Insufficient memory")),
        id="too many resources fails",
    ),
    pytest.param(
        pod(res(1, 1), init=(res(3, 1),)),
        pod(res(8, 19)),
        None,
        (UNSCHED, ("Insufficient cpu",)),
        id="too many resources fails due to init container cpu",
    ),
    pytest.param(
        pod(res(1, 1), init=(res(3, 1), res(2, 1))),
        pod(res(8, 19)),
        None,
        (UNSCHED, ("Insufficient cpu",)),
        id="too many resources fails due to highest init container cpu",
    ),
    pytest.param(
        pod(res(1, 1), init=(res(1, 3),)),
        pod(res(9, 19)),
        None,
        (UNSCHED, ("Insufficient memory",)),
        id="too many resources fails due to init container memory",
    ),
    pytest.param(
        pod(res(1, 1), init=(res(1, 1),)),
        pod(res(9, 19)),
        None,
        OK,
        id="init container fits because it's the max, not sum, of containers and init containers",
    ),
    pytest.param(pod(res(1, 1)), pod(res(5, 5)), None, OK, id="both resources fit"),
    pytest.param(
        pod(res(2, 1)), pod(res(9, 5)), None, (UNSCHED, ("Insufficient cpu",)), id="one resource memory fits"
    ),
    pytest.param(
        pod(res(1, 2)), pod(res(5, 19)), None, (UNSCHED, ("Insufficient memory",)), id="one resource cpu fits"
    ),
    pytest.param(pod(res(5, 1)), pod(res(5, 19)), None, OK, id="equal edge case"),
    pytest.param(pod(res(ext_a=1)), pod(res()), None, OK, id="extended resource fits"),
    pytest.param(
        pod(res(ext_a=10)),
        pod(res()),
        None,
        (UNRESOLVABLE, (f"Insufficient {EXT_A}",)),
        id="extended resource capacity enforced",
    ),
    pytest.param(
        pod(res(ext_a=1)),
        pod(res(ext_a=5)),
        None,
        (UNSCHED, (f"Insufficient {EXT_A}",)),
        id="extended resource allocatable enforced",
    ),
    pytest.param(
        pod(res(ext_b=1)),
        pod(res()),
        None,
        (UNRESOLVABLE, (f"Insufficient {EXT_B}",)),
        id="extended resource allocatable enforced for unknown resource",
    ),
    pytest.param(
        pod(res(), init=(res(ext_b=1),)),
        pod(res()),
        None,
        (UNRESOLVABLE, (f"Insufficient {EXT_B}",)),
        id="extended resource allocatable enforced for unknown resource for init container",
    ),
    pytest.param(
        pod(res(k8s=10)),
        pod(res()),
        None,
        (UNRESOLVABLE, (f"Insufficient {K8S_RES}",)),
        id="kubernetes.io resource capacity enforced",
    ),
    pytest.param(
        pod(res(huge=10)),
        pod(res()),
        None,
        (UNRESOLVABLE, (f"Insufficient {HUGE_A}",)),
        id="hugepages resource capacity enforced",
    ),
    pytest.param(
        pod(res(huge=3)),
        pod(res(huge=3)),
        None,
        (UNSCHED, (f"Insufficient {HUGE_A}",)),
        id="hugepages resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        pod(res(ext_b=1)),
        pod(res()),
        {"ignoredResources": [EXT_B]},
        OK,
        id="skip checking ignored extended resource",
    ),
    pytest.param(
        pod(res(ext_b=1)),
        pod(res()),
        {"ignoredResourceGroups": ["example.com"]},
        OK,
        id="skip checking ignored extended resource via resource groups",
    ),
    pytest.param(
        pod(res(k8s=10)),
        pod(res()),
        {"ignoredResources": [K8S_RES]},
        (UNRESOLVABLE, (f"Insufficient {K8S_RES}",)),
        id="ignoredResources only applies to extended resources",
    ),
    pytest.param(
        pod(res(1, 1), overhead={"cpu": "3m", "memory": "13"}),
        pod(res(5, 5)),
        None,
        OK,
        id="resources + pod overhead fits",
    ),
    pytest.param(
        pod(res(1, 1), overhead={"cpu": "1m", "memory": "15"}),
        pod(res(5, 5)),
        None,
        (UNSCHED, ("Insufficient memory",)),
        id="requests + overhead does not fit for memory",
    ),
    pytest.param(
        pod(res(ext_b=0)),
        pod(res()),
        None,
        OK,
        id="skip checking extended resource request with quantity zero",
    ),
    pytest.param(
        pod(res(storage=25)),
        pod(res()),
        None,
        (UNRESOLVABLE, ("Insufficient ephemeral-storage",)),
        id="storage ephemeral local storage request exceeds allocatable",
    ),
    pytest.param(
        pod(res(storage=10)),
        pod(res(storage=11)),
        None,
        (UNSCHED, ("Insufficient ephemeral-storage",)),
        id="ephemeral local storage is used by existing pods",
    ),
    pytest.param(pod(res(storage=10)), pod(res(storage=10)), None, OK, id="ephemeral local storage fits"),
    pytest.param(
        pod(res(11, 1)),
        pod(res()),
        None,
        (UNRESOLVABLE, ("Insufficient cpu",)),
        id="request exceeding allocatable is unresolvable",
    ),
    pytest.param(
        pod(res(11, 1)),
        pod(res(0, 20)),
        None,
        (UNRESOLVABLE, ("Insufficient cpu", "Insufficient memory")),
        id="one unresolvable resource makes the status unresolvable",
    ),
]


@pytest.mark.parametrize(("incoming", "existing", "args", "want"), CASES)
def test_enough_requests(
    incoming: Pod, existing: Pod, args: dict[str, Any] | None, want: tuple[Code, tuple[str, ...]]
) -> None:
    n = make_node().name("n").capacity(NODE_RES).obj()
    existing = Pod.from_dict({**existing.to_dict(), "spec": {**existing.to_dict()["spec"], "nodeName": "n"}})
    pl = Fit(NodeResourcesFitArgs.from_dict(args)) if args else Fit()
    assert simple(filter_all(pl, incoming, snapshot_of([n], [existing])).statuses[0]) == want


def test_too_many_pods() -> None:
    # pods allocatable 1 and one pod already there; "Too many pods" is never unresolvable
    n = make_node().name("n").capacity({"cpu": "10m", "memory": "20", "pods": "1"}).obj()
    snap = snapshot_of([n], [pod(res(), name="e", node="n")])
    assert simple(filter_all(Fit(), pod(res(1, 1)), snap).statuses[0]) == (UNSCHED, ("Too many pods",))
    assert simple(filter_all(Fit(), pod(res(11, 1)), snap).statuses[0]) == (
        UNRESOLVABLE,
        ("Too many pods", "Insufficient cpu"),
    )


def test_scalar_reasons_are_sorted_by_name() -> None:
    n = make_node().name("n").capacity(NODE_RES).obj()
    st = filter_all(Fit(), pod(res(ext_b=1, ext_a=6)), snapshot_of([n])).statuses[0]
    assert st.reasons == (f"Insufficient {EXT_A}", f"Insufficient {EXT_B}")


def test_pod_level_resources() -> None:
    n = make_node().name("n").capacity(NODE_RES).obj()
    p = (
        make_pod()
        .name("p")
        .req({"cpu": "1m", "memory": "1"})
        .pod_level_req({"cpu": "11m", "memory": "5"})
        .obj()
    )
    assert simple(filter_all(Fit(), p, snapshot_of([n])).statuses[0]) == (UNRESOLVABLE, ("Insufficient cpu",))


def test_sidecar_requests_add_up() -> None:
    n = make_node().name("n").capacity(NODE_RES).obj()
    p = make_pod().name("p").req({"cpu": "6m"}).sidecar_req({"cpu": "5m"}).obj()  # 6 + 5 > 10
    assert simple(filter_all(Fit(), p, snapshot_of([n])).statuses[0]) == (UNRESOLVABLE, ("Insufficient cpu",))


def test_fits_helper() -> None:
    n = make_node().name("n").capacity(NODE_RES).obj()
    [r] = fits(pod(res(11)), snapshot_of([n]).node_info_list[0])
    assert (r.resource_name, r.requested, r.used, r.capacity, r.unresolvable) == ("cpu", 11, 0, 10, True)


def test_filter_without_pre_filter_is_error() -> None:
    from kubesched.framework import CycleState

    n = make_node().name("n").capacity(NODE_RES).obj()
    st = Fit().filter(CycleState(), pod(res(1)), snapshot_of([n]).node_info_list[0])
    assert st is not None and st.code == Code.ERROR


@pytest.mark.parametrize(("release", "code"), [("1.32", UNSCHED), ("1.33", UNSCHED), ("1.34", UNRESOLVABLE)])
def test_request_above_allocatable_is_unresolvable_from_1_34(release: str, code: Code) -> None:
    """kubernetes PR #131345 (v1.34): before, a request above the node's whole allocatable was
    plain Unschedulable, and preemption tried the node (per-node and batch paths alike)."""
    n = make_node().name("n").capacity(NODE_RES).obj()
    pl = Fit(None, FakeHandle(kube_version=KubeVersion.parse(release)))
    got = filter_all(pl, pod(res(11, 1)), snapshot_of([n], [pod(res(0, 20), name="e", node="n")])).statuses[0]
    assert simple(got) == (code, ("Insufficient cpu", "Insufficient memory"))
