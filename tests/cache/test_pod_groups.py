"""The cache's pod group states (podGroupState upstream): members move unscheduled -> assumed
-> assigned, back on forget, and out on delete; pods without a group are not tracked."""

from __future__ import annotations

from kubesched.cache import Cache
from kubesched.clock import VirtualClock
from kubesched.testing import make_node, make_pod


def test_members_move_through_assume_forget_bind_and_delete() -> None:
    cache = Cache(VirtualClock(0.0))
    cache.add_node(make_node().name("n1").capacity({"cpu": "4"}).obj())
    a = make_pod().name("a").uid("a").pod_group("g").obj()
    b = make_pod().name("b").uid("b").pod_group("g").obj()
    loner = make_pod().name("c").uid("c").obj()
    groups = cache.pod_groups
    for p in (a, b, loner):
        groups.add_pod(p)  # what the event handlers do for a queued pod
    st = groups.get("default", "g")
    assert (st.all_pods_count(), st.scheduled_pods_count()) == (2, 0)
    assert sorted(st.unscheduled_pods()) == ["default/a", "default/b"]

    a_on_n1 = make_pod().name("a").uid("a").pod_group("g").node("n1").obj()
    cache.assume_pod(a_on_n1)
    st = groups.get("default", "g")
    assert st.assumed_pods() == {"a"} and st.scheduled_pods_count() == 1
    assert sorted(st.unscheduled_pods()) == ["default/b"]

    cache.forget_pod(a_on_n1)
    assert groups.get("default", "g").scheduled_pods_count() == 0

    cache.assume_pod(a_on_n1)
    cache.add_pod(a_on_n1)  # the binding is seen: assigned, no longer assumed
    st = groups.get("default", "g")
    assert st.assumed_pods() == set() and st.scheduled_pods_count() == 1

    cache.remove_pod(a_on_n1)
    groups.delete_pod(b)
    assert groups.get("default", "g").all_pods_count() == 0
