"""Property tests on random DRA clusters: the batch and the per-node Filter paths of the
scheduler place the same pods on the same nodes with the same devices; no device is ever
allocated to two claims; every allocation is on the pod's node."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import DeviceClass, Pod, ResourceClaimTemplate, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager
from kubesched.dra.cel import get_compiler
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node

from ._fixtures import CLASS_NAME, device_class, resource_slice

get_compiler()  # the CEL parser raises the recursion limit once: before hypothesis watches it

SETTINGS = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

Cluster = tuple[list[int], list[int]]  # devices per node, devices per pod


def _template(count: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": f"t{count}", "namespace": "default"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "req-1", "exactly": {"deviceClassName": CLASS_NAME, "count": count}}
                    ]
                }
            }
        },
    }


def _pod(i: int, count: int) -> Pod:
    return Pod.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default"},
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": f"t{count}"}],
            },
        }
    )


def _run(cluster: Cluster, per_node: bool) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    devices, wants = cluster
    clock = VirtualClock()
    store = MemoryStore(clock)
    objs: list[Any] = [DeviceClass.from_dict(device_class())]
    objs += [ResourceClaimTemplate.from_dict(_template(c)) for c in sorted(set(wants))]
    for n, count in enumerate(devices):
        objs.append(make_node().name(f"n{n}").obj())
        if count:
            objs.append(
                ResourceSlice.from_dict(resource_slice(f"n{n}", devices=[f"d{i}" for i in range(count)]))
            )
    objs += [_pod(i, c) for i, c in enumerate(wants)]
    store.load(objs)
    sched = Scheduler(store, clock, seed=1, options=SchedulerOptions(per_node_filters=per_node))
    mgr = ControllerManager(store, clock, seed=1)
    mgr.start()
    sched.run_until_idle(until=clock.now + 60)
    placed = {p.name: p.node_name for p in store.list("Pod")}
    allocated = []
    for c in store.list("ResourceClaim"):
        if c.allocation is not None:
            owner = c.meta.owner_references[0]["name"]
            allocated += [(owner, r.pool, r.device) for r in c.allocation.results]
    mgr.close()
    sched.close()
    return placed, sorted(allocated)


@SETTINGS
@given(
    cluster=st.tuples(
        st.lists(st.integers(0, 3), min_size=1, max_size=4),
        st.lists(st.integers(1, 2), min_size=1, max_size=6),
    )
)
def test_batch_and_per_node_paths_agree(cluster: Cluster) -> None:
    batch = _run(cluster, per_node=False)
    assert batch == _run(cluster, per_node=True)
    placed, allocated = batch
    devices = [(pool, dev) for _, pool, dev in allocated]
    assert len(devices) == len(set(devices))  # never one device for two claims
    assert all(placed[pod] == pool for pod, pool, _ in allocated)  # devices of the pod's node
    for i, want in enumerate(cluster[1]):
        got = sum(1 for pod, _, _ in allocated if pod == f"p{i}")
        assert got == (want if placed[f"p{i}"] else 0)
