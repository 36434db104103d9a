"""NodeResourcesFit and extended resources backed by DRA (DRAExtendedResource): upstream's
TestEnoughRequests cases about them (fit_test.go, master 2026, with upstream's names), on the
per-node and the batch path, plus the DeviceClass and node queueing hints."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import DeviceClass, Node, Pod
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import Code, QueueingHint
from kubesched.plugins.noderesources import Fit
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle, filter_all, simple

EXT_A, EXT_B = "example.com/aaa", "example.com/bbb"
EXT_DRA = "extended.resource.dra.io/something"  # extendedResourceDRA
CLASS_NAME = "device-class-name"
NODE_RES = {"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5", "ephemeral-storage": "20",
            "hugepages-2Mi": "5"}
OK = (Code.SUCCESS, ())
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def device_class(name: str = CLASS_NAME, extended: str | None = EXT_DRA) -> DeviceClass:
    spec: dict[str, Any] = {} if extended is None else {"extendedResourceName": extended}
    return DeviceClass.from_dict(
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}
    )


def fit(enabled: bool, *classes: DeviceClass) -> Fit:
    """NewFit with a DRA manager whose store holds deviceClassWithExtendResourceName."""
    store = MemoryStore(VirtualClock())
    store.load(list(classes) or [device_class()])
    return Fit(handle=FakeHandle(store=store, features={"DRAExtendedResource": enabled}))


def pod(req: dict[str, str], name: str = "p") -> Pod:
    return make_pod().name(name).uid(name).req(req).obj()


def existing(req: dict[str, str]) -> Pod:
    return make_pod().name("e").uid("e").req(req).node("n").obj()


CASES = [
    pytest.param(True, {EXT_A: "1"}, {}, OK, id="extended resource backed by device plugin"),
    pytest.param(True, {"cpu": "1m", "memory": "1", EXT_DRA: "1"}, {}, OK,
                 id="extended resource backed by DRA"),
    # kubesched has no nil-manager path (the kubelet's admission): the resolver is always there.
    pytest.param(True, {"cpu": "1m", "memory": "1", EXT_A: "1"}, {}, OK,
                 id="extended resource backed by DRA, nil draManager"),
    pytest.param(False, {"cpu": "1m", "memory": "1", EXT_DRA: "1"}, {}, (UU, (f"Insufficient {EXT_DRA}",)),
                 id="extended resource backed by DRA not enabled"),
    pytest.param(True, {"cpu": "1m", "memory": "1", EXT_B: "1"}, {}, (UU, (f"Insufficient {EXT_B}",)),
                 id="extended resource NOT backed by DRA"),
    pytest.param(True, {EXT_DRA: "1"}, {EXT_DRA: "0"}, OK,
                 id="extended resource was backed by Device Plugin (Allocatable: 0)"),
    pytest.param(True, {EXT_A: "1"}, {EXT_A: "0"}, OK,
                 id="extended resource was backed by Device Plugin (Allocatable: 0), global cache"),
]


@pytest.mark.parametrize(("enabled", "req", "existing_req", "want"), CASES)
def test_enough_requests_dra(enabled: bool, req: dict[str, str], existing_req: dict[str, str],
                             want: tuple[Code, tuple[str, ...]]) -> None:
    n = make_node().name("n").capacity(NODE_RES).obj()
    snap = snapshot_of([n], [existing(existing_req)])
    assert simple(filter_all(fit(enabled), pod(req), snap).statuses[0]) == want


def test_node_advertising_the_resource_uses_the_device_plugin_path() -> None:
    """A node whose allocatable has the resource is checked by Fit as any extended resource,
    even when a class serves it; a node without it leaves it to DRA. Both paths agree."""
    with_gpu = make_node().name("a").capacity({**NODE_RES, EXT_DRA: "1"}).obj()
    without = make_node().name("b").capacity(NODE_RES).obj()
    run = filter_all(fit(True), pod({EXT_DRA: "2"}), snapshot_of([with_gpu, without]))
    assert [simple(s) for s in run.statuses] == [(UU, (f"Insufficient {EXT_DRA}",)), OK]


def test_implicit_class_name_is_served() -> None:
    implicit = f"deviceclass.resource.kubernetes.io/{CLASS_NAME}"
    n = make_node().name("n").capacity(NODE_RES).obj()
    pl = fit(True, device_class(extended=None))
    assert simple(filter_all(pl, pod({implicit: "1"}), snapshot_of([n])).statuses[0]) == OK


def test_device_class_hint() -> None:
    """isSchedulableAfterDeviceClassEvent."""
    pl = fit(True)
    ev = pl.events_to_register()[2]
    assert ev.hint is not None
    wants = pod({EXT_DRA: "1"})
    other = device_class("other", "example.com/other")
    assert ev.hint(wants, None, device_class()) == QueueingHint.QUEUE  # added, names the resource
    assert ev.hint(wants, None, other) == QueueingHint.QUEUE_SKIP
    assert ev.hint(wants, device_class(), device_class()) == QueueingHint.QUEUE_SKIP  # same name
    assert ev.hint(wants, device_class(extended="example.com/x"), device_class()) == QueueingHint.QUEUE
    implicit = pod({f"deviceclass.resource.kubernetes.io/{CLASS_NAME}": "1"})
    assert ev.hint(implicit, None, device_class(extended=None)) == QueueingHint.QUEUE
    renamed = ev.hint(implicit, device_class(extended="a.b/c"), device_class(extended=None))
    assert renamed == QueueingHint.QUEUE_SKIP  # an update: the implicit name never changes


def test_node_hint_counts_dra_served_resources() -> None:
    """isSchedulableAfterNodeChange: a node without the resource fits when a class serves it,
    and an update of such a node counts as a requested resource having grown."""
    ev = fit(True).events_to_register()[1]
    assert ev.hint is not None
    wants = pod({EXT_DRA: "1"})
    old: Node = make_node().name("n").capacity(NODE_RES).obj()
    new: Node = make_node().name("n").capacity({**NODE_RES, "cpu": "20m"}).obj()
    assert ev.hint(wants, None, old) == QueueingHint.QUEUE
    assert ev.hint(wants, old, new) == QueueingHint.QUEUE
    off = fit(False).events_to_register()[1]
    assert off.hint is not None and off.hint(wants, None, old) == QueueingHint.QUEUE_SKIP


def _class_obj(name: str = "class", extended: str | None = None) -> DeviceClass:
    return device_class(name, extended)


def _scalar_pod(name: str) -> Pod:
    return make_pod().name("p").uid("p").req({name: "1"}).obj()


MEMORY_POD = make_pod().name("p").uid("p").req({"memory": "2"}).obj()
GPU_CLASS = "example.com/gpu"
IMPLICIT_GPUCLASS = "deviceclass.resource.kubernetes.io/gpuclass"

CLASS_HINT_CASES = [
    pytest.param(MEMORY_POD, None, "not-a-class", QueueingHint.QUEUE, id="backoff-wrong-new-object"),
    pytest.param(MEMORY_POD, "not-a-class", _class_obj(), QueueingHint.QUEUE, id="backoff-wrong-old-object"),
    pytest.param(MEMORY_POD, _class_obj(), _class_obj(), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-class-nil-extended-resource-name-pointer"),
    pytest.param(MEMORY_POD, _class_obj(extended=GPU_CLASS), _class_obj(extended=GPU_CLASS),
                 QueueingHint.QUEUE_SKIP, id="skip-queue-on-class-same-extended-resource-name-pointer"),
    pytest.param(MEMORY_POD, _class_obj(extended=GPU_CLASS), _class_obj(extended=GPU_CLASS),
                 QueueingHint.QUEUE_SKIP, id="skip-queue-on-class-same-extended-resource-name"),
    pytest.param(_scalar_pod(IMPLICIT_GPUCLASS), None, _class_obj("gpuclass", GPU_CLASS), QueueingHint.QUEUE,
                 id="queue-on-class-add-with-implicit-extended-resource-name"),
    pytest.param(_scalar_pod(IMPLICIT_GPUCLASS), None, _class_obj("myclass", GPU_CLASS),
                 QueueingHint.QUEUE_SKIP,
                 id="skip-on-class-add-with-implicit-extended-resource-name-not-matching"),
    pytest.param(_scalar_pod("example.com/othergpu"), None, _class_obj("myclass", GPU_CLASS),
                 QueueingHint.QUEUE_SKIP,
                 id="skip-on-class-add-with-explicit-extended-resource-name-not-matching"),
    pytest.param(_scalar_pod(IMPLICIT_GPUCLASS), _class_obj("gpuclass"), _class_obj("gpuclass", GPU_CLASS),
                 QueueingHint.QUEUE_SKIP, id="skip-on-class-update-with-implicit-extended-resource-name"),
    pytest.param(_scalar_pod(GPU_CLASS), None, _class_obj(extended=GPU_CLASS), QueueingHint.QUEUE,
                 id="queue-on-class-add-with-extended-resource-name"),
    pytest.param(_scalar_pod(GPU_CLASS), _class_obj(extended="example.com/gpu1"),
                 _class_obj(extended=GPU_CLASS), QueueingHint.QUEUE,
                 id="queue-on-class-update-with-extended-resource-name"),
]


@pytest.mark.parametrize(("p", "old", "new", "want"), CLASS_HINT_CASES)
def test_is_schedulable_after_device_class_change(p: Pod, old: Any, new: Any, want: QueueingHint) -> None:
    """Test_isSchedulableAfterDeviceClassChange (fit_test.go)."""
    ev = fit(True).events_to_register()[2]
    assert ev.hint is not None and ev.hint(p, old, new) == want


def _node(capacity: dict[str, str]) -> Node:
    return make_node().name("n").capacity(capacity).obj()


BASE = {"cpu": "1", "memory": "2", "ephemeral-storage": "3"}
DRA_POD = make_pod().name("p").uid("p").req(
    {"cpu": "2m", "memory": "2", "ephemeral-storage": "2", EXT_A: "2"}).obj()
INCREASED_CASES = [
    pytest.param(DRA_POD, {**BASE, EXT_A: "4"}, {**BASE, "ephemeral-storage": "1", EXT_A: "1"}, True, False,
                 id="requested-resources-dra-in-node"),
    pytest.param(DRA_POD, BASE, {**BASE, "ephemeral-storage": "1"}, True, True,
                 id="requested-resources-dra-not-in-node"),
    pytest.param(make_pod().name("p").uid("p").req({EXT_A: "1"}).obj(), {EXT_A: "0"}, {EXT_A: "0"},
                 True, True, id="requested-resources-dra-zero-capacity"),
    pytest.param(DRA_POD, BASE, {**BASE, "ephemeral-storage": "1"}, False, False,
                 id="scalar-resources-not-in-node"),
]


@pytest.mark.parametrize(("p", "old", "new", "enabled", "want"), INCREASED_CASES)
def test_have_any_requested_resources_increased(p: Pod, old: dict[str, str], new: dict[str, str],
                                                enabled: bool, want: bool) -> None:
    """TestHaveAnyRequestedResourcesIncreased's DRA cases (fit_test.go). Upstream passes no DRA
    manager, which delegates every resource the node lacks (the kubelet's path); kubesched
    always has the resolver, so a class serves ``example.com/aaa`` here to the same effect."""
    from kubesched.plugins.dynamicresources import manager_for
    from kubesched.plugins.noderesources.fit import have_any_requested_resources_increased

    pl = fit(enabled, device_class(extended=EXT_A))
    resolver = manager_for(pl._store).device_class_resolver() if enabled else None
    assert have_any_requested_resources_increased(p, _node(old), _node(new), resolver) is want
