"""Property test on random DRA clusters with extended resources backed by DRA: pods with claims
from a template and pods requesting ``example.com/gpu`` (served by the class), nodes with
devices and some advertising ``example.com/gpu`` through a device plugin. The batch and the
per-node Filter paths place the same pods with the same devices; no device goes to two claims;
a pod gets devices only on a node without the resource in its allocatable, as many as it
requested."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kubesched.api import DeviceClass, Pod, ResourceClaimTemplate, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node, make_pod

from ._fixtures import device_class, resource_slice
from .test_properties import SETTINGS, _pod, _template, outcome

GPU = "example.com/gpu"
NodeSpec = tuple[int, int | None]  # devices in the slice, example.com/gpu in allocatable (None: absent)
PodSpec = tuple[bool, int]  # (requests example.com/gpu instead of a claim, count)


def _run(nodes: list[NodeSpec], pods: list[PodSpec], per_node: bool
         ) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    clock = VirtualClock()
    store = MemoryStore(clock)
    cls = device_class()
    cls["spec"]["extendedResourceName"] = GPU
    objs: list[Any] = [DeviceClass.from_dict(cls)]
    objs += [ResourceClaimTemplate.from_dict(_template(c)) for c in sorted({c for e, c in pods if not e})]
    for n, (devices, plugin) in enumerate(nodes):
        b = make_node().name(f"n{n}")
        if plugin is not None:
            b = b.capacity({GPU: str(plugin), "cpu": "32", "memory": "64Gi"})
        objs.append(b.obj())
        if devices:
            slice_ = resource_slice(f"n{n}", devices=[f"d{i}" for i in range(devices)])
            objs.append(ResourceSlice.from_dict(slice_))
    for i, (extended, count) in enumerate(pods):
        pod: Pod = (make_pod().name(f"p{i}").req({GPU: str(count)}, limits={GPU: str(count)}).obj()
                    if extended else _pod(i, count))
        objs.append(pod)
    store.load(objs)
    sched = Scheduler(store, clock, seed=1, options=SchedulerOptions(per_node_filters=per_node))
    mgr = ControllerManager(store, clock, seed=1)
    mgr.start()
    sched.run_until_idle(until=clock.now + 60)
    mgr.close()
    sched.close()
    return outcome(store)


@SETTINGS
@given(
    nodes=st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.integers(0, 2))),
                   min_size=1, max_size=4),
    pods=st.lists(st.tuples(st.booleans(), st.integers(1, 2)), min_size=1, max_size=6),
)
def test_batch_and_per_node_paths_agree_with_extended_resources(nodes: list[NodeSpec],
                                                                 pods: list[PodSpec]) -> None:
    batch = _run(nodes, pods, per_node=False)
    assert batch == _run(nodes, pods, per_node=True)
    placed, allocated = batch
    devices = [(pool, dev) for _, pool, dev in allocated]
    assert len(devices) == len(set(devices))  # never one device for two claims
    assert all(placed[pod] == pool for pod, pool, _ in allocated)  # devices of the pod's node
    for i, (extended, want) in enumerate(pods):
        got = sum(1 for pod, _, _ in allocated if pod == f"p{i}")
        node = placed[f"p{i}"]
        if not node or (extended and nodes[int(node[1:])][1]):
            assert got == 0
        else:
            assert got == want
