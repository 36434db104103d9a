"""Run the scheduler against a real cluster: cmd/kube-scheduler/app/server.go's ``Run``.

:class:`LiveScheduler` wires the same :class:`~kubesched.scheduler.Scheduler` simulations use
to a :class:`~kubesched.cluster.live.LiveStore`: client configuration from ``--kubeconfig`` /
``clientConnection`` (see cluster/live/_config.py), informers started and synced, the
scheduler built on the synced caches, then the real-time loop
(:func:`~kubesched.scheduler.run_realtime`) until stopped.

Hooks for what runs around the loop (serving health and metrics, leader election):
``start()`` returns once the caches are synced (readiness), ``run(on_ready=...)`` calls
``on_ready`` as scheduling begins, ``stop()`` is safe from any thread or a signal handler.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from ..clock import RealClock
from ..cluster.live import LiveStore, rest_client_for
from ..framework.config import SchedulerConfig, default_config, load_config
from ..scheduler import Scheduler, SchedulerOptions, run_realtime

__all__ = ["LiveScheduler", "run"]

log = logging.getLogger(__name__)

SYNC_LOG_INTERVAL = 10.0


class LiveScheduler:
    """kube-scheduler over a live cluster. ``kubeconfig``: the ``--kubeconfig`` flag (it wins
    over ``clientConnection.kubeconfig``)."""

    def __init__(self, config: SchedulerConfig | None = None, kubeconfig: str | None = None, *,
                 seed: int = 0, stop_event: threading.Event | None = None) -> None:
        self.config = config if config is not None else default_config()
        self.rest, self.kubeconfig = rest_client_for(self.config.client_connection, kubeconfig)
        self.clock = RealClock()
        self.store = LiveStore(self.rest, self.clock)
        self.stop_event = stop_event if stop_event is not None else threading.Event()
        self.seed = seed
        self.scheduler: Scheduler | None = None

    @property
    def profiles(self) -> list[str]:
        return [p.scheduler_name for p in self.config.profiles]

    def start(self) -> bool:
        """Start the informers, wait for their first list (WaitForCacheSync; until stopped),
        and build the scheduler on the synced caches. False when stopped before that."""
        self.store.start()
        waited = 0.0
        while not self.store.wait_for_sync(SYNC_LOG_INTERVAL):
            if self.stop_event.is_set():
                return False
            waited += SYNC_LOG_INTERVAL
            log.warning("waiting for the informers to sync with %s (%.0fs)", self.rest.host, waited)
        with self.store.paused():
            self.scheduler = Scheduler(self.store, self.clock, self.config, self.seed,
                                       options=SchedulerOptions(binding="thread"))
        log.info("kubesched: caches synced; scheduling for %s", ", ".join(self.profiles))
        return True

    def run(self, on_ready: Callable[[], None] | None = None) -> None:
        """The loop, until ``stop()``; ``start()`` must have succeeded."""
        if self.scheduler is None:
            raise RuntimeError("LiveScheduler.run before a successful start()")
        run_realtime(self.scheduler, self.clock, self.stop_event, on_ready=on_ready)

    def stop(self) -> None:
        """Ask the loop to stop (thread- and signal-safe)."""
        self.stop_event.set()
        self.clock.wake()

    def close(self) -> None:
        """Release everything: the scheduler's watch, the informers, the event sink, the client."""
        if self.scheduler is not None:
            self.scheduler.close()
            self.scheduler.shutdown_binding(wait=True)
        self.store.stop()


def run(config_path: str | Path | None = None, kubeconfig: str | None = None, *,
        stop_event: threading.Event | None = None,
        on_ready: Callable[[], None] | None = None) -> None:
    """Load the configuration and schedule until ``stop_event`` is set."""
    config = load_config(config_path) if config_path is not None else None
    live = LiveScheduler(config, kubeconfig, stop_event=stop_event)
    try:
        if live.start():
            live.run(on_ready)
    finally:
        live.close()
