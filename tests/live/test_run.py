"""``kubesched run`` against the real kube-apiserver: pods created through the API are bound
where ``kubesched simulate`` puts the same objects (resources, taints, node affinity, pod
anti-affinity, topology spread, preemption with a PDB, a volume to bind); an unschedulable pod gets the same
PodScheduled=False message and a FailedScheduling event; a pod created after the start is
scheduled; another scheduler's pod is left alone; SIGTERM ends the command cleanly.

Each test uses its own namespace and profile name (``kubesched-<namespace>``), so the
scheduler under test only takes its own pods; nodes are deleted after each test.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.api.loader import load_paths
from kubesched.app import LiveScheduler
from kubesched.framework.config import load_config
from kubesched.scheduler import explain
from kubesched.simulator import run_simulation
from kubesched.testing.command import ServingCommand

from ._kube import (
    cleanup,
    condition,
    create,
    create_all,
    events,
    free_port,
    get_pod,
    https_get,
    node_manifest,
    pod_manifest,
    profile_config,
    rest_for,
    wait_for,
)
from .conftest import ControlPlane


def _scenario(ns: str, sched: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(objects present at start, pods created after the start). Each pod has one best node
    whatever the order the pods are scheduled in."""
    small, big, gpu = f"{ns}-small", f"{ns}-big", f"{ns}-gpu"
    nodes = [
        node_manifest(small, "2", "4Gi", {"zone": "a"}),
        node_manifest(big, "8", "16Gi", {"zone": "b"}),
        node_manifest(gpu, "16", "32Gi", {"zone": "c"},
                      taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
    ]
    db = pod_manifest("db", ns, sched, labels={"app": "db"}, nodeName=big)
    pods = [
        db,
        pod_manifest("needs-cpu", ns, sched, cpu="4"),  # only big has 4 free cpus untainted
        pod_manifest("tolerates", ns, sched, cpu="10",  # only gpu has 10 cpus
                     tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu",
                                   "effect": "NoSchedule"}]),
        pod_manifest("zone-a", ns, sched, affinity={"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}),
        pod_manifest("not-with-db", ns, sched, labels={"app": "web"}, affinity={"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "db"}},
                "topologyKey": "kubernetes.io/hostname"}]}}),
        pod_manifest("spread-0", ns, sched, labels={"app": "spread"}, nodeName=small),
        pod_manifest("spread-1", ns, sched, labels={"app": "spread"}, topologySpreadConstraints=[{
            "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "spread"}}}]),  # zone a has one: b (c is tainted)
        pod_manifest("too-big", ns, sched, cpu="100"),
        pod_manifest("someone-elses", ns, "someone-else"),
    ]
    late = [pod_manifest("late", ns, sched, memory="10Gi")]  # only big has 10Gi untainted
    ns_obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
    return [ns_obj, *nodes, *pods], late


def _explain(tmp_path: Path, objects: list[dict[str, Any]], config: Path, ns: str, name: str) -> str:
    f = tmp_path / "explain.yaml"
    f.write_text(yaml.safe_dump_all(objects))
    return explain(load_paths([f]).objects, ns, name, config=load_config(config)).message


def _simulate(tmp_path: Path, objects: list[dict[str, Any]], config: Path) -> dict[str, Any]:
    f = tmp_path / "objects.yaml"
    f.write_text(yaml.safe_dump_all(objects))
    sim = run_simulation(load_paths([f]), load_config(config))
    return {p.pod.split("/", 1)[1]: p for p in sim.pods}


def test_run_binds_where_simulate_does(control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
                                       live_scheduler: tuple[LiveScheduler, threading.Thread]) -> None:
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    rest = rest_for(control_plane)
    objects, late = _scenario(ns, sched)
    expected = _simulate(tmp_path, objects + late, profile_config(tmp_path, sched))
    live, thread = live_scheduler
    with cleanup(rest, ns) as nodes:
        create_all(rest, objects, nodes)
        thread.start()
        for obj in late:
            create(rest, obj)  # created after the start (the informers are listing or watching)

        def placed() -> dict[str, str] | None:
            got = {n: get_pod(rest, ns, n)["spec"].get("nodeName", "")
                   for n in ("needs-cpu", "tolerates", "zone-a", "not-with-db", "spread-1", "late")}
            return got if all(got.values()) else None

        got = wait_for("the pods to be bound", placed, timeout=30)
        assert got == {n: expected[n].node for n in got}
        # the scenario is what it claims
        assert (expected["needs-cpu"].node, expected["spread-1"].node) == (f"{ns}-big", f"{ns}-big")

        # the unschedulable pod: the condition and the event carry simulate's message
        want = expected["too-big"].message
        assert want.startswith("0/3 nodes are available")
        assert want == _explain(tmp_path, objects + late, profile_config(tmp_path, sched), ns, "too-big")
        too_big = wait_for("PodScheduled=False",
                           lambda: condition(get_pod(rest, ns, "too-big"), "PodScheduled"))
        assert (too_big["status"], too_big["reason"], too_big["message"]) == ("False", "Unschedulable", want)
        failed = wait_for("a FailedScheduling event", lambda: [
            e for e in events(rest, ns)
            if e["reason"] == "FailedScheduling" and e["regarding"]["name"] == "too-big"])
        assert failed[0]["note"] == want and failed[0]["type"] == "Warning"
        assert failed[0]["reportingController"] == sched
        wait_for("the Scheduled events", lambda: {
            e["regarding"]["name"] for e in events(rest, ns) if e["reason"] == "Scheduled"} == set(got))

        # another scheduler's pod: untouched
        other = get_pod(rest, ns, "someone-elses")
        assert not other["spec"].get("nodeName") and condition(other, "PodScheduled") is None
        assert live.scheduler is not None and thread.is_alive()


def test_kubesched_run_command_schedules_and_stops_on_sigterm(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str) -> None:
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    rest = rest_for(control_plane)
    with cleanup(rest, ns) as nodes:
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        create(rest, node_manifest(f"{ns}-n", "2", "4Gi"))
        nodes.append(f"{ns}-n")
        port = free_port()
        with ServingCommand(
                "run", "--config", str(profile_config(tmp_path, sched)),
                "--kubeconfig", str(control_plane.kubeconfig),
                "--leader-elect=false", "--bind-address", f"127.0.0.1:{port}", "-v", "2",
                "--authentication-kubeconfig", str(control_plane.kubeconfig),
                "--authorization-kubeconfig", str(control_plane.kubeconfig),
                env={"KUBECONFIG": None}, wait=False) as cmd:
            create(rest, pod_manifest("p", ns, sched))
            wait_for("the pod to be bound", lambda: get_pod(rest, ns, "p")["spec"].get("nodeName"),
                     timeout=30)
            # served over HTTPS with a self-signed certificate, as kube-scheduler without --tls-cert-file
            assert https_get(port, "/readyz?verbose") == (200, "[+]shutdown ok\n[+]sched-handler-sync ok\n"
                                                                "readyz check passed\n")
            assert https_get(port, "/metrics")[0] == 403  # anonymous
            status, metrics = https_get(port, "/metrics", control_plane.token)  # system:masters
            attempts = f'scheduler_schedule_attempts_total{{profile="{sched}",result="scheduled"}} 1.0'
            assert status == 200 and attempts in metrics
            code = cmd.stop(30)
            err = cmd.log()
        assert code == 0, err
        assert "caches synced; scheduling for " + sched in err


def test_preemption_respects_a_pdb_deletes_the_victim_and_the_preemptor_lands(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
        live_scheduler: tuple[LiveScheduler, threading.Thread]) -> None:
    """Two full nodes; the victim on one is protected by a PDB (its status written as the
    disruption controller would: no disruption allowed), so the preemptor evicts the other."""
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    rest = rest_for(control_plane)
    pc = f"high-{ns}"
    node_a, node_b = f"{ns}-a", f"{ns}-b"
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": pc},
         "value": 1000},
        node_manifest(node_a, "2", "4Gi"),
        node_manifest(node_b, "2", "4Gi"),
        pod_manifest("victim-a", ns, sched, cpu="1500m", labels={"app": "a"}, nodeName=node_a),
        pod_manifest("victim-b", ns, sched, cpu="1500m", labels={"app": "b"}, nodeName=node_b),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "keep-a", "namespace": ns},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}},
         "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}},
        pod_manifest("preemptor", ns, sched, cpu="1500m", priorityClassName=pc),
    ]
    expected = _simulate(tmp_path, objects, profile_config(tmp_path, sched))
    assert expected["preemptor"].node == node_b and expected["victim-b"].status == "Preempted"
    _, thread = live_scheduler
    with cleanup(rest, ns) as nodes:
        try:
            create_all(rest, objects, nodes)
            thread.start()
            wait_for("the preemptor to be bound",
                     lambda: get_pod(rest, ns, "preemptor")["spec"].get("nodeName"), timeout=30)
            assert get_pod(rest, ns, "preemptor")["spec"]["nodeName"] == expected["preemptor"].node
            items = rest.request("GET", f"/api/v1/namespaces/{ns}/pods")["items"]
            pods = {p["metadata"]["name"] for p in items}
            assert pods == {"victim-a", "preemptor"}
            preempted = wait_for("the Preempted event", lambda: [
                e for e in events(rest, ns) if e["reason"] == "Preempted"])
            assert preempted[0]["regarding"]["name"] == "victim-b"
            assert preempted[0]["note"].startswith("Preempted by pod ")
            assert preempted[0]["note"].endswith(f" on node {node_b}")
        finally:
            rest.request("DELETE", f"/apis/scheduling.k8s.io/v1/priorityclasses/{pc}")


_DELETER = """
from kubesched.framework import PluginBase


class DeleteBeforeBind(PluginBase):
    NAME = "DeleteBeforeBind"

    def pre_bind(self, state, pod, node_name):
        if pod.name.startswith("doomed"):
            self.handle.store.delete("Pod", pod.namespace, pod.name, 0)
        return None
"""


def test_a_pod_deleted_during_its_binding_cycle_is_forgotten(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Binding fails (the pod is gone): the assumed pod is forgotten on the loop, the
    scheduler goes on, and the node's room is free for the next pod."""
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    (tmp_path / "deleter.py").write_text(_DELETER)
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = tmp_path / "deleter.yaml"
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": sched,
                      "plugins": {"preBind": {"enabled": [{"name": "deleter:DeleteBeforeBind"}]}}}]}))
    rest = rest_for(control_plane)
    live = LiveScheduler(load_config(cfg), str(control_plane.kubeconfig))
    thread = threading.Thread(target=lambda: live.start() and live.run(), name="kubesched-run")
    with cleanup(rest, ns) as nodes:
        try:
            create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            create(rest, node_manifest(f"{ns}-n", "1", "4Gi"))
            nodes.append(f"{ns}-n")
            create(rest, pod_manifest("doomed", ns, sched, cpu="1"))
            thread.start()
            sched_ = wait_for("the scheduler", lambda: live.scheduler)
            wait_for("the failed binding to be handled", lambda: sched_.cycles.stats.attempts >= 1
                     and sched_.cycles.bindings_in_flight == 0 and sched_.cache.assumed_pod_count() == 0)
            create(rest, pod_manifest("next", ns, sched, cpu="1"))
            wait_for("the next pod to be bound", lambda: get_pod(rest, ns, "next")["spec"].get("nodeName"),
                     timeout=30)
            # The API shows the binding before the binding worker has counted it.
            wait_for("the binding to be counted", lambda: sched_.cycles.stats.scheduled == 1)
            assert thread.is_alive() and sched_.cycles.stats.scheduled == 1
            assert sched_.cycles.stats.error_attempts == 1  # the Binding of the deleted pod
        finally:
            live.stop()
            thread.join(20)
            live.close()


def test_volume_binding_writes_the_claim_ref_and_waits_for_the_pv_controller(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
        live_scheduler: tuple[LiveScheduler, threading.Thread]) -> None:
    """A WaitForFirstConsumer claim with one matching local PV (on node x only): PreBind sets the
    PV's claimRef, and the pod is bound only after the claim is bound, which the test does in
    the PV controller's place (the control plane runs no controllers)."""
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    rest = rest_for(control_plane)
    sc, pv = f"local-{ns}", f"pv-{ns}"
    node_x, node_y = f"{ns}-x", f"{ns}-y"
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": sc},
         "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"},
        node_manifest(node_y, "8", "16Gi"),
        node_manifest(node_x, "2", "4Gi"),
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                  "persistentVolumeReclaimPolicy": "Retain", "local": {"path": "/mnt/disk"},
                  "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                      {"key": "kubernetes.io/hostname", "operator": "In", "values": [node_x]}]}]}}},
         "status": {"phase": "Available"}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": ns},
         "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": sc,
                  "resources": {"requests": {"storage": "1Gi"}}}},
        pod_manifest("with-volume", ns, sched, volumes=[
            {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]),
    ]
    expected = _simulate(tmp_path, objects, profile_config(tmp_path, sched))
    assert expected["with-volume"].node == node_x
    _, thread = live_scheduler
    with cleanup(rest, ns) as nodes:
        try:
            create_all(rest, objects, nodes)
            thread.start()
            claim_ref = wait_for("the PV's claimRef", lambda: rest.request(
                "GET", f"/api/v1/persistentvolumes/{pv}")["spec"].get("claimRef"), timeout=30)
            assert (claim_ref["namespace"], claim_ref["name"]) == (ns, "data") and claim_ref["uid"]
            assert not get_pod(rest, ns, "with-volume")["spec"].get("nodeName")  # PreBind waits
            # the PV controller's part: bind the claim
            claim = f"/api/v1/namespaces/{ns}/persistentvolumeclaims/data"
            bound = {"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                     "spec": {"volumeName": pv}}
            rest.request("PATCH", claim, bound, content_type="application/merge-patch+json")
            rest.request("PATCH", f"{claim}/status", {"status": {"phase": "Bound"}},
                         content_type="application/merge-patch+json")
            node = wait_for("the pod to be bound",
                            lambda: get_pod(rest, ns, "with-volume")["spec"].get("nodeName"), timeout=30)
            assert node == expected["with-volume"].node
        finally:
            rest.request("DELETE", f"/api/v1/persistentvolumes/{pv}")
            rest.request("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{sc}")
