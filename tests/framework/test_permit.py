"""Permit: Wait with per-plugin timeouts on the virtual clock; allow, reject, timeout
(framework.go RunPermitPlugins/WaitOnPermit, waiting_pods_map.go)."""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.framework import Code, CycleState, Framework, Status
from kubesched.testing import make_pod

from ._toys import framework, pset, toy

WAIT = Status.of(Code.WAIT)


def _setup(timeouts: dict[str, float]) -> tuple[Framework, VirtualClock, Pod]:
    clock = VirtualClock()
    classes = [toy(name, permit=(WAIT, t)) for name, t in timeouts.items()]
    fw = framework(classes, permit=pset(*timeouts), clock=clock)
    return fw, clock, make_pod().name("p").uid("uid-p").obj()


def test_no_wait_resolves_at_once() -> None:
    fw = framework([toy("Ok", permit=(None, 0))], permit=pset("Ok"))
    pod = make_pod().name("p").uid("u").obj()
    assert fw.run_permit_plugins(CycleState(), pod, "n").is_success()
    fut = fw.wait_on_permit(pod)
    assert fut.done() and fut.status().is_success()


def test_rejection_stops_permit() -> None:
    log: list[str] = []
    fw = framework(
        [
            toy("No", log, permit=(Status.of(Code.UNSCHEDULABLE, "nope"), 0)),
            toy("Later", log, permit=(WAIT, 5)),
        ],
        permit=pset("No", "Later"),
    )
    st = fw.run_permit_plugins(CycleState(), make_pod().name("p").uid("u").obj(), "n")
    assert (st.code, st.plugin, log) == (Code.UNSCHEDULABLE, "No", ["No.permit"])
    assert fw.get_waiting_pod("u") is None


def test_wait_then_all_allow() -> None:
    fw, clock, pod = _setup({"A": 10, "B": 20})
    st = fw.run_permit_plugins(CycleState(), pod, "n")
    assert st.code == Code.WAIT
    assert st.message() == 'one or more plugins asked to wait and no plugin rejected pod "p"'
    fut = fw.wait_on_permit(pod)
    wp = fw.get_waiting_pod("uid-p")
    assert wp is not None and sorted(wp.get_pending_plugins()) == ["A", "B"]
    wp.allow("A")
    assert not fut.done(), "still waiting for B"
    wp.allow("B")
    assert fut.done() and fut.status().is_success()
    assert fw.get_waiting_pod("uid-p") is None
    clock.run()  # the cancelled timers must not reject afterwards
    assert fut.status().is_success()


def test_wait_then_reject() -> None:
    fw, _, pod = _setup({"A": 10, "B": 20})
    fw.run_permit_plugins(CycleState(), pod, "n")
    fut = fw.wait_on_permit(pod)
    got: list[Status] = []
    fut.add_done_callback(got.append)
    wp = fw.get_waiting_pod("uid-p")
    assert wp is not None
    wp.allow("A")
    wp.reject("B", "not today")
    assert got == [Status(Code.UNSCHEDULABLE, ("not today",), "B")]


def test_wait_times_out_on_clock() -> None:
    fw, clock, pod = _setup({"A": 10, "B": 90})
    fw.run_permit_plugins(CycleState(), pod, "n")
    fut = fw.wait_on_permit(pod)
    clock.advance(9.5)
    assert not fut.done()
    clock.advance(1)
    assert fut.done()
    assert fut.status() == Status(
        Code.UNSCHEDULABLE, ("rejected due to timeout after waiting 10s at plugin A",), "A"
    )
    assert clock.now == 10.5


def test_timeout_capped_at_15_minutes() -> None:
    fw, clock, pod = _setup({"Slow": 3600})
    fw.run_permit_plugins(CycleState(), pod, "n")
    fut = fw.wait_on_permit(pod)
    clock.run()
    assert clock.now == 900
    assert fut.status().message() == "rejected due to timeout after waiting 15m0s at plugin Slow"


def test_reject_waiting_pod_through_handle() -> None:
    fw, _, pod = _setup({"A": 10})
    fw.run_permit_plugins(CycleState(), pod, "n")
    seen: list[str] = []
    fw.iterate_over_waiting_pods(lambda wp: seen.append(wp.get_pod().name))
    assert seen == ["p"]
    assert fw.reject_waiting_pod("uid-p")
    assert not fw.reject_waiting_pod("other")
    fut = fw.wait_on_permit(pod)  # resolved before the binding cycle asked: the status is kept
    assert fut.done() and fut.status() == Status(Code.UNSCHEDULABLE, ("removed",), "")
