"""What the API server answers DynamicResources' writes, in a simulation as on a real one
(checked side by side with the real kube-scheduler v1.35.4 in tests/live/test_dra_live.py): a
claim's populated allocation is immutable, so with DRADeviceBindingConditions the allocation
time bindClaim adds to a claim allocated before (without one) is refused; the error is wrapped
with what was being written, and the failed binding cycle leaves the nomination it wrote."""

from __future__ import annotations

from pathlib import Path

import yaml

from kubesched.api import KubeVersion
from kubesched.api.loader import load_paths
from kubesched.framework.config import default_config
from kubesched.simulator import PodOutcome, run_simulation

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n0", "labels": {"kubernetes.io/hostname": "n0"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n0-gpu"},
         "spec": {"driver": "gpu.example.com", "nodeName": "n0", "devices": [{"name": "gpu-0"}],
                  "pool": {"name": "n0", "generation": 1, "resourceSliceCount": 1}}}
ALLOCATED = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "taken", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
             "status": {"allocation": {
                 "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "n0",
                                          "device": "gpu-0"}]},
                 "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                     {"key": "metadata.name", "operator": "In", "values": ["n0"]}]}]}}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "joins", "namespace": "default"},
       "spec": {"containers": [{"name": "c", "image": "i"}],
                "resourceClaims": [{"name": "gpu", "resourceClaimName": "taken"}]}}


def _simulate(tmp_path: Path, binding_conditions: bool) -> PodOutcome:
    f = tmp_path / "objects.yaml"
    f.write_text(yaml.safe_dump_all([NODE, CLASS, SLICE, ALLOCATED, POD]))
    config = default_config({"DRADeviceBindingConditions": binding_conditions}, KubeVersion(1, 35))
    (pod,) = run_simulation(load_paths([f]), config).pods
    return pod


def test_an_allocation_time_added_to_an_earlier_allocation_is_refused(tmp_path: Path) -> None:
    pod = _simulate(tmp_path, binding_conditions=True)
    assert (pod.node, pod.status, pod.nominated_node) == ("", "SchedulerError", "n0")
    message = pod.message
    assert message.startswith(
        'running PreBind plugin "DynamicResources": add reservation to claim default/taken: '
        'ResourceClaim.resource.k8s.io "taken" is invalid: status.allocation: Invalid value: '
        '{"Devices":{"Results":[{"Request":"gpu","Driver":"gpu.example.com","Pool":"n0","Device":"gpu-0",'
        '"AdminAccess":null,"Tolerations":null,"BindingConditions":null,"BindingFailureConditions":null,'
        '"ShareID":null,"ConsumedCapacity":null}],"Config":null},"NodeSelector":{"NodeSelectorTerms":'
        '[{"MatchExpressions":null,"MatchFields":[{"Key":"metadata.name","Operator":"In","Values":["n0"]}]}]},'
        '"AllocationTimestamp":"')
    assert message.endswith('"}: field is immutable')


def test_without_binding_conditions_the_pod_joins_the_claim(tmp_path: Path) -> None:
    pod = _simulate(tmp_path, binding_conditions=False)
    assert (pod.node, pod.status) == ("n0", "Scheduled")
