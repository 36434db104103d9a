"""examples/dra through the command line: the placements and device allocations the README's
walkthrough shows (matchAttribute, firstAvailable, shared counters, a tolerated device taint, a
claim shared by name, the pod that fits nowhere), explain's devices per node, and the ``-o yaml``
round trip keeping every allocation."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from _cli import json_output
from kubesched.cli import app

runner = CliRunner()

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dra"
DRIVER = "gpu.example.com"


def _pods(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["pod"]: p for p in doc["pods"]}


def _devices(pod: dict[str, Any]) -> list[tuple[str, str]]:
    return [(d["pool"], d["device"]) for d in pod["devices"]]


def test_simulate_places_every_pod_but_the_sixteen_gpu_one() -> None:
    pods = _pods(json_output("simulate", str(EXAMPLE)))
    assert len(pods) == 18
    bad = pods.pop("ml/train-16")
    assert bad["node"] is None
    assert bad["message"].startswith("0/10 nodes are available: 10 cannot allocate all claims.")
    assert all(p["status"] == "Scheduled" for p in pods.values())
    for p in pods.values():  # devices come from the pod's own node, of the one driver
        assert p["devices"] and all(d["driver"] == DRIVER and d["pool"] == p["node"] for d in p["devices"])

    # matchAttribute numaNode: four GPUs of one NUMA node (gpu-0..3 or gpu-4..7).
    for name in ("ml/train-0", "ml/train-1", "ml/train-2"):
        numa = {int(dev.rsplit("-", 1)[1]) // 4 for _, dev in _devices(pods[name])}
        assert len(pods[name]["devices"]) == 4 and len(numa) == 1
    # A claim shared by name: both pods on its node, the same device.
    assert pods["ml/shared-a"]["node"] == pods["ml/shared-b"]["node"]
    assert _devices(pods["ml/shared-a"]) == _devices(pods["ml/shared-b"])
    # The tainted GPU goes only to the claim tolerating its taint.
    assert _devices(pods["ml/burn-in"]) == [("gpu-node-7", "gpu-7")]
    # Partitions of the MIG-like GPU, each once; its shared counters allow all four.
    mig = [d for n in ("ml/mig-small-0", "ml/mig-small-1", "ml/mig-small-2", "ml/mig-large")
           for d in _devices(pods[n])]
    assert {pool for pool, _ in mig} == {"mig-node-0"} and len(set(mig)) == 4
    assert sum("3g40gb" in dev for _, dev in mig) == 1
    # firstAvailable: an H100 was free, so its first sub-request.
    for name in ("ml/flex-0", "ml/flex-1"):
        assert [d["request"] for d in pods[name]["devices"]] == ["gpu/h100"]
        assert pods[name]["node"] in {f"gpu-node-{i}" for i in range(6)}
    # example.com/gpu, served by the class gpu.example.com (no node advertises it): two whole
    # GPUs through the claim the scheduler created, one request for the container.
    legacy = pods["ml/video-encode"]
    assert len(legacy["devices"]) == 2
    assert {d["request"] for d in legacy["devices"]} == {"container-0-request-1"}
    [claim_name] = {d["claim"] for d in legacy["devices"]}
    assert claim_name.startswith("ml/video-encode-extended-resources-")
    # No device is handed out twice (the shared claim counts once).
    used = Counter(d for name, p in pods.items() if name != "ml/shared-b" for d in _devices(p))
    assert max(used.values()) == 1


def test_explain_shows_the_devices_per_node_and_the_fallback_sub_request() -> None:
    doc = json_output("explain", str(EXAMPLE), "--pod", "ml/flex-0")
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert not nodes["cpu-node-0"]["feasible"] and not nodes["mig-node-0"]["feasible"]
    h100 = nodes["gpu-node-0"]["devices"]
    assert len(h100) == 1 and h100[0].endswith(": gpu/h100 -> gpu.example.com/gpu-node-0/gpu-0")
    a100 = nodes["gpu-node-6"]["devices"]
    assert [d.split(": ", 1)[1] for d in a100] == [
        "gpu/two-a100 -> gpu.example.com/gpu-node-6/gpu-0",
        "gpu/two-a100 -> gpu.example.com/gpu-node-6/gpu-1",
    ]
    # The prioritized-list score prefers the first sub-request: an H100 node is selected.
    assert doc["selectedNode"] in {f"gpu-node-{i}" for i in range(6)}


def test_yaml_round_trip_keeps_the_allocations(tmp_path: Path) -> None:
    first = runner.invoke(app, ["simulate", str(EXAMPLE), "-o", "yaml"])
    assert first.exit_code == 0, first.output
    docs = [d for d in yaml.safe_load_all(first.stdout) if d]
    claims = [d for d in docs if d["kind"] == "ResourceClaim"]
    allocated = [c for c in claims if c.get("status", {}).get("allocation")]
    # 13 claims from templates, the 2 used by name and video-encode's extended resource claim;
    # train-16's stays unallocated.
    assert len(allocated) == 16
    out = tmp_path / "state.yaml"
    out.write_text(first.stdout)
    before = _pods(json_output("simulate", str(EXAMPLE)))
    again = _pods(json_output("simulate", str(out)))
    for name, p in before.items():
        assert again[name]["node"] == p["node"]
        if p["node"]:
            assert _devices(again[name]) == _devices(p)
    assert again["ml/train-16"]["node"] is None


def test_explain_shows_the_devices_of_an_extended_resource() -> None:
    """A pod requesting example.com/gpu (served by the class gpu.example.com, advertised by no
    node): NodeResourcesFit passes every node, DynamicResources allocates two GPUs on each GPU
    node for the in-memory claim ``<extended-resources>`` (request container-0-request-1)."""
    doc = json_output("explain", str(EXAMPLE), "--pod", "ml/video-encode")
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert not nodes["cpu-node-0"]["feasible"]
    gpu = nodes["gpu-node-0"]["devices"]
    assert gpu == [f"ml/<extended-resources>: container-0-request-1 -> {DRIVER}/gpu-node-0/gpu-{i}"
                   for i in range(2)]
    assert doc["selectedNode"].startswith("gpu-node-")
