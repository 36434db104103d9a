"""End to end: the real kube-scheduler calling ``kubesched extender`` (the ``--no-cache`` mode:
full Node objects, ``nodeCacheCapable: false``), served from a thread on 127.0.0.1 with the
example plugin of examples/extender (AvoidLabel: nodes labelled ``example.com/avoid`` are
rejected, nodes labelled ``example.com/preferred=true`` preferred).

Pods created through the API land where the plugin says; a pod that fits only an avoided node
stays pending with the plugin's reason in kube-scheduler's FailedScheduling message; with the
extender down, ``ignorable: false`` keeps pods pending on the call's error and ``ignorable:
true`` schedules them without it; preemption goes through the extender's ``/preempt``.
Nodes and pods carry a per-test label, and pods select it, so that other tests' nodes on the
shared control plane never matter.
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.extender import ExtenderEngine, ExtenderServer

from .conftest import REPO, ControlPlane

EXAMPLE = REPO / "examples" / "extender"
AVOID = "example.com/avoid"
PREFERRED = "example.com/preferred"
TIMEOUT = 30.0


@pytest.fixture(scope="module")
def core(control_plane: ControlPlane) -> Iterator[Any]:
    kubernetes = pytest.importorskip("kubernetes")
    api = kubernetes.config.new_client_from_config(config_file=str(control_plane.kubeconfig))
    try:
        yield kubernetes.client.CoreV1Api(api)
    finally:
        api.close()


@contextmanager
def example_config() -> Iterator[Any]:
    """The example's kubesched config, its plugin importable while inside."""
    from kubesched.framework.config import from_dict

    sys.path.insert(0, str(EXAMPLE))
    try:
        doc = yaml.safe_load((EXAMPLE / "kubesched-config.yaml").read_text())
        for entry in doc["profiles"][0]["plugins"]["multiPoint"]["enabled"]:
            if entry["name"] == "AvoidLabel":  # by import path: the example is not pip-installed
                entry["name"] = "kubesched_example_extender:AvoidLabel"
        yield from_dict(doc)
    finally:
        sys.path.remove(str(EXAMPLE))


@contextmanager
def _extender() -> Iterator[ExtenderServer]:
    """``kubesched extender --no-cache`` with the example's config, in a thread."""
    with example_config() as cfg:
        server = ExtenderServer(ExtenderEngine(cfg), "127.0.0.1", 0).start()
        try:
            yield server
        finally:
            server.close()


@contextmanager
def kube_scheduler(cp: ControlPlane, tmp: Path, url: str, ignorable: bool,
                   **extender: Any) -> Iterator[None]:
    """The real kube-scheduler with examples/extender/kube-scheduler-config.yaml, its
    ``urlPrefix`` and ``ignorable`` set (``extender``: more fields of the entry); stopped
    afterwards (its log is in DIR/logs)."""
    doc = yaml.safe_load((EXAMPLE / "kube-scheduler-config.yaml").read_text())
    doc["extenders"][0].update(urlPrefix=url, ignorable=ignorable, httpTimeout="2s", **extender)
    doc["leaderElection"] = {"leaderElect": False}
    doc["clientConnection"] = {"kubeconfig": "@KUBECONFIG@", "qps": 1000, "burst": 1000}
    cfg = tmp / f"kube-scheduler-{'ignorable' if ignorable else 'required'}.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    cp.run("stop-scheduler", check=False)  # a scheduler another test left running
    cp.run("scheduler", str(cfg))
    try:
        yield
    finally:
        cp.run("stop-scheduler", check=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node(core: Any, name: str, group: str, labels: dict[str, str]) -> None:
    core.create_node({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": name, "labels": {"e2e-group": group,
                                                            "kubernetes.io/hostname": name, **labels}}})
    res = {"cpu": "8", "memory": "16Gi", "pods": "50"}
    core.patch_node_status(name, {"status": {"capacity": res, "allocatable": res, "conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready"}]}})


def _pod(core: Any, ns: str, name: str, group: str, extra: dict[str, str] | None = None,
         cpu: str = "100m", priority_class: str = "") -> None:
    spec: dict[str, Any] = {"nodeSelector": {"e2e-group": group, **(extra or {})},
                            "terminationGracePeriodSeconds": 0,  # no kubelet: deleted at once
                            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                            "resources": {"requests": {"cpu": cpu}}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    core.create_namespaced_pod(ns, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                    "spec": spec})


def _until(what: str, probe: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def _node_of(core: Any, ns: str, name: str) -> str:
    return str(core.read_namespaced_pod(name, ns).spec.node_name or "")


def _scheduled_condition(core: Any, ns: str, name: str) -> tuple[str, str, str]:
    """(node, PodScheduled reason, message) of the pod now."""
    p = core.read_namespaced_pod(name, ns)
    for c in p.status.conditions or []:
        if c.type == "PodScheduled":
            return p.spec.node_name or "", c.reason or "", c.message or ""
    return p.spec.node_name or "", "", ""


@pytest.fixture
def cluster(core: Any, namespace_name: str) -> Iterator[tuple[str, str]]:
    """A namespace and three nodes of this test's group: ``G-avoid`` (AVOID label),
    ``G-plain`` and ``G-preferred``; all removed afterwards. Yields (namespace, group)."""
    group = namespace_name
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}})
    names = []
    try:
        for suffix, labels in (("avoid", {AVOID: "true"}), ("plain", {}), ("preferred", {PREFERRED: "true"})):
            names.append(f"{group}-{suffix}")
            _node(core, names[-1], group, labels)
        yield namespace_name, group
    finally:
        core.delete_namespace(namespace_name)
        for n in names:
            core.delete_node(n)


def test_pods_land_where_the_plugin_says(control_plane: ControlPlane, core: Any,
                                         cluster: tuple[str, str], tmp_path: Path) -> None:
    ns, group = cluster
    with _extender() as ext, kube_scheduler(control_plane, tmp_path, ext.url, ignorable=False):
        for i in range(3):
            _pod(core, ns, f"web-{i}", group)
        # Only the avoided node fits this one: kube-scheduler's filters pass it, the extender's reject it.
        _pod(core, ns, "stuck", group, {"kubernetes.io/hostname": f"{group}-avoid"})
        # Three identical nodes would share the pods (LeastAllocated); the extender's score
        # (10 x weight 1 x 10 = 100 points) puts every one on the preferred node.
        for i in range(3):
            node = _until(f"web-{i} bound", lambda i=i: _node_of(core, ns, f"web-{i}"))
            assert node == f"{group}-preferred"
        _, _, message = _until("stuck's FailedScheduling", lambda: (
            (c := _scheduled_condition(core, ns, "stuck"))[1] == "Unschedulable" and c))
        assert message.startswith("0/") and "1 node(s) had the label example.com/avoid" in message, message


def test_ignorable_false_keeps_pods_pending_when_the_extender_is_down(
        control_plane: ControlPlane, core: Any, cluster: tuple[str, str], tmp_path: Path) -> None:
    ns, group = cluster
    down = f"http://127.0.0.1:{_free_port()}"
    with kube_scheduler(control_plane, tmp_path, down, ignorable=False):
        _pod(core, ns, "waits", group)
        node, reason, message = _until("waits' scheduling error", lambda: (
            (c := _scheduled_condition(core, ns, "waits"))[2] and c))
        assert node == "" and reason == "SchedulerError", (reason, message)
        assert "connection refused" in message, message
        time.sleep(2)  # kube-scheduler retries with backoff: still not bound
        assert _scheduled_condition(core, ns, "waits")[0] == ""


def test_ignorable_true_schedules_without_the_extender(
        control_plane: ControlPlane, core: Any, cluster: tuple[str, str], tmp_path: Path) -> None:
    ns, group = cluster
    down = f"http://127.0.0.1:{_free_port()}"
    with kube_scheduler(control_plane, tmp_path, down, ignorable=True):
        _pod(core, ns, "goes", group)
        node = _until("goes bound", lambda: _node_of(core, ns, "goes"))
        assert node.startswith(group)


def test_preemption_goes_through_the_extender(control_plane: ControlPlane, core: Any,
                                              cluster: tuple[str, str], tmp_path: Path) -> None:
    """The plain and preferred nodes are full of low-priority pods, the avoided node is empty.
    A high-priority pod: kube-scheduler's filters reject the full nodes, the extender rejects
    the empty one as unresolvable (no preemption there). kube-scheduler sends its candidates
    to ``/preempt`` (full victims: nodeCacheCapable false), reads the answer (Go decoding our
    NodeNameToMetaVictims, UIDs mapped back to its pods) and evicts: the pod lands on a full
    node, never on the avoided one, and one low pod is gone."""
    from kubernetes import client

    ns, group = cluster
    scheduling = client.SchedulingV1Api(core.api_client)
    high = f"{group}-high"
    scheduling.create_priority_class({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                      "metadata": {"name": high}, "value": 1000})
    try:
        with _extender() as ext, kube_scheduler(control_plane, tmp_path, ext.url, ignorable=False):
            for target in ("plain", "preferred"):
                _pod(core, ns, f"low-{target}", group, {"kubernetes.io/hostname": f"{group}-{target}"},
                     cpu="7")
            for target in ("plain", "preferred"):
                _until(f"low-{target} bound", lambda t=target: _node_of(core, ns, f"low-{t}"))
            _pod(core, ns, "urgent", group, cpu="4", priority_class=high)
            node = _until("urgent bound", lambda: _node_of(core, ns, "urgent"))
            assert node in (f"{group}-plain", f"{group}-preferred")
            left = {p.metadata.name for p in core.list_namespaced_pod(ns).items}
            assert left == {"urgent", "low-plain", "low-preferred"} - {f"low-{node.rsplit('-', 1)[1]}"}
            metrics = ext.metrics.exposition().decode()
            assert 'kubesched_extender_requests_total{code="200",verb="preempt"}' in metrics
    finally:
        scheduling.delete_priority_class(high)
