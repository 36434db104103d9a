"""PrioritySort.Less (priority_sort_test.go)."""

from __future__ import annotations

import pytest

from kubesched.framework import QueuedPodInfo
from kubesched.plugins.queuesort import PrioritySort
from kubesched.testing import make_pod


def qpi(priority: int | None, ts: float) -> QueuedPodInfo:
    b = make_pod().name("p")
    if priority is not None:
        b.priority(priority)
    return QueuedPodInfo(b.obj(), timestamp=ts)


@pytest.mark.parametrize(
    ("p1", "p2", "expected"),
    [
        pytest.param(qpi(100, 1), qpi(50, 1), True, id="p1.priority less than p2.priority"),
        pytest.param(qpi(50, 1), qpi(100, 1), False, id="p1.priority greater than p2.priority"),
        pytest.param(
            qpi(100, 1), qpi(100, 2), True, id="equal priority. p1 is added to schedulingQ earlier than p2"
        ),
        pytest.param(
            qpi(100, 2), qpi(100, 1), False, id="equal priority. p2 is added to schedulingQ earlier than p1"
        ),
        pytest.param(qpi(None, 1), qpi(0, 2), True, id="nil priority counts as zero"),
        pytest.param(qpi(None, 1), qpi(-1, 1), True, id="nil priority above negative"),
    ],
)
def test_less(p1: QueuedPodInfo, p2: QueuedPodInfo, expected: bool) -> None:
    assert PrioritySort().less(p1, p2) is expected
