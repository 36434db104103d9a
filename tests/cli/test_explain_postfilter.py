"""What PostFilter says, in ``explain`` and in the FailedScheduling message, for pods that
preemption cannot help: upstream's texts, checked against kube-scheduler v1.35.

RunPostFilterPlugins runs DynamicResources before DefaultPreemption and joins the reasons of
the plugins that reject the pod; a pod that VolumeBinding's PreFilter rejects never reaches
DynamicResources' PreFilter, so its PostFilter fails reading its cycle state (fwk.ErrNotFound,
"not found"), which kube-scheduler appends to the message as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
LOCAL = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
         "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "Immediate"}
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
         "metadata": {"name": "data", "namespace": "default"},
         "spec": {"storageClassName": "local", "accessModes": ["ReadWriteOnce"],
                  "resources": {"requests": {"storage": "1Gi"}}}}


def _pod(name: str, cpu: str, claim: str | None = None) -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    spec: dict[str, Any] = {"containers": [container]}
    if claim is not None:
        spec["volumes"] = [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}]
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _cluster(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    docs = [NODE, LOCAL, CLAIM, _pod("big", "100"), _pod("withclaim", "100m", "data")]
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def _explain_text(path: Path, pod: str) -> str:
    result = runner.invoke(app, ["explain", str(path), "--pod", pod], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_pod_without_claims_postfilter_gives_upstreams_joined_reasons(tmp_path: Path) -> None:
    out = _explain_text(_cluster(tmp_path), "default/big")
    assert ("PostFilter: no new claims to deallocate, preemption: 0/1 nodes are available: "
            "1 Preemption is not helpful for scheduling.") in out
    assert "DynamicResources: no preemption would help" not in out


def test_unbound_immediate_claim_message_is_upstreams(tmp_path: Path) -> None:
    path = _cluster(tmp_path)
    result = runner.invoke(app, ["simulate", str(path), "-o", "json"])
    assert result.exit_code == 0, result.output
    pods = {p["pod"]: p for p in json.loads(result.stdout)["pods"]}
    # kube-scheduler v1.35, same objects: the PreFilter message, then DynamicResources'
    # PostFilter error, "not found" (no Python KeyError text).
    assert pods["default/withclaim"]["message"] == (
        "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found")
    out = _explain_text(path, "default/withclaim")
    assert "PostFilter: DynamicResources failed: not found" in out
    assert "cycleState" not in out
