"""kube-scheduler v1.35's FailedScheduling messages for pods that preemption cannot help, and
kubesched's for the same objects: a pod with an unbound Immediate claim (no PersistentVolume
controller runs here, as none could bind it in a simulation: its class has no provisioner),
and a pod without claims that fits nowhere (DynamicResources' PostFilter reason first)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.cli import app

from ._kube import cleanup, condition, create, get_pod, node_manifest, pod_manifest, rest_for, wait_for
from .conftest import ControlPlane, k8s_dir, started_control_plane


@pytest.fixture(scope="module")
def control_plane_135(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """kube-apiserver and the real kube-scheduler v1.35 (DynamicResourceAllocation on by default)."""
    for cp in started_control_plane(k8s_dir().parent / "k8s-1.35" / "control-plane", tmp_path_factory):
        cp.run("scheduler")
        yield cp


def test_unschedulable_messages_match_kube_scheduler(control_plane_135: ControlPlane, namespace_name: str,
                                                     tmp_path: Path) -> None:
    ns, rest = namespace_name, rest_for(control_plane_135)
    node = node_manifest(f"{ns}-n1", "2", "4Gi")
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": f"{ns}-local"},
          "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "Immediate"}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": ns},
             "spec": {"storageClassName": f"{ns}-local", "accessModes": ["ReadWriteOnce"],
                      "resources": {"requests": {"storage": "1Gi"}}}}
    with_claim = pod_manifest("withclaim", ns, "default-scheduler",
                              volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}])
    big = pod_manifest("big", ns, "default-scheduler", cpu="100")
    docs: list[dict[str, Any]] = [node, sc, claim, with_claim, big]
    with cleanup(rest, ns) as nodes:
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        nodes.append(node["metadata"]["name"])
        for doc in docs:
            create(rest, doc)

        def message(name: str) -> str | None:
            cond = condition(get_pod(rest, ns, name), "PodScheduled") or {}
            return str(cond["message"]) if cond.get("status") == "False" else None

        real = {name: wait_for(f"{name} unschedulable", lambda name=name: message(name))  # type: ignore[misc]
                for name in ("withclaim", "big")}
        rest.request("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{ns}-local")
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    result = CliRunner().invoke(app, ["simulate", str(path), "-o", "json"])
    assert result.exit_code == 0, result.output
    ours = {p["pod"].split("/")[1]: p["message"] for p in json.loads(result.stdout)["pods"]}
    assert real["withclaim"] == ("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                                 "not found")
    assert ours == real
