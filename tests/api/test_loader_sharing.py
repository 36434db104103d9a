"""The loader holds equal branches of the manifests once (a large cluster's pods repeat their
containers, tolerations and managedFields), and nothing read or written tells: equal means the
same serialization, key order and value types included."""

from __future__ import annotations

import json

import pytest

from kubesched.api.loader import load_documents
from kubesched.simulator import snapshot_text


def _pod(name: str, containers: list[dict[str, object]], annotations: dict[str, object]) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "annotations": annotations,
                         "managedFields": [{"manager": "kubelet", "operation": "Update",
                                            "fieldsV1": {"f:status": {"f:phase": {}}}}]},
            "spec": {"containers": containers, "tolerations": [{"operator": "Exists"}]}}


CONTAINERS = [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "100m"}}}]


def test_equal_branches_are_one_object() -> None:
    pods = [_pod("a", CONTAINERS, {"x": "1"}), _pod("b", json.loads(json.dumps(CONTAINERS)), {"x": "1"})]
    a, b = load_documents(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}), "pods.json",
                          json_only=True).pods
    assert a.raw["spec"]["containers"] is b.raw["spec"]["containers"]
    assert a.raw["spec"]["tolerations"] is b.raw["spec"]["tolerations"]
    assert a.raw["metadata"]["managedFields"] is b.raw["metadata"]["managedFields"]
    assert a.raw["metadata"]["annotations"] is b.raw["metadata"]["annotations"]
    assert a.raw["metadata"] is not b.raw["metadata"]


def _two_pods(status_a: dict[str, object], status_b: dict[str, object]) -> str:
    return "\n---\n".join(json.dumps({**_pod(name, CONTAINERS, {}), "status": {"x": status}})
                          for name, status in (("a", status_a), ("b", status_b)))


@pytest.mark.parametrize("other", [
    {"v": 1},  # a number, not the string "1"
    {"v": 1.0},  # a float, not an int
    {"v": True},
    {"w": "1", "v": "1"},  # other keys
])
def test_branches_that_differ_in_type_or_keys_stay_apart(other: dict[str, object]) -> None:
    first = {"v": "1", "w": "1"} if "w" in other else {"v": "1"}
    a, b = load_documents(_two_pods(first, other), "pods.yaml").pods
    assert a.raw["status"]["x"] is not b.raw["status"]["x"]
    assert b.raw["status"]["x"] == other and type(b.raw["status"]["x"]["v"]) is type(other["v"])


@pytest.mark.parametrize(("first", "other"), [
    ({"v": 1}, {"v": 1.0}),
    ({"v": 1}, {"v": True}),
    ({"v": 0.0}, {"v": -0.0}),
    ({"v": None}, {"v": "null"}),
    ({"v": [1]}, {"v": ["1"]}),
])
def test_numbers_and_nulls_of_other_types_stay_apart(first: dict[str, object],
                                                      other: dict[str, object]) -> None:
    a, b = load_documents(_two_pods(first, other), "pods.yaml").pods
    assert a.raw["status"]["x"] is not b.raw["status"]["x"]
    assert repr(a.raw["status"]["x"]) == repr(first) and repr(b.raw["status"]["x"]) == repr(other)


def test_key_order_is_kept() -> None:
    loaded = load_documents(_two_pods({"v": "1", "w": "2"}, {"w": "2", "v": "1"}), "pods.yaml")
    a, b = loaded.pods
    assert list(b.raw["status"]["x"]) == ["w", "v"]
    assert a.raw["status"]["x"] is not b.raw["status"]["x"]
    assert "x:\n    w: '2'\n    v: '1'" in snapshot_text(loaded)


def test_integer_keys_are_not_string_keys() -> None:
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns}\nspec: {containers: [{name: c}]}\n"
            "status: {x: {1: v}}\n---\n"
            "apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: ns}\nspec: {containers: [{name: c}]}\n"
            "status: {x: {'1': v}}\n")
    a, b = load_documents(text, "pods.yaml").pods
    assert a.raw["spec"] is b.raw["spec"]
    assert list(b.raw["status"]["x"]) == ["1"] and list(a.raw["status"]["x"]) == [1]
