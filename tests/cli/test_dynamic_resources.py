"""DRA through the command line: claims from templates generated as the resourceclaim
controller does, devices allocated by DynamicResources (never the same device twice), explain
showing per node which devices the claims would get, ``-o yaml`` round-tripping the claims with
their status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from _cli import json_output
from kubesched.cli import app

runner = CliRunner()

GPU = "gpu.example.com"


def _node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "20"}},
    }


def _slice(node: str, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": GPU,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {"name": f"gpu-{i}", "attributes": {"model": {"string": "h100"}}} for i in range(gpus)
            ],
        },
    }


CLASS = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}]},
}


def _template(name: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": count}}]
                }
            }
        },
    }


def _pod(name: str, template: str = "one-gpu") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [{"name": "c", "image": "cuda", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
        },
    }


def _cluster(tmp_path: Path, pods: list[dict[str, Any]]) -> Path:
    path = tmp_path / "cluster.yaml"
    docs = [
        _node("node-1"),
        _node("node-2"),
        _slice("node-1", 2),
        _slice("node-2", 1),
        CLASS,
        _template("one-gpu", 1),
        _template("four-gpus", 4),
        *pods,
    ]
    path.write_text(yaml.safe_dump_all(docs))
    return path


def test_simulate_allocates_distinct_devices_from_templates(tmp_path: Path) -> None:
    report = json_output("simulate", str(_cluster(tmp_path, [_pod(f"p{i}") for i in range(4)])))
    pods = {p["pod"]: p for p in report["pods"]}
    placed = [p for p in pods.values() if p["status"] == "Scheduled"]
    assert len(placed) == 3  # three GPUs in the cluster
    devices = [(d["pool"], d["device"]) for p in placed for d in p["devices"]]
    assert sorted(devices) == [("node-1", "gpu-0"), ("node-1", "gpu-1"), ("node-2", "gpu-0")]
    assert all(d["pool"] == p["node"] for p in placed for d in p["devices"])
    (waiting,) = [p for p in pods.values() if p["status"] != "Scheduled"]
    assert waiting["status"] == "Unschedulable"
    assert "cannot allocate all claims" in waiting["message"]


def test_simulate_yaml_round_trips_claims_with_status(tmp_path: Path) -> None:
    first = runner.invoke(app, ["simulate", str(_cluster(tmp_path, [_pod("p0"), _pod("p1")])), "-o", "yaml"])
    assert first.exit_code == 0, first.output
    docs = [d for d in yaml.safe_load_all(first.stdout) if d]
    claims = [d for d in docs if d["kind"] == "ResourceClaim"]
    assert len(claims) == 2
    for c in claims:
        assert c["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] == "gpu"
        assert c["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
        assert c["status"]["allocation"]["devices"]["results"][0]["driver"] == GPU
        assert [r["resource"] for r in c["status"]["reservedFor"]] == ["pods"]
    again = tmp_path / "again.yaml"
    again.write_text(first.stdout)
    second = json_output("simulate", str(again))
    placed = {
        f"default/{d['metadata']['name']}": ("Bound", d["spec"]["nodeName"])
        for d in docs
        if d["kind"] == "Pod"
    }
    assert {p["pod"]: (p["status"], p["node"]) for p in second["pods"]} == placed
    devices = {
        (r["pool"], r["device"]) for c in claims for r in c["status"]["allocation"]["devices"]["results"]
    }
    assert {(d["pool"], d["device"]) for p in second["pods"] for d in p["devices"]} == devices


def test_explain_shows_the_devices_per_node(tmp_path: Path) -> None:
    out = json_output("explain", str(_cluster(tmp_path, [_pod("trainer")])), "--pod", "default/trainer")
    nodes = {n["name"]: n for n in out["nodes"]}
    assert out["selectedNode"] in nodes
    assert [d.split(" -> ")[1] for d in nodes["node-1"]["devices"]] == [f"{GPU}/node-1/gpu-0"]
    assert nodes["node-1"]["devices"][0].startswith("default/trainer-gpu-")


def test_explain_says_why_no_node_has_the_devices(tmp_path: Path) -> None:
    out = json_output("explain", str(_cluster(tmp_path, [_pod("big", "four-gpus")])), "--pod", "default/big")
    assert out["selectedNode"] is None
    for n in out["nodes"]:
        assert {
            "plugin": "DynamicResources",
            "code": "UnschedulableAndUnresolvable",
            "reasons": ["cannot allocate all claims"],
        } in n["filters"]
        assert n["devices"] == []
    assert out["message"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")


def test_explain_lists_dynamic_resources_as_skipped_for_other_pods(tmp_path: Path) -> None:
    web = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    out = json_output("explain", str(_cluster(tmp_path, [web])), "--pod", "default/web")
    assert all(
        {"plugin": "DynamicResources", "code": "Skip", "reasons": []} in n["filters"] for n in out["nodes"]
    )


def test_validate_no_longer_warns(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(_cluster(tmp_path, [_pod("trainer")]))])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_a_profile_without_the_plugin_ignores_claims_as_upstream(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [
                    {
                        "schedulerName": "default-scheduler",
                        "plugins": {"multiPoint": {"disabled": [{"name": "DynamicResources"}]}},
                    }
                ],
            }
        )
    )
    out = json_output(
        "explain",
        str(_cluster(tmp_path, [_pod("big", "four-gpus")])),
        "--pod",
        "default/big",
        "--config",
        str(config),
    )
    assert out["selectedNode"] in ("node-1", "node-2")
    assert all(f["plugin"] != "DynamicResources" for f in out["nodes"][0]["filters"])
