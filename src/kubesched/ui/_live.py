"""A live cluster's view that follows it: one informer per kind the cluster input lists
(:data:`~kubesched.cluster.live.READ_KINDS`, or the kinds and versions
:func:`~kubesched.cluster.live.read_kinds` gives for the release simulated, DeviceTaintRules
among them where its scheduler watches them; through the client ``kubesched run`` uses,
list + watch, never a write), and the workspace rebuilt from their caches when something
changed.

Changes come in bursts (a Deployment scaled: a pod per replica, each added, then bound); a
rebuild waits for ``quiet`` seconds without a change (``longest`` at most after the first), so
that a burst is one rebuild. The objects are taken as :func:`~kubesched.cluster.live.list_cluster`
gives them (same kinds, same order, finished pods left out), the extra manifests on top, and
the simulation runs again on them: the page shows what the scheduler would do now.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..api.loader import KINDS, LoadedObjects, kind_of
from ..cluster import WatchEvent
from ..cluster.live import POD_FIELD_SELECTOR, READ_KINDS, Informer, RestClient
from ._workspace import Workspace

__all__ = ["LiveFollower"]

log = logging.getLogger(__name__)

QUIET: Final = 0.5
LONGEST: Final = 5.0


def _versions(objects: list[Any]) -> set[tuple[str, str, str, str]]:
    return {(kind_of(o), o.meta.namespace, o.meta.name, o.meta.resource_version) for o in objects}


class LiveFollower:
    """Informers on ``rest`` feeding ``workspace``; ``extra``: the manifests added on top;
    ``kinds``: what the command listed first (kind -> apiVersion, or kinds in their preferred
    versions). :meth:`start`, then :meth:`stop` (closes the client too)."""

    def __init__(self, rest: RestClient, workspace: Workspace, extra: LoadedObjects | None = None, *,
                 kinds: Mapping[str, str] | Sequence[str] = READ_KINDS,
                 quiet: float = QUIET, longest: float = LONGEST) -> None:
        self.rest = rest
        self.workspace = workspace
        self.extra = extra if extra is not None else LoadedObjects()
        self.quiet = quiet
        self.longest = longest
        self._lock = threading.RLock()
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._last_change = 0.0
        # What the command listed from this server before serving (origin ``<server>: <plural>``,
        # see list_cluster; the manifests on top left out): the informers' first list keeps
        # these objects rather than a second copy of each.
        shown = workspace.view.loaded
        served: dict[str, dict[tuple[str, str], Any]] = {}
        for o in shown.objects:
            if shown.origin_of(o).startswith(f"{rest.host}: "):
                served.setdefault(kind_of(o), {})[(o.meta.namespace, o.meta.name)] = o
        versions: Mapping[str, str] = kinds if isinstance(kinds, Mapping) else {}
        self.informers = [
            Informer(rest, kind, self._lock, self._on_event,
                     field_selector=POD_FIELD_SELECTOR if kind == "Pod" else None,
                     optional=KINDS[kind].optional, api_version=versions.get(kind),
                     known=served.get(kind), share_watched=True)
            for kind in kinds]
        self._thread = threading.Thread(target=self._run, name="kubesched-ui-live", daemon=True)

    def start(self) -> LiveFollower:
        for i in self.informers:
            i.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._changed.set()
        for i in self.informers:
            i.stop()
        self._thread.join(timeout=10)
        for i in self.informers:
            i.join(timeout=5)
        self.rest.close()

    def _on_event(self, _event: WatchEvent) -> None:
        self._last_change = time.monotonic()
        self._changed.set()

    def loaded(self) -> LoadedObjects:
        """The informers' objects as the cluster input lists them, the extra manifests on top
        (ValueError on a duplicate, as the input would)."""
        out = LoadedObjects()
        with self._lock:
            for inf in self.informers:
                where = f"{self.rest.host}: {KINDS[inf.kind].plural}"
                for obj in inf.items.values():
                    out.add(obj, where)
        out.extend(self.extra)
        return out

    def _run(self) -> None:
        for inf in self.informers:
            while not inf.synced.wait(0.5):
                if self._stop.is_set():
                    return
        # The first list may already differ from what the command listed before serving.
        if _versions(self.loaded().objects) == _versions(self.workspace.view.loaded.objects):
            self._changed.clear()
        else:
            self._changed.set()
        while not self._stop.is_set():
            self._changed.wait()
            if self._stop.is_set():
                return
            first = time.monotonic()
            while not self._stop.is_set():  # let a burst end
                now = time.monotonic()
                if now - self._last_change >= self.quiet or now - first >= self.longest:
                    break
                self._stop.wait(min(self.quiet, self.longest - (now - first)))
            self._changed.clear()
            try:
                loaded = self.loaded()
            except ValueError as exc:  # a manifest on top now duplicates a cluster object
                self.workspace.failed(exc)
                log.error("following the cluster: %s", exc)
                continue
            try:
                self.workspace.replace(loaded)
            except Exception as exc:  # on the page (workspace.error); the view before stays
                log.error("following the cluster: %s", exc)
