"""Two ``kubesched run --leader-elect`` processes on one API server and one Lease: exactly one
schedules; killed with SIGKILL (no release), the other takes over within the lease duration and
schedules the pods created meanwhile; no pod is bound twice (one Scheduled event each, no
failed binding). The file says ``leaderElect: false``: the flag, given, wins (upstream's rule).
Short durations (lease 2 s, renew 1.5 s, retry 0.3 s) keep the test to seconds."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from pathlib import Path

import yaml

from kubesched.cluster import Conflict

from ._kube import (
    KubeschedProcess,
    cleanup,
    create,
    events,
    get_pod,
    node_manifest,
    pod_manifest,
    rest_for,
    wait_for,
)
from .conftest import ControlPlane

LEASE, RETRY = 2.0, 0.3
SCHEDULED = "scheduler_schedule_attempts_total{"


def test_one_schedules_and_the_other_takes_over_when_it_is_killed(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str) -> None:
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    lease = f"kubesched-{uuid.uuid4().hex[:8]}"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(control_plane.kubeconfig)},
        "leaderElection": {"leaderElect": False, "leaseDuration": "2s", "renewDeadline": "1500ms",
                           "retryPeriod": "300ms", "resourceNamespace": "kube-system", "resourceName": lease},
        "profiles": [{"schedulerName": sched}]}))
    rest = rest_for(control_plane)
    lease_path = f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{lease}"

    def bound(names: list[str]) -> bool:
        return all(get_pod(rest, ns, n)["spec"].get("nodeName") for n in names)

    with cleanup(rest, ns) as nodes:
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        create(rest, node_manifest(f"{ns}-n", "32", "64Gi"))
        nodes.append(f"{ns}-n")
        args = ("--config", str(config), "--leader-elect")
        with KubeschedProcess(tmp_path / "a.log", *args) as a, \
                KubeschedProcess(tmp_path / "b.log", *args) as b:
            leader, standby = wait_for("one of them to lead", lambda: (a, b) if a.leading else (
                (b, a) if b.leading else None), timeout=30)
            wait_for("the standby to serve", lambda: standby.metric("leader_election_master_status{") == 0.0)
            first = [f"p{i}" for i in range(6)]
            for n in first:
                create(rest, pod_manifest(n, ns, sched))
            wait_for("the first pods to be bound", lambda: bound(first), timeout=20)
            assert standby.metric(SCHEDULED) is None  # exactly one schedules
            assert not standby.leading

            leader.proc.kill()  # SIGKILL: the Lease is not released
            leader.proc.wait(10)
            killed = time.monotonic()
            second = [f"q{i}" for i in range(6)]
            for n in second:
                create(rest, pod_manifest(n, ns, sched))
            wait_for("the standby to take over", lambda: standby.leading, timeout=LEASE + 2.2 * RETRY + 2)
            assert time.monotonic() - killed <= LEASE + 2.2 * RETRY + 2
            wait_for("the pods created meanwhile to be bound", lambda: bound(second), timeout=20)
            spec = rest.request("GET", lease_path)["spec"]
            assert spec["leaseTransitions"] == 1 and spec["holderIdentity"]
            assert standby.proc.poll() is None

            # no pod bound twice: one Scheduled event each, no failed attempt
            evs = wait_for("the Scheduled events", lambda: (lambda got: got if set(got) == set(first + second)
                                                              else None)(
                Counter(e["regarding"]["name"] for e in events(rest, ns) if e["reason"] == "Scheduled")))
            assert set(evs.values()) == {1}, evs
            assert not [e for e in events(rest, ns) if e["reason"] != "Scheduled"]
            assert standby.stop(30) == 0, standby.log()
        assert rest.request("GET", lease_path)["spec"]["holderIdentity"] == ""  # released on SIGTERM


def test_a_lost_lease_ends_the_process_with_code_1(control_plane: ControlPlane, tmp_path: Path) -> None:
    """Someone else writes the Lease (as a partitioned leader sees it when it reconnects): the
    renewals fail for renewDeadline, and kubesched exits 1, as kube-scheduler's OnStoppedLeading
    ("leaderelection lost")."""
    lease = f"kubesched-{uuid.uuid4().hex[:8]}"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaseDuration": "2s", "renewDeadline": "1500ms", "retryPeriod": "300ms",
                           "resourceNamespace": "kube-system", "resourceName": lease},
        "profiles": [{"schedulerName": f"kubesched-{lease}"}]}))
    rest = rest_for(control_plane)
    lease_path = f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{lease}"
    with KubeschedProcess(tmp_path / "k.log", "--config", str(config), "--kubeconfig",
                          str(control_plane.kubeconfig)) as ks:
        wait_for("kubesched to lead", lambda: ks.leading, timeout=30)
        for _ in range(50):  # kubesched renews every retryPeriod: read again on a conflict
            obj = rest.request("GET", lease_path)
            obj["spec"]["holderIdentity"] = "someone-else"
            obj["spec"]["leaseDurationSeconds"] = 3600
            try:
                rest.request("PUT", lease_path, obj)
                break
            except Conflict:
                continue
        else:
            raise AssertionError("the Lease could not be taken over")
        assert ks.proc.wait(15) == 1, ks.log()
        assert "Leaderelection lost" in ks.log()
    assert rest.request("GET", lease_path)["spec"]["holderIdentity"] == "someone-else"
