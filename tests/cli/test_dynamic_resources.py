"""Pods with ``spec.resourceClaims`` are not placed as if they had none: DRA is not implemented,
so the default profile's DynamicResources refuses them (explain, simulate) and validate warns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()

NOT_IMPLEMENTED = "pod uses resourceClaims: Dynamic Resource Allocation is not implemented by kubesched yet"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}


def _pod(name: str, claims: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "cuda"}]}
    if claims:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]
        spec["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _cluster(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, _pod("trainer", True), _pod("web", False)]))
    return path


def _json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "-o", "json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def test_explain_refuses_a_pod_with_claims(tmp_path: Path) -> None:
    out = _json("explain", str(_cluster(tmp_path)), "--pod", "default/trainer")
    assert out["selectedNode"] is None
    (node,) = out["nodes"]
    assert node["filters"] == [{"plugin": "DynamicResources", "code": "UnschedulableAndUnresolvable",
                                "reasons": [NOT_IMPLEMENTED]}]
    assert out["message"].startswith(f"0/1 nodes are available: {NOT_IMPLEMENTED}.")


def test_explain_lists_dynamic_resources_as_skipped_for_other_pods(tmp_path: Path) -> None:
    out = _json("explain", str(_cluster(tmp_path)), "--pod", "default/web")
    assert out["selectedNode"] == "node-1"
    (node,) = out["nodes"]
    assert {"plugin": "DynamicResources", "code": "Skip", "reasons": []} in node["filters"]


def test_simulate_reports_it_unschedulable(tmp_path: Path) -> None:
    report = _json("simulate", str(_cluster(tmp_path)))
    pods = {p["pod"]: p for p in report["pods"]}
    assert pods["default/web"]["status"] == "Scheduled"
    trainer = pods["default/trainer"]
    assert (trainer["status"], trainer["node"]) == ("Unschedulable", None)
    assert NOT_IMPLEMENTED in trainer["message"]


def test_validate_warns_on_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(_cluster(tmp_path))])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln]
    assert len(lines) == 1
    assert lines[0].startswith("warning: 1 pending pod(s) use resourceClaims (first: default/trainer)")
    assert "Dynamic Resource Allocation is not implemented by kubesched yet" in lines[0]


def test_a_profile_without_the_plugin_ignores_claims_as_upstream(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"disabled": [{"name": "DynamicResources"}]}}}]}))
    out = _json("explain", str(_cluster(tmp_path)), "--pod", "default/trainer", "--config", str(config))
    assert out["selectedNode"] == "node-1"
    assert all(f["plugin"] != "DynamicResources" for f in out["nodes"][0]["filters"])
