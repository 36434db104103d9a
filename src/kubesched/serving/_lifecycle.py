"""What every serving command does around its server: wait for the informers' first list
before answering (upstream's WaitForCacheSync, as kube-scheduler's Run and the extender need
the same synced caches), and stop on SIGTERM and SIGINT
(k8s.io/apiserver's SetupSignalHandler: the first signal asks to stop, the work in flight
finishes)."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

__all__ = ["SYNC_LOG_INTERVAL", "stop_on_signals", "wait_for_informers"]

_log = logging.getLogger(__name__)

SYNC_LOG_INTERVAL = 10.0
"""Seconds between the warnings of a start-up still waiting for the informers."""


def wait_for_informers(wait_for_sync: Callable[[float], bool], stopped: threading.Event, host: str,
                       interval: float = SYNC_LOG_INTERVAL) -> bool:
    """Wait until ``wait_for_sync(timeout)`` says the informers have listed (a warning every
    ``interval`` seconds naming the API server ``host``), or ``stopped``. True when synced and
    not stopped."""
    waited = 0.0
    while not wait_for_sync(interval):
        if stopped.is_set():
            return False
        waited += interval
        _log.warning("waiting for the informers to sync with %s (%.0fs)", host, waited)
    return not stopped.is_set()


@contextlib.contextmanager
def stop_on_signals(stop: Callable[[], None],
                    signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT)) -> Iterator[None]:
    """``stop()`` on each of ``signals`` while inside; the previous handlers back on leaving.
    ``stop`` runs in the signal handler: it must only set events (or start a thread)."""

    def on_signal(_sig: int, _frame: FrameType | None) -> None:
        stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in signals}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
