"""``kubesched run`` with nothing but kubesched's ServiceAccount token (deploy/'s RBAC, i.e.
upstream's ``system:kube-scheduler`` + ``system:volume-scheduler`` and the Lease Role), against
an API server authorizing with RBAC: it syncs its informers (none for PriorityClasses, which
that role does not grant), elects on its Lease, binds, writes the PodScheduled condition and
the events, preempts, and releases the Lease on SIGTERM, with no request refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kubesched.clock import RealClock
from kubesched.cluster.live import LIVE_KINDS, LiveStore, RestClient, load_rest_config

from ._kube import (
    KubeschedProcess,
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
from ._rbac import kubesched_kubeconfig, scheduler_config
from .conftest import ControlPlane


def test_the_live_store_syncs_with_the_role_alone(control_plane: ControlPlane, tmp_path: Path) -> None:
    """Every informer lists with the token (a PriorityClass informer never would: 403)."""
    assert "PriorityClass" not in LIVE_KINDS
    rest = RestClient(load_rest_config(kubesched_kubeconfig(control_plane, tmp_path)))
    store = LiveStore(rest, RealClock())
    try:
        store.start()
        assert store.wait_for_sync(15)
        assert set(store.informers) == set(LIVE_KINDS)
    finally:
        store.stop()


def test_kubesched_run_needs_nothing_beyond_its_role(control_plane: ControlPlane, tmp_path: Path,
                                                      namespace_name: str) -> None:
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    kubeconfig = kubesched_kubeconfig(control_plane, tmp_path)
    cfg = scheduler_config(kubeconfig)
    cfg["profiles"] = [{"schedulerName": sched}]
    cfg["leaderElection"].update(leaseDuration="2s", renewDeadline="1500ms", retryPeriod="300ms")
    lease_path = (f"/apis/coordination.k8s.io/v1/namespaces/{cfg['leaderElection']['resourceNamespace']}"
                  f"/leases/{cfg['leaderElection']['resourceName']}")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(cfg))
    admin = rest_for(control_plane)
    pc, node = f"high-{ns}", f"{ns}-n"
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": pc},
         "value": 1000},
        node_manifest(node, "2", "4Gi"),
        pod_manifest("victim", ns, sched, cpu="1500m", nodeName=node),
        pod_manifest("fits", ns, sched, cpu="200m"),
        pod_manifest("too-big", ns, sched, cpu="100"),
        pod_manifest("preemptor", ns, sched, cpu="1500m", priorityClassName=pc),
    ]
    with cleanup(admin, ns) as nodes:
        try:
            for obj in objects:
                create(admin, obj)
            nodes.append(node)
            with KubeschedProcess(tmp_path / "kubesched.log", "--config", str(config)) as ks:
                wait_for("the preemptor to be bound",
                         lambda: get_pod(admin, ns, "preemptor")["spec"].get("nodeName"), timeout=40)
                assert ks.leading
                assert get_pod(admin, ns, "fits")["spec"]["nodeName"] == node
                items = admin.request("GET", f"/api/v1/namespaces/{ns}/pods")["items"]
                names = {p["metadata"]["name"] for p in items}
                assert names == {"fits", "too-big", "preemptor"}  # the victim was deleted
                too_big = wait_for("PodScheduled=False", lambda: condition(get_pod(admin, ns, "too-big"),
                                                                           "PodScheduled"))
                assert (too_big["status"], too_big["reason"]) == ("False", "Unschedulable")
                reasons = wait_for("the events", lambda: (lambda got: got if {
                    ("Scheduled", "fits"), ("Scheduled", "preemptor"), ("FailedScheduling", "too-big"),
                    ("Preempted", "victim")} <= got else None)(
                    {(e["reason"], e["regarding"]["name"]) for e in events(admin, ns)}))
                assert all(e[0] in ("Scheduled", "FailedScheduling", "Preempted") for e in reasons)
                holder = admin.request("GET", lease_path)["spec"]["holderIdentity"]
                assert holder
                assert ks.stop(30) == 0, ks.log()
                log = ks.log()
            spec = admin.request("GET", lease_path)["spec"]
            assert spec["holderIdentity"] == "" and spec["leaseDurationSeconds"] == 1  # released
            assert "forbidden" not in log.lower(), log
            assert "caches synced; scheduling for " + sched in log
        finally:
            admin.request("DELETE", f"/apis/scheduling.k8s.io/v1/priorityclasses/{pc}")
