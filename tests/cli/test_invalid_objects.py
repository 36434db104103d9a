"""Objects the API server would refuse are refused on load, with its messages: a pod without
containers, a name that is not a DNS-1123 subdomain (a label for namespaces), a field of the
wrong type or out of range. One line on stderr names the file, the object and the field; exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
CONTAINERS = "containers: [{name: c, image: pause}]"


def _pod(name: str = "p", spec: str = CONTAINERS, meta: str = "") -> str:
    return f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}{meta}}}\nspec: {{{spec}}}\n"


def _named(kind: str, api_version: str, name: str, extra: str = "") -> str:
    return f"apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: '{name}'}}\n{extra}"


def _run(tmp_path: Path, text: str, command: str = "validate") -> tuple[int, str]:
    (tmp_path / "bad.yaml").write_text(text)
    result = runner.invoke(app, [command, str(tmp_path / "bad.yaml")])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param(_pod(spec=""), "(Pod p): spec.containers: Required value", id="pod-without-containers"),
        pytest.param(_pod(spec="containers: []"), "(Pod p): spec.containers: Required value",
                     id="pod-with-empty-containers"),
        pytest.param(_pod("Web_1"), f'(Pod Web_1): metadata.name: Invalid value: "Web_1": {SUBDOMAIN_MSG}',
                     id="pod-name"),
        pytest.param(_pod(meta=", namespace: Team_A"),
                     '(Pod Team_A/p): metadata.namespace: Invalid value: "Team_A": '
                     "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                     "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
                     "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                     id="pod-namespace"),
        pytest.param(_named("Namespace", "v1", "team.a"),
                     '(Namespace team.a): metadata.name: Invalid value: "team.a": must not contain dots',
                     id="namespace-name-is-a-label"),
        pytest.param(_named("Namespace", "v1", "x" * 64),
                     f'metadata.name: Invalid value: "{"x" * 64}": must be no more than 63 characters',
                     id="namespace-name-too-long"),
        pytest.param(_named("Node", "v1", "Node-A"),
                     f'(Node Node-A): metadata.name: Invalid value: "Node-A": {SUBDOMAIN_MSG}',
                     id="node-name"),
        pytest.param(_named("PriorityClass", "scheduling.k8s.io/v1", "gold!", "value: 10\n"),
                     "(PriorityClass gold!): metadata.name: Invalid value:", id="priorityclass-name"),
        pytest.param(_named("PodDisruptionBudget", "policy/v1", "b_1", "spec: {minAvailable: 1}\n"),
                     "(PodDisruptionBudget b_1): metadata.name: Invalid value:", id="pdb-name"),
        pytest.param(_named("PersistentVolume", "v1", "-pv", "spec: {capacity: {storage: 1Gi}}\n"),
                     "(PersistentVolume -pv): metadata.name: Invalid value:", id="pv-name"),
        pytest.param(_named("PersistentVolumeClaim", "v1", "Claim"), "(PersistentVolumeClaim Claim): "
                     "metadata.name: Invalid value:", id="pvc-name"),
        pytest.param(_named("StorageClass", "storage.k8s.io/v1", "fast ssd", "provisioner: x\n"),
                     "(StorageClass fast ssd): metadata.name: Invalid value:", id="storageclass-name"),
        pytest.param(_named("CSINode", "storage.k8s.io/v1", "n_1", "spec: {drivers: []}\n"),
                     "(CSINode n_1): metadata.name: Invalid value:", id="csinode-name"),
        pytest.param(_pod("Web", spec=""),
                     f'(Pod Web): metadata.name: Invalid value: "Web": {SUBDOMAIN_MSG}; '
                     "spec.containers: Required value", id="every-error-of-the-object-at-once"),
        pytest.param(_pod(spec='containers: "oops"'),
                     '(Pod p): spec.containers: Invalid value: "oops": must be a list',
                     id="containers-a-string"),
        pytest.param(_pod(spec=f"{CONTAINERS}, priority: .inf"),
                     "(Pod p): spec.priority: Invalid value: inf: must be an integer", id="priority-inf"),
        pytest.param(_named("PodDisruptionBudget", "policy/v1", "b", "spec: {minAvailable: []}\n"),
                     "(PodDisruptionBudget b): spec.minAvailable: Invalid value: []: "
                     "must be an integer or a string",
                     id="pdb-min-available-a-list"),
        pytest.param(_named("PodDisruptionBudget", "policy/v1", "b", "spec: {minAvailable: -1}\n"),
                     "(PodDisruptionBudget b): spec.minAvailable: Invalid value: -1: "
                     "must be greater than or equal to 0", id="pdb-min-available-negative"),
        pytest.param(_named("PodDisruptionBudget", "policy/v1", "b", "spec: {maxUnavailable: '150%'}\n"),
                     '(PodDisruptionBudget b): spec.maxUnavailable: Invalid value: "150%": '
                     "must not be greater than 100%", id="pdb-max-unavailable-over-100-percent"),
        pytest.param(_named("PodDisruptionBudget", "policy/v1", "b", "spec: {minAvailable: '5'}\n"),
                     '(PodDisruptionBudget b): spec.minAvailable: Invalid value: "5": a valid percent string '
                     "must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used "
                     "for validation is '[0-9]+%')", id="pdb-min-available-string-not-a-percent"),
        pytest.param(_pod(spec=f"{CONTAINERS}, tolerations: [[]]"),
                     "(Pod p): spec.tolerations[0]: Invalid value: []: must be an object",
                     id="toleration-a-list"),
        pytest.param(_pod(spec="containers: [{name: c, ports: [{containerPort: 1.0e+30}]}]"),
                     "(Pod p): spec.containers[0].ports[0].containerPort: Invalid value: 1e+30: "
                     "must be an int32",
                     id="port-a-float"),
        pytest.param(_pod(spec=f"{CONTAINERS}, terminationGracePeriodSeconds: 99999999999999999999"),
                     "(Pod p): spec.terminationGracePeriodSeconds: Invalid value: 99999999999999999999: "
                     "must be an int64", id="grace-period-beyond-int64"),
        pytest.param(_pod(meta=", labels: {app: [web]}"),
                     "(Pod p): metadata.labels.app: Invalid value: ['web']: must be a string",
                     id="label-a-list"),
        pytest.param(_pod(spec=f"{CONTAINERS}, hostNetwork: 'yes'"),
                     '(Pod p): spec.hostNetwork: Invalid value: "yes": must be a boolean',
                     id="bool-a-string"),
        pytest.param(_named("Node", "v1", "n", "status: {images: [{names: [a], sizeBytes: .nan}]}\n"),
                     "(Node n): status.images[0].sizeBytes: Invalid value: nan: must be an integer",
                     id="image-size-nan"),
        pytest.param(_pod(spec=f"{CONTAINERS}, volumes: [{{name: v, persistentVolumeClaim: claim}}]"),
                     '(Pod p): spec.volumes[0].persistentVolumeClaim: Invalid value: "claim": '
                     "must be an object",
                     id="volume-source-a-string"),
        pytest.param(_pod(meta=", creationTimestamp: [1]"),
                     "(Pod p): metadata.creationTimestamp: Invalid value: [1]: must be an RFC 3339 time",
                     id="time-a-list"),
        pytest.param(_pod(spec="containers: [{name: c, resources: {requests: {example.com/foo: '0.5'}, "
                               "limits: {example.com/foo: '0.5'}}}]"),
                     '(Pod p): spec.containers[0].resources.requests.example.com/foo: Invalid value: "0.5": '
                     "must be an integer", id="extended-resource-fraction"),
        pytest.param(_named("Node", "v1", "n", "status: {allocatable: {cpu: '1', pods: 1.5}}\n"),
                     "(Node n): status.allocatable.pods: Invalid value: 1.5: must be an integer",
                     id="node-pods-fraction"),
        pytest.param(_pod(spec="containers: [{name: c, resources: {requests: {cpu: '2'}, "
                               "limits: {cpu: '1'}}}]"),
                     '(Pod p): spec.containers[0].resources.requests: Invalid value: "2": '
                     "must be less than or equal to cpu limit of 1", id="request-above-limit"),
        pytest.param(_pod(spec="containers: [{name: c, resources: {requests: {cpu: 2E}, "
                               "limits: {cpu: 1E}}}]"),
                     '(Pod p): spec.containers[0].resources.requests: Invalid value: "2E": '
                     "must be less than or equal to cpu limit of 1E", id="request-above-limit-beyond-int64"),
        pytest.param(_pod(spec="containers: [{name: c, resources: {requests: {example.com/foo: 1}, "
                               "limits: {example.com/foo: 2}}}]"),
                     "(Pod p): spec.containers[0].resources.requests: Invalid value: 1: "
                     "must be equal to example.com/foo limit of 2", id="extended-request-below-limit"),
    ],
)
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_refused_as_the_api_server_would(tmp_path: Path, text: str, error: str, command: str) -> None:
    code, output = _run(tmp_path, text, command)
    assert code == 2, output
    assert "Traceback" not in output
    line = " ".join(output.split())  # rich may wrap the line on a narrow terminal
    assert line.startswith("error: ") and "bad.yaml: document 1 " in line, output
    assert " ".join(error.split()) in line, output


def test_valid_names_pass(tmp_path: Path) -> None:
    text = "---\n".join([
        _pod("web-1.a"), _named("Namespace", "v1", "team-a"),
        _named("Node", "v1", "ip-10-0-0-1.ec2.internal"),
    ])
    code, output = _run(tmp_path, text)
    assert code == 0, output


@pytest.mark.parametrize(
    "status",
    [
        pytest.param("{conditions: 7}", id="conditions-an-int"),
        pytest.param("{conditions: [{type: Ready, lastTransitionTime: .inf}]}", id="time-inf"),
        pytest.param("{conditions: [{type: Ready, lastTransitionTime: 99999999999999999999999}]}",
                     id="time-beyond-year-9999"),
    ],
)
@pytest.mark.parametrize("kind", ["PodDisruptionBudget", "PersistentVolumeClaim"])
def test_status_times_of_any_kind_never_crash(tmp_path: Path, kind: str, status: str) -> None:
    # simulate starts its clock after the latest time stamp of the input: a malformed one is
    # either refused (the kinds whose status the scheduler reads) or ignored, never a traceback.
    api = "policy/v1" if kind == "PodDisruptionBudget" else "v1"
    code, output = _run(tmp_path, _named(kind, api, "x", f"status: {status}\n"), "simulate")
    assert code in (0, 2), output
    assert "Traceback" not in output
    if code == 2:
        assert "(PodDisruptionBudget x): status.conditions" in " ".join(output.split()), output
