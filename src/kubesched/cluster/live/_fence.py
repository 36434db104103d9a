"""The write fence: no write leaves a process that no longer holds the leader Lease.

client-go's leader election does not fence (its package comment says a leader that stalls may
overlap its successor), and kube-scheduler relies on exiting at once when it stops leading
(cmd/kube-scheduler/app/server.go, OnStoppedLeading). Exiting does not stop the writes already
under way: a process stopped (SIGSTOP, a long pause) while leading resumes with every thread
where it was, and its binding workers send their requests before the elector's thread has
noticed anything. Against a successor, each such Binding is a 409 for one of the two and a pod
left with ``SchedulerError``.

So each write is checked against the lease right before it is sent (after the connection is
made and the rate limiter has let it through): it may leave only while the time is before
``renewTime + renewDeadline`` of the last acquire or renewal this process made, the time
measured when that request started. A successor takes over no earlier than ``leaseDuration``
after it saw that renewal, and ``leaseDuration > renewDeadline`` is validated, so a write the
fence lets through arrives before any successor can lead, unless the process is stopped in
the few instructions between the check and the send. Once the lease is lost the fence is
closed for good.
"""

from __future__ import annotations

import math
import threading

from ...clock import Clock
from .._store import StoreError

__all__ = ["Fenced", "WriteFence"]


class Fenced(StoreError):
    """A write not sent: the process does not hold the leader Lease (any more)."""


class WriteFence:
    """When writes may leave: until :meth:`hold_until`'s time, never after :meth:`close`.

    ``open_until``: the initial limit (``math.inf``: open until the elector says otherwise, as
    for the lock's own client before it leads; ``-math.inf``: shut until the lease is held,
    as for the scheduler's clients). Thread-safe; :meth:`check` takes no lock."""

    def __init__(self, clock: Clock, *, open_until: float = math.inf) -> None:
        self._clock = clock
        self._until = open_until
        self._closed = False
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def until(self) -> float:
        """The time writes stop leaving (``-inf`` once closed)."""
        return -math.inf if self._closed else self._until

    def hold_until(self, deadline: float) -> None:
        """The lease is held: writes may leave until ``deadline``. No effect once closed."""
        with self._lock:
            if not self._closed:
                self._until = deadline

    def close(self) -> None:
        """The lease is lost: no write leaves any more."""
        with self._lock:
            self._closed = True
            self._until = -math.inf

    def remaining(self) -> float:
        """Seconds left before writes stop (0 or less: stopped)."""
        return self.until - self._clock.now

    def check(self, method: str, path: str) -> None:
        """Raise :class:`Fenced` unless a write may leave now."""
        if self._closed:
            raise Fenced(f"{method} {path}: not sent: the leader lease was lost")
        if self._clock.now >= self._until:
            raise Fenced(f"{method} {path}: not sent: the leader lease is not held")
