"""The informer-backed view: node and pod state of a live cluster, for ``nodeCacheCapable: true``.

The extender reads the cluster as ``kubesched run`` does, with the same code: the client from
the same kubeconfig resolution (:func:`~kubesched.cluster.live.rest_client_for`: ``--kubeconfig``,
``clientConnection.kubeconfig``, ``$KUBECONFIG``, ``~/.kube/config``, in-cluster), a
:class:`~kubesched.cluster.live.LiveStore` with its informers, and a Scheduler's event handlers
keeping its cache (built, like LiveScheduler's, on the synced caches inside ``paused()``).

Threads: the informers change the store's caches under the store's lock and queue the changes
on a :class:`~kubesched.clock.RealClock`; one delivery thread here fires the clock's timers (the
changes, in watch order, and the queue's own timers) as ``run_realtime`` does for the scheduler,
but under the engine's lock (:meth:`ExtenderEngine.locked`). The HTTP threads answer under that
same lock, so the cache and snapshot are only ever touched by one thread at a time, and an
answer sees the cluster as of the last change delivered before it.
"""

from __future__ import annotations

import logging
import threading

from ..clock import RealClock
from ..cluster.live import LiveStore, rest_client_for
from ..framework.config import SchedulerConfig, default_config
from ._engine import ExtenderEngine

__all__ = ["InformerView"]

_log = logging.getLogger(__name__)

_IDLE_WAIT = 1.0
"""Seconds the delivery thread waits when nothing is due (a change or ``close`` wakes it)."""


class InformerView:
    """A live cluster's state for an :class:`ExtenderEngine`: :meth:`start` the informers,
    :meth:`wait_for_sync`, then :meth:`engine` builds the engine on the synced caches and starts
    the delivery thread; :meth:`close` stops both. Raises ConfigError when no client
    configuration is found."""

    def __init__(self, config: SchedulerConfig | None = None, kubeconfig: str | None = None) -> None:
        self.config = config if config is not None else default_config()
        self.rest, self.kubeconfig = rest_client_for(self.config.client_connection, kubeconfig)
        self.clock = RealClock()
        self.store = LiveStore(self.rest, self.clock)
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
        self._thread = threading.Thread(target=self._deliver, args=(engine,),
                                        name="kubesched-extender-events", daemon=True)
        self._thread.start()
        return engine

    def _deliver(self, engine: ExtenderEngine) -> None:
        while not self._stop.is_set():
            try:
                engine.locked(self.clock.run_due)
            except Exception:  # a handler's bug must not stop the cache from following
                _log.exception("delivering cluster changes")
            self.clock.wait(_IDLE_WAIT)

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
