"""End to end: the real kube-scheduler calling ``kubesched extender`` in its informer-backed
mode (``nodeCacheCapable: true``: node names only; node, pod and PDB state from the LiveStore's
informers), with ``bindVerb`` (the extender creates the Bindings) and ``preemptVerb``.

- pods land where the example plugin says, bound by the extender;
- an extender-managed resource (``example.com/widget``, ``ignoredByScheduler: true``: only the
  extender counts it) makes the extender require more victims than kube-scheduler chose, and
  of the two pods that could go, the PDB-protected one is kept by its answer;
- the command itself (``kubesched extender --kubeconfig``): 503 until synced, then answers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kubesched.api.extenderv1 import ExtenderArgs, ExtenderPreemptionArgs, ExtenderPreemptionResult
from kubesched.extender import ExtenderServer
from kubesched.extender._live import InformerView
from kubesched.framework.config import SchedulerConfig
from kubesched.testing.command import ServingCommand

from . import test_extender as e2e
from .conftest import ControlPlane
from .test_extender import _node_of, _pod, _scheduled_condition, _until, example_config, kube_scheduler

core = e2e.core  # the fixtures, shared
cluster = e2e.cluster

WIDGET = "example.com/widget"


@contextmanager
def informer_extender(cp: ControlPlane, config: SchedulerConfig | None) -> Iterator[ExtenderServer]:
    """``kubesched extender --kubeconfig K --bind`` in a thread: informers synced, then served."""
    view = InformerView(config, str(cp.kubeconfig))
    server: ExtenderServer | None = None
    try:
        view.start()
        assert view.wait_for_sync(30), "informers did not sync"
        server = ExtenderServer(view.engine(), "127.0.0.1", 0, bind=True, ready=lambda: view.synced).start()
        yield server
    finally:
        if server is not None:
            server.close()
        view.close()


def _spy(server: ExtenderServer, verb: str) -> list[Any]:
    """Record each (args, result) of one engine verb."""
    assert server.engine is not None
    calls: list[Any] = []
    real = getattr(server.engine, verb)

    def wrapped(args: Any) -> Any:
        out = real(args)
        calls.append((args, out))
        return out

    setattr(server.engine, verb, wrapped)
    return calls


def _metric(server: ExtenderServer, verb: str, code: str = "200") -> float:
    m = re.search(rf'kubesched_extender_requests_total{{code="{code}",verb="{verb}"}} (\S+)',
                  server.metrics.exposition().decode())
    return float(m.group(1)) if m else 0.0


def test_node_names_only_pods_land_where_the_plugin_says_and_the_extender_binds(
        control_plane: ControlPlane, core: Any, cluster: tuple[str, str], tmp_path: Path) -> None:
    ns, group = cluster
    with example_config() as cfg, informer_extender(control_plane, cfg) as ext, kube_scheduler(
            control_plane, tmp_path, ext.url, ignorable=False, nodeCacheCapable=True, bindVerb="bind"):
        filters = _spy(ext, "filter")
        for i in range(3):
            _pod(core, ns, f"web-{i}", group)
        _pod(core, ns, "stuck", group, {"kubernetes.io/hostname": f"{group}-avoid"})
        for i in range(3):
            bound = _until(f"web-{i} bound", lambda i=i: _node_of(core, ns, f"web-{i}"))
            assert bound == f"{group}-preferred"
        _, _, message = _until("stuck's FailedScheduling", lambda: (
            (c := _scheduled_condition(core, ns, "stuck"))[1] == "Unschedulable" and c))
        assert "1 node(s) had the label example.com/avoid" in message, message
        args: list[ExtenderArgs] = [a for a, _ in filters]
        assert args and all(a.nodes is None and a.node_names for a in args)  # names only
        assert _metric(ext, "bind") >= 3  # kube-scheduler's bindVerb: our Bindings


def _widget_node(core: Any, name: str, group: str) -> None:
    core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": name, "labels": {"e2e-group": group, "kubernetes.io/hostname": name}}})
    res = {"cpu": "8", "memory": "16Gi", "pods": "50", WIDGET: "2"}
    core.patch_node_status(name, {"status": {"capacity": res, "allocatable": res, "conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready"}]}})


def _widget_pod(core: Any, ns: str, name: str, group: str, cpu: str, widgets: int, *,
                labels: dict[str, str] | None = None, priority_class: str = "") -> None:
    req: dict[str, Any] = {"cpu": cpu}
    if widgets:
        req[WIDGET] = str(widgets)
    spec: dict[str, Any] = {"nodeSelector": {"e2e-group": group}, "terminationGracePeriodSeconds": 0,
                            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                            "resources": {"requests": req, "limits": dict(req)}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    core.create_namespaced_pod(ns, {"apiVersion": "v1", "kind": "Pod",
                                    "metadata": {"name": name, "labels": labels or {}}, "spec": spec})


def test_preemption_keeps_the_pdb_protected_pod_and_adds_the_victims_the_extender_needs(
        control_plane: ControlPlane, core: Any, namespace_name: str, tmp_path: Path) -> None:
    """One node: 8 cpu, 2 widgets. ``big`` (4 cpu), ``guarded`` (1 cpu, 1 widget, under a PDB
    allowing no disruption) and ``spare`` (1 cpu, 1 widget), all priority 0. ``urgent`` (4 cpu,
    1 widget, high priority) fits nowhere: kube-scheduler counts only cpu and proposes ``big``
    alone. The extender counts widgets: without ``big`` there are still 3 of 2. Removing
    every lower-priority pod and reprieving the PDB-protected one first, it keeps
    ``guarded`` and adds ``spare``. kube-scheduler evicts ``big`` and ``spare``, and the
    extender binds ``urgent`` beside ``guarded``."""
    from kubernetes import client

    ns = group = namespace_name
    node = f"{group}-w"
    scheduling = client.SchedulingV1Api(core.api_client)
    policy = client.PolicyV1Api(core.api_client)
    high = f"{group}-high"
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    scheduling.create_priority_class({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                      "metadata": {"name": high}, "value": 1000})
    try:
        _widget_node(core, node, group)
        policy.create_namespaced_pod_disruption_budget(ns, {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}})
        # No disruption controller runs: write the status it would (nothing may be disrupted).
        policy.patch_namespaced_pod_disruption_budget_status("guard", ns, {"status": {
            "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1,
            "observedGeneration": 1}})
        managed = [{"name": WIDGET, "ignoredByScheduler": True}]
        with informer_extender(control_plane, None) as ext, kube_scheduler(
                control_plane, tmp_path, ext.url, ignorable=False, nodeCacheCapable=True, bindVerb="bind",
                managedResources=managed):
            preempts = _spy(ext, "preempt")
            _widget_pod(core, ns, "big", group, "4", 0)
            _widget_pod(core, ns, "guarded", group, "1", 1, labels={"app": "guarded"})
            _widget_pod(core, ns, "spare", group, "1", 1)
            uids = {}
            for name in ("big", "guarded", "spare"):
                _until(f"{name} bound", lambda n=name: _node_of(core, ns, n))
                uids[name] = core.read_namespaced_pod(name, ns).metadata.uid
            _widget_pod(core, ns, "urgent", group, "4", 1, priority_class=high)
            assert _until("urgent bound", lambda: _node_of(core, ns, "urgent"), timeout=60) == node
            _until("the victims gone", lambda: {p.metadata.name for p in core.list_namespaced_pod(ns).items}
                   == {"guarded", "urgent"})
            asked: ExtenderPreemptionArgs
            answer: ExtenderPreemptionResult
            asked, answer = preempts[0]
            assert asked.node_name_to_meta_victims is not None  # nodeCacheCapable: UIDs only
            assert [v.uid for v in asked.node_name_to_meta_victims[node].pods] == [uids["big"]]
            assert answer.node_name_to_meta_victims is not None
            victims = answer.node_name_to_meta_victims[node]
            assert [v.uid for v in victims.pods] == [uids["big"], uids["spare"]]
            assert victims.num_pdb_violations == 0
    finally:
        scheduling.delete_priority_class(high)
        core.delete_namespace(ns)
        core.delete_node(node)


MOST_ALLOCATED = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "plugins": {"multiPoint": {"disabled": [{"name": "*"}], "enabled": [
                      {"name": "PrioritySort"}, {"name": "DefaultBinder"}, {"name": "NodeResourcesFit"}]}},
                  "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {
                      "type": "MostAllocated",
                      "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}}]}],
}


def test_a_most_allocated_profile_packs_pods_behind_kube_scheduler(
        control_plane: ControlPlane, core: Any, namespace_name: str, tmp_path: Path) -> None:
    """The extender's profile packs (MostAllocated), kube-scheduler's default profile spreads
    (LeastAllocated, BalancedAllocation), the extender's weight is 1. Six 1-CPU pods, one at a
    time, on three 4-CPU nodes: the extender scores the node the profile ranks first 10 and the
    others in proportion (DefaultNormalizeScore), which outweighs kube-scheduler's own
    preference for the emptier node each time (for the 4th pod: 80 points against 76), so they
    fill one node and then a second one: 4 and 2. (Scaled against the best possible total, a
    node with one pod scored 2 and an empty one 1, 10 points against kube-scheduler's 25: the
    second pod went to an empty node and the pods spread over all three.)"""
    from kubesched.framework.config import from_dict

    ns = group = namespace_name
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    nodes = [f"{group}-{i}" for i in range(3)]
    try:
        for name in nodes:
            core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {
                "name": name, "labels": {"e2e-group": group, "kubernetes.io/hostname": name}}})
            res = {"cpu": "4", "memory": "16Gi", "pods": "50"}
            core.patch_node_status(name, {"status": {"capacity": res, "allocatable": res, "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready"}]}})
        with informer_extender(control_plane, from_dict(MOST_ALLOCATED)) as ext, kube_scheduler(
                control_plane, tmp_path, ext.url, ignorable=False, nodeCacheCapable=True):
            assert ext.engine is not None
            store = ext.engine.store
            placed: list[str] = []
            for i in range(6):
                _pod(core, ns, f"p{i}", group, cpu="1")
                placed.append(_until(f"p{i} bound", lambda i=i: _node_of(core, ns, f"p{i}")))
                # the extender's informers have seen it before the next pod is scored
                _until(f"p{i} bound in the extender's view", lambda i=i: getattr(
                    store.try_get("Pod", ns, f"p{i}"), "node_name", ""))
        counts = sorted(Counter(placed).values())
        assert counts == [2, 4], placed
    finally:
        core.delete_namespace(ns)
        for name in nodes:
            core.delete_node(name)


def test_the_command_serves_node_names_from_the_informers(control_plane: ControlPlane, core: Any,
                                                          cluster: tuple[str, str]) -> None:
    ns, group = cluster
    # warnings may come first (no delegated authentication outside a pod), and the release line
    # (the API server's version)
    with ServingCommand("extender", "--kubeconfig", str(control_plane.kubeconfig),
                        "--bind-address", "127.0.0.1:0") as cmd:
        m = re.search(r"serving profile 'default-scheduler' on (http://127\.0\.0\.1:\d+) \(informers",
                      cmd.line)
        assert m, cmd.line
        url = m.group(1)
        import json
        import urllib.error
        import urllib.request

        def ready() -> bool:
            try:
                with urllib.request.urlopen(f"{url}/readyz", timeout=5) as resp:
                    return resp.status == 200
            except urllib.error.HTTPError:
                return False

        _until("readyz", ready)
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns},
               "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}],
                        "nodeSelector": {"e2e-group": group}}}
        names = [f"{group}-avoid", f"{group}-plain"]

        def filter_() -> Any:
            data = json.dumps({"Pod": pod, "NodeNames": names}).encode()
            with urllib.request.urlopen(urllib.request.Request(f"{url}/filter", data=data, method="POST"),
                                        timeout=10) as resp:
                return json.loads(resp.read())

        body = filter_()
        assert body["NodeNames"] == names and not body["FailedNodes"], body
        # The informers follow the cluster: a node made unschedulable is rejected by the next answer.
        core.patch_node(f"{group}-plain", {"spec": {"unschedulable": True}})

        def rejected() -> Any:
            return filter_()["FailedAndUnresolvableNodes"].get(f"{group}-plain")

        assert _until("the cordon seen", rejected) == "node(s) were unschedulable"
        code = cmd.stop(15)
    assert code == 0
