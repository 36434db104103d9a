"""Builders for workload manifests (plain dicts) shared by the controller tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()
SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"


def node(
    name: str,
    cpu: str = "4",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}},
    }


def template(app_label: str, cpu: str = "100m", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": app_label}},
        "spec": {
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}],
            **spec,
        },
    }


def workload(kind: str, name: str, spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    api = "batch/v1" if kind == "Job" else "v1" if kind == "ReplicationController" else "apps/v1"
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": "default", **meta},
        "spec": spec,
    }


def selector(app_label: str) -> dict[str, Any]:
    return {"matchLabels": {"app": app_label}}


def write(tmp_path: Path, docs: list[dict[str, Any]], name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def simulate_json(path: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["simulate", str(path), "-o", "json", *args])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def generated(report: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [o for o in report["generated"] if o["kind"] == kind]


def pods_of(report: dict[str, Any], workload_ref: str) -> list[dict[str, Any]]:
    return [p for p in report["pods"] if p.get("workload") == workload_ref]
