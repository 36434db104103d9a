"""The loader holds equal branches of the manifests once (a large cluster's pods repeat their
containers, tolerations and managedFields), and nothing read or written tells: equal means the
same serialization, key order and value types included."""

from __future__ import annotations

import copy
import json

import pytest

from kubesched.api.loader import load_documents
from kubesched.simulator import Simulator, snapshot_text
from kubesched.ui import run_whatif


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


_NODES = "".join(f"""apiVersion: v1
kind: Node
metadata: {{name: n{i}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "10"}}}}
---
""" for i in range(2))


def _replica(name: str, cpu: str = "100m") -> str:
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ns, labels: {{app: web}}}}
spec:
  containers: [{{name: c, image: app:1, resources: {{requests: {{cpu: {cpu}}}}}}}]
  tolerations: [{{key: k, operator: Exists}}]
status: {{phase: Pending}}
"""


def test_pods_sharing_branches_stay_apart_when_one_is_bound_updated_or_edited() -> None:
    """The two replicas' specs, labels and statuses are one object each after reading;
    admission (defaults), binding, status writes, a store update of one pod's labels and a
    what-if edit of one pod's container change that pod alone, and never the input."""
    loaded = load_documents(_NODES + _replica("a") + "---\n" + _replica("b"), "pods.yaml")
    a, b = loaded.pods
    assert a.raw["spec"] is b.raw["spec"] and a.raw["status"] is b.raw["status"]
    assert a.raw["metadata"]["labels"] is b.raw["metadata"]["labels"]
    read = copy.deepcopy([a.raw, b.raw])

    sim = Simulator(loaded).run()
    store = sim.store
    bound = {p.name: p for p in store.list("Pod", "ns")}
    assert {p.node_name for p in bound.values()} <= {"n0", "n1"} and all(p.node_name for p in bound.values())
    store.update(bound["a"].with_changes({("metadata", "labels", "edited"): "yes"}))
    assert store.get("Pod", "ns", "a").labels == {"app": "web", "edited": "yes"}
    assert store.get("Pod", "ns", "b").labels == {"app": "web"}

    edit = run_whatif(loaded, _replica("a", cpu="3"))
    after = {p.name: p for p in edit.after.store.list("Pod", "ns")}
    assert after["a"].containers[0].requests["cpu"] == 3000
    assert after["b"].containers[0].requests["cpu"] == 100
    assert [a.raw, b.raw] == read  # the input as read
    assert "nodeName" not in a.raw["spec"] and a.raw["status"] == {"phase": "Pending"}
