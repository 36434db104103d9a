"""Leader election's state machine on a virtual clock (client-go's leaderelection_test.go
cases, adapted): acquire an empty or expired lock, respect a live holder, renew on the fast
path, fall back to the slow path on a conflict, lose the lease after renewDeadline, release.

The lock here is an in-memory stand-in with the Lease's optimistic concurrency (a write must
carry the version last seen); the real Lease is exercised in tests/live/test_leader_election.py.
"""

from __future__ import annotations

import dataclasses
import math
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from kubesched.clock import VirtualClock
from kubesched.cluster.live import Fenced, WriteFence
from kubesched.cluster.live.leaderelection import (
    HealthzAdaptor,
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElectionRecord,
    LeaderElector,
    LockError,
    format_micro_time,
    new_leader_election_config,
    parse_micro_time,
)
from kubesched.framework.config import LeaderElectionConfiguration


@dataclass
class Store:
    """The "server": one record and its version."""

    record: LeaderElectionRecord | None = None
    version: int = 0
    fail_writes: bool = False


@dataclass
class MemLock:
    """A lock over a shared :class:`Store`, versioned like a Lease's resourceVersion."""

    store: Store
    ident: str
    seen: int | None = None
    calls: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    def record_event(self, message: str) -> None:
        self.events.append(message)

    def identity(self) -> str:
        return self.ident

    def describe(self) -> str:
        return "kube-system/kube-scheduler"

    def get(self) -> LeaderElectionRecord:
        self.calls.append("get")
        if self.store.record is None:
            raise LockError("leases.coordination.k8s.io \"kube-scheduler\" not found", 404)
        self.seen = self.store.version
        return self.store.record

    def create(self, record: LeaderElectionRecord) -> None:
        self.calls.append("create")
        if self.store.record is not None:
            raise LockError("already exists", 409)
        self._write(record)

    def update(self, record: LeaderElectionRecord) -> None:
        self.calls.append("update")
        if self.seen is None:
            raise LockError("lease not initialized, call get or create first")
        if self.store.fail_writes:
            raise LockError("connection refused")
        if self.seen != self.store.version:
            raise LockError("the object has been modified", 409)
        self._write(record)

    def _write(self, record: LeaderElectionRecord) -> None:
        self.store.version += 1
        self.store.record = record
        self.seen = self.store.version


@dataclass
class Recorder:
    started: list[float] = field(default_factory=list)
    stopped: int = 0
    leaders: list[str] = field(default_factory=list)

    def callbacks(self, clock: VirtualClock) -> LeaderCallbacks:
        return LeaderCallbacks(on_started_leading=lambda _stop: self.started.append(clock.now),
                               on_stopped_leading=self._stopped, on_new_leader=self.leaders.append)

    def _stopped(self) -> None:
        self.stopped += 1


START = 1_800_000_000.0


def elector(store: Store, ident: str, clock: VirtualClock, rec: Recorder | None = None, *,
            lease: float = 15.0, renew: float = 10.0, retry: float = 2.0, release: bool = False,
            watchdog: HealthzAdaptor | None = None, sleeps: list[float] | None = None,
            on_wake: Callable[[], None] | None = None) -> LeaderElector:
    rec = rec if rec is not None else Recorder()

    def sleep(stop: threading.Event, seconds: float) -> bool:
        if sleeps is not None:
            sleeps.append(seconds)
        clock.advance(seconds)
        if on_wake is not None:
            on_wake()
        return stop.is_set()

    cfg = LeaderElectionConfig(lock=MemLock(store, ident), callbacks=rec.callbacks(clock),
                               lease_duration=lease, renew_deadline=renew, retry_period=retry,
                               release_on_cancel=release, name="kube-scheduler", watchdog=watchdog)
    return LeaderElector(cfg, clock=clock, sleep=sleep, rng=random.Random(0))


def sample(le: LeaderElector, metric: str) -> float | None:
    return le.metrics.registry.get_sample_value(metric, {"name": "kube-scheduler"})


@pytest.mark.parametrize(("lease", "renew", "retry", "want"), [
    pytest.param(10.0, 10.0, 2.0, "leaseDuration must be greater than renewDeadline", id="lease-eq-renew"),
    pytest.param(15.0, 2.4, 2.0, "renewDeadline must be greater than retryPeriod*JitterFactor",
                 id="renew-vs-jitter"),
    pytest.param(15.0, 10.0, 0.0, "retryPeriod must be greater than zero", id="zero-retry"),
])
def test_new_leader_elector_validates(lease: float, renew: float, retry: float, want: str) -> None:
    with pytest.raises(ValueError, match=want.replace("*", r"\*")):
        elector(Store(), "a", VirtualClock(START), lease=lease, renew=renew, retry=retry)


def test_acquire_an_absent_lock_creates_it() -> None:
    clock, store = VirtualClock(START), Store()
    le = elector(store, "a", clock)
    assert le.try_acquire_or_renew()
    assert store.record == LeaderElectionRecord(holder_identity="a", lease_duration_seconds=15,
                                                acquire_time=START, renew_time=START, leader_transitions=0)
    assert le.is_leader() and le.get_leader() == "a"


def test_a_live_holder_is_respected_until_its_lease_expires_unobserved() -> None:
    """A candidate takes over only after leaseDurationSeconds without seeing the record change,
    measured on its own clock from when it first saw the record."""
    clock, store = VirtualClock(START), Store()
    a = elector(store, "a", clock)
    assert a.try_acquire_or_renew()
    b = elector(store, "b", clock)
    assert not b.try_acquire_or_renew()  # first sight: observed now
    clock.advance(14.9)
    assert not b.try_acquire_or_renew()
    assert b.get_leader() == "a" and not b.is_leader()
    clock.advance(0.2)  # 15.1 s without a change
    assert b.try_acquire_or_renew()
    assert store.record is not None
    assert store.record.holder_identity == "b"
    assert store.record.leader_transitions == 1
    assert store.record.acquire_time == pytest.approx(START + 15.1)


def test_renewals_keep_a_follower_out() -> None:
    clock, store = VirtualClock(START), Store()
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    assert a.try_acquire_or_renew()
    for _ in range(20):
        assert not b.try_acquire_or_renew()
        clock.advance(2.0)
        assert a.try_acquire_or_renew()
    assert store.record is not None and store.record.holder_identity == "a"
    assert store.record.acquire_time == START  # renewals keep acquireTime ...
    assert store.record.renew_time == clock.now  # ... and move renewTime
    assert store.record.leader_transitions == 0


def test_a_change_within_the_same_second_is_not_observed() -> None:
    """Upstream compares the records as JSON whose times have whole seconds: a renewal that
    moves renewTime within the same second does not refresh the follower's observed time."""
    clock, store = VirtualClock(START), Store()
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()  # observed at START
    clock.advance(0.5)
    assert a.try_acquire_or_renew()  # renewTime START + 0.5: same second
    assert not b.try_acquire_or_renew()
    clock.advance(14.6)  # 15.1 s after b's observation, 14.6 s after the renewal
    assert b.try_acquire_or_renew()


def test_the_leader_renews_on_the_fast_path() -> None:
    clock, store = VirtualClock(START), Store()
    a = elector(store, "a", clock)
    assert a.try_acquire_or_renew()
    lock = a.config.lock
    assert isinstance(lock, MemLock)
    lock.calls.clear()
    clock.advance(2.0)
    assert a.try_acquire_or_renew()
    assert lock.calls == ["update"]  # no get: the optimistic update from the observed record
    assert sample(a, "leader_election_slowpath_total") is None


def test_a_conflict_on_the_fast_path_falls_back_to_the_slow_path() -> None:
    clock, store = VirtualClock(START), Store()
    a = elector(store, "a", clock)
    assert a.try_acquire_or_renew()
    assert store.record is not None
    store.version += 1  # someone else wrote the Lease (say, a label), the record is still ours
    clock.advance(2.0)
    lock = a.config.lock
    assert isinstance(lock, MemLock)
    lock.calls.clear()
    assert a.try_acquire_or_renew()
    assert lock.calls == ["update", "get", "update"]
    assert sample(a, "leader_election_slowpath_total") == 1
    assert store.record.acquire_time == START and store.record.leader_transitions == 0


def test_racing_candidates_one_wins_by_optimistic_concurrency() -> None:
    """Both read the expired record; the first write wins, the second conflicts."""
    clock, store = VirtualClock(START), Store()
    old = elector(store, "old", clock)
    assert old.try_acquire_or_renew()
    b, c = elector(store, "b", clock), elector(store, "c", clock)
    assert not b.try_acquire_or_renew() and not c.try_acquire_or_renew()
    clock.advance(16.0)
    assert b.try_acquire_or_renew()
    assert not c.try_acquire_or_renew()  # its update carried the version it read: conflict
    assert store.record is not None and store.record.holder_identity == "b"
    assert store.record.leader_transitions == 1


def test_release_clears_the_holder_and_shortens_the_lease() -> None:
    clock, store = VirtualClock(START), Store()
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    clock.advance(1.0)
    assert a.release()
    assert store.record == LeaderElectionRecord(holder_identity="", lease_duration_seconds=1,
                                                acquire_time=START + 1.0, renew_time=START + 1.0,
                                                leader_transitions=0)
    assert b.try_acquire_or_renew()  # no holder: no need to wait for the lease to expire
    assert store.record.holder_identity == "b" and store.record.leader_transitions == 1
    assert b.release() and not a.is_leader()
    assert elector(store, "c", clock).release()  # not the leader: nothing to do


def test_run_acquires_leads_and_loses_the_lease_after_renew_deadline() -> None:
    clock, store = VirtualClock(START), Store()
    rec = Recorder()
    le = elector(store, "a", clock, rec)
    lost_at: list[float] = []

    def break_writes_later() -> None:
        store.fail_writes = True
        lost_at.append(clock.now)

    clock.schedule(30.0, break_writes_later)
    le.run(threading.Event())
    assert rec.started == [START]
    assert rec.stopped == 1
    assert rec.leaders == ["a"]
    assert isinstance(le.config.lock, MemLock)
    assert le.config.lock.events == ["became leader"]  # lost: nothing more is written
    # renewals every 2 s, the last good one at 28; the ones after the failure retry every 2 s
    # until renewDeadline after it started (38), then give up
    assert lost_at == [START + 30.0]
    assert clock.now == START + 38.0
    assert le.lost
    assert sample(le, "leader_election_master_status") == 0


def _fenced(le: LeaderElector, clock: VirtualClock) -> tuple[WriteFence, WriteFence]:
    """The elector's fences: the scheduler's (shut until the lease is held) and the lock's."""
    work, lock = WriteFence(clock, open_until=-math.inf), WriteFence(clock)
    le.config = dataclasses.replace(le.config, fences=(work, lock))
    return work, lock


def test_the_fence_opens_with_each_renewal_until_renew_deadline_after_it_started() -> None:
    clock, store = VirtualClock(START), Store()
    le = elector(store, "a", clock)
    work, lock = _fenced(le, clock)
    with pytest.raises(Fenced, match="POST /binding: not sent: the leader lease is not held"):
        work.check("POST", "/binding")  # not leading yet
    lock.check("PUT", "/lease")  # the lock's own client may try to acquire
    assert le.try_acquire_or_renew()
    assert work.until == lock.until == START + 10.0
    clock.advance(9.9)
    work.check("POST", "/binding")
    clock.advance(0.1)
    with pytest.raises(Fenced):
        work.check("POST", "/binding")
    assert le.try_acquire_or_renew()  # nobody took over meanwhile: renewed, open again
    assert work.until == START + 20.0


def test_a_leader_resumed_after_a_stop_longer_than_the_lease_writes_nothing() -> None:
    """SIGSTOP for 25 s while leading, a successor takes over meanwhile, SIGCONT: the first
    thing the old leader's renew loop does is notice the deadline has passed, so it sends no
    request at all (no renewal, no release, no event), and every write of its other threads is
    refused from the moment the deadline passed, before the elector's thread has run."""
    clock, store = VirtualClock(START), Store()
    rec = Recorder()
    successor = elector(store, "b", clock)
    checked: list[str] = []
    calls: list[str] = []

    def sigstop() -> None:  # at 6, while a's elector thread sleeps between renewals
        if clock.now != START + 6.0:
            return
        calls.extend(lock_calls)
        clock.advance(25.0)  # stopped: nothing of this process runs
        assert not successor.try_acquire_or_renew()  # first sight of the record
        clock.advance(15.0)
        assert successor.try_acquire_or_renew()  # unchanged for leaseDuration: taken over
        for fence in (work, lock):  # a binding worker resumed first
            try:
                fence.check("POST", "/api/v1/namespaces/ns/pods/p/binding")
            except Fenced:
                checked.append("refused")

    le = elector(store, "a", clock, rec, release=True, on_wake=sigstop)
    lock_calls: list[str] = le.config.lock.calls  # type: ignore[attr-defined]
    work, lock = _fenced(le, clock)
    le.run(threading.Event())
    assert checked == ["refused", "refused"]
    assert lock_calls == calls  # not one request after the stop
    assert le.lost and rec.stopped == 1
    assert work.closed and lock.closed
    assert store.record is not None and store.record.holder_identity == "b"  # not released by a
    assert le.config.lock.events == ["became leader"]  # type: ignore[attr-defined]


def test_another_holder_observed_is_a_loss_at_once() -> None:
    clock, store = VirtualClock(START), Store()
    le = elector(store, "a", clock)
    work, _ = _fenced(le, clock)
    assert le.try_acquire_or_renew()

    def taken_over() -> None:  # someone else writes the Lease (as a partitioned leader's peer)
        store.record = LeaderElectionRecord(holder_identity="b", lease_duration_seconds=3600,
                                            acquire_time=clock.now, renew_time=clock.now)
        store.version += 1

    clock.schedule(3.0, taken_over)
    le.run(threading.Event())
    assert le.lost and work.closed
    assert clock.now == START + 4.0  # the renewal at 4 read the new holder: no retry until 10


def test_a_stop_while_holding_releases_and_leaves_the_fence_to_close_with_time() -> None:
    clock, store = VirtualClock(START), Store()
    stop = threading.Event()
    le = elector(store, "a", clock, release=True)
    work, _ = _fenced(le, clock)
    clock.schedule(7.0, stop.set)
    le.run(stop)
    assert not le.lost and not work.closed
    assert store.record is not None and store.record.holder_identity == ""
    assert le.config.lock.events == ["became leader", "stopped leading"]  # type: ignore[attr-defined]


def test_run_waits_with_jitter_while_another_leads_and_stops_on_request() -> None:
    clock, store = VirtualClock(START), Store()
    holder = elector(store, "holder", clock)
    assert holder.try_acquire_or_renew()
    sleeps: list[float] = []
    stop = threading.Event()
    rec = Recorder()
    le = elector(store, "b", clock, rec, sleeps=sleeps)
    clock.schedule(10.0, stop.set)

    def renew_holder() -> None:
        if not stop.is_set():
            holder.try_acquire_or_renew()
            clock.schedule(2.0, renew_holder)

    clock.schedule(2.0, renew_holder)
    le.run(stop)
    assert rec.started == [] and rec.stopped == 1
    assert rec.leaders == ["holder"]
    assert sleeps and all(2.0 <= s < 2.0 * 2.2 for s in sleeps)
    assert len(set(sleeps)) == len(sleeps)  # jittered, not a fixed period


def test_release_on_cancel() -> None:
    clock, store = VirtualClock(START), Store()
    stop = threading.Event()
    rec = Recorder()
    le = elector(store, "a", clock, rec, release=True)
    clock.schedule(7.0, stop.set)
    le.run(stop)
    assert rec.started == [START] and rec.stopped == 1
    assert store.record is not None
    assert store.record.holder_identity == "" and store.record.lease_duration_seconds == 1


def test_takeover_reports_the_new_leader() -> None:
    clock, store = VirtualClock(START), Store()
    a = elector(store, "a", clock)
    assert a.try_acquire_or_renew()
    rec = Recorder()
    b = elector(store, "b", clock, rec)
    stop = threading.Event()
    clock.schedule(40.0, stop.set)
    b.run(stop)
    assert rec.leaders == ["a", "b"]
    assert rec.started and rec.started[0] <= START + 15.0 + 2.0 * 2.2


def test_healthz_adaptor() -> None:
    clock, store = VirtualClock(START), Store()
    watchdog = HealthzAdaptor(timeout=20.0)
    assert watchdog.name() == "leaderElection" and watchdog.check() is None  # no elector yet
    a = elector(store, "a", clock, watchdog=watchdog)
    assert watchdog.check() is None  # a standby is healthy
    assert a.try_acquire_or_renew()
    clock.advance(35.0)
    assert watchdog.check() is None  # 35 s = lease 15 s + 20 s: still tolerated
    clock.advance(0.1)
    assert watchdog.check() == "failed election to renew leadership on lease kube-scheduler"
    assert a.try_acquire_or_renew()
    assert watchdog.check() is None


def test_micro_time() -> None:
    assert format_micro_time(START) == "2027-01-15T08:00:00.000000Z"
    assert format_micro_time(START + 0.25) == "2027-01-15T08:00:00.250000Z"
    assert parse_micro_time("2027-01-15T08:00:00.250000Z") == START + 0.25
    assert parse_micro_time(None) == 0.0


def test_lease_spec_round_trip() -> None:
    rec = LeaderElectionRecord(holder_identity="h_1", lease_duration_seconds=15, acquire_time=START,
                               renew_time=START + 2.5, leader_transitions=3)
    spec = rec.to_lease_spec()
    assert spec == {"holderIdentity": "h_1", "leaseDurationSeconds": 15,
                    "acquireTime": "2027-01-15T08:00:00.000000Z", "renewTime": "2027-01-15T08:00:02.500000Z",
                    "leaseTransitions": 3}
    assert LeaderElectionRecord.from_lease_spec(spec) == rec
    assert LeaderElectionRecord.from_lease_spec(None) == LeaderElectionRecord()


def test_new_leader_election_config_is_the_schedulers() -> None:
    cfg = new_leader_election_config(LeaderElectionConfiguration(), rest=None,  # type: ignore[arg-type]
                                     callbacks=LeaderCallbacks(lambda _s: None, lambda: None))
    assert (cfg.lease_duration, cfg.renew_deadline, cfg.retry_period) == (15.0, 10.0, 2.0)
    assert cfg.release_on_cancel and cfg.name == "kube-scheduler"
    assert cfg.watchdog is not None and cfg.watchdog.timeout == 20.0
    assert cfg.lock.describe() == "kube-system/kube-scheduler"
    host, _, uid = cfg.lock.identity().rpartition("_")
    assert host and len(uid) == 36
    with pytest.raises(ValueError, match="Invalid lock-type configmaps"):
        new_leader_election_config(LeaderElectionConfiguration(resource_lock="configmaps"), None,
                                   LeaderCallbacks(lambda _s: None, lambda: None))
