"""``kubesched run`` survives a restart of the API server: its watches break, the informers
reconnect (with backoff) and relist, and a pod created once the server is back is scheduled;
the process never exits. A control plane of its own (not the session's), stopped at the end;
the API server is restarted with the command line it was started with (read from /proc)."""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ._kube import KubeschedProcess, create, get_pod, node_manifest, pod_manifest, rest_for, wait_for
from .conftest import ControlPlane


def _pid(cp: ControlPlane) -> int:
    return int((cp.dir / "pids" / "kube-apiserver.pid").read_text())


def _ready(cp: ControlPlane) -> bool:
    ctx = ssl.create_default_context(cafile=str(cp.dir / "ca.crt"))
    req = urllib.request.Request(f"{cp.api_url}/readyz", headers={"Authorization": f"Bearer {cp.token}"})
    try:
        with urllib.request.urlopen(req, timeout=2, context=ctx) as resp:
            return bool(resp.read() == b"ok")
    except OSError:
        return False


def _exited(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if "zombie" in Path(f"/proc/{pid}/status").read_text():
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def restart_api_server(cp: ControlPlane, while_down: float = 2.0) -> None:
    """Stop kube-apiserver (SIGTERM, then SIGKILL after 5 s, as the script does), stay down
    ``while_down`` seconds, start it again with the same command line (its pid file updated, so
    ``stop`` still stops it), and wait until it is ready."""
    pid = _pid(cp)
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    os.kill(pid, signal.SIGTERM)
    if not _exited(pid, 5.0):  # its graceful shutdown can take long: cut it short, as the script does
        os.kill(pid, signal.SIGKILL)
        assert _exited(pid, 10.0), "kube-apiserver did not exit"
    time.sleep(while_down)
    # started from a shell that exits at once, as the script starts it: not this process's child,
    # so the script's ``stop`` sees it gone as soon as it exits (no zombie to wait out)
    started = subprocess.run(["sh", "-c", 'log=$1; shift; "$@" >>"$log" 2>&1 & echo $!', "sh",
                              str(cp.dir / "logs" / "kube-apiserver.log"), *(a.decode() for a in argv)],
                             capture_output=True, text=True, check=True, timeout=30)
    (cp.dir / "pids" / "kube-apiserver.pid").write_text(started.stdout)
    wait_for("kube-apiserver to be ready again", lambda: _ready(cp), timeout=60, every=0.2)


@pytest.fixture
def own_control_plane(control_plane: ControlPlane, tmp_path: Path) -> Iterator[ControlPlane]:
    """A second control plane from the same script (the session's stays untouched)."""
    d = tmp_path / "cp"
    started = subprocess.run([str(control_plane.script), "start", str(d)], capture_output=True, text=True,
                             timeout=300)
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        env = dict(line.split("=", 1) for line in (d / "env").read_text().splitlines() if "=" in line)
        yield ControlPlane(dir=d, script=control_plane.script, kubeconfig=Path(env["KUBECONFIG"]),
                           api_url=env["API_URL"], token=env["TOKEN"])
    finally:
        subprocess.run([str(control_plane.script), "stop", str(d)], capture_output=True, text=True,
                       timeout=180)


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
        assert ks.terminate() == 0, ks.log()
