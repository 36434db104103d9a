"""resource.k8s.io/v1 kinds: parsed into typed objects, refused with the API server's field
errors (pkg/apis/resource/validation), loaded, stored, round-tripped and counted."""

from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api import (
    DeviceAttribute,
    DeviceClass,
    PodResourceClaim,
    PodResourceClaimStatus,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    load_documents,
    parse_object,
)
from kubesched.cli import app
from kubesched.cluster import MemoryStore

runner = CliRunner()
V1 = "resource.k8s.io/v1"

CLASS: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {
        "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
        "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"sharing": "none"}}}],
        "extendedResourceName": "example.com/gpu",
    },
}
SLICE: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "ResourceSlice",
    "metadata": {"name": "node-1-gpu"},
    "spec": {
        "driver": "gpu.example.com",
        "pool": {"name": "node-1", "generation": 2, "resourceSliceCount": 1},
        "nodeName": "node-1",
        "devices": [
            {
                "name": "gpu-0",
                "attributes": {
                    "model": {"string": "a100"},
                    "index": {"int": 0},
                    "ecc": {"bool": True},
                    "driverVersion": {"version": "1.2.3"},
                    "other.example.com/pcie": {"strings": ["a", "b"]},
                },
                "capacity": {"memory": {"value": "40Gi"}},
                "taints": [{"key": "example.com/unhealthy", "effect": "NoSchedule"}],
            }
        ],
    },
}
CLAIM: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "ResourceClaim",
    "metadata": {"name": "shared", "namespace": "ml"},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu.example.com",
                        "count": 2,
                        "adminAccess": False,
                        "selectors": [{"cel": {"expression": "true"}}],
                        "tolerations": [{"key": "example.com/unhealthy", "operator": "Exists"}],
                        "capacity": {"requests": {"memory": "10Gi"}},
                    },
                },
                {
                    "name": "nic",
                    "firstAvailable": [
                        {"name": "fast", "deviceClassName": "nic.example.com"},
                        {"name": "any", "deviceClassName": "nic.example.com", "allocationMode": "All"},
                    ],
                },
            ],
            "constraints": [{"requests": ["gpu", "nic/fast"], "matchAttribute": "gpu.example.com/numa"}],
            "config": [
                {"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}
            ],
        }
    },
    "status": {
        "allocation": {
            "devices": {
                "results": [
                    {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}
                ]
            },
        },
        "reservedFor": [{"resource": "pods", "name": "p", "uid": "1234"}],
    },
}
TEMPLATE: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "one-gpu", "namespace": "ml"},
    "spec": {
        "metadata": {"labels": {"app": "train"}},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}
        },
    },
}
TAINT_RULE: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "DeviceTaintRule",
    "metadata": {"name": "broken"},
    "spec": {
        "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
        "taint": {"key": "example.com/broken", "value": "yes", "effect": "NoExecute"},
    },
}


def test_device_class_fields() -> None:
    dc = parse_object(CLASS)
    assert isinstance(dc, DeviceClass)
    assert dc.selectors == ('device.driver == "gpu.example.com"',)
    assert dc.config[0].driver == "gpu.example.com" and dc.config[0].parameters == {"sharing": "none"}
    assert dc.extended_resource_name == "example.com/gpu"


def test_resource_slice_fields() -> None:
    s = parse_object(SLICE)
    assert isinstance(s, ResourceSlice)
    assert (s.driver, s.pool.name, s.pool.generation, s.pool.resource_slice_count) == (
        "gpu.example.com",
        "node-1",
        2,
        1,
    )
    assert s.node_name == "node-1" and not s.all_nodes and not s.per_device_node_selection
    (dev,) = s.devices
    assert dev.attributes["index"] == DeviceAttribute("int", 0)
    assert dev.attributes["ecc"] == DeviceAttribute("bool", True)
    assert dev.attributes["driverVersion"] == DeviceAttribute("version", "1.2.3")
    assert dev.attributes["other.example.com/pcie"] == DeviceAttribute("strings", ("a", "b"))
    assert dev.capacity["memory"].value == 40 * 2**30
    assert dev.taints[0].effect == "NoSchedule"


def test_resource_claim_fields() -> None:
    c = parse_object(CLAIM)
    assert isinstance(c, ResourceClaim)
    gpu, nic = c.devices.requests
    assert gpu.exactly is not None and gpu.exactly.count == 2 and gpu.exactly.allocation_mode == "ExactCount"
    assert gpu.exactly.capacity == {"memory": Fraction(10 * 2**30)}
    assert gpu.exactly.tolerations[0].operator == "Exists"
    assert [s.name for s in nic.first_available] == ["fast", "any"]
    assert nic.first_available[0].count == 1  # defaulted
    assert (nic.first_available[1].allocation_mode, nic.first_available[1].count) == ("All", 0)
    assert c.devices.constraints[0].match_attribute == "gpu.example.com/numa"
    assert c.devices.config[0].requests == ("gpu",)
    assert c.allocation is not None and c.allocation.results[0].device == "gpu-0"
    assert c.allocation.node_selector is not None
    assert c.reserved_for[0].uid == "1234"


def test_template_and_taint_rule_fields() -> None:
    t = parse_object(TEMPLATE)
    assert isinstance(t, ResourceClaimTemplate)
    assert t.claim_labels == {"app": "train"} and t.devices.requests[0].exactly is not None
    r = parse_object(TAINT_RULE)
    assert (r.driver, r.pool, r.device, r.taint.effect) == ("gpu.example.com", "node-1", "gpu-0", "NoExecute")


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``base`` with the dotted ``path`` (list indices as numbers) set to ``value``."""
    d = copy.deepcopy(base)
    node: Any = d
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return d


def _req(**exactly: Any) -> list[dict[str, Any]]:
    return [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", **exactly}}]


BAD = [
    pytest.param(
        _with(CLASS, "metadata.name", "GPU"),
        'metadata.name: Invalid value: "GPU": a lowercase RFC 1123 subdomain',
        id="class-name",
    ),
    pytest.param(
        _with(CLASS, "spec.selectors", [{"cel": {"expression": "true"}}] * 33),
        "spec.selectors: Too many: 33: must have at most 32 items",
        id="too-many-selectors",
    ),
    pytest.param(
        _with(CLASS, "spec.selectors", [{}]), "spec.selectors[0].cel: Required value", id="selector-cel"
    ),
    pytest.param(
        _with(CLASS, "spec.selectors", [{"cel": {"expression": "x" * 10241}}]),
        "spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes",
        id="cel-too-long",
    ),
    pytest.param(
        _with(CLASS, "spec.extendedResourceName", "cpu"),
        'spec.extendedResourceName: Invalid value: "cpu": must be a valid extended resource name',
        id="extended-resource-name",
    ),
    pytest.param(
        _with(CLASS, "spec.config", [{"opaque": {"driver": "", "parameters": {}}}]),
        "spec.config[0].opaque.driver: Required value",
        id="config-driver",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", _req(allocationMode="Some")),
        'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: '
        '"All", "ExactCount"',
        id="allocation-mode",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", _req(count=0)),
        "spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero",
        id="count-0",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", _req(allocationMode="All", count=2)),
        "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when "
        "allocationMode is 'All'",
        id="count-with-all",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", [{"name": "gpu"}]),
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required",
        id="no-request-kind",
    ),
    pytest.param(
        _with(
            CLAIM,
            "spec.devices.requests",
            [
                {
                    "name": "gpu",
                    "exactly": {"deviceClassName": "a"},
                    "firstAvailable": [{"name": "b", "deviceClassName": "a"}],
                }
            ],
        ),
        "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is "
        "required, but multiple fields are set",
        id="both-request-kinds",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", [{"name": "g", "exactly": {}}]),
        "spec.devices.requests[0].exactly.deviceClassName: Required value",
        id="no-class",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", _req() * 2),
        'spec.devices.requests[1]: Duplicate value: "gpu"',
        id="duplicate-request",
    ),
    pytest.param(
        _with(
            CLAIM,
            "spec.devices.requests",
            [{"name": f"r{i}", "exactly": {"deviceClassName": "c"}} for i in range(33)],
        ),
        "spec.devices.requests: Too many: 33: must have at most 32 items",
        id="too-many-requests",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", [{"name": "Gpu", "exactly": {"deviceClassName": "c"}}]),
        'spec.devices.requests[0].name: Invalid value: "Gpu": a lowercase RFC 1123 label',
        id="request-name",
    ),
    pytest.param(
        _with(
            CLAIM,
            "spec.devices.requests",
            [{"name": "n", "firstAvailable": [{"name": f"s{i}", "deviceClassName": "c"} for i in range(9)]}],
        ),
        "spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items",
        id="too-many-subrequests",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.constraints", [{"requests": ["gpu"]}]),
        'spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or '
        '"distinctAttribute" is required',
        id="constraint-without-attribute",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.constraints", [{"matchAttribute": "numa"}]),
        'spec.devices.constraints[0].matchAttribute: Invalid value: "numa": a fully qualified name must be '
        "a domain and a name separated by a slash",
        id="constraint-not-fully-qualified",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.constraints", [{"requests": ["nic/slow"], "matchAttribute": "a.b/c"}]),
        'spec.devices.constraints[0].requests[0]: Invalid value: "nic/slow": must be the name of a request '
        "in the claim or the name of a request and a subrequest separated by '/'",
        id="constraint-ref",
    ),
    pytest.param(
        _with(CLAIM, "spec.devices.requests", _req(tolerations=[{"key": "k", "operator": "In"}])),
        'spec.devices.requests[0].exactly.tolerations[0].operator: Unsupported value: "In": supported '
        'values: "Equal", "Exists"',
        id="toleration-operator",
    ),
    pytest.param(
        _with(CLAIM, "status.allocation", None),
        "status.reservedFor: Forbidden: may not be specified when `allocated` is not set",
        id="reserved-without-allocation",
    ),
    pytest.param(
        _with(SLICE, "spec.driver", "Gpu_Example"),
        'spec.driver: Invalid value: "Gpu_Example": a lowercase RFC 1123 subdomain',
        id="driver-name",
    ),
    pytest.param(
        _with(SLICE, "spec.pool.resourceSliceCount", 0),
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
        id="slice-count",
    ),
    pytest.param(
        _with(SLICE, "spec.pool.generation", -1),
        "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero",
        id="generation",
    ),
    pytest.param(
        _with(SLICE, "spec.nodeName", None),
        "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection` is required",
        id="no-node-field",
    ),
    pytest.param(
        _with(SLICE, "spec.allNodes", True),
        'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, '
        "`allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set",
        id="two-node-fields",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.attributes.model", {"string": "a", "int": 1}),
        "spec.devices[0].attributes[model]: Invalid value",
        id="attribute-two-values",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.attributes.driverVersion", {"version": "1.2"}),
        'spec.devices[0].attributes[driverVersion].version: Invalid value: "1.2": must be a string '
        "compatible with semver.org spec 2.0.0",
        id="attribute-semver",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.attributes.model", {"string": "x" * 65}),
        "spec.devices[0].attributes[model].string: Too long: may not be more than 64 bytes",
        id="attribute-string-too-long",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.attributes", {"bad-name": {"int": 1}}),
        'spec.devices[0].attributes[bad-name]: Invalid value: "bad-name": a valid C identifier',
        id="attribute-name",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.attributes", {f"a{i}": {"int": i} for i in range(32)}),
        "spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed "
        "32",
        id="too-many-attributes",
    ),
    pytest.param(
        _with(SLICE, "spec.devices", [{"name": f"d{i}"} for i in range(129)]),
        "spec.devices: Too many: 129: must have at most 128 items",
        id="too-many-devices",
    ),
    pytest.param(
        _with(SLICE, "spec.devices", [{"name": "d"}, {"name": "d"}]),
        'spec.devices[1]: Duplicate value: "d"',
        id="duplicate-device",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.taints", [{"key": "k", "effect": "PreferNoSchedule"}]),
        'spec.devices[0].taints[0].effect: Unsupported value: "PreferNoSchedule": supported values: '
        '"NoExecute", "NoSchedule", "None"',
        id="device-taint-effect",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.nodeName", "node-1"),
        "spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set "
        "if `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
        id="per-device-node",
    ),
    pytest.param(
        _with(SLICE, "spec.devices.0.capacity.memory", {"value": "1Gi", "requestPolicy": {}}),
        "spec.devices[0].capacity[memory].requestPolicy: Forbidden: allowMultipleAllocations must be true",
        id="request-policy",
    ),
    pytest.param(
        _with(SLICE, "spec.sharedCounters", [{"name": "mem"}]),
        'spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed',
        id="counters-and-devices",
    ),
    pytest.param(
        _with(TAINT_RULE, "spec.taint.effect", ""),
        "spec.taint.effect: Required value",
        id="taint-rule-effect",
    ),
    pytest.param(
        _with(TEMPLATE, "spec.spec.devices.requests", _req(count=-1)),
        "spec.spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero",
        id="template-count",
    ),
]


@pytest.mark.parametrize(("doc", "error"), BAD)
def test_invalid_objects_are_refused_with_upstreams_field_errors(doc: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        parse_object(doc)
    assert error in str(info.value)


def test_all_errors_of_an_object_are_reported() -> None:
    doc = _with(_with(SLICE, "spec.pool.resourceSliceCount", 0), "spec.pool.generation", -1)
    with pytest.raises(ValueError) as info:
        parse_object(doc)
    assert "resourceSliceCount" in str(info.value) and "generation" in str(info.value)


def test_pod_resource_claims_and_statuses() -> None:
    pod = parse_object(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {
                "containers": [{"name": "c"}],
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimTemplateName": "one-gpu"},
                    {"name": "nic", "resourceClaimName": "nic-0"},
                ],
            },
            "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x7k2"}]},
        }
    )
    assert pod.resource_claims == (
        PodResourceClaim("gpu", None, "one-gpu"),
        PodResourceClaim("nic", "nic-0", None),
    )
    assert pod.resource_claim_statuses == (PodResourceClaimStatus("gpu", "p-gpu-x7k2"),)
    patched = pod.with_changes({("status", "resourceClaimStatuses"): [{"name": "gpu"}]})
    assert patched.resource_claim_statuses == (PodResourceClaimStatus("gpu", None),)


@pytest.mark.parametrize(
    ("claims", "error"),
    [
        pytest.param(
            [{"name": "gpu"}],
            'spec.resourceClaims[0]: Invalid value: "gpu": must specify one of: '
            "`resourceClaimName`, `resourceClaimTemplateName`",
            id="no-source",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}],
            "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
            id="two-sources",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimName": "a"}] * 2,
            'spec.resourceClaims[1].name: Duplicate value: "gpu"',
            id="duplicate",
        ),
        pytest.param(
            [{"name": "GPU", "resourceClaimName": "a"}],
            'spec.resourceClaims[0].name: Invalid value: "GPU"',
            id="name",
        ),
    ],
)
def test_pod_resource_claims_are_validated(claims: list[dict[str, Any]], error: str) -> None:
    doc = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c"}], "resourceClaims": claims},
    }
    with pytest.raises(ValueError) as info:
        parse_object(doc)
    assert error in str(info.value)


def _write(tmp_path: Path, docs: list[dict[str, Any]]) -> Path:
    path = tmp_path / "dra.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


ALL = [CLASS, SLICE, TAINT_RULE, TEMPLATE, CLAIM]


def test_store_holds_the_kinds_in_dependency_order() -> None:
    loaded = load_documents(yaml.safe_dump_all(list(reversed(ALL))), "dra.yaml")
    store = MemoryStore()
    store.load(loaded)
    for kind in ("DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim"):
        (obj,) = store.list(kind)
        assert obj.meta.uid and obj.meta.resource_version
    assert store.get("ResourceClaim", "ml", "shared").allocation is not None


def test_validate_counts_the_kinds(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(_write(tmp_path, ALL))])
    assert result.exit_code == 0, result.output
    for kind in ("DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim"):
        assert f"│ {kind}" in result.output


def test_validate_refuses_a_bad_claim_naming_file_and_object(tmp_path: Path) -> None:
    path = _write(tmp_path, [_with(CLAIM, "spec.devices.requests", _req(count=0))])
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert f"{path}: document 1 (ResourceClaim ml/shared)" in out
    assert "spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero" in out


def test_simulate_yaml_round_trips_the_kinds(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", str(_write(tmp_path, ALL)), "-o", "yaml"])
    assert result.exit_code == 0, result.output
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    by_kind = {d["kind"]: d for d in docs}
    for original in ALL:
        out = by_kind[original["kind"]]
        assert out["spec"] == original["spec"]
        assert out.get("status") == original.get("status")
    again = tmp_path / "again.yaml"
    again.write_text(result.stdout)
    assert runner.invoke(app, ["validate", str(again)]).exit_code == 0
