"""The informer-backed view: node and pod state of a live cluster, for ``nodeCacheCapable: true``.

The extender reads the cluster as ``kubesched run`` does, with the same code: the client from
the same kubeconfig resolution (:func:`~kubesched.cluster.live.rest_client_for`: ``--kubeconfig``,
``clientConnection.kubeconfig``, ``$KUBECONFIG``, ``~/.kube/config``, in-cluster), a
:class:`~kubesched.cluster.live.LiveStore` with its informers, and a Scheduler's event handlers
keeping its cache (built, like LiveScheduler's, on the synced caches inside ``paused()``).

Threads: the informers change the store's caches under the store's lock and queue the changes
on a :class:`~kubesched.clock.RealClock`. Their timers (the changes, in watch order, and the
queue's own timers) fire under the engine's lock, at the start of each answer
(:attr:`ExtenderEngine.catch_up`: an answer sees every change received before it), and from one
delivery thread here every 10 ms while changes flow (100 ms when none came), so that most are
applied between requests and the cache follows the cluster when none come. The informers do
not wake that thread per change: with kube-scheduler calling twice per pod and two watch events
per pod (the pod, its binding), waking it was 2 to 6% of the process's interpreter time
(py-spy, 1000 nodes), each wake-up followed by the interpreter lock changing hands, for no
answer sooner. The cache and
snapshot are only ever touched by one thread at a time.
"""

from __future__ import annotations

import logging
import threading

from ..clock import RealClock
from ..cluster.live import LiveStore, rest_client_for, watched_kinds
from ..framework.config import SchedulerConfig, default_config
from ._engine import ExtenderEngine

__all__ = ["InformerView"]

_log = logging.getLogger(__name__)

_DELIVERY_PERIOD = (0.01, 0.1)
"""Seconds between the delivery thread's catch-ups: after one that delivered something, and
after one that found nothing (sooner when a queue timer is due; ``close`` wakes it). While
changes flow, most are applied between requests, off the answers' path."""


class InformerView:
    """A live cluster's state for an :class:`ExtenderEngine`: :meth:`start` the informers,
    :meth:`wait_for_sync`, then :meth:`engine` builds the engine on the synced caches and starts
    the delivery thread; :meth:`close` stops both. Raises ConfigError when no client
    configuration is found."""

    def __init__(self, config: SchedulerConfig | None = None, kubeconfig: str | None = None) -> None:
        self.config = config if config is not None else default_config()
        self.rest, self.kubeconfig = rest_client_for(self.config.client_connection, kubeconfig)
        self.clock = RealClock(wake_on_schedule=False)
        self.store = LiveStore(self.rest, self.clock,
                               watched_kinds(self.config.kube_version, self.config.features))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def host(self) -> str:
        return str(self.rest.host)

    def start(self) -> None:
        self.store.start()

    def wait_for_sync(self, timeout: float) -> bool:
        return self.store.wait_for_sync(timeout)

    @property
    def synced(self) -> bool:
        return self.store.synced

    def engine(self, profile: str | None = None, seed: int = 0,
               nodes_from_request: bool = False) -> ExtenderEngine:
        """The engine over the synced caches (call after :meth:`wait_for_sync`), its changes
        delivered from then on; ``nodes_from_request``: the hybrid view (``--no-cache`` with a
        kubeconfig: nodes from each request, pods from the informers)."""
        if self._thread is not None:
            raise RuntimeError("InformerView.engine: one engine per view")
        with self.store.paused():
            engine = ExtenderEngine(self.config, profile, store=self.store, seed=seed,
                                    nodes_from_request=nodes_from_request)
        engine.catch_up = self.clock.run_due
        self._thread = threading.Thread(target=self._deliver, args=(engine,),
                                        name="kubesched-extender-events", daemon=True)
        self._thread.start()
        return engine

    def _deliver(self, engine: ExtenderEngine) -> None:
        busy, idle = _DELIVERY_PERIOD
        while not self._stop.is_set():
            try:
                ran = engine.deliver()
            except Exception:  # a handler's bug must not stop the cache from following
                _log.exception("delivering cluster changes")
                ran = 0
            self.clock.wait(busy if ran else idle)

    def close(self) -> None:
        """Stop the delivery thread and the informers; release the client (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self.clock.wake()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.store.stop()
