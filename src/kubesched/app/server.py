"""Run the scheduler against a real cluster: cmd/kube-scheduler/app/server.go's ``Run``.

:class:`LiveScheduler` wires the same :class:`~kubesched.scheduler.Scheduler` simulations use
to a :class:`~kubesched.cluster.live.LiveStore`: client configuration from ``--kubeconfig`` /
``clientConnection`` (see cluster/live/_config.py), informers started and synced, the
scheduler built on the synced caches, then the real-time loop
(:func:`~kubesched.scheduler.run_realtime`) until stopped.

Hooks for what runs around the loop (serving health and metrics, leader election):
``start()`` returns once the caches are synced (readiness), ``standby(until)`` delivers the
informers' changes to the scheduler's handlers without popping (a candidate waiting for the
Lease keeps warm caches and queue, as upstream's), ``run(on_ready=...)`` calls ``on_ready`` as
scheduling begins, ``stop()`` is safe from any thread or a signal handler.

:class:`SchedulerRun` is server.go's ``Run`` around them: the endpoints served from
the start, then, with leader election, the elector on its own thread (OnStartedLeading runs
the loop; OnStoppedLeading ends the command: 0 when asked to stop; when the lease was lost,
"Leaderelection lost" and exit 1 at once, as klog.FlushAndExit). With leader election every
write of the process is fenced by the lease (cluster/live/_fence.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import ssl
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from ..clock import RealClock, Timer
from ..cluster.live import LiveStore, RestClient, WriteFence, rest_client_for, watched_kinds
from ..cluster.live.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElector,
    LeaderMetrics,
    new_leader_election_config,
)
from ..framework.config import SchedulerConfig, default_config, load_config
from ..metrics import process_registry
from ..process import HeapFreezer
from ..scheduler import IDLE_WAIT, BindingMode, Scheduler, SchedulerOptions, run_realtime
from ..serving import stop_on_signals, wait_for_informers
from ._serving import RequestAuth, SchedulerServer, new_endpoints_server

__all__ = ["LiveScheduler", "SchedulerRun", "run"]

log = logging.getLogger(__name__)

GC_FREEZE_INTERVAL = 5.0
"""Seconds between the heap freezer's ticks (see kubesched.process): each walks what was allocated
since the last one."""


class LiveScheduler:
    """kube-scheduler over a live cluster. ``kubeconfig``: the ``--kubeconfig`` flag (it wins
    over ``clientConnection.kubeconfig``)."""

    def __init__(self, config: SchedulerConfig | None = None, kubeconfig: str | None = None, *,
                 seed: int = 0, stop_event: threading.Event | None = None) -> None:
        self.config = config if config is not None else default_config()
        self.rest, self.kubeconfig = rest_client_for(self.config.client_connection, kubeconfig)
        self.clock = RealClock()
        # The informers of this release's kube-scheduler with these gates (DeviceTaintRules).
        self.store = LiveStore(self.rest, self.clock,
                               watched_kinds(self.config.kube_version, self.config.features))
        self.stop_event = stop_event if stop_event is not None else threading.Event()
        self.seed = seed
        self.scheduler: Scheduler | None = None
        self.freezer = HeapFreezer()
        self._gc_timer: Timer | None = None

    @property
    def profiles(self) -> list[str]:
        return [p.scheduler_name for p in self.config.profiles]

    def start(self) -> bool:
        """Start the informers, wait for their first list (WaitForCacheSync; until stopped),
        and build the scheduler on the synced caches. False when stopped before that."""
        self.store.start()
        if not wait_for_informers(self.store.wait_for_sync, self.stop_event, self.rest.host):
            return False
        with self.store.paused():
            self.scheduler = Scheduler(self.store, self.clock, self.config, self.seed,
                                       options=SchedulerOptions(binding=BindingMode.THREAD))
        log.info("kubesched: caches synced; scheduling for %s", ", ".join(self.profiles))
        self.freezer.settle()
        self._gc_timer = self.clock.schedule(GC_FREEZE_INTERVAL, self._gc_tick)
        return True

    def _gc_tick(self) -> None:
        """On the loop thread: freeze what survived since the last tick (the pods listed and
        watched since: cluster state that lives as long as the pods do)."""
        self.freezer.tick()
        self._gc_timer = self.clock.schedule(GC_FREEZE_INTERVAL, self._gc_tick)

    def standby(self, until: threading.Event) -> None:
        """Deliver watch events and timers on this thread, popping nothing, until ``until`` or
        ``stop()`` (set ``until`` then ``clock.wake()`` to end it at once)."""
        while not until.is_set() and not self.stop_event.is_set():
            self.clock.run_due()
            if until.is_set():
                break
            self.clock.wait(IDLE_WAIT)

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
        if self._gc_timer is not None:
            self._gc_timer.cancel()
        if self.scheduler is not None:
            self.scheduler.close()
            self.scheduler.shutdown_binding(wait=True)
        self.store.stop()
        self.freezer.release()


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


def flush_and_exit(code: int) -> None:
    """klog.FlushAndExit: flush the log handlers, then end the process at once with ``code``
    (no cleanup: threads under way are not waited for)."""
    for logger in (logging.getLogger(), logging.getLogger("kubesched")):
        for handler in logger.handlers:
            with contextlib.suppress(Exception):  # exiting anyway
                handler.flush()
    sys.stderr.flush()
    os._exit(code)


class _SchedulerMetrics:
    """A collector for /metrics that serves the scheduler's registry once it exists (the
    endpoints are served before the caches sync and the scheduler is built)."""

    def __init__(self, live: LiveScheduler) -> None:
        self._live = live

    def collect(self) -> Iterator[Any]:
        sched = self._live.scheduler
        if sched is not None:
            yield from sched.metrics.registry.collect()


class SchedulerRun:
    """server.go's ``Run`` for one :class:`LiveScheduler`: serve the endpoints (``bind_address``
    None: none), start the informers and wait for them, then schedule; with ``leader_elect``
    only while holding the Lease of ``config.leaderElection``.

    Built first (a bad leaderElection raises ValueError here, before anything starts), then
    :meth:`run` gives the exit code: 0 when stopped (``live.stop()``), 1 when the lease was
    lost, and then at once: ``exit_process`` (default: flush the log handlers and ``os._exit``), the
    binding cycles in flight abandoned, as kube-scheduler's klog.FlushAndExit. Leader election
    talks to the API server through a clone of the live store's client (the same kubeconfig
    and settings, its own token bucket, as upstream's separate leader election client). Every
    write of the live store (and its events) and of the lock's client is fenced by the lease:
    the store's opens only once the lease is held. ``auth`` checks each request to the
    endpoints (kube-scheduler's delegated authentication and authorization). On stop the loop
    stops popping and finishes the binding cycles in flight, and only then is the Lease released
    (ReleaseOnCancel). ``live.close()`` is left to the caller."""

    def __init__(self, live: LiveScheduler, *, leader_elect: bool, bind_address: str | None,
                 ssl_context: ssl.SSLContext | None = None, identity: str | None = None,
                 auth: RequestAuth | None = None,
                 exit_process: Callable[[int], None] | None = None) -> None:
        self.live = live
        self.auth = auth
        self.bind_address = bind_address
        self.ssl_context = ssl_context
        self.leader_registry = CollectorRegistry()
        self.started, self.lost, self.release = threading.Event(), threading.Event(), threading.Event()
        self.le_config: LeaderElectionConfig | None = None
        self.elector: LeaderElector | None = None
        self._lock_rest: RestClient | None = None
        self._exit = exit_process if exit_process is not None else flush_and_exit
        self.server: SchedulerServer | None = None
        if leader_elect:
            work = WriteFence(live.clock, open_until=-math.inf)  # nothing written before leading
            live.store.fence_writes(work)
            self._lock_rest = live.rest.clone()
            self._lock_rest.fence = WriteFence(live.clock)  # open for acquiring
            cfg = new_leader_election_config(
                live.config.leader_election, self._lock_rest,
                LeaderCallbacks(self._on_started_leading, self._on_stopped_leading, self._on_new_leader),
                identity=identity, scheduler_name=live.profiles[0])
            self.le_config = dataclasses.replace(cfg, fences=(work, self._lock_rest.fence))
            self.elector = LeaderElector(self.le_config, clock=live.clock,
                                         metrics=LeaderMetrics(self.leader_registry))

    def _on_started_leading(self, _leading: threading.Event) -> None:
        self.started.set()
        self.live.clock.wake()

    def _on_stopped_leading(self) -> None:
        """OnStoppedLeading: a lost lease ends the process at once (exit 1), whatever else was
        under way; a stop asked for returns to :meth:`run`."""
        if self.elector is not None and self.elector.lost:
            log.error("Leaderelection lost")
            self.lost.set()
            self._exit(1)
            self.live.stop()  # an ``exit_process`` that returns (tests): stop as asked to
            return
        log.info("Requested to terminate, exiting")

    @staticmethod
    def _on_new_leader(holder: str) -> None:
        log.info("new leader elected: %s", holder or "(none)")

    def run_until_stopped(self) -> int:
        """The command's lifetime around :meth:`run`: SIGTERM and SIGINT stop the loop (the
        binding cycles in flight finish, then the Lease is released), and on the way out the
        live scheduler and the auth's clients are closed. The exit code, as :meth:`run`."""
        try:
            with stop_on_signals(self.live.stop):
                return self.run()
        finally:
            self.live.close()
            if self.auth is not None:
                self.auth.close()

    def run(self) -> int:
        live = self.live
        if self.bind_address is not None:
            sched_registry = CollectorRegistry(auto_describe=False)
            sched_registry.register(_SchedulerMetrics(live))
            self.server = new_endpoints_server(
                self.bind_address, registries=[sched_registry, self.leader_registry, process_registry()],
                synced=lambda: live.scheduler is not None, stopping=live.stop_event,
                leader_election=self.le_config.watchdog if self.le_config is not None else None,
                ssl_context=self.ssl_context, auth=self.auth).start()
        try:
            if not live.start():
                return 0
            if self.elector is None:
                live.run()
                return 0
            thread = threading.Thread(target=self.elector.run, args=(self.release,),
                                      name="leader-election", daemon=True)
            thread.start()
            try:
                live.standby(self.started)
                if self.started.is_set() and not live.stop_event.is_set():
                    live.run()
            finally:
                self.release.set()  # the loop has drained its binding cycles: release the Lease
                thread.join(30)
            return 1 if self.lost.is_set() else 0
        finally:
            if self.server is not None:
                self.server.shutdown()
            if self._lock_rest is not None:
                self._lock_rest.close()
