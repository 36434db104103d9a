"""SchedulingGates (scheduling_gates_test.go)."""

from __future__ import annotations

import pytest

from kubesched.framework import ActionType, Code, EventResource, QueueingHint, Status
from kubesched.plugins.schedulinggates import SchedulingGates
from kubesched.testing import make_pod


@pytest.mark.parametrize(
    ("gates", "want"),
    [
        pytest.param([], None, id="pod does not carry scheduling gates"),
        pytest.param(
            ["foo", "bar"],
            Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]"),
            id="pod carries scheduling gates",
        ),
    ],
)
def test_pre_enqueue(gates: list[str], want: Status | None) -> None:
    pod = make_pod().name("p").scheduling_gates(gates).obj()
    assert SchedulingGates().pre_enqueue(pod) == want


def test_events_and_hint() -> None:
    pl = SchedulingGates()
    [ev] = pl.events_to_register()
    assert ev.event.resource == EventResource.POD
    assert ev.event.action == ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    assert ev.hint is not None
    pod = make_pod().name("p").uid("p").scheduling_gates(["g"]).obj()
    ungated = make_pod().name("p").uid("p").obj()
    other = make_pod().name("q").uid("q").obj()
    assert ev.hint(pod, pod, ungated) == QueueingHint.QUEUE
    assert ev.hint(pod, other, other) == QueueingHint.QUEUE_SKIP
