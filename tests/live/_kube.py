"""Helpers for the live tests: a REST client on the control plane, objects created the way a
user (or kubelet) would, and bounded polling."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest
import yaml

from _serving_client import http_get, insecure_context
from kubesched.cluster import NotFound
from kubesched.cluster.live import RestClient, load_rest_config
from kubesched.cluster.live._resources import collection_path
from kubesched.testing.command import ServingCommand

from .conftest import REPO, ControlPlane, _missing, k8s_dir

SRC = REPO / "src"

T = TypeVar("T")

MERGE = "application/merge-patch+json"


def rest_for(cp: ControlPlane) -> RestClient:
    return RestClient(load_rest_config(cp.kubeconfig))


def wait_for(what: str, fn: Callable[[], T | None], timeout: float = 15.0, every: float = 0.05) -> T:
    """Poll ``fn`` until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        out = fn()
        if out:
            return out
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


def node_manifest(name: str, cpu: str, memory: str, labels: Mapping[str, str] | None = None,
                  taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    res = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": {"taints": taints or []},
            "status": {"capacity": res, "allocatable": res,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod_manifest(name: str, namespace: str, scheduler: str, cpu: str = "100m", memory: str = "64Mi",
                 **spec: Any) -> dict[str, Any]:
    labels = spec.pop("labels", {})
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {"schedulerName": scheduler, "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "c", "image": "registry.invalid/pause",
                                     "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                     **spec}}


def create(rest: RestClient, doc: Mapping[str, Any]) -> dict[str, Any]:
    """Create through the API; a status (a node's, a PDB's) goes through the status
    subresource afterwards, as the kubelet or the disruption controller writes it."""
    kind, md = doc["kind"], doc["metadata"]
    path = collection_path(kind, md.get("namespace", ""))
    out: dict[str, Any] = rest.request("POST", path, {k: v for k, v in doc.items() if k != "status"})
    if "status" in doc and kind != "Pod":
        out = rest.request("PATCH", f"{path}/{md['name']}/status", {"status": doc["status"]},
                           content_type=MERGE)
    return out


def create_all(rest: RestClient, objects: Sequence[Mapping[str, Any]], nodes: list[str]) -> None:
    """:func:`create` each object in order; the nodes' names go to ``nodes`` (what
    :func:`cleanup` deletes)."""
    for obj in objects:
        create(rest, obj)
        if obj["kind"] == "Node":
            nodes.append(obj["metadata"]["name"])


def get_pod(rest: RestClient, namespace: str, name: str) -> dict[str, Any]:
    out: dict[str, Any] = rest.request("GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
    return out


def condition(pod: Mapping[str, Any], type_: str) -> Mapping[str, Any] | None:
    conditions = (pod.get("status") or {}).get("conditions") or ()
    return next((c for c in conditions if c.get("type") == type_), None)


def events(rest: RestClient, namespace: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = rest.request(
        "GET", f"/apis/events.k8s.io/v1/namespaces/{namespace}/events")["items"]
    return items


@contextmanager
def cleanup(rest: RestClient, namespace: str) -> Iterator[list[str]]:
    """Yields a list to put created node names in; deletes them, the namespace's pods (at
    once: no kubelet runs) and the namespace after."""
    nodes: list[str] = []
    try:
        yield nodes
    finally:
        for n in nodes:
            with suppress(NotFound):
                rest.request("DELETE", f"/api/v1/nodes/{n}")
        with suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods",
                         {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
        with suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{namespace}")


def profile_config(tmp_path: Path, scheduler: str) -> Path:
    """A KubeSchedulerConfiguration file with one profile named ``scheduler`` (each test's own,
    so that the scheduler under test takes only its own pods)."""
    p = tmp_path / "config.yaml"
    p.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                 "kind": "KubeSchedulerConfiguration",
                                 "profiles": [{"schedulerName": scheduler}]}))
    return p


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def https_get(port: int, path: str, token: str | None = None) -> tuple[int, str]:
    """(status, body) of a GET on kubesched's endpoints (with ``token`` as a bearer token), its
    self-signed certificate accepted (as the kubelet's HTTPS probes do)."""
    return http_get(f"https://127.0.0.1:{port}{path}", token, context=insecure_context(), timeout=5)


ANONYMOUS_METRICS = ("--authorization-always-allow-paths", "/healthz,/readyz,/livez,/metrics")
"""Flags opening /metrics to anonymous clients, as upstream's flag allows (the tests read it
without credentials; kube-scheduler's default serves it only to authorized clients)."""


class KubeschedProcess(ServingCommand):
    """``kubesched run ARGS`` as a child process serving on its own loopback port (HTTPS);
    stderr goes to ``log_path`` (read with :meth:`log`). Use as a context manager: the process
    is stopped on exit if still running. /metrics is open to anonymous clients
    (:data:`ANONYMOUS_METRICS`) unless ``args`` say otherwise."""

    def __init__(self, log_path: Path, *args: str) -> None:
        if "--authorization-always-allow-paths" not in args:
            args = (*args, *ANONYMOUS_METRICS)
        self.port = free_port()
        super().__init__("run", *args, "--bind-address", f"127.0.0.1:{self.port}", "-v", "2",
                         env={"KUBECONFIG": None}, wait=False, log_path=log_path)

    def metric(self, line_prefix: str) -> float | None:
        """The value of the first /metrics sample starting with ``line_prefix`` (None: absent
        or not serving)."""
        try:
            status, text = https_get(self.port, "/metrics")
        except OSError:
            return None
        if status != 200:
            return None
        for line in text.splitlines():
            if line.startswith(line_prefix):
                return float(line.rsplit(" ", 1)[1])
        return None

    @property
    def leading(self) -> bool:
        return self.metric("leader_election_master_status{") == 1.0


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


def restart_api_server(cp: ControlPlane, while_down: float = 2.0, extra_args: Sequence[str] = ()) -> None:
    """Stop kube-apiserver (SIGTERM, then SIGKILL after 5 s, as the script does), stay down
    ``while_down`` seconds, start it again with the same command line and ``extra_args`` (its
    pid file updated, so ``stop`` still stops it), and wait until it is ready."""
    pid = _pid(cp)
    argv = [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")]
    argv += extra_args
    os.kill(pid, signal.SIGTERM)
    if not _exited(pid, 5.0):  # its graceful shutdown can take long: cut it short, as the script does
        os.kill(pid, signal.SIGKILL)
        assert _exited(pid, 10.0), "kube-apiserver did not exit"
    time.sleep(while_down)
    # started from a shell that exits at once, as the script starts it: not this process's child,
    # so the script's ``stop`` sees it gone as soon as it exits (no zombie to wait out)
    started = subprocess.run(["sh", "-c", 'log=$1; shift; "$@" >>"$log" 2>&1 & echo $!', "sh",
                              str(cp.dir / "logs" / "kube-apiserver.log"), *argv],
                             capture_output=True, text=True, check=True, timeout=30)
    (cp.dir / "pids" / "kube-apiserver.pid").write_text(started.stdout)
    wait_for("kube-apiserver to be ready again", lambda: _ready(cp), timeout=60, every=0.2)


def bench_script(monkeypatch: pytest.MonkeyPatch, name: str) -> ModuleType:
    """``benchmarks/<name>.py`` loaded as a module, for a smoke test at a tiny size (so that the
    script cannot rot), with the control-plane script it starts its own control plane from;
    skipped (failed in CI) when that script or a tool it needs is missing."""
    script = k8s_dir() / "control-plane"
    if not script.is_file():
        _missing(f"{script} not found")
    for tool in ("curl", "openssl", "xz"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    monkeypatch.setenv("KUBESCHED_K8S_DIR", str(k8s_dir()))
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod
