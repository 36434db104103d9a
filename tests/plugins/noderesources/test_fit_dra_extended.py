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
