"""Priority admission (plugin/pkg/admission/priority/admission.go) and PriorityClass validation."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import (
    AdmissionError,
    PriorityClass,
    add_default_tolerations,
    admit_pod,
    default_priority_class,
    system_priority_classes,
    validate_priority_class,
)
from kubesched.testing import make_pod


def pc(name: str, value: int, global_default: bool = False, policy: str | None = None) -> PriorityClass:
    d: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": global_default,
    }
    if policy:
        d["preemptionPolicy"] = policy
    return PriorityClass.from_dict(d)


def classes(*pcs: PriorityClass) -> dict[str, PriorityClass]:
    return {p.name: p for p in (*system_priority_classes(), *pcs)}


def test_builtin_classes() -> None:
    assert {p.name: p.value for p in system_priority_classes()} == {
        "system-cluster-critical": 2000000000,
        "system-node-critical": 2000001000,
    }


@pytest.mark.parametrize(
    ("new", "existing", "error"),
    [
        pytest.param(pc("big", 1_000_000_001), [], "maximum allowed value", id="user value above 1e9"),
        pytest.param(pc("system-foo", 10), [], "reserved for system use", id="system prefix reserved"),
        pytest.param(pc("system-node-critical", 5), [], "must be 2000001000", id="builtin with wrong value"),
        pytest.param(
            pc("second", 5, True), [pc("first", 1, True)], "already marked as default", id="two defaults"
        ),
    ],
)
def test_validate_priority_class_rejects(
    new: PriorityClass, existing: list[PriorityClass], error: str
) -> None:
    with pytest.raises(AdmissionError, match=error):
        validate_priority_class(new, existing)


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        pytest.param(pc("max", 1_000_000_000), [], id="user value 1e9 allowed"),
        pytest.param(pc("system-cluster-critical", 2000000000), [], id="builtin as dumped"),
        pytest.param(pc("d", 5, True), [pc("other", 1)], id="one default"),
    ],
)
def test_validate_priority_class_accepts(new: PriorityClass, existing: list[PriorityClass]) -> None:
    validate_priority_class(new, existing)


def test_update_of_the_default_itself_is_allowed() -> None:
    validate_priority_class(pc("d", 6, True), [pc("d", 5, True)], update=True)


def test_invalid_preemption_policy() -> None:
    with pytest.raises(ValueError, match="preemptionPolicy"):
        pc("x", 1, policy="Sometimes")


def test_default_priority_class_picks_lowest_when_racing() -> None:
    d = default_priority_class([pc("a", 10, True), pc("b", 5, True), pc("c", 1)])
    assert d is not None and d.name == "b"


@pytest.mark.parametrize(
    ("pod", "cls", "priority", "policy", "class_name"),
    [
        pytest.param(
            make_pod().name("p").priority_class_name("high"),
            classes(pc("high", 100)),
            100,
            "PreemptLowerPriority",
            "high",
            id="class resolves priority",
        ),
        pytest.param(
            make_pod().name("p").priority_class_name("nev"),
            classes(pc("nev", 7, policy="Never")),
            7,
            "Never",
            "nev",
            id="class resolves preemption policy",
        ),
        pytest.param(
            make_pod().name("p"), classes(), 0, "PreemptLowerPriority", "", id="no class no default"
        ),
        pytest.param(
            make_pod().name("p"),
            classes(pc("d", 42, True, "Never")),
            42,
            "Never",
            "d",
            id="no class takes global default",
        ),
        pytest.param(
            make_pod().name("p").priority_class_name("system-node-critical"),
            classes(),
            2000001000,
            "PreemptLowerPriority",
            "system-node-critical",
            id="builtin class",
        ),
        pytest.param(
            make_pod().name("p").priority(77),
            classes(pc("d", 42, True)),
            77,
            None,
            "",
            id="already admitted pod keeps its priority",
        ),
        pytest.param(
            make_pod().name("p").priority_class_name("high").priority(100),
            classes(pc("high", 100)),
            100,
            "PreemptLowerPriority",
            "high",
            id="matching priority accepted",
        ),
    ],
)
def test_admit_pod(
    pod: Any, cls: dict[str, PriorityClass], priority: int, policy: str | None, class_name: str
) -> None:
    out = admit_pod(pod.obj(), cls)
    assert (out.priority, out.preemption_policy, out.priority_class_name) == (priority, policy, class_name)


@pytest.mark.parametrize(
    ("pod", "error"),
    [
        pytest.param(
            make_pod().name("p").priority_class_name("nope"),
            "no PriorityClass with name nope was found",
            id="unknown class",
        ),
        pytest.param(
            make_pod().name("p").priority_class_name("high").priority(5),
            r"integer value of priority \(5\) must not be provided",
            id="priority disagrees with class",
        ),
        pytest.param(
            make_pod().name("p").priority_class_name("high").preemption_policy("Never"),
            r"PreemptionPolicy \(Never\) must not be provided",
            id="policy disagrees with class",
        ),
    ],
)
def test_admit_pod_rejects(pod: Any, error: str) -> None:
    with pytest.raises(AdmissionError, match=error):
        admit_pod(pod.obj(), classes(pc("high", 100)))


def test_adding_a_default_later_does_not_change_admitted_pods() -> None:
    admitted = admit_pod(make_pod().name("p").obj(), classes())
    again = admit_pod(admitted, classes(pc("d", 42, True)))
    assert again.priority == 0


# -- DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds) ----------------------------
@pytest.mark.parametrize(
    ("pod", "added"),
    [
        pytest.param(
            make_pod().name("p"),
            ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"],
            id="both added",
        ),
        pytest.param(
            make_pod().name("p").toleration("node.kubernetes.io/unreachable", effect="NoExecute"),
            ["node.kubernetes.io/not-ready"],
            id="existing unreachable kept",
        ),
        pytest.param(make_pod().name("p").toleration(), [], id="tolerate-everything covers both"),
        pytest.param(
            make_pod().name("p").toleration("node.kubernetes.io/not-ready", effect="NoSchedule"),
            ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"],
            id="NoSchedule toleration does not cover",
        ),
    ],
)
def test_add_default_tolerations(pod: Any, added: list[str]) -> None:
    before = pod.obj()
    after = add_default_tolerations(before)
    new = after.tolerations[len(before.tolerations) :]
    assert [t.key for t in new] == added
    assert all(t.toleration_seconds == 300 and t.effect == "NoExecute" for t in new)
