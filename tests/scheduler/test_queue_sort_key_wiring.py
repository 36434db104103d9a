"""The scheduler hands the queue a sort key only for PrioritySort, and that key orders as its less."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework import QueuedPodInfo
from kubesched.plugins.queuesort import PrioritySort
from kubesched.scheduler._scheduler import _priority_sort_key
from kubesched.testing import make_pod

_INFOS = st.builds(lambda prio, ts: QueuedPodInfo(make_pod().name("p").priority(prio).obj(), timestamp=ts),
                   st.integers(-3, 3), st.sampled_from([0.0, 0.5, 1.0]))


@settings(max_examples=200, deadline=None)
@given(_INFOS, _INFOS)
def test_priority_sort_key_orders_as_less(a: QueuedPodInfo, b: QueuedPodInfo) -> None:
    less = PrioritySort().less
    assert (_priority_sort_key(a) < _priority_sort_key(b)) == less(a, b)
    assert (_priority_sort_key(a) == _priority_sort_key(b)) == (not less(a, b) and not less(b, a))
