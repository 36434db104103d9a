"""Loading a dump whose pods name PriorityClasses the dump left out (``kubectl get pods``
without ``priorityclasses``): pods that carry ``spec.priority`` keep it, with one
AdmissionWarning; everything else is admitted as before."""

from __future__ import annotations

import warnings

import pytest

from kubesched.api import AdmissionWarning, admit_pod
from kubesched.api.loader import load_documents
from kubesched.clock import VirtualClock
from kubesched.cluster import Invalid, MemoryStore
from kubesched.testing import make_pod


def _pod(name: str, extra: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers: [{{name: c}}]\n"
            + extra)


DUMP = "---\n".join([
    _pod("a", "  nodeName: n1\n  priorityClassName: gold\n  priority: 1000\n"),
    _pod("b", "  priorityClassName: gold\n  priority: 1000\n  preemptionPolicy: Never\n"),
    _pod("c", "  priorityClassName: silver\n  priority: 10\n"),
])


def test_load_keeps_the_priority_and_warns_once() -> None:
    store = MemoryStore(VirtualClock())
    with pytest.warns(AdmissionWarning) as record:
        store.load(load_documents(DUMP, "dump.yaml"))
    assert [str(w.message) for w in record] == [
        "PriorityClasses missing from the input: gold (2 pods), silver (1 pod); these pods keep their "
        "spec.priority (include the PriorityClasses in the input to check it)"]
    pods = {p.name: p for p in store.list("Pod")}
    assert {n: (p.priority, p.priority_class_name) for n, p in pods.items()} == {
        "a": (1000, "gold"), "b": (1000, "gold"), "c": (10, "silver")}
    assert pods["b"].preemption_policy == "Never"


def test_no_warning_when_the_classes_are_there() -> None:
    classes = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %d\n"
    gold = classes % ("gold", 1000) + "preemptionPolicy: Never\n"
    text = "---\n".join([DUMP, gold, classes % ("silver", 10)])
    store = MemoryStore(VirtualClock())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store.load(load_documents(text, "dump.yaml"))
    assert len(store.list("Pod")) == 3


def test_a_missing_class_without_priority_is_refused() -> None:
    store = MemoryStore(VirtualClock())
    with pytest.raises(Invalid, match=r"document 2 \(Pod default/d\): no PriorityClass with name gold"):
        store.load(load_documents(DUMP.split("---\n")[0] + "---\n" + _pod("d", "  priorityClassName: gold\n"),
                                  "dump.yaml"))
    assert store.list("Pod") == []


def test_a_pod_created_later_is_admitted_as_new() -> None:
    store = MemoryStore(VirtualClock())
    pod = make_pod().name("late").priority(1000).obj().with_changes({("spec", "priorityClassName"): "gold"})
    with pytest.raises(Invalid, match="no PriorityClass with name gold was found"):
        store.create(pod)


def test_admit_pod_keeps_a_stored_pods_priority_only() -> None:
    pod = make_pod().name("p").priority(7).obj().with_changes({("spec", "priorityClassName"): "gone"})
    assert admit_pod(pod, {}, stored=True) is pod
    with pytest.raises(ValueError, match="no PriorityClass with name gone"):
        admit_pod(pod, {})
