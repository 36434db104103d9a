"""Leader election on a ``coordination.k8s.io/v1`` Lease, as client-go does it.

Mirrors staging/src/k8s.io/client-go/tools/leaderelection (master 2026): leaderelection.go
(LeaderElector: acquire, renew, release, tryAcquireOrRenew, Check), resourcelock/leaselock.go
(LeaseLock and the record <-> LeaseSpec conversion), healthzadaptor.go (the ``leaderElection``
health check) and the two metrics component-base registers for it. kube-scheduler's wiring
(cmd/kube-scheduler/app/options/options.go, makeLeaderElectionConfig) is
:func:`new_leader_election_config`: identity ``hostname_uuid``, ReleaseOnCancel, the name
``kube-scheduler``, a watchdog tolerating 20 s past the lease, and an API timeout of
max(1 s, renewDeadline / 2) so one hung request cannot cost the lease.

As upstream, a candidate acts only on times it measured itself: it notes when it last *saw the
record change* (observed time) and takes over once ``leaseDurationSeconds`` pass without a
change, whatever clocks the other candidates have. Writes are optimistic: an update carries the
Lease's ``resourceVersion``, so of two candidates racing for an expired Lease one gets a
conflict and backs off. Upstream does not fence: a leader that stalls longer than the lease
while holding it may overlap its successor (its package comment says so). Here the leader's
writes are fenced (:mod:`._fence`): each acquire or renewal, made at time ``t``, holds the
config's :class:`WriteFence` objects open until ``t + renewDeadline``, and the lease counts as
lost, without another request, once that time has passed (a process resumed after a stop
notices it before sending anything), or as soon as a read shows another holder. Once lost,
the fences are closed and nothing more is written: no release, no "stopped leading" event.

Time comes from an injected clock (``now``) and every wait goes through an injected ``sleep``,
so unit tests drive the whole state machine on a :class:`~kubesched.clock.VirtualClock`.
"""

from __future__ import annotations

import logging
import math
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge

from ...clock import Clock, RealClock
from .._memory import Expired
from .._store import AlreadyExists, Conflict, Invalid, NotFound, StoreError
from ._fence import WriteFence
from ._rest import ApiError, RestClient

__all__ = [
    "JITTER_FACTOR",
    "HealthzAdaptor",
    "LeaderCallbacks",
    "LeaderElectionConfig",
    "LeaderElectionRecord",
    "LeaderElector",
    "LeaderMetrics",
    "LeaseLock",
    "LockError",
    "ResourceLock",
    "format_micro_time",
    "new_leader_election_config",
    "parse_micro_time",
]

_log = logging.getLogger(__name__)

JITTER_FACTOR = 1.2
"""leaderelection.JitterFactor: a candidate waits retryPeriod * [1, 2.2) between attempts."""

_WATCHDOG_TIMEOUT = 20.0
"""NewLeaderHealthzAdaptor(time.Second * 20) in kube-scheduler's makeLeaderElectionConfig."""


# -- the record and its wire form ----------------------------------------------------------


def format_micro_time(ts: float) -> str:
    """metav1.MicroTime's JSON form (RFC3339Micro in UTC): ``2026-01-01T00:00:00.000000Z``.

    Always six fraction digits: the API server parses with that exact layout and rejects
    ``+00:00`` or a missing fraction (what ``datetime.isoformat()`` gives), which is why this
    module writes Lease JSON itself instead of through the generated models."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_micro_time(text: str | None) -> float:
    """A MicroTime (or metav1.Time) string to epoch seconds; absent is 0."""
    if not text:
        return 0.0
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@dataclass(frozen=True, slots=True)
class LeaderElectionRecord:
    """resourcelock.LeaderElectionRecord: what the Lease's spec says about the election.
    Times are epoch seconds (microsecond precision on the wire)."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: float = 0.0
    renew_time: float = 0.0
    leader_transitions: int = 0
    strategy: str = ""
    preferred_holder: str = ""

    def raw(self) -> tuple[Any, ...]:
        """The record as upstream compares it (``json.Marshal`` of the record, whose times are
        metav1.Time and so marshal to whole seconds): a change below one second in the renew
        time alone does not count as the record changing."""
        return (self.holder_identity, self.lease_duration_seconds, int(self.acquire_time // 1),
                int(self.renew_time // 1), self.leader_transitions, self.strategy, self.preferred_holder)

    @staticmethod
    def from_lease_spec(spec: dict[str, Any] | None) -> LeaderElectionRecord:
        """LeaseSpecToLeaderElectionRecord."""
        spec = spec or {}
        return LeaderElectionRecord(
            holder_identity=spec.get("holderIdentity") or "",
            lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=parse_micro_time(spec.get("acquireTime")),
            renew_time=parse_micro_time(spec.get("renewTime")),
            leader_transitions=int(spec.get("leaseTransitions") or 0),
            strategy=spec.get("strategy") or "",
            preferred_holder=spec.get("preferredHolder") or "",
        )

    def to_lease_spec(self) -> dict[str, Any]:
        """LeaderElectionRecordToLeaseSpec: every field written, ``holderIdentity`` even when
        empty (a released lease), strategy and preferredHolder only when set."""
        spec: dict[str, Any] = {
            "holderIdentity": self.holder_identity,
            "leaseDurationSeconds": self.lease_duration_seconds,
            "acquireTime": format_micro_time(self.acquire_time),
            "renewTime": format_micro_time(self.renew_time),
            "leaseTransitions": self.leader_transitions,
        }
        if self.preferred_holder:
            spec["preferredHolder"] = self.preferred_holder
        if self.strategy:
            spec["strategy"] = self.strategy
        return spec


# -- the lock ------------------------------------------------------------------------------


class LockError(Exception):
    """A lock operation failed; ``status`` is the HTTP status (0 when none was received)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status

    @property
    def not_found(self) -> bool:
        return self.status == 404


class ResourceLock(Protocol):
    """resourcelock.Interface: what the elector needs of a lock."""

    def get(self) -> LeaderElectionRecord:
        """The current record; raises :class:`LockError` (``not_found`` when there is none)."""
        ...

    def create(self, record: LeaderElectionRecord) -> None: ...

    def update(self, record: LeaderElectionRecord) -> None:
        """Write ``record`` over the object last read or written (optimistic concurrency)."""
        ...

    def identity(self) -> str: ...

    def describe(self) -> str: ...

    def record_event(self, message: str) -> None:
        """RecordEvent: note a transition ("became leader", "stopped leading")."""
        ...


class LeaseLock:
    """resourcelock.LeaseLock over the project's :class:`~kubesched.cluster.live.RestClient`
    (kube-scheduler gives the lock a client of its own, built from the same kubeconfig:
    pass ``RestClient.clone()``, which has its own token bucket).

    Keeps the Lease last read or written, so an update sends its ``resourceVersion`` and fails
    with 409 Conflict when someone else wrote in between. ``timeout`` bounds each request
    (NewFromKubeconfig's max(1 s, renewDeadline / 2)). With ``event_source`` (kube-scheduler
    passes its first profile's scheduler name), transitions are recorded as core/v1 Events on
    the Lease, as the legacy event recorder writes them, from a background thread so the
    election never waits on them."""

    def __init__(self, rest: RestClient, namespace: str, name: str, identity: str, *,
                 timeout: float = 5.0, labels: dict[str, str] | None = None,
                 event_source: str | None = None) -> None:
        if not identity:
            raise ValueError("Lock identity is empty")
        self._rest = rest
        self.namespace = namespace
        self.name = name
        self._identity = identity
        self._timeout = timeout
        self._labels = dict(labels) if labels else None
        self._event_source = event_source
        self._lease: dict[str, Any] | None = None

    def identity(self) -> str:
        return self._identity

    def describe(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def lease(self) -> dict[str, Any] | None:
        """The Lease object as the server last returned it."""
        return self._lease

    def get(self) -> LeaderElectionRecord:
        lease = self._call("GET", self._path(self.name))
        try:
            record = LeaderElectionRecord.from_lease_spec(lease.get("spec"))
        except (TypeError, ValueError, AttributeError) as exc:
            raise LockError(f"Lease {self.describe()} has an unreadable spec: {exc}") from exc
        self._lease = lease
        return record

    def create(self, record: LeaderElectionRecord) -> None:
        meta: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self._labels:
            meta["labels"] = dict(self._labels)
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
                "spec": record.to_lease_spec()}
        self._lease = self._call("POST", self._path(), body)

    def update(self, record: LeaderElectionRecord) -> None:
        if self._lease is None:
            raise LockError("lease not initialized, call get or create first")
        body = dict(self._lease)
        body["spec"] = record.to_lease_spec()
        if self._labels:
            meta = dict(body.get("metadata") or {})
            meta["labels"] = {**(meta.get("labels") or {}), **self._labels}
            body["metadata"] = meta
        self._lease = self._call("PUT", self._path(self.name), body)

    def record_event(self, message: str) -> None:
        """RecordEvent: a ``Normal`` ``LeaderElection`` Event "IDENTITY MESSAGE" on the Lease
        (record.recorderImpl.makeEvent: named NAME.HEXNANOS, count 1, source and reporting
        controller the scheduler's name). Without an event source, or a Lease, nothing."""
        if self._event_source is None or self._lease is None:
            return
        meta = self._lease.get("metadata") or {}
        now_ns = time.time_ns()
        stamp = datetime.fromtimestamp(now_ns / 1e9, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        event = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{self.name}.{now_ns:x}", "namespace": self.namespace},
            "involvedObject": {"kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
                               "namespace": self.namespace, "name": self.name, "uid": meta.get("uid", ""),
                               "resourceVersion": meta.get("resourceVersion", "")},
            "reason": "LeaderElection", "message": f"{self._identity} {message}", "type": "Normal",
            "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1,
            "source": {"component": self._event_source},
            "reportingComponent": self._event_source, "reportingInstance": "",
        }
        path = f"/api/v1/namespaces/{self.namespace}/events"

        def post() -> None:
            try:
                self._call("POST", path, event)
            except LockError as exc:
                _log.warning("Unable to write event %r: %s", event["message"], exc)

        threading.Thread(target=post, name="leader-election-event", daemon=True).start()

    def _path(self, name: str = "") -> str:
        base = f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases"
        return f"{base}/{name}" if name else base

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One request, not retried (the elector retries on its own schedule, and a retry must
        not eat into renewDeadline); the JSON answer, or :class:`LockError` with the HTTP
        status."""
        try:
            out = self._rest.request(method, path, body, timeout=self._timeout, retry=False)
        except StoreError as exc:
            raise LockError(str(exc), _status_of(exc)) from exc
        if not isinstance(out, dict):
            raise LockError(f"{method} {path}: the server's answer is not a JSON object")
        return out


def _status_of(exc: StoreError) -> int:
    """The HTTP status a :class:`RestClient` error stands for (0: none was received)."""
    if isinstance(exc, ApiError):
        return exc.status
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict | AlreadyExists):
        return 409
    if isinstance(exc, Expired):
        return 410
    if isinstance(exc, Invalid):
        return 422
    return 0


# -- metrics and health -----------------------------------------------------------------------


class LeaderMetrics:
    """The leader election metrics kube-scheduler exposes (component-base's
    metrics/prometheus/clientgo/leaderelection): ``leader_election_master_status`` (1 while
    leading) and ``leader_election_slowpath_total`` (renewals that had to re-read the Lease)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.master_status = Gauge(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, "
            "1 indicates master. 'name' is the string used to identify the lease. Please make sure "
            "to group by name.", ["name"], registry=self.registry)
        self.slowpath = Counter(
            "leader_election_slowpath",
            "Total number of slow path exercised in renewing leader leases. 'name' is the string "
            "used to identify the lease. Please make sure to group by name.", ["name"],
            registry=self.registry)

    def leader_on(self, name: str) -> None:
        self.master_status.labels(name).set(1)

    def leader_off(self, name: str) -> None:
        self.master_status.labels(name).set(0)

    def slowpath_exercised(self, name: str) -> None:
        self.slowpath.labels(name).inc()


class HealthzAdaptor:
    """healthzadaptor.go: the ``leaderElection`` health check. Passes while not leading (a
    standby is healthy) and while leading with a lease renewed within leaseDuration +
    ``timeout``; fails when the leader has stopped renewing (a deadlock, see upstream #70819)."""

    def __init__(self, timeout: float = _WATCHDOG_TIMEOUT) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._elector: LeaderElector | None = None

    def name(self) -> str:
        return "leaderElection"

    def set_leader_election(self, elector: LeaderElector) -> None:
        with self._lock:
            self._elector = elector

    def check(self) -> str | None:
        """None when healthy, else why not."""
        with self._lock:
            elector = self._elector
        return elector.check(self.timeout) if elector is not None else None


# -- the elector -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeaderCallbacks:
    """LeaderCallbacks. ``on_started_leading(stop)`` runs on its own thread (upstream's
    goroutine) and must return once ``stop`` is set; ``on_stopped_leading`` runs when
    :meth:`LeaderElector.run` ends, leading or not; ``on_new_leader(identity)`` is called on the
    elector's thread each time a different holder is observed (the first one included), so it
    must return quickly."""

    on_started_leading: Callable[[threading.Event], None]
    on_stopped_leading: Callable[[], None]
    on_new_leader: Callable[[str], None] | None = None


@dataclass(frozen=True, slots=True)
class LeaderElectionConfig:
    """LeaderElectionConfig; durations in seconds, client-go's core defaults."""

    lock: ResourceLock
    callbacks: LeaderCallbacks
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    release_on_cancel: bool = False
    name: str = ""
    watchdog: HealthzAdaptor | None = None
    fences: tuple[WriteFence, ...] = ()
    """Held open until ``renewTime + renewDeadline`` of each acquire or renewal, closed when
    the lease is lost (see the module doc)."""


class LeaderElector:
    """A leader election client (LeaderElector). :meth:`run` blocks: it acquires the lease
    (retrying every retryPeriod with jitter), starts ``on_started_leading``, renews until a
    renewal fails for renewDeadline or ``stop`` is set, then (ReleaseOnCancel) releases.

    ``clock`` gives ``now``; ``sleep(stop, seconds)`` waits and returns True when ``stop`` is
    set (default ``stop.wait``); ``rng`` draws the jitter."""

    def __init__(self, config: LeaderElectionConfig, *, clock: Clock | None = None,
                 sleep: Callable[[threading.Event, float], bool] | None = None,
                 rng: random.Random | None = None, metrics: LeaderMetrics | None = None) -> None:
        _validate(config)
        self.config = config
        self._clock: Clock = clock if clock is not None else RealClock()
        self._sleep = sleep if sleep is not None else _wait
        self._rng = rng if rng is not None else random.Random()
        self.metrics = metrics if metrics is not None else LeaderMetrics()
        self._observed_lock = threading.Lock()
        self._observed_record = LeaderElectionRecord()
        self._observed_raw: tuple[Any, ...] | None = None
        self._observed_time = 0.0
        self._reported_leader = ""
        self._held_until = -math.inf
        self._lost = False
        self.metrics.leader_off(config.name)
        if config.watchdog is not None:  # RunOrDie's WatchDog.SetLeaderElection
            config.watchdog.set_leader_election(self)

    # -- public surface ----------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Run: block until ``stop`` is set or the lease is lost; ``on_stopped_leading`` always
        runs last."""
        try:
            if not self._acquire(stop):
                return
            leading = threading.Event()
            thread = threading.Thread(target=self.config.callbacks.on_started_leading, args=(leading,),
                                      name="leader-election-leading", daemon=True)
            thread.start()
            try:
                self._renew(stop, leading)
            finally:
                leading.set()
        finally:
            self.config.callbacks.on_stopped_leading()

    @property
    def lost(self) -> bool:
        """Whether this elector led and lost the lease (rather than being asked to stop)."""
        return self._lost

    def get_leader(self) -> str:
        """The identity of the last observed leader ('' when none was seen yet)."""
        return self._get_observed_record().holder_identity

    def is_leader(self) -> bool:
        """Whether the last observed record names this client."""
        return self._get_observed_record().holder_identity == self.config.lock.identity()

    def check(self, max_tolerable_expired_lease: float) -> str | None:
        """Check: an error when leading but the lease was last renewed (observed) more than
        leaseDuration + ``max_tolerable_expired_lease`` ago; a standby is never unhealthy."""
        if not self.is_leader():
            return None
        with self._observed_lock:
            since = self._clock.now - self._observed_time
        if since > self.config.lease_duration + max_tolerable_expired_lease:
            return f"failed election to renew leadership on lease {self.config.name}"
        return None

    # -- the loops -----------------------------------------------------------------------
    def _acquire(self, stop: threading.Event) -> bool:
        """acquire: wait.JitterUntil(tryAcquireOrRenew, retryPeriod, 1.2, sliding) until it
        succeeds (True) or ``stop`` is set (False)."""
        desc = self.config.lock.describe()
        _log.info("attempting to acquire leader lease %s...", desc)
        while not stop.is_set():
            succeeded = self.try_acquire_or_renew()
            self._maybe_report_transition()
            if succeeded:
                self.config.lock.record_event("became leader")
                self.metrics.leader_on(self.config.name)
                _log.info("successfully acquired lease %s", desc)
                return True
            _log.debug("failed to acquire lease %s", desc)
            period = self.config.retry_period
            if self._sleep(stop, period + self._rng.random() * JITTER_FACTOR * period):
                break
        return False

    def _renew(self, stop: threading.Event, leading: threading.Event) -> None:
        """renew: every retryPeriod (wait.Until), retry tryAcquireOrRenew every retryPeriod
        (PollImmediateUntil) for at most renewDeadline; give up the first time that fails.
        Stricter than upstream, so that the write fence holds: no attempt once renewDeadline
        has passed since the last successful one started (no request leaves a process resumed
        after a stop), and the lease is lost at once when a read shows another holder. Then,
        when asked to stop while still holding the lease, ReleaseOnCancel releases it; a lost
        lease is left alone (see the module doc). ``leading`` is set before the release, so
        the guarded work stops before another candidate can take over."""
        cfg = self.config
        desc = cfg.lock.describe()
        lost = False
        while not stop.is_set():
            deadline = self._clock.now + cfg.renew_deadline
            renewed = False
            while not stop.is_set() and self._holds():
                if self.try_acquire_or_renew():
                    renewed = True
                    break
                if not self.is_leader():
                    break  # another holder: lost now, not at the deadline
                remaining = min(deadline, self._held_until) - self._clock.now
                if remaining <= 0 or self._sleep(stop, min(cfg.retry_period, remaining)):
                    break
            self._maybe_report_transition()
            if not renewed:
                lost = not stop.is_set()
                break
            _log.debug("successfully renewed lease %s", desc)
            if self._sleep(stop, cfg.retry_period):
                break
        if lost or not self._holds():
            self._lose()
            _log.info("failed to renew lease %s: %s", desc,
                      "held by " + (self.get_leader() or "nobody") if not self.is_leader()
                      else "timed out waiting for the condition")
            leading.set()
            return
        self.metrics.leader_off(cfg.name)
        leading.set()
        if cfg.release_on_cancel:
            self.release()
        cfg.lock.record_event("stopped leading")

    def _holds(self) -> bool:
        """Whether the last acquire or renewal was started less than renewDeadline ago."""
        return not self._lost and self._clock.now < self._held_until

    def _hold(self, started: float) -> None:
        """An acquire or renewal started at ``started`` succeeded: open the fences until
        ``started + renewDeadline``."""
        self._held_until = started + self.config.renew_deadline
        for fence in self.config.fences:
            fence.hold_until(self._held_until)

    def _lose(self) -> None:
        """The lease is lost: close the fences first, then say so."""
        self._lost = True
        self._held_until = -math.inf
        for fence in self.config.fences:
            fence.close()
        self.metrics.leader_off(self.config.name)

    # -- one attempt ----------------------------------------------------------------------
    def try_acquire_or_renew(self) -> bool:
        """tryAcquireOrRenew: one attempt to take or keep the lease; True when we hold it."""
        cfg = self.config
        lock = cfg.lock
        now = self._clock.now
        record = LeaderElectionRecord(holder_identity=lock.identity(),
                                      lease_duration_seconds=int(cfg.lease_duration),
                                      acquire_time=now, renew_time=now)

        # 1. fast path: the leader updates optimistically from the record it last observed
        if self.is_leader() and self._is_lease_valid(now):
            old = self._get_observed_record()
            fast = replace(record, acquire_time=old.acquire_time, leader_transitions=old.leader_transitions)
            try:
                lock.update(fast)
            except LockError as exc:
                _log.error("Failed to update lock optimistically: %s, falling back to slow path", exc)
            else:
                self._set_observed_record(fast)
                self._hold(now)
                return True

        # 2. obtain or create the record
        try:
            old = lock.get()
        except LockError as exc:
            if not exc.not_found:
                _log.error("error retrieving resource lock %s: %s", lock.describe(), exc)
                return False
            try:
                lock.create(record)
            except LockError as create_exc:
                _log.error("error initially creating leader election record: %s", create_exc)
                return False
            self._set_observed_record(record)
            self._hold(now)
            return True

        # 3. record obtained: note the time it last changed, respect a live holder
        raw = old.raw()
        if raw != self._observed_raw:
            self._set_observed_record(old, raw)
        if old.holder_identity and self._is_lease_valid(now) and not self.is_leader():
            _log.debug("lock is held by %s and has not yet expired", old.holder_identity)
            return False

        # 4. take over (one more transition) or renew (keep acquireTime and the count)
        if self.is_leader():
            record = replace(record, acquire_time=old.acquire_time, leader_transitions=old.leader_transitions)
            self.metrics.slowpath_exercised(cfg.name)
        else:
            record = replace(record, leader_transitions=old.leader_transitions + 1)
        try:
            lock.update(record)
        except LockError as exc:
            _log.error("Failed to update lock: %s", exc)
            return False
        self._set_observed_record(record)
        self._hold(now)
        return True

    def release(self) -> bool:
        """release: when holding the lease, clear the holder and shorten the lease to 1 s so a
        successor need not wait out the full duration."""
        if not self.is_leader():
            return True
        if not self._holds():
            _log.info("not releasing lease %s: it is no longer held", self.config.lock.describe())
            return False
        now = self._clock.now
        record = LeaderElectionRecord(leader_transitions=self._get_observed_record().leader_transitions,
                                      lease_duration_seconds=1, renew_time=now, acquire_time=now)
        try:
            self.config.lock.update(record)
        except LockError as exc:
            _log.error("Failed to release lock: %s", exc)
            return False
        self._set_observed_record(record)
        return True

    # -- observed record ---------------------------------------------------------------------
    def _maybe_report_transition(self) -> None:
        holder = self._get_observed_record().holder_identity
        if holder == self._reported_leader:
            return
        self._reported_leader = holder
        if self.config.callbacks.on_new_leader is not None:
            self.config.callbacks.on_new_leader(holder)

    def _is_lease_valid(self, now: float) -> bool:
        with self._observed_lock:
            return self._observed_time + self._observed_record.lease_duration_seconds > now

    def _set_observed_record(self, record: LeaderElectionRecord, raw: tuple[Any, ...] | None = None) -> None:
        """setObservedRecord: the record and the local time it was seen. (Upstream refreshes
        the raw bytes only when a read shows a change; a write leaves them stale, so the next
        read counts as a change again. Same here.)"""
        with self._observed_lock:
            self._observed_record = record
            self._observed_time = self._clock.now
            if raw is not None:
                self._observed_raw = raw

    def _get_observed_record(self) -> LeaderElectionRecord:
        with self._observed_lock:
            return self._observed_record


def _wait(stop: threading.Event, seconds: float) -> bool:
    return stop.wait(seconds)


def _validate(config: LeaderElectionConfig) -> None:
    """NewLeaderElector's checks, with its messages."""
    if config.lease_duration <= config.renew_deadline:
        raise ValueError("leaseDuration must be greater than renewDeadline")
    if config.renew_deadline <= JITTER_FACTOR * config.retry_period:
        raise ValueError("renewDeadline must be greater than retryPeriod*JitterFactor")
    if config.lease_duration <= 0:
        raise ValueError("leaseDuration must be greater than zero")
    if config.renew_deadline <= 0:
        raise ValueError("renewDeadline must be greater than zero")
    if config.retry_period <= 0:
        raise ValueError("retryPeriod must be greater than zero")
    if not config.lock.identity():
        raise ValueError("Lock identity is empty")


class _LeaderElectionSettings(Protocol):
    """What :func:`new_leader_election_config` reads of a configuration's ``leaderElection``
    (kubesched.framework.config.LeaderElectionConfiguration)."""

    @property
    def lease_duration(self) -> float: ...
    @property
    def renew_deadline(self) -> float: ...
    @property
    def retry_period(self) -> float: ...
    @property
    def resource_lock(self) -> str: ...
    @property
    def resource_name(self) -> str: ...
    @property
    def resource_namespace(self) -> str: ...


def new_identity() -> str:
    """``hostname_uuid``: the uniquifier keeps two processes on one host apart."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def new_leader_election_config(settings: _LeaderElectionSettings, rest: RestClient,
                               callbacks: LeaderCallbacks, *, identity: str | None = None,
                               scheduler_name: str = "default-scheduler",
                               name: str = "kube-scheduler") -> LeaderElectionConfig:
    """makeLeaderElectionConfig (cmd/kube-scheduler/app/options/options.go) with
    resourcelock.NewFromKubeconfig: a Lease lock with the scheduler's identity and a request
    timeout of max(1 s, renewDeadline / 2), ReleaseOnCancel, a 20 s watchdog. Transitions are
    recorded as Events from ``scheduler_name`` (upstream: the first profile's)."""
    if settings.resource_lock != "leases":
        raise ValueError(f"Invalid lock-type {settings.resource_lock}")
    lock = LeaseLock(rest, settings.resource_namespace, settings.resource_name,
                     identity if identity is not None else new_identity(),
                     timeout=max(1.0, settings.renew_deadline / 2), event_source=scheduler_name)
    return LeaderElectionConfig(
        lock=lock, callbacks=callbacks, lease_duration=settings.lease_duration,
        renew_deadline=settings.renew_deadline, retry_period=settings.retry_period,
        release_on_cancel=True, name=name, watchdog=HealthzAdaptor(_WATCHDOG_TIMEOUT),
    )
