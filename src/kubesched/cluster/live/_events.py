"""The scheduler's event recorder for a live cluster: client-go's events/v1 broadcaster
(tools/events/event_broadcaster.go), asynchronous as upstream's.

``record`` never blocks the caller: events go to a sink thread. The first event of a kind
(same regarding object, reason, action, type, note and reporting controller) is created; the
second is sent again as a series of count 2 (a patch); later repeats only count up locally
(upstream refreshes series every 30 minutes; kubesched does not). Failures are logged, never
raised: an event is not worth failing a scheduling cycle for.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
import time
from datetime import UTC, datetime
from typing import Any

from ...api.loader import KINDS, ApiObject, kind_of
from .._store import Event
from ._rest import RestClient

__all__ = ["EventSink", "micro_time"]

log = logging.getLogger(__name__)

_MERGE_PATCH = "application/merge-patch+json"


def micro_time(seconds: float) -> str:
    """metav1.MicroTime: RFC 3339 with microseconds, UTC."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class EventSink:
    """A queue and a thread writing events.k8s.io/v1 Events."""

    def __init__(self, rest: RestClient, history: int = 1000) -> None:
        self.rest = rest
        self.host = socket.gethostname()
        self._queue: queue.Queue[tuple[dict[str, Any], int] | None] = queue.Queue()
        self._series: dict[tuple[str, ...], tuple[str, int, Event]] = {}
        self._lock = threading.Lock()
        self._history = history
        self._thread = threading.Thread(target=self._run, name="event-sink", daemon=True)
        self._thread.start()

    def record(self, involved: ApiObject, reason: str, message: str, type_: str, action: str,
               controller: str) -> Event:
        kind = kind_of(involved)
        meta = involved.meta
        key = (kind, meta.namespace, meta.name, meta.uid, type_, reason, message, action, controller)
        now = time.time()
        with self._lock:
            prev = self._series.get(key)
            count = prev[1] + 1 if prev is not None else 1
            name = prev[0] if prev is not None else f"{meta.name}.{time.time_ns():x}"
            ev = Event(kind, meta.namespace, meta.name, meta.uid, type_, reason, message, count,
                       prev[2].first_timestamp if prev is not None else now, now, controller, action)
            self._series[key] = (name, count, ev)
            if len(self._series) > self._history:
                self._series.pop(next(iter(self._series)))
        if count > 2:
            return ev  # counted in the series; not sent again (see the module doc)
        doc: dict[str, Any] = {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": meta.namespace or "default"},
            "eventTime": micro_time(now),
            "reportingController": controller,
            "reportingInstance": f"{controller}-{self.host}",
            "action": action,
            "reason": reason,
            "regarding": {"apiVersion": KINDS[kind].api_version, "kind": kind, "namespace": meta.namespace,
                          "name": meta.name, "uid": meta.uid,
                          "resourceVersion": meta.resource_version or ""},
            "note": message,
            "type": type_,
        }
        if count == 2:
            doc["series"] = {"count": 2, "lastObservedTime": micro_time(now)}
        self._queue.put((doc, count))
        return ev

    def events(self) -> list[Event]:
        with self._lock:
            return [ev for _, _, ev in self._series.values()]

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            doc, count = item
            md = doc["metadata"]
            path = f"/apis/events.k8s.io/v1/namespaces/{md['namespace']}/events"
            try:
                if count == 1:
                    self.rest.request("POST", path, doc)
                else:
                    self.rest.request("PATCH", f"{path}/{md['name']}", {"series": doc["series"]},
                                      content_type=_MERGE_PATCH)
            except Exception as exc:
                log.warning("could not write event %s %s on %s/%s: %s", doc["type"], doc["reason"],
                            doc["regarding"]["namespace"], doc["regarding"]["name"], exc)

    def flush(self, timeout: float = 5.0) -> None:
        """Wait (bounded) until queued events are written."""
        deadline = time.monotonic() + timeout
        while not self._queue.empty() and time.monotonic() < deadline:
            time.sleep(0.02)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(5.0)
