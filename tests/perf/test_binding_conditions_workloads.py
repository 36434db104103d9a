"""upstream's DRA binding-condition scheduler_perf cases (DRABindingConditionsTest and
DRABindingConditionsWithSharedResourceClaimTest) through ``kubesched bench``: the
updateDeviceConditions op reports a condition on every allocated device, checkPodScheduled
expects the pods bound (DeviceAttached=True) or left unscheduled (AttachmentFailed=True)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.perf import BUNDLED_CONFIG


def _bench(*args: str) -> Any:
    return CliRunner().invoke(app, ["bench", *args])


def test_the_bundled_binding_condition_cases_pass() -> None:
    result = _bench("-o", "json", "-w", "DRABindingConditionsTest",
                    "-w", "DRABindingConditionsWithSharedResourceClaimTest")
    assert result.exit_code == 0, result.output
    scheduled = {r["name"]: r["scheduled"] for r in json.loads(result.stdout)["results"]}
    assert scheduled == {
        "DRABindingConditionsTest/fast_AttachmentSuccess": 1,
        "DRABindingConditionsTest/fast_AttachmentFailed": 0,
        "DRABindingConditionsTest/multiple_pods_AttachmentSuccess": 5,
        "DRABindingConditionsTest/multiple_pods_AttachmentFailed": 0,
        "DRABindingConditionsWithSharedResourceClaimTest/multiple_pods_AttachmentSuccess": 5,
        "DRABindingConditionsWithSharedResourceClaimTest/multiple_pods_AttachmentFailed": 0,
    }


def _variant(tmp_path: Path, **params: Any) -> Path:
    """The bundled DRABindingConditionsTest with its first workload's params changed."""
    doc = yaml.safe_load(BUNDLED_CONFIG.read_text())
    case = next(tc for tc in doc if tc["name"] == "DRABindingConditionsTest")
    case["workloads"] = [{"name": "w", "params": {**case["workloads"][0]["params"], **params}}]
    for op in case["workloadTemplate"]:
        for key in ("nodeTemplatePath", "templatePath", "podTemplatePath"):
            if key in op:
                op[key] = str(BUNDLED_CONFIG.parent / op[key])
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump([case]))
    return path


def test_check_pod_scheduled_fails_when_the_pods_are_not_bound(tmp_path: Path) -> None:
    """A failure condition reported while the check expects the pods bound: exit 1 naming the
    op and upstream's message with the last pod in violation."""
    result = _bench(str(_variant(tmp_path, conditionType="AttachmentFailed")))
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "Timeout waiting for pods to be scheduled. Last violation: Pod" in text
    assert "ExpectedScheduled=true, ActualScheduled=false" in text


def test_update_device_conditions_fails_without_binding_devices(tmp_path: Path) -> None:
    """Without DRADeviceBindingConditions in the test case the driver's devices have no binding
    conditions: the op finds no device to report on within its duration (and the pods bind)."""
    path = _variant(tmp_path)
    doc = yaml.safe_load(path.read_text())
    doc[0]["featureGates"] = {"DynamicResourceAllocation": True}
    path.write_text(yaml.safe_dump(doc))
    result = _bench(str(path))
    assert result.exit_code == 1, result.output
    assert "no devices found in claim test/" in " ".join(result.output.split())


def test_a_bad_condition_status_is_a_config_error(tmp_path: Path) -> None:
    result = _bench(str(_variant(tmp_path, conditionStatus="Maybe")))
    assert result.exit_code == 2, result.output
    assert "invalid condition status 'Maybe'" in " ".join(result.output.split())
