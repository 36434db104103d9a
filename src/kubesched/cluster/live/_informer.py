"""Informers: client-go's reflector + indexer for one kind (tools/cache/reflector.go).

``ListAndWatch``: list (resourceVersion from the list), then watch from that version with
``allowWatchBookmarks``; every change updates the cache and is handed to ``on_event`` as a
:class:`~kubesched.cluster.WatchEvent` (old version from the cache). A watch that ends is
resumed from the last version seen (bookmarks move it on); ``410 Gone`` (the version is too
old) relists, and the relist is reconciled with the cache as the DeltaFIFO's ``Replace`` does:
ADDED / MODIFIED for what is new or changed, DELETED for what is gone. Errors reconnect with
exponential backoff (0.8 s doubling to 30 s, as the reflector's backoff manager), forever
until stopped. An object the server sends that kubesched cannot parse is logged and skipped.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...api import BranchSharer, loads_json
from ...api.loader import KINDS, ApiObject
from .._memory import Expired
from .._store import Invalid, NotFound, WatchEvent, WatchEventType
from ._pager import list_kind, parse_listed
from ._resources import collection_path
from ._rest import RestClient, iter_lines

__all__ = ["Informer"]

log = logging.getLogger(__name__)

_Key = tuple[str, str]
_BACKOFF_START = 0.8
_BACKOFF_CAP = 30.0
_WATCH_TIMEOUT = 300  # seconds; client-go picks 5-10 min at random


def _rv(s: Any) -> int:
    try:
        return int(s)
    except (TypeError, ValueError):
        return 0


class Informer:
    """One kind's list/watch loop and cache. ``lock`` guards ``items`` (shared with readers);
    ``on_event`` is called with the lock held, in the order of the watch."""

    def __init__(self, rest: RestClient, kind: str, lock: threading.RLock,
                 on_event: Callable[[WatchEvent], None], field_selector: str | None = None,
                 optional: bool = False, api_version: str | None = None,
                 known: Mapping[_Key, ApiObject] | None = None, share_watched: bool = False) -> None:
        self.rest = rest
        self.kind = kind
        self.lock = lock
        self.on_event = on_event
        self.field_selector = field_selector
        self.optional = optional
        """A kind the cluster may not serve or grant (see ``_run``): none, rather than no start."""
        self.api_version = api_version or KINDS[kind].api_version
        """The version listed and watched (the kind's preferred one unless told)."""
        self.items: dict[_Key, ApiObject] = {}
        self._known = known
        """Objects read before (the cluster input of ``kubesched ui``): the first list keeps each
        one the server still has at the same resourceVersion instead of a copy of it parsed
        again, so that the process holds the cluster once (api objects are never changed in
        place: an update replaces them)."""
        self.resource_version = ""
        self.synced = threading.Event()
        self._stop = threading.Event()
        self._resp: Any = None
        self._thread: threading.Thread | None = None
        self.share_watched = share_watched
        """Whether a watched version's branches are matched with the last list's too: it saves
        memory for a long-lived view (``kubesched ui``) at about 80 µs per event, which the
        scheduler (``run``), whose CPU per pod is the point, does not pay."""
        self._sharer = BranchSharer()
        """The last list's: its items' equal branches held once, and a watched version's
        branches equal to a listed one's held as that one (matched only: see
        :meth:`~kubesched.api.BranchSharer.share`)."""

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"informer-{self.kind}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        resp = self._resp
        if resp is not None:
            with contextlib.suppress(Exception):
                resp.shutdown()  # unblocks a read in progress (urllib3 >= 2.3)
            with contextlib.suppress(Exception):
                resp.release_conn()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        delay = _BACKOFF_START
        need_list = True
        while not self._stop.is_set():
            try:
                if need_list:
                    self._list()
                    need_list = False
                self._watch()
                delay = _BACKOFF_START  # a watch that ended normally: resume at once
            except Expired:
                log.info("%s: watch from resourceVersion %s expired; relisting", self.kind,
                         self.resource_version)
                need_list = True
            except (NotFound, Invalid) as exc:
                if not self.optional:
                    delay = self._retry_later(exc, delay)
                    continue
                # An optional kind the API server does not serve (resource.k8s.io/v1 before
                # 1.34: 404) or does not let the scheduler read (its bootstrap role grants the
                # DRA kinds only while DynamicResourceAllocation is on: 403): none exist.
                # Synced and empty, so the scheduler starts; listed again now and then, in
                # case the API is turned on. Said once.
                if not self.synced.is_set():
                    log.warning("%s: %s cannot be listed (%s); treating it as empty",
                                self.kind, self.api_version, exc)
                    self.synced.set()
                self._stop.wait(_BACKOFF_CAP)
            except Exception as exc:
                delay = self._retry_later(exc, delay)

    def _retry_later(self, exc: Exception, delay: float) -> float:
        """Log (an error: the reflector's "Failed to watch" / "failed to list" go through
        HandleError), wait ``delay`` (unless stopping) and return the next, doubled, delay."""
        if self._stop.is_set():
            return delay
        log.error("%s informer: %s; retrying in %.1fs", self.kind, exc, delay)
        self._stop.wait(delay)
        return min(delay * 2, _BACKOFF_CAP)

    # -- list ------------------------------------------------------------------------------
    def _list(self) -> None:
        """A paginated list (:func:`list_kind`), reconciled with the cache (Replace)."""
        fresh: dict[_Key, ApiObject] = {}
        sharer = BranchSharer()  # a new one: what the one before holds may be gone
        known, self._known = self._known or {}, None

        def page(items: Sequence[Any], remaining: int) -> None:
            for item in items:
                obj = self._same(known, item)
                if obj is not None:
                    sharer.remember(obj.raw)
                else:
                    obj = parse_listed(self.kind, item, api_version=self.api_version, sharer=sharer)
                if obj is not None:
                    fresh[(obj.meta.namespace, obj.meta.name)] = obj

        rv = list_kind(self.rest, self.kind, page, field_selector=self.field_selector,
                       optional=self.optional, api_version=self.api_version)
        with self.lock:
            old = self.items
            self.items = fresh
            self._sharer = sharer
            self.resource_version = rv
            if self.synced.is_set():
                for key, obj in fresh.items():
                    prev = old.get(key)
                    if prev is None:
                        self._emit("ADDED", None, obj)
                    elif prev.meta.resource_version != obj.meta.resource_version:
                        self._emit("MODIFIED", prev, obj)
                for key, prev in old.items():
                    if key not in fresh:
                        self._emit("DELETED", prev, None)
        self.synced.set()

    @staticmethod
    def _same(known: Mapping[_Key, ApiObject], item: Any) -> ApiObject | None:
        """The object of ``known`` that ``item`` is (same name, same resourceVersion), if any."""
        md = item.get("metadata") if known and isinstance(item, Mapping) else None
        if not isinstance(md, Mapping):
            return None
        obj = known.get((md.get("namespace") or "", md.get("name") or ""))
        rv = obj.meta.resource_version if obj is not None else ""
        return obj if rv and rv == md.get("resourceVersion") else None

    # -- watch -----------------------------------------------------------------------------
    def _watch(self) -> None:
        resp = self.rest.stream(collection_path(self.kind, api_version=self.api_version), {
            "watch": "true", "resourceVersion": self.resource_version, "allowWatchBookmarks": "true",
            "timeoutSeconds": _WATCH_TIMEOUT, "fieldSelector": self.field_selector},
            timeout=_WATCH_TIMEOUT + 30)
        self._resp = resp
        try:
            for line in iter_lines(resp):
                if self._stop.is_set():
                    return
                self._handle(line)
        finally:
            self._resp = None
            resp.release_conn()

    def _handle(self, line: bytes) -> None:
        try:
            ev = loads_json(line)
            typ, raw = ev["type"], ev["object"]
        except (ValueError, KeyError, TypeError):
            log.warning("%s watch: undecodable event skipped: %.200r", self.kind, line)
            return
        if typ == "ERROR":
            code = raw.get("code") if isinstance(raw, Mapping) else None
            msg = raw.get("message", "") if isinstance(raw, Mapping) else str(raw)
            if code == 410:
                raise Expired(msg)
            raise RuntimeError(f"watch error: {msg}")
        rv = str(((raw or {}).get("metadata") or {}).get("resourceVersion") or "")
        if typ == "BOOKMARK":
            if rv:
                self.resource_version = rv
            return
        prev_seen = None
        if typ == "MODIFIED":
            md = raw.get("metadata") if isinstance(raw, Mapping) else None
            if isinstance(md, Mapping):  # (read without the lock: only a hint, see parse_listed)
                prev_seen = self.items.get((md.get("namespace") or "", md.get("name") or ""))
        obj = parse_listed(self.kind, raw, prev_seen, self.api_version,
                           self._sharer if self.share_watched else None, learn=False)
        with self.lock:
            if rv:
                self.resource_version = rv
            if obj is None:
                return
            key = (obj.meta.namespace, obj.meta.name)
            prev = self.items.get(key)
            if typ == "DELETED":
                if self.items.pop(key, None) is not None:
                    self._emit("DELETED", prev, None, obj)
            elif typ in ("ADDED", "MODIFIED"):
                self.items[key] = obj
                self._emit("ADDED" if prev is None else "MODIFIED", prev, obj)

    def _emit(self, typ: WatchEventType, old: ApiObject | None, new: ApiObject | None,
              deleted: ApiObject | None = None) -> None:
        # A DELETED event carries the object's last state (the server's copy of it).
        ref = new if new is not None else (deleted if deleted is not None else old)
        rv = _rv(ref.meta.resource_version) if ref is not None else 0
        self.on_event(WatchEvent(typ, self.kind, deleted if deleted is not None else old, new, rv))
