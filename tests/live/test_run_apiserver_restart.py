"""``kubesched run`` survives a restart of the API server: its watches break, the informers
reconnect (with backoff) and relist, and a pod created once the server is back is scheduled;
the process never exits. A control plane of its own (not the session's), stopped at the end;
the API server is restarted with the command line it was started with (read from /proc)."""

from __future__ import annotations

from pathlib import Path

import yaml

from ._kube import (
    KubeschedProcess,
    create,
    get_pod,
    node_manifest,
    pod_manifest,
    rest_for,
    restart_api_server,
    wait_for,
)
from .conftest import ControlPlane


def test_an_api_server_restart_is_survived(own_control_plane: ControlPlane, tmp_path: Path) -> None:
    cp = own_control_plane
    sched = "kubesched-restart"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False}, "profiles": [{"schedulerName": sched}]}))
    rest = rest_for(cp)
    create(rest, node_manifest("n1", "4", "8Gi"))
    create(rest, pod_manifest("before", "default", sched))
    with KubeschedProcess(tmp_path / "kubesched.log", "--config", str(config), "--kubeconfig",
                          str(cp.kubeconfig)) as ks:
        wait_for("the first pod to be bound",
                 lambda: get_pod(rest, "default", "before")["spec"].get("nodeName"), timeout=30)
        restart_api_server(cp)
        rest = rest_for(cp)  # fresh connections
        create(rest, node_manifest("n2", "64", "128Gi"))
        create(rest, pod_manifest("after", "default", sched, cpu="8"))  # fits n2 only: the relisted node
        node = wait_for("the pod created after the restart to be bound",
                        lambda: get_pod(rest, "default", "after")["spec"].get("nodeName"), timeout=45)
        assert node == "n2"
        assert ks.proc.poll() is None, ks.log()
        assert ks.stop(30) == 0, ks.log()
