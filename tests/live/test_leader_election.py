"""Leader election on a real Lease in a real API server: of two candidates exactly one leads;
when it releases, or dies without releasing, the other takes over within the lease duration;
``leaseTransitions`` counts the hand-overs; the Lease's fields are as client-go writes them.

Short durations (lease 2 s, renew deadline 1.5 s, retry 0.3 s) keep each test to seconds;
every elector and process started is stopped in a ``finally``.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubesched.cluster.live import RestClient
from kubesched.cluster.live.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElector,
    LeaseLock,
    LockError,
)

from ._kube import rest_for
from .conftest import REPO, ControlPlane

LEASE, RENEW, RETRY = 2.0, 1.5, 0.3
MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


@pytest.fixture
def api_client(control_plane: ControlPlane) -> Iterator[RestClient]:
    client = rest_for(control_plane)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def lease_name() -> str:
    return f"kubesched-{uuid.uuid4().hex[:10]}"


def read_lease(api_client: Any, name: str) -> dict[str, Any]:
    lock = LeaseLock(api_client, "kube-system", name, "reader")
    lock.get()
    assert lock.lease is not None
    return lock.lease


def lease_events(api_client: Any, name: str) -> list[dict[str, Any]]:
    return list(api_client.request("GET", "/api/v1/namespaces/kube-system/events",
                                   query={"fieldSelector": f"involvedObject.name={name}"})["items"])


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll ``cond`` every 50 ms; the seconds it took, or fail naming ``what``."""
    start = time.monotonic()
    while not cond():
        if time.monotonic() - start > timeout:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)
    return time.monotonic() - start


@dataclass
class Candidate:
    """One elector on its own thread, recording when it led."""

    identity: str
    elector: LeaderElector
    stop: threading.Event = field(default_factory=threading.Event)
    intervals: list[list[float]] = field(default_factory=list)
    leaders_seen: list[str] = field(default_factory=list)
    stopped: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    @property
    def leading(self) -> bool:
        return bool(self.intervals) and len(self.intervals[-1]) == 1

    def start(self) -> Candidate:
        self.thread = threading.Thread(target=self.elector.run, args=(self.stop,), daemon=True)
        self.thread.start()
        return self

    def halt(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=10)
            assert not self.thread.is_alive(), f"{self.identity} did not stop"


def candidate(api_client: Any, name: str, identity: str, *, release: bool = True) -> Candidate:
    holder: list[Candidate] = []

    def lead(stop: threading.Event) -> None:
        c = holder[0]
        c.intervals.append([time.monotonic()])
        stop.wait()
        c.intervals[-1].append(time.monotonic())

    callbacks = LeaderCallbacks(on_started_leading=lead, on_stopped_leading=lambda: holder[0].stopped.set(),
                                on_new_leader=lambda who: holder[0].leaders_seen.append(who))
    lock = LeaseLock(api_client, "kube-system", name, identity, timeout=max(1.0, RENEW / 2),
                     event_source="default-scheduler")
    cfg = LeaderElectionConfig(lock=lock, callbacks=callbacks, lease_duration=LEASE, renew_deadline=RENEW,
                               retry_period=RETRY, release_on_cancel=release, name="kube-scheduler")
    c = Candidate(identity, LeaderElector(cfg))
    holder.append(c)
    return c


def assert_no_overlap(*cands: Candidate) -> None:
    spans = sorted((s[0], s[1] if len(s) > 1 else float("inf"), c.identity)
                   for c in cands for s in c.intervals)
    for (_, end, who), (start, _, nxt) in itertools.pairwise(spans):
        assert end <= start, f"{who} and {nxt} led at the same time"


def test_one_leads_and_the_other_takes_over_on_release(api_client: Any, lease_name: str) -> None:
    a = candidate(api_client, lease_name, "host-a_1")
    b = candidate(api_client, lease_name, "host-b_2")
    try:
        a.start()
        wait_for(lambda: a.leading, 10, "the first candidate to lead")
        b.start()
        wait_for(lambda: b.leaders_seen == ["host-a_1"], 5, "the second to observe the leader")
        time.sleep(LEASE + RETRY)  # a lease's worth of renewals: the follower stays out
        assert a.leading and not b.intervals

        lease = read_lease(api_client, lease_name)
        spec = lease["spec"]
        assert spec["holderIdentity"] == "host-a_1"
        assert spec["leaseDurationSeconds"] == 2
        assert spec["leaseTransitions"] == 0
        assert MICRO_TIME.match(spec["acquireTime"]) and MICRO_TIME.match(spec["renewTime"])
        assert spec["renewTime"] > spec["acquireTime"]  # renewed since, acquireTime kept
        assert lease["metadata"]["namespace"] == "kube-system"

        a.halt()  # ReleaseOnCancel: the holder is cleared, the lease cut to 1 s
        released = time.monotonic()
        assert a.stopped.is_set() and not a.leading
        took = wait_for(lambda: b.leading, LEASE, "the second candidate to take over")
        assert time.monotonic() - released <= LEASE and took <= LEASE
        spec = read_lease(api_client, lease_name)["spec"]
        assert spec["holderIdentity"] == "host-b_2"
        assert spec["leaseTransitions"] == 1
        assert spec["leaseDurationSeconds"] == 2
        assert b.leaders_seen[-1] == "host-b_2"
        assert_no_overlap(a, b)
    finally:
        a.halt()
        b.halt()
    spec = read_lease(api_client, lease_name)["spec"]
    assert spec["holderIdentity"] == "" and spec["leaseDurationSeconds"] == 1
    assert spec["leaseTransitions"] == 1
    want = {"host-a_1 became leader", "host-a_1 stopped leading", "host-b_2 became leader",
            "host-b_2 stopped leading"}
    wait_for(lambda: {e["message"] for e in lease_events(api_client, lease_name)} == want, 5,
             "the LeaderElection events")
    for event in lease_events(api_client, lease_name):
        assert event["reason"] == "LeaderElection" and event["type"] == "Normal"
        assert event["source"] == {"component": "default-scheduler"}
        assert event["involvedObject"]["kind"] == "Lease"
        assert event["involvedObject"]["apiVersion"] == "coordination.k8s.io/v1"


def test_the_other_takes_over_when_the_leader_stops_renewing(api_client: Any, lease_name: str) -> None:
    """No release (as after a crash): the follower waits out the lease from the last change it saw."""
    a = candidate(api_client, lease_name, "host-a_1", release=False)
    b = candidate(api_client, lease_name, "host-b_2")
    try:
        a.start()
        wait_for(lambda: a.leading, 10, "the first candidate to lead")
        b.start()
        wait_for(lambda: bool(b.leaders_seen), 5, "the second to observe the leader")
        a.halt()
        assert read_lease(api_client, lease_name)["spec"]["holderIdentity"] == "host-a_1"
        gone = time.monotonic()
        wait_for(lambda: b.leading, LEASE + 2.2 * RETRY + 1.0, "the second candidate to take over")
        assert time.monotonic() - gone >= LEASE - 2.2 * RETRY  # not before the lease ran out
        spec = read_lease(api_client, lease_name)["spec"]
        assert spec["holderIdentity"] == "host-b_2" and spec["leaseTransitions"] == 1
        assert_no_overlap(a, b)
    finally:
        a.halt()
        b.halt()


_CHILD = textwrap.dedent("""
    import pathlib, sys, threading
    from kubesched.cluster.live import RestClient, load_rest_config
    from kubesched.cluster.live.leaderelection import *
    kubeconfig, name, identity = sys.argv[1:4]
    client = RestClient(load_rest_config(pathlib.Path(kubeconfig)))
    def lead(stop):
        print("leading", flush=True)
        stop.wait()
    lock = LeaseLock(client, "kube-system", name, identity, timeout=1.0)
    cfg = LeaderElectionConfig(lock=lock, callbacks=LeaderCallbacks(lead, lambda: None),
                               lease_duration=2.0, renew_deadline=1.5, retry_period=0.3,
                               release_on_cancel=True, name="kube-scheduler")
    LeaderElector(cfg).run(threading.Event())
""")


def test_a_killed_leader_is_replaced(control_plane: ControlPlane, api_client: Any, lease_name: str) -> None:
    """The leader is a process killed with SIGKILL: it cannot release; the lease runs out."""
    argv = [sys.executable, "-c", _CHILD, str(control_plane.kubeconfig), lease_name, "proc_1"]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=REPO,
                             env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"})
    b = candidate(api_client, lease_name, "host-b_2")
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "leading"
        b.start()
        wait_for(lambda: b.leaders_seen == ["proc_1"], 5, "the candidate to observe the process leading")
        child.kill()
        child.wait(timeout=10)
        killed = time.monotonic()
        wait_for(lambda: b.leading, LEASE + 2.2 * RETRY + 1.0, "the candidate to take over")
        assert time.monotonic() - killed >= LEASE - 2.2 * RETRY - RETRY
        spec = read_lease(api_client, lease_name)["spec"]
        assert spec["holderIdentity"] == "host-b_2" and spec["leaseTransitions"] == 1
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()
        b.halt()


def test_a_stale_write_conflicts(api_client: Any, lease_name: str) -> None:
    """The Lease's resourceVersion makes writes optimistic: a writer holding an old copy gets a
    409 Conflict instead of overwriting a newer record."""
    from kubesched.cluster.live.leaderelection import LeaderElectionRecord

    one = LeaseLock(api_client, "kube-system", lease_name, "one")
    two = LeaseLock(api_client, "kube-system", lease_name, "two")
    with pytest.raises(LockError) as missing:
        one.get()
    assert missing.value.not_found
    now = time.time()
    one.create(LeaderElectionRecord(holder_identity="one", lease_duration_seconds=2, acquire_time=now,
                                    renew_time=now))
    two.get()
    one.update(LeaderElectionRecord(holder_identity="one", lease_duration_seconds=2, acquire_time=now,
                                    renew_time=now + 1))
    with pytest.raises(LockError) as conflict:
        two.update(LeaderElectionRecord(holder_identity="two", lease_duration_seconds=2, acquire_time=now,
                                        renew_time=now + 1, leader_transitions=1))
    assert conflict.value.status == 409
    assert read_lease(api_client, lease_name)["spec"]["holderIdentity"] == "one"


_REAL_SCHEDULER_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  leaseDuration: 2s
  renewDeadline: 1500ms
  retryPeriod: 300ms
  resourceNamespace: kube-system
  resourceName: {name}
profiles:
- schedulerName: kubesched-leader-election-interop
"""


def test_hand_over_with_the_real_kube_scheduler(control_plane: ControlPlane, api_client: Any, lease_name: str,
                                                tmp_path: Any) -> None:
    """The real kube-scheduler and kubesched share one Lease: each respects the other as the
    holder, takes over when the other releases, and both write the same record."""
    config = tmp_path / "kube-scheduler.yaml"
    config.write_text(_REAL_SCHEDULER_CONFIG.format(name=lease_name))
    ours = candidate(api_client, lease_name, "host-b_2")
    try:
        control_plane.run("scheduler", str(config))
        holder = lambda: read_lease(api_client, lease_name)["spec"].get("holderIdentity", "")  # noqa: E731
        wait_for(lambda: _exists(api_client, lease_name) and bool(holder()), 20, "kube-scheduler to lead")
        theirs = read_lease(api_client, lease_name)["spec"]
        assert re.fullmatch(r"[^_]+_[0-9a-f-]{36}", theirs["holderIdentity"])
        assert theirs["leaseDurationSeconds"] == 2 and theirs["leaseTransitions"] == 0
        assert MICRO_TIME.match(theirs["acquireTime"]) and MICRO_TIME.match(theirs["renewTime"])
        assert set(theirs) == {"holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime",
                               "leaseTransitions"}

        ours.start()
        wait_for(lambda: ours.leaders_seen == [theirs["holderIdentity"]], 5,
                 "kubesched to see kube-scheduler lead")
        time.sleep(LEASE + RETRY)
        assert not ours.intervals  # a renewing kube-scheduler keeps kubesched out

        control_plane.run("stop-scheduler")  # SIGTERM: kube-scheduler releases the Lease
        wait_for(lambda: ours.leading, LEASE + 1.0, "kubesched to take over from kube-scheduler")
        mine = read_lease(api_client, lease_name)["spec"]
        assert mine["holderIdentity"] == "host-b_2" and mine["leaseTransitions"] == 1
        assert set(mine) == set(theirs)

        control_plane.run("scheduler", str(config))  # now kube-scheduler is the standby
        time.sleep(LEASE + RETRY)
        assert holder() == "host-b_2"
        ours.halt()  # release: kube-scheduler takes over at its next retry
        wait_for(lambda: holder() not in ("", "host-b_2"), LEASE + 1.0, "kube-scheduler to take over")
        assert read_lease(api_client, lease_name)["spec"]["leaseTransitions"] == 2
    finally:
        ours.halt()
        control_plane.run("stop-scheduler", check=False)


def _exists(api_client: Any, name: str) -> bool:
    try:
        read_lease(api_client, name)
    except LockError as err:
        if err.not_found:
            return False
        raise
    return True
