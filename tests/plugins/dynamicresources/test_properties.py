"""Property tests on random DRA clusters: the batch and the per-node Filter paths of the
scheduler place the same pods on the same nodes with the same devices; no device is ever
allocated to two claims; every allocation is on the pod's node. The clusters cover the batch
path's columns (every slice names its node) and its per-node memo (a pool all nodes see),
devices with the same content on many nodes (shared selector verdicts), request selectors,
and devices freed by deleted pods then asked for by new ones."""

from __future__ import annotations

from dataclasses import dataclass
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

from ._fixtures import device_class, exact, resource_slice

get_compiler()  # the CEL parser raises the recursion limit once: before hypothesis watches it

SETTINGS = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SELECTOR = 'device.attributes["some-driver"].model == "a"'
Want = tuple[int, bool]  # devices per pod, and whether its request selects model "a" only


@dataclass(frozen=True)
class Cluster:
    """Devices per node (their models; identical devices on many nodes share CEL verdicts),
    devices of a pool every node sees (none: every slice names its node, the batch path's
    columns), the pods, the pods deleted once they ran and the pods created after that."""

    devices: list[list[str]]
    shared: int
    wants: list[Want]
    deleted: list[int]
    later: list[Want]


def _want(want: Want | int) -> Want:
    return want if isinstance(want, tuple) else (want, False)


def _template(want: Want | int) -> dict[str, Any]:
    count, selective = want = _want(want)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": _template_name(want), "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [
            exact(count=count, selectors=[SELECTOR] if selective else [])]}}},
    }


def _template_name(want: Want) -> str:
    return f"t{want[0]}{'a' if want[1] else ''}"


def _pod(i: int, want: Want | int) -> Pod:
    want = _want(want)
    return Pod.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default"},
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": _template_name(want)}],
            },
        }
    )


def _models(models: list[str]) -> list[tuple[str, dict[str, Any]]]:
    return [(f"d{i}", {"model": {"string": m}}) for i, m in enumerate(models)]


def _run(cluster: Cluster, per_node: bool) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    clock = VirtualClock()
    store = MemoryStore(clock)
    objs: list[Any] = [DeviceClass.from_dict(device_class())]
    objs += [ResourceClaimTemplate.from_dict(_template(w)) for w in sorted({*cluster.wants, *cluster.later})]
    for n, models in enumerate(cluster.devices):
        objs.append(make_node().name(f"n{n}").obj())
        if models:
            objs.append(ResourceSlice.from_dict(resource_slice(f"n{n}", devices=_models(models))))
    if cluster.shared:
        shared = resource_slice("shared", devices=_models(["a", "b"] * cluster.shared)[: cluster.shared])
        del shared["spec"]["nodeName"]
        shared["spec"]["allNodes"] = True
        objs.append(ResourceSlice.from_dict(shared))
    objs += [_pod(i, w) for i, w in enumerate(cluster.wants)]
    store.load(objs)
    sched = Scheduler(store, clock, seed=1, options=SchedulerOptions(per_node_filters=per_node))
    mgr = ControllerManager(store, clock, seed=1)
    mgr.start()
    sched.run_until_idle(until=clock.now + 60)
    if cluster.deleted or cluster.later:
        # Freed devices (the claims of deleted pods go with them) reach the batch path's
        # memo through the allocated-device journals; new pods ask for them.
        for i in sorted(set(cluster.deleted)):
            if i < len(cluster.wants):
                store.delete("Pod", "default", f"p{i}")
        for j, w in enumerate(cluster.later):
            store.create(_pod(len(cluster.wants) + j, w))
        sched.run_until_idle(until=clock.now + 60)
    mgr.close()
    sched.close()
    return outcome(store)


def outcome(store: MemoryStore) -> tuple[dict[str, str | None], list[tuple[str, str, str]]]:
    """What a run decided: each pod's node, and each claim's devices by owning pod, sorted."""
    placed = {p.name: p.node_name for p in store.list("Pod")}
    allocated: list[tuple[str, str, str]] = []
    for c in store.list("ResourceClaim"):
        if c.allocation is not None:
            owner = c.meta.owner_references[0]["name"]
            allocated += [(owner, r.pool, r.device) for r in c.allocation.results]
    return placed, sorted(allocated)


WANTS = st.lists(st.tuples(st.integers(1, 2), st.booleans()), min_size=1, max_size=6)


@SETTINGS
@given(
    cluster=st.builds(
        Cluster,
        devices=st.lists(st.lists(st.sampled_from(["a", "b"]), max_size=3), min_size=1, max_size=4),
        shared=st.sampled_from([0, 0, 2]),
        wants=WANTS,
        deleted=st.lists(st.integers(0, 5), max_size=3),
        later=st.one_of(st.just([]), WANTS),
    )
)
def test_batch_and_per_node_paths_agree(cluster: Cluster) -> None:
    batch = _run(cluster, per_node=False)
    assert batch == _run(cluster, per_node=True)
    placed, allocated = batch
    devices = [(pool, dev) for _, pool, dev in allocated]
    assert len(devices) == len(set(devices))  # never one device for two claims
    assert all(placed[pod] == pool or pool == "shared" for pod, pool, _ in allocated)  # the pod's node's
    models = {(f"n{n}", f"d{i}"): m for n, ms in enumerate(cluster.devices) for i, m in enumerate(ms)}
    models.update((("shared", f"d{i}"), "ab"[i % 2]) for i in range(cluster.shared))
    for i, (want, selective) in enumerate([*cluster.wants, *cluster.later]):
        if f"p{i}" not in placed:
            continue  # deleted
        got = [models[(pool, dev)] for pod, pool, dev in allocated if pod == f"p{i}"]
        assert len(got) == (want if placed[f"p{i}"] else 0)
        assert not selective or set(got) <= {"a"}  # the request's selector holds
