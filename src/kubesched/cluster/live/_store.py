"""LiveStore: the ``Store`` protocol over a real API server, so that the Scheduler built for
simulations schedules a cluster without knowing it.

Reads come from informer caches (upstream's listers); writes go to the API as kube-scheduler
makes them: ``pods/binding`` (DefaultBinder), a strategic-merge patch of the pod's status for
conditions and ``nominatedNodeName`` (util.PatchPodStatus), deletes with DeleteOptions
(preemption), creates and updates (VolumeBinding's PreBind), events through
:class:`EventSink`. API errors become the store's errors.

Threading: informers run on their own threads and change the caches under one lock; the
changes are queued and handed to subscribers by a callback on the clock, so on the loop
thread of a :class:`~kubesched.clock.RealClock`, in watch order. ``paused()`` holds the lock:
a scheduler built inside it lists a cache no informer changes meanwhile, and its ``subscribe``
drops the queued changes that list already shows (an informer's handler registration
replaying the current state, then the changes after it).
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ...api import KubeVersion, Pod
from ...api.loader import KINDS, ApiObject, kind_of, parse_object
from ...clock import Clock
from .._conditions import update_pod_conditions
from .._store import Event, NotFound, WatchEvent
from ._events import EventSink
from ._fence import WriteFence
from ._informer import Informer
from ._resources import collection_path, object_path
from ._rest import RestClient

__all__ = ["LIVE_KINDS", "OPTIONAL_KINDS", "POD_FIELD_SELECTOR", "LiveStore", "watched_kinds"]

log = logging.getLogger(__name__)

POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
"""newPodInformer's selector (pkg/scheduler/scheduler.go): finished pods do not exist for the
scheduler (see scheduler/_pod_informer.py)."""

_STRATEGIC = "application/strategic-merge-patch+json"

LIVE_KINDS: tuple[str, ...] = tuple(k for k, info in KINDS.items() if info.live == "watch" and not info.gates)
"""The kinds watched in every release (``KindInfo.live``): the informers kube-scheduler starts
for its plugins, in the loader's dependency order. Not every kind the loader reads:
no PriorityClasses (no such
informer: the API server's Priority admission writes ``spec.priority`` into each pod, which is
all the scheduler reads, and ``system:kube-scheduler`` grants no access to them), no workload
kinds a simulation's controllers read (Deployments, DaemonSets, Jobs). The ``resource.k8s.io/v1``
kinds DynamicResources reads are watched too; an API server that does not serve
``resource.k8s.io/v1`` (before 1.34) has none of them (see :class:`Informer`), which only
pods with resource claims notice. DeviceTaintRules are watched only where the release's
scheduler does (:func:`watched_kinds`). Every kind here is one ``system:kube-scheduler`` (or
``system:volume-scheduler``: StorageClasses) lets it list and watch."""

OPTIONAL_KINDS: frozenset[str] = frozenset(
    k for k, info in KINDS.items() if info.live == "watch" and info.optional)
"""Watched kinds a cluster may not serve (resource.k8s.io/v1 before 1.34; DeviceTaintRules in
the version the release reads, see :func:`watched_kinds`) or not grant the scheduler (the
bootstrap role has the DRA rules only while DynamicResourceAllocation is on): their informer
treats a 404 or 403 as "none" (logged once) instead of keeping the scheduler from starting."""


def watched_kinds(release: KubeVersion, features: Mapping[str, bool]) -> dict[str, str]:
    """Kind -> apiVersion of every informer ``release``'s kube-scheduler starts with the feature
    gates ``features`` (every gate of the release, ``--feature-gates`` applied): the kinds of
    :data:`LIVE_KINDS`, and a gated kind (``KindInfo.gates``, all on) in the version that
    release reads (``KindInfo.release_versions``, ``KindInfo.gates_for``). DeviceTaintRules: the
    ResourceSlice tracker's rule informer, ``v1alpha3`` under DRADeviceTaints in 1.33 and 1.34,
    under DRADeviceTaintRules from 1.35: ``v1alpha3`` in 1.35, ``v1beta2`` in 1.36, ``v1`` from
    1.37 (DynamicResourceAllocation on too).

    Where the server does not serve that version (v1beta2 is off by default in 1.36; a 1.35
    server serves v1alpha3 only with ``--runtime-config``) upstream's informer keeps failing
    to list and the scheduler waits for its cache forever; kubesched logs one line
    (``DeviceTaintRule: resource.k8s.io/v1alpha3 cannot be listed (...); treating it as
    empty``), schedules without rules and lists again every 30 s (see :class:`Informer`)."""
    out: dict[str, str] = {}
    for kind, info in KINDS.items():
        if info.live != "watch" or not all(features.get(g, False) for g in info.gates_for(release)):
            continue
        version = info.version_for(release)
        if version is not None:
            out[kind] = version
    return out


class LiveStore:
    """The Store protocol over ``rest``; ``clock`` runs event delivery (see the module doc)."""

    simulates_controllers = False
    """Real controllers (PV controller, provisioners) act on this cluster: VolumeBinding's
    PreBind writes only upstream's updates and waits for them (see plugins/volumebinding)."""

    def __init__(self, rest: RestClient, clock: Clock,
                 kinds: Sequence[str] | Mapping[str, str] = LIVE_KINDS) -> None:
        """``kinds``: the kinds to watch, in their preferred versions, or kind -> apiVersion
        (:func:`watched_kinds`)."""
        self.rest = rest
        self._clock = clock
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[WatchEvent], None]] = []
        self._pending: deque[WatchEvent] = deque()
        self._drain_scheduled = False
        self._rv = 0
        versions: Mapping[str, str] = kinds if isinstance(kinds, Mapping) else {}
        self.informers = {
            k: Informer(rest, k, self._lock, self._on_event,
                        field_selector=POD_FIELD_SELECTOR if k == "Pod" else None,
                        optional=k in OPTIONAL_KINDS, api_version=versions.get(k))
            for k in kinds}
        self.sink = EventSink(rest.clone())  # createClients: a separate event client

    def fence_writes(self, fence: WriteFence) -> None:
        """Every write of the store, bindings, status patches, deletes, creates and updates and
        the events, checked against ``fence`` right before it is sent (see :mod:`._fence`)."""
        self.rest.fence = fence
        self.sink.rest.fence = fence

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> None:
        for inf in self.informers.values():
            inf.start()

    def wait_for_sync(self, timeout: float) -> bool:
        """WaitForCacheSync: True once every informer has listed once."""
        import time

        deadline = time.monotonic() + timeout
        return all(inf.synced.wait(max(0.0, deadline - time.monotonic())) for inf in self.informers.values())

    @property
    def synced(self) -> bool:
        return all(inf.synced.is_set() for inf in self.informers.values())

    def stop(self) -> None:
        for inf in self.informers.values():
            inf.stop()
        for inf in self.informers.values():
            inf.join(2.0)
        self.sink.flush()
        self.sink.close()
        self.sink.rest.close()
        self.rest.close()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No informer changes the caches while inside (see the module doc)."""
        with self._lock:
            yield

    @property
    def clock(self) -> Clock:
        return self._clock

    # -- watch delivery ---------------------------------------------------------------------
    def _on_event(self, ev: WatchEvent) -> None:
        """From an informer thread, lock held."""
        self._rv = max(self._rv, ev.resource_version)
        self._pending.append(ev)
        if not self._drain_scheduled:
            self._drain_scheduled = True
            self._clock.schedule(0.0, self._drain)

    def _drain(self) -> None:
        """On the loop thread: hand the queued changes to subscribers, in order."""
        while True:
            with self._lock:
                if not self._pending:
                    self._drain_scheduled = False
                    return
                ev = self._pending.popleft()
                subscribers = list(self._subscribers)
            for cb in subscribers:
                try:
                    cb(ev)
                except Exception:
                    log.exception("handling %s %s %s", ev.type, ev.kind, ev.obj.meta.key)

    def subscribe(self, callback: Callable[[WatchEvent], None]) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(callback)
            self._pending.clear()

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    # -- reading ----------------------------------------------------------------------------
    @property
    def resource_version(self) -> int:
        return self._rv

    def _items(self, kind: str) -> dict[tuple[str, str], ApiObject]:
        inf = self.informers.get(kind)
        return inf.items if inf is not None else {}

    def get(self, kind: str, namespace: str, name: str) -> Any:
        obj = self.try_get(kind, namespace, name)
        if obj is None:
            raise NotFound(f'{KINDS[kind].plural if kind in KINDS else kind} "{name}" not found')
        return obj

    def try_get(self, kind: str, namespace: str, name: str) -> Any:
        with self._lock:
            return self._items(kind).get((namespace, name))

    def list(self, kind: str, namespace: str | None = None) -> builtins.list[Any]:
        with self._lock:
            items = self._items(kind)
            return [items[k] for k in sorted(items) if namespace is None or k[0] == namespace]

    # -- writing ----------------------------------------------------------------------------
    def _parsed(self, kind: str, body: Any) -> Any:
        doc = dict(body)
        doc.setdefault("kind", kind)
        doc.setdefault("apiVersion", KINDS[kind].api_version)
        return parse_object(doc)

    def create(self, obj: ApiObject) -> Any:
        kind = kind_of(obj)
        body = self.rest.request("POST", collection_path(kind, obj.meta.namespace), obj.to_dict())
        return self._parsed(kind, body)

    def update(self, obj: ApiObject) -> Any:
        kind = kind_of(obj)
        body = self.rest.request("PUT", object_path(kind, obj.meta.namespace, obj.meta.name), obj.to_dict())
        return self._parsed(kind, body)

    def update_status(self, obj: ApiObject) -> Any:
        """UpdateStatus: PUT to the ``status`` subresource (a ResourceClaim's allocation and
        reservedFor; a plain update ignores the status)."""
        kind = kind_of(obj)
        body = self.rest.request("PUT", object_path(kind, obj.meta.namespace, obj.meta.name, "status"),
                                 obj.to_dict())
        return self._parsed(kind, body)

    def delete(self, kind: str, namespace: str, name: str, grace_period_seconds: int | None = None) -> None:
        opts: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if grace_period_seconds is not None:
            opts["gracePeriodSeconds"] = grace_period_seconds
        self.rest.request("DELETE", object_path(kind, namespace, name), opts)

    def evict(self, namespace: str, name: str) -> None:
        """Preemption's delete: the victim's own grace period (empty DeleteOptions)."""
        self.delete("Pod", namespace, name)

    def create_binding(self, namespace: str, name: str, node_name: str, uid: str | None = None) -> None:
        """POST a Binding to pods/binding (``uid``: the precondition on the pod's UID): the
        write alone, for a binder whose informers may not have the pod yet (the extender's
        ``/bind``)."""
        md: dict[str, Any] = {"name": name, "namespace": namespace}
        if uid:
            md["uid"] = uid
        self.rest.request("POST", object_path("Pod", namespace, name, "binding"), {
            "apiVersion": "v1", "kind": "Binding", "metadata": md,
            "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}})

    def bind(self, namespace: str, name: str, node_name: str, uid: str | None = None) -> Pod:
        """DefaultBinder: :meth:`create_binding`. The API answers with a Status, so the pod
        returned is the cached one with ``spec.nodeName`` set (the informer brings the real
        update)."""
        self.create_binding(namespace, name, node_name, uid)
        pod = self.try_get("Pod", namespace, name)
        if pod is None:
            raise NotFound(f'pods "{name}" not found')
        return pod.with_changes({("spec", "nodeName"): node_name})

    def patch_pod_status(self, namespace: str, name: str, conditions: Sequence[Mapping[str, Any]] = (),
                         nominated_node_name: str | None = None) -> Pod:
        """util.PatchPodStatus: a strategic-merge patch of the status with the conditions that
        change (merged by type) and ``nominatedNodeName`` (``""`` clears it); nothing is sent
        when nothing changes."""
        pod: Pod = self.get("Pod", namespace, name)
        status: dict[str, Any] = {}
        merged, changed = update_pod_conditions(pod.conditions, conditions, self._clock.now)
        if changed:
            types = {c.get("type") for c in conditions}
            status["conditions"] = [c for c in merged if c.get("type") in types]
        if nominated_node_name is not None and nominated_node_name != pod.nominated_node_name:
            status["nominatedNodeName"] = nominated_node_name or None
        if not status:
            return pod
        body = self.rest.request("PATCH", object_path("Pod", namespace, name, "status"), {"status": status},
                                 content_type=_STRATEGIC)
        out: Pod = self._parsed("Pod", body)
        return out

    # -- events -----------------------------------------------------------------------------
    def record_event(self, involved: ApiObject, reason: str, message: str, type: str = "Normal",
                     action: str = "") -> Event:
        controller = involved.scheduler_name if isinstance(involved, Pod) else "default-scheduler"
        return self.sink.record(involved, reason, message, type, action, controller or "default-scheduler")

    def events(self) -> builtins.list[Event]:
        return self.sink.events()


