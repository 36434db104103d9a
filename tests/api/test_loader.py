"""The manifest loader: formats, List wrappers, defaults and one clear error for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.api import Node, Pod
from kubesched.api.loader import LoadError, load_documents, load_paths

FIXTURES = Path(__file__).parent.parent / "fixtures"

POD = """
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
"""
NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, creationTimestamp: 2026-01-01T00:00:00Z}
status: {allocatable: {cpu: "4"}}
"""


def test_multi_document_yaml_and_namespace_default() -> None:
    out = load_documents(POD + "---\n" + NODE + "---\n", "m.yaml")
    assert [type(o) for o in out.objects] == [Pod, Node]
    assert out.pods[0].namespace == "default"
    assert out.origin_of(out.pods[0]) == "m.yaml: document 1"


def test_unquoted_timestamps_stay_strings() -> None:
    node = load_documents(NODE, "n.yaml").nodes[0]
    assert node.raw["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"
    assert node.meta.creation_timestamp == 1767225600.0


def test_cluster_scoped_namespace_dropped() -> None:
    out = load_documents(NODE.replace("name: n1", "name: n1, namespace: x"), "n.yaml")
    assert out.nodes[0].meta.namespace == ""


def test_list_and_typed_list() -> None:
    typed = {"apiVersion": "v1", "kind": "PodList",
             "items": [{"metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}}]}
    out = load_documents(json.dumps(typed), "l.json", json_only=True)
    assert out.pods[0].name == "a"


def test_directory_sorted_and_json(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(NODE)
    (tmp_path / "a.json").write_text(
        json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
    )
    (tmp_path / "notes.txt").write_text("ignored")
    out = load_paths([tmp_path])
    assert [o.meta.name for o in out.objects] == ["x", "n1"]


def test_stdin() -> None:
    out = load_paths(["-"], stdin=POD)
    assert out.origin_of(out.pods[0]) == "<stdin>: document 1"


def test_kubectl_dump_fixture() -> None:
    out = load_paths([FIXTURES / "kubectl-dump.yaml"])
    assert out.counts() == {
        "PriorityClass": 3,
        "StorageClass": 1,
        "CSINode": 1,
        "Node": 2,
        "PersistentVolume": 1,
        "PersistentVolumeClaim": 1,
        "PodDisruptionBudget": 1,
        "Pod": 4,
    }
    legacy = next(p for p in out.pods if p.name == "legacy-0")
    assert legacy.is_terminating
    assert out.origin_of(legacy).endswith("document 1, item 5")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param("a: [", r"x\.yaml: malformed YAML", id="malformed"),
        pytest.param(
            "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n",
            r"apiVersion 'policy/v1beta1' is not supported for PodDisruptionBudget",
            id="bad apiVersion",
        ),
        pytest.param(
            POD.replace("100m", "lots"),
            r"document 1 \(Pod p1\): spec\.containers\[0\]\.resources"
            r"\.requests\.cpu",
            id="invalid quantity",
        ),
        pytest.param(
            POD.replace("100m", "'-1'"),
            r"document 1 \(Pod p1\): spec\.containers\[0\]\.resources\.requests\.cpu: "
            r"must be greater than or equal to 0",
            id="negative request",
        ),
        pytest.param(
            POD.replace("cpu: 100m", "memory: '-1m'"),
            r"requests\.memory: must be greater than or equal to 0",
            id="negative request rounding to zero",
        ),
        pytest.param(
            NODE.replace('"4"', '"-4"'),
            r"document 1 \(Node n1\): status\.allocatable\.cpu: must be greater than or equal to 0",
            id="negative allocatable",
        ),
        pytest.param(
            POD + "---\n" + POD,
            r"document 2 \(Pod default/p1\): duplicate object, already defined "
            r"at x\.yaml: document 1",
            id="duplicate",
        ),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {}\n",
            r"document 1, item 1 \(Pod <no name>\): metadata\.name: required",
            id="list item without name",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {}\n  affinity:\n"
            "    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
            "      - topologyKey: zone\n        labelSelector:\n          matchExpressions:\n"
            "          - {key: app, operator: Has}\n",
            r"\(Pod p\): .*operator: 'Has' is not a valid",
            id="invalid selector",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
            r"pass it with --config",
            id="config in manifests",
        ),
        pytest.param("- a\n- b\n", r"document 1: a manifest must be a mapping", id="not a mapping"),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 5}\n",
            r"document 1 \(Pod p\): spec\.containers: Invalid value: 5: must be a list",
            id="containers not a list",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: 99999999999999999999}\n",
            r"document 1 \(Pod p\): spec\.priority: Invalid value: 99999999999999999999: must be an int32",
            id="priority beyond int32",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: 1.5}\n",
            r"document 1 \(Pod p\): spec\.priority: Invalid value: 1\.5: must be an integer",
            id="fractional priority",
        ),
        pytest.param(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: c}\n"
            "value: -3000000000\n",
            r"document 1 \(PriorityClass c\): value: Invalid value: -3000000000: must be an int32",
            id="priority class value beyond int32",
        ),
    ],
)
def test_bad_input_one_clear_error(text: str, error: str) -> None:
    with pytest.raises(LoadError, match=error):
        load_documents(text, "x.yaml")


def test_duplicate_across_files_names_both(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(POD)
    (tmp_path / "b.yaml").write_text(POD)
    with pytest.raises(LoadError, match=r"b\.yaml: document 1 .*already defined at .*a\.yaml: document 1"):
        load_paths([tmp_path])


def test_missing_path() -> None:
    with pytest.raises(LoadError, match="no such file"):
        load_paths(["/nonexistent/manifests"])


@pytest.mark.parametrize(
    ("constraint", "error"),
    [
        pytest.param(
            {"maxSkew": 0, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule"},
            "maxSkew: must be greater than zero",
            id="max-skew-zero",
        ),
        pytest.param(
            {"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 0},
            "minDomains: 0: must be greater than zero",
            id="min-domains-zero",
        ),
        pytest.param(
            {
                "maxSkew": 1,
                "topologyKey": "z",
                "whenUnsatisfiable": "DoNotSchedule",
                "nodeTaintsPolicy": "Sometimes",
            },
            "nodeTaintsPolicy: Unsupported value",
            id="bad-policy",
        ),
        pytest.param(
            {"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "Maybe"},
            "whenUnsatisfiable",
            id="bad-when-unsatisfiable",
        ),
    ],
)
def test_invalid_spread_constraint(constraint: dict[str, object], error: str) -> None:
    doc = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"topologySpreadConstraints": [constraint]},
    }
    with pytest.raises(LoadError, match=r"spec\.topologySpreadConstraints\[0\]\..*" + error):
        load_documents(json.dumps(doc), "p.json", json_only=True)
