"""The DRA workloads of the benchmark: upstream's createResourceDriver, createAny and
allocResourceClaims ops, createPods with steadyState, and the templates' ``{{DivideInt}}``."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from kubesched.perf import (
    BUNDLED_CONFIG,
    ConfigError,
    ObjectFactory,
    Op,
    check_decisions,
    load_config,
    parse_config,
    run_workload,
    select_workloads,
)


def _workload(name: str) -> Any:
    return select_workloads(load_config(), [name])[0]


def _config(ops: list[dict[str, Any]], params: dict[str, Any]) -> Any:
    doc = [{"name": "T", "featureGates": {"DynamicResourceAllocation": True}, "workloadTemplate": ops,
            "workloads": [{"name": "w", "params": params}]}]
    return parse_config(doc, BUNDLED_CONFIG.parent, "test")[0].workloads[0]


_DRIVER_OPS: list[dict[str, Any]] = [
    {"opcode": "createNodes", "countParam": "$nodesWithoutDRA"},
    {"opcode": "createNodes", "nodeTemplatePath": "templates/node-with-dra-test-driver.yaml",
     "countParam": "$nodesWithDRA"},
    {"opcode": "createResourceDriver", "driverName": "test-driver.cdi.k8s.io",
     "nodes": "scheduler-perf-dra-*", "maxClaimsPerNodeParam": "$maxClaimsPerNode"},
    {"opcode": "createAny", "templatePath": "templates/deviceclass.yaml"},
]


def test_devices_only_on_the_nodes_the_driver_matches() -> None:
    r = run_workload(_workload("SchedulingWithResourceClaimTemplate/fast"), seed=1)
    assert r.nodes == 2 and r.scheduled == r.measured_pods == 10
    # The node without DRA has no devices: every pod (one device each) is on the DRA node.
    assert set(r.placements.values()) == {"scheduler-perf-dra-0"}


def test_claims_allocated_beforehand_take_their_devices() -> None:
    # 2 DRA nodes x 2 devices; 3 claims allocated first (node 0 full, one device of node 1),
    # so the one device left is on node 1.
    ops = [*_DRIVER_OPS,
           {"opcode": "createAny", "templatePath": "templates/resourceclaim.yaml",
            "countParam": "$initClaims", "namespace": "init"},
           {"opcode": "allocResourceClaims", "namespace": "init"},
           {"opcode": "createAny", "templatePath": "templates/resourceclaimtemplate.yaml",
            "namespace": "test"},
           {"opcode": "createPods", "namespace": "test", "countParam": "$measurePods",
            "podTemplatePath": "templates/pod-with-claim-template.yaml", "collectMetrics": True}]
    wl = _config(ops, {"nodesWithoutDRA": 0, "nodesWithDRA": 2, "maxClaimsPerNode": 2, "initClaims": 3,
                       "measurePods": 1})
    r = run_workload(wl, seed=1, pace=False)
    assert list(r.placements.values()) == ["scheduler-perf-dra-1"]


def test_alloc_fails_clearly_when_a_claim_fits_nowhere() -> None:
    ops = [*_DRIVER_OPS,
           {"opcode": "createAny", "templatePath": "templates/resourceclaim.yaml",
            "countParam": "$initClaims", "namespace": "init"},
           {"opcode": "allocResourceClaims", "namespace": "init"}]
    wl = _config(ops, {"nodesWithoutDRA": 0, "nodesWithDRA": 1, "maxClaimsPerNode": 1, "initClaims": 2})
    with pytest.raises(ConfigError, match="could not allocate claim init/test-claim-1"):
        run_workload(wl, seed=1)


def test_steady_state_replaces_each_scheduled_pod() -> None:
    r = run_workload(_workload("SteadyStateClusterResourceClaimTemplate/fast"), seed=1)
    # 10 pods at a time on one node with 10 devices: far more than 10 were scheduled in 2 s,
    # which only happens when deleted pods give their claims (and devices) back.
    assert r.measured_pods == r.scheduled > 10
    assert set(r.placements.values()) == {"scheduler-perf-dra-0"}


def test_claim_ref_pods_share_claims_five_by_five() -> None:
    op = Op("createPods", 0, {"podTemplatePath": "templates/pod-with-claim-ref.yaml", "count": 10},
            BUNDLED_CONFIG.parent)
    pods = list(ObjectFactory(random.Random(0)).pods(op, "test"))
    names = Counter(p.resource_claims[0].resource_claim_name for p in pods)  # type: ignore[union-attr]
    assert names == {"test-claim-0": 5, "test-claim-1": 5}
    assert [p.name for p in pods][:2] == ["test-dra-0", "test-dra-1"]


def test_gpu_cluster_workload_fills_the_gpus_one_per_claim() -> None:
    r = run_workload(_workload("SchedulingWithGPUClaimTemplate/5Nodes"), seed=1)
    assert r.scheduled == r.measured_pods == 24
    per_node = Counter(r.placements.values())
    assert sum(per_node.values()) == 32 and max(per_node.values()) <= 8  # 8 GPUs per node


def test_create_any_refuses_a_kind_kubesched_does_not_read(tmp_path: Any) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    doc = [{"name": "T", "workloadTemplate": [{"opcode": "createAny", "templatePath": "cm.yaml"}],
            "workloads": [{"name": "w"}]}]
    wl = parse_config(doc, tmp_path, "test")[0].workloads[0]
    with pytest.raises(ConfigError, match="ConfigMap"):
        run_workload(wl)


@pytest.mark.parametrize("name", [
    "SchedulingWithResourceClaimTemplate/fast_QueueingHintsEnabled",
    "SchedulingWithResourceClaim/fast",
    "SchedulingWithGPUClaimTemplate/5Nodes",
])
def test_check_decisions_batch_and_per_node_agree_on_dra(name: str) -> None:
    result = check_decisions(_workload(name), seed=5)
    assert len(result.placements) >= result.measured_pods > 0


def test_no_device_is_handed_out_twice() -> None:
    # One node with 10 devices and 15 pods of one claim each: 10 fit. The DRA plugin follows the
    # claims through the store's change log, which the benchmark's store must keep.
    ops = [
        {"opcode": "createNodes", "nodeTemplatePath": "templates/node-with-dra-test-driver.yaml", "count": 1},
        {"opcode": "createResourceDriver", "driverName": "test-driver.cdi.k8s.io",
         "nodes": "scheduler-perf-dra-*", "maxClaimsPerNode": 10},
        {"opcode": "createAny", "templatePath": "templates/deviceclass.yaml"},
        {"opcode": "createAny", "templatePath": "templates/resourceclaimtemplate.yaml", "namespace": "test"},
        {"opcode": "createPods", "namespace": "test", "count": 15,
         "podTemplatePath": "templates/pod-with-claim-template.yaml", "collectMetrics": True},
    ]
    r = run_workload(_config(ops, {}), seed=1, pace=False)
    assert r.measured_pods == 15 and r.scheduled == 10


def test_extended_resource_workload_gets_devices_without_claims_of_its_own() -> None:
    """SchedulingWithExtendedResource/fast (upstream's dra/extendedresource config): pod i asks
    for example.com/gpu-<i> (the template's ``{{.Index}}`` in a resource *name*, rendered like
    any text), served by DeviceClass test-class-<i>; the scheduler creates one claim per pod."""
    r = run_workload(_workload("SchedulingWithExtendedResource/fast"), seed=1)
    assert r.scheduled == r.measured_pods == 10
    assert set(r.placements.values()) == {"scheduler-perf-dra-0"}  # the only node with devices


def test_template_keys_are_rendered() -> None:
    container = {"name": "c", "image": "i", "resources": {"requests": {"example.com/gpu-{{.Index}}": 1}}}
    tmpl = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p-{{.Index}}"},
            "spec": {"containers": [container]}}
    pod = ObjectFactory(random.Random(0)).any(tmpl, 7, "default")
    assert pod.requests == {"example.com/gpu-7": 1}
