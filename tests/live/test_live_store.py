"""LiveStore and its informers against the real kube-apiserver: list then watch into the
caches, changes delivered on the clock's thread in order, relist reconciliation, a bad object
skipped; writes as the scheduler makes them (binding, status patch, events, deletes) and API
errors as the store's errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from kubesched.api import Pod
from kubesched.clock import RealClock
from kubesched.cluster import Conflict, Expired, NotFound, WatchEvent
from kubesched.cluster.live import Informer, LiveStore

from ._kube import (
    cleanup,
    condition,
    create,
    events,
    get_pod,
    node_manifest,
    pod_manifest,
    rest_for,
    wait_for,
)
from .conftest import ControlPlane


@pytest.fixture
def store(control_plane: ControlPlane) -> Iterator[LiveStore]:
    s = LiveStore(rest_for(control_plane), RealClock())
    s.start()
    try:
        assert s.wait_for_sync(20)
        yield s
    finally:
        s.stop()


def _pump(store: LiveStore, seen: list[WatchEvent], pred: object) -> None:
    clock = store.clock
    assert isinstance(clock, RealClock)

    def step() -> bool:
        clock.run_due()
        return any(pred(e) for e in seen)  # type: ignore[operator]

    wait_for("a watch event", step)


def test_informers_list_then_watch_and_deliver_on_the_loop(
        control_plane: ControlPlane, store: LiveStore, namespace_name: str) -> None:
    rest = store.rest
    seen: list[WatchEvent] = []
    threads: set[str] = set()

    def on_event(ev: WatchEvent) -> None:
        threads.add(threading.current_thread().name)
        seen.append(ev)

    store.subscribe(on_event)
    with cleanup(rest, namespace_name):
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}})
        create(rest, pod_manifest("p", namespace_name, "nobody"))
        _pump(store, seen, lambda e: e.kind == "Pod" and e.obj.meta.namespace == namespace_name)
        pod = store.get("Pod", namespace_name, "p")
        assert isinstance(pod, Pod) and pod.scheduler_name == "nobody"
        assert store.try_get("Namespace", "", namespace_name) is not None
        assert [p.name for p in store.list("Pod", namespace_name)] == ["p"]
        rest.request("DELETE", f"/api/v1/namespaces/{namespace_name}/pods/p")
        _pump(store, seen, lambda e: e.type == "DELETED" and e.kind == "Pod"
              and e.obj.meta.namespace == namespace_name)
        assert store.try_get("Pod", namespace_name, "p") is None
    assert threads == {threading.current_thread().name}  # delivered by run_due, on this thread


def test_finished_pods_are_not_in_the_scheduler_informer(
        control_plane: ControlPlane, store: LiveStore, namespace_name: str) -> None:
    rest = store.rest
    with cleanup(rest, namespace_name):
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}})
        create(rest, pod_manifest("done", namespace_name, "nobody"))
        wait_for("the pod", lambda: store.try_get("Pod", namespace_name, "done"))
        rest.request("PATCH", f"/api/v1/namespaces/{namespace_name}/pods/done/status",
                     {"status": {"phase": "Succeeded"}}, content_type="application/merge-patch+json")
        wait_for("the finished pod to leave the cache",
                 lambda: store.try_get("Pod", namespace_name, "done") is None)


def test_relist_reconciles_the_cache(control_plane: ControlPlane, namespace_name: str) -> None:
    rest = rest_for(control_plane)
    lock = threading.RLock()
    seen: list[WatchEvent] = []
    inf = Informer(rest, "Namespace", lock, seen.append)
    inf._list()
    create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}})
    try:
        inf._list()
        assert [(e.type, e.obj.meta.name) for e in seen] == [("ADDED", namespace_name)]
        rest.request("DELETE", f"/api/v1/namespaces/{namespace_name}")
        inf._list()
        assert seen[-1].obj.meta.name == namespace_name and seen[-1].type in ("MODIFIED", "DELETED")
    finally:
        rest.close()


def test_a_watch_error_410_means_relist_and_a_bad_object_is_skipped(
        caplog: pytest.LogCaptureFixture) -> None:
    seen: list[WatchEvent] = []
    inf = Informer(None, "Pod", threading.RLock(), seen.append)  # type: ignore[arg-type]
    with pytest.raises(Expired):
        inf._handle(json.dumps({"type": "ERROR", "object": {"code": 410, "message": "too old"}}).encode())
    bad = {"metadata": {"name": "x", "namespace": "ns", "resourceVersion": "7"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}
    inf._handle(json.dumps({"type": "ADDED", "object": bad}).encode())
    inf._handle(b"{not json")
    assert seen == [] and inf.resource_version == "7"
    assert "skipping Pod ns/x from the API server" in caplog.text


def test_writes_bind_patch_status_events_delete(
        control_plane: ControlPlane, store: LiveStore, namespace_name: str) -> None:
    rest = store.rest
    node = f"n-{namespace_name}"
    with cleanup(rest, namespace_name) as nodes:
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}})
        create(rest, node_manifest(node, "2", "4Gi"))
        nodes.append(node)
        create(rest, pod_manifest("a", namespace_name, "nobody"))
        pod = wait_for("pod a", lambda: store.try_get("Pod", namespace_name, "a"))

        # PodScheduled=False and a nomination, then clearing it
        store.patch_pod_status(namespace_name, "a", [{"type": "PodScheduled", "status": "False",
                                                      "reason": "Unschedulable", "message": "nope"}], node)
        raw = get_pod(rest, namespace_name, "a")
        assert condition(raw, "PodScheduled") is not None
        assert condition(raw, "PodScheduled")["message"] == "nope"  # type: ignore[index]
        assert raw["status"]["nominatedNodeName"] == node
        wait_for("the patch in the cache",
                 lambda: store.get("Pod", namespace_name, "a").nominated_node_name == node)
        store.patch_pod_status(namespace_name, "a", (), "")
        assert "nominatedNodeName" not in get_pod(rest, namespace_name, "a")["status"]

        bound = store.bind(namespace_name, "a", node, uid=pod.uid)
        assert bound.node_name == node
        assert get_pod(rest, namespace_name, "a")["spec"]["nodeName"] == node
        with pytest.raises(Conflict):
            store.bind(namespace_name, "a", node, uid=pod.uid)
        with pytest.raises(NotFound):
            store.bind(namespace_name, "missing", node)

        store.record_event(pod, "Scheduled", f"Successfully assigned {namespace_name}/a to {node}",
                           action="Binding")
        ev = wait_for("the event", lambda: [e for e in events(rest, namespace_name)
                                            if e["reason"] == "Scheduled"])
        assert ev[0]["reportingController"] == "nobody"  # the profile's schedulerName, as upstream
        assert ev[0]["regarding"]["name"] == "a" and ev[0]["action"] == "Binding"
        assert ev[0]["note"] == f"Successfully assigned {namespace_name}/a to {node}"

        store.delete("Pod", namespace_name, "a", grace_period_seconds=0)
        wait_for("the deletion", lambda: store.try_get("Pod", namespace_name, "a") is None)
        with pytest.raises(NotFound):
            store.evict(namespace_name, "a")


def test_a_dropped_watch_reconnects_from_its_resource_version(
        control_plane: ControlPlane, store: LiveStore, namespace_name: str,
        caplog: pytest.LogCaptureFixture) -> None:
    rest = store.rest
    inf = store.informers["Namespace"]
    wait_for("the watch", lambda: inf._resp is not None)
    rv_before = inf.resource_version
    inf._resp.shutdown()  # the connection drops, as when the API server goes away
    with cleanup(rest, namespace_name):
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}})
        wait_for("the namespace after reconnecting",
                 lambda: store.try_get("Namespace", "", namespace_name), timeout=20)
    assert int(inf.resource_version) > int(rv_before)
    assert "Namespace informer: " in caplog.text and "retrying in 0.8s" in caplog.text
