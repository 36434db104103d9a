"""The extender's lifetime, as ``kubesched run``'s is :class:`~kubesched.app.SchedulerRun`:
the port served at once, then (with a live view) the informers started and waited for with the
same start-up as the scheduler's (:func:`~kubesched.serving.wait_for_informers`), the engine
built on the synced caches and answering; SIGTERM (and Ctrl-C) close the server, then the view
and the auth's clients are released."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..serving import stop_on_signals, wait_for_informers
from ._engine import ExtenderEngine
from ._server import ExtenderServer

if TYPE_CHECKING:
    from ._live import InformerView

__all__ = ["serve_until_stopped"]

_log = logging.getLogger("kubesched.extender")


def serve_until_stopped(server: ExtenderServer, view: InformerView | None, profile: str, *,
                        nodes_from_request: bool = False,
                        settle: Callable[[ExtenderEngine], None] = lambda engine: None,
                        on_serving: Callable[[str], None] = lambda url: None) -> None:
    """Serve until SIGTERM or Ctrl-C. ``server`` answers with its engine, or (``view`` given)
    with one built on the view's synced caches (nodes from each request when
    ``nodes_from_request``); ``settle`` runs on the engine before it answers; ``on_serving``
    gets the server's URL once the port is served (before the wait for the informers). The
    server, the view and the server's auth are closed on the way out."""
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        threading.Thread(target=server.close, daemon=True).start()

    try:
        with stop_on_signals(stop, (signal.SIGTERM,)):
            server.start()
            try:
                if server.engine is not None:
                    settle(server.engine)
                    on_serving(server.url)
                elif view is not None:
                    on_serving(server.url)
                    _answer_once_synced(view, server, stopped, profile, nodes_from_request, settle)
                while server.wait(0.5):
                    pass
            except KeyboardInterrupt:
                pass
    finally:
        server.close()
        if view is not None:
            view.close()
        if server.auth is not None:
            server.auth.close()


def _answer_once_synced(view: InformerView, server: ExtenderServer, stopped: threading.Event, profile: str,
                        nodes_from_request: bool, settle: Callable[[ExtenderEngine], None]) -> None:
    """Start the informers, wait for their first list, then answer with an engine over the
    synced caches."""
    view.start()
    if not wait_for_informers(view.wait_for_sync, stopped, view.host):
        return
    engine = view.engine(profile, nodes_from_request=nodes_from_request)
    settle(engine)
    server.set_engine(engine)
    _log.info("caches synced: answering for profile %r", profile)
