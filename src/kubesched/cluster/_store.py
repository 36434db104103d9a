"""What a scheduler needs from an API server: the ``Store`` protocol and its value types.

The scheduler lists and watches objects, binds pods (``pods/binding``), patches pod status
(conditions, nominatedNodeName), deletes preemption victims with graceful termination and
records events. :class:`~kubesched.cluster.MemoryStore` is the embedded implementation; a live
adapter over a real API server implements the same protocol.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, overload, runtime_checkable

from ..api import Pod
from ..api.loader import ApiObject

if TYPE_CHECKING:
    from ..clock import Clock

__all__ = [
    "AlreadyExists",
    "ChangeLog",
    "Clocked",
    "Conflict",
    "Event",
    "Invalid",
    "KindVersioned",
    "NotFound",
    "Store",
    "StoreError",
    "WatchEvent",
    "WatchEventType",
    "status_update",
]

WatchEventType = Literal["ADDED", "MODIFIED", "DELETED"]


class StoreError(Exception):
    """Base of the errors a store raises; ``reason`` mirrors metav1.StatusReason."""

    reason = "InternalError"


class NotFound(StoreError, LookupError):
    reason = "NotFound"


class AlreadyExists(StoreError):
    reason = "AlreadyExists"


class Conflict(StoreError):
    """A stale resourceVersion on update, or a binding to an already bound / terminating pod."""

    reason = "Conflict"


class Invalid(StoreError):
    """Refused by validation or admission (HTTP 403/422)."""

    reason = "Invalid"


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One change, as a watch delivers it; ``old`` is None for ADDED, ``new`` None for DELETED."""

    type: WatchEventType
    kind: str
    old: ApiObject | None
    new: ApiObject | None
    resource_version: int

    @property
    def obj(self) -> ApiObject:
        """The object after the change (before it, for DELETED)."""
        out = self.new if self.new is not None else self.old
        assert out is not None
        return out

    @property
    def is_pending_pod_status_update(self) -> bool:
        """A pending (unbound) pod's status written with nothing else changed: the scheduler's
        own report (its PodScheduled condition, its nominated node), or likewise a PodGroup's
        status (its PodGroupInitiallyScheduled condition). Nothing that watches for changes to
        act on (the scheduler's idle rule, the workload controllers) needs it."""
        old, new = self.old, self.new
        if self.kind not in ("Pod", "PodGroup") or self.type != "MODIFIED" or old is None or new is None:
            return False
        if getattr(old, "node_name", "") or getattr(new, "node_name", ""):
            return False
        o_spec, n_spec = old.raw.get("spec"), new.raw.get("spec")
        if o_spec is not n_spec and o_spec != n_spec:
            return False
        return _metadata_sans_version(old.raw) == _metadata_sans_version(new.raw)

    @staticmethod
    def _make(type: WatchEventType, kind: str, old: ApiObject | None, new: ApiObject | None,
              resource_version: int) -> WatchEvent:
        """``WatchEvent(...)`` for the store's writes (several per pod), built without the frozen
        ``__init__``, which goes through ``object.__setattr__`` field by field: the slots are
        set through their descriptors, about twice as fast."""
        ev: WatchEvent = _new_object(WatchEvent)
        _SET_TYPE(ev, type)
        _SET_KIND(ev, kind)
        _SET_OLD(ev, old)
        _SET_NEW(ev, new)
        _SET_RV(ev, resource_version)
        return ev


def _metadata_sans_version(raw: Mapping[str, Any]) -> dict[str, Any]:
    md = raw.get("metadata") or {}
    return {k: v for k, v in md.items() if k not in ("resourceVersion", "managedFields")}


_new_object = object.__new__
_SET_TYPE, _SET_KIND, _SET_OLD, _SET_NEW, _SET_RV = (
    WatchEvent.__dict__[f].__set__ for f in ("type", "kind", "old", "new", "resource_version"))


@dataclass(frozen=True)
class Event:
    """A core/v1 Event as the scheduler's recorder writes it; repeats raise ``count``.

    Not slotted, so that the store records one per binding through :meth:`_make` (one
    ``__dict__`` update instead of the frozen ``__init__``'s twelve checked assignments)."""

    involved_kind: str
    involved_namespace: str
    involved_name: str
    involved_uid: str
    type: str  # Normal | Warning
    reason: str
    message: str
    count: int
    first_timestamp: float
    last_timestamp: float
    reporting_controller: str = "default-scheduler"
    action: str = ""

    @staticmethod
    def _make(involved_kind: str, involved_namespace: str, involved_name: str, involved_uid: str,
              type: str, reason: str, message: str, count: int, first_timestamp: float,
              last_timestamp: float, action: str) -> Event:
        """``Event(...)`` with the default reporting controller, built without ``__init__``."""
        ev = object.__new__(Event)
        ev.__dict__.update(
            involved_kind=involved_kind, involved_namespace=involved_namespace, involved_name=involved_name,
            involved_uid=involved_uid, type=type, reason=reason, message=message, count=count,
            first_timestamp=first_timestamp, last_timestamp=last_timestamp,
            reporting_controller="default-scheduler", action=action)
        return ev

    def to_dict(self) -> dict[str, Any]:
        """The event as a core/v1 Event manifest (without metadata name)."""
        from ..api import format_time

        return {
            "apiVersion": "v1",
            "kind": "Event",
            "involvedObject": {
                "kind": self.involved_kind,
                "namespace": self.involved_namespace,
                "name": self.involved_name,
                "uid": self.involved_uid,
            },
            "type": self.type,
            "reason": self.reason,
            "message": self.message,
            "count": self.count,
            "firstTimestamp": format_time(self.first_timestamp),
            "lastTimestamp": format_time(self.last_timestamp),
            "reportingComponent": self.reporting_controller,
            "action": self.action,
        }


@runtime_checkable
class Clocked(Protocol):
    """A store that runs on a clock (MemoryStore's graceful termination; the live store's
    watch and timers): a scheduler built over it without a clock of its own uses the same one.
    Not part of :class:`Store`: a store that only answers reads and writes has none."""

    @property
    def clock(self) -> Clock: ...


@runtime_checkable
class KindVersioned(Protocol):
    """A store that versions each kind, as MemoryStore does: a reader may keep what it derived
    from a kind's objects (a namespace's Services, resolved volumes) while the kind's version
    stands still. Not part of :class:`Store`: the live store's informer caches keep no
    per-kind counter, and readers then fall back to reading the store each time."""

    def kind_version(self, kind: str) -> int:
        """The resourceVersion of the last create, update or delete of a ``kind`` object (0 if
        none): unchanged means no object of that kind changed."""
        ...


@runtime_checkable
class ChangeLog(Protocol):
    """A store that keeps its recent changes, as MemoryStore does: a reader that listed at some
    resourceVersion catches up with the changes after it instead of listing again (a watch from
    a list's RV). Not part of :class:`Store`: the live store keeps no history (its informers
    resume their own watches, as client-go's reflector does); readers then list again."""

    def events_since(self, resource_version: int) -> builtins.list[WatchEvent]:
        """The changes after ``resource_version``, in order; ``Expired`` when they are older
        than the kept history."""
        ...


@runtime_checkable
class StatusSubresource(Protocol):
    """A store that writes an object's ``status`` subresource apart from the object (client-go's
    ``UpdateStatus``), as MemoryStore (with the API server's status rules) and the live store
    (a PUT to ``.../status``) do. Not part of :class:`Store`: a store without the subresource
    (a test's fake API) takes the whole object through ``update``, and writers fall back to it."""

    def update_status(self, obj: ApiObject) -> ApiObject:
        """Replace the object's status; the API server's status rules apply (a
        ResourceClaim's populated allocation is immutable)."""
        ...


def status_update(store: Store) -> Callable[[ApiObject], ApiObject]:
    """UpdateStatus on ``store``: its status subresource (:class:`StatusSubresource`), or a
    plain ``update`` of the whole object where it has none (a test's fake API)."""
    return store.update_status if isinstance(store, StatusSubresource) else store.update


@runtime_checkable
class ControllerSimulation(Protocol):
    """A store that says whether the cluster's controllers (PV controller, provisioners) act on
    it: the live store says False, and VolumeBinding's PreBind then writes only upstream's
    updates and waits for the controllers. Not part of :class:`Store`: a store that does not say
    is the embedded one, where nothing else would do the controllers' part (True)."""

    @property
    def simulates_controllers(self) -> bool: ...


class Store(Protocol):
    """The API server as the scheduler sees it. Kinds are named as in manifests (``"Pod"``);
    cluster-scoped objects use namespace ``""``."""

    @property
    def resource_version(self) -> int:
        """The newest resourceVersion (a global counter; 0 before any write)."""
        ...

    @overload
    def get(self, kind: Literal["Pod"], namespace: str, name: str) -> Pod: ...
    @overload
    def get(self, kind: str, namespace: str, name: str) -> ApiObject: ...
    def get(self, kind: str, namespace: str, name: str) -> ApiObject:
        """The object, or NotFound."""
        ...

    @overload
    def try_get(self, kind: Literal["Pod"], namespace: str, name: str) -> Pod | None: ...
    @overload
    def try_get(self, kind: str, namespace: str, name: str) -> ApiObject | None: ...
    def try_get(self, kind: str, namespace: str, name: str) -> ApiObject | None:
        """The object, or None."""
        ...

    def list(self, kind: str, namespace: str | None = None) -> builtins.list[Any]:
        """Objects of ``kind`` (in ``namespace`` when given), ordered by namespace and name; a kind
        the store does not hold (e.g. Service) simply has none."""
        ...

    def create(self, obj: ApiObject) -> ApiObject:
        """Admit and store a new object; AlreadyExists / Invalid on failure."""
        ...

    def update(self, obj: ApiObject) -> ApiObject:
        """Replace an object; a non-empty stale ``metadata.resourceVersion`` raises Conflict."""
        ...

    def delete(self, kind: str, namespace: str, name: str, grace_period_seconds: int | None = None) -> None:
        """Delete; pods terminate gracefully (see MemoryStore.delete)."""
        ...

    def evict(self, namespace: str, name: str) -> None:
        """Delete a pod with its own grace period (what preemption does to a victim)."""
        ...

    def bind(self, namespace: str, name: str, node_name: str, uid: str | None = None) -> Pod:
        """pods/binding: set spec.nodeName; Conflict if already bound or terminating."""
        ...

    def patch_pod_status(
        self,
        namespace: str,
        name: str,
        conditions: Sequence[Mapping[str, Any]] = (),
        nominated_node_name: str | None = None,
    ) -> Pod:
        """Upsert pod conditions and set (``""`` clears) status.nominatedNodeName."""
        ...

    def subscribe(self, callback: Callable[[WatchEvent], None]) -> Callable[[], None]:
        """Call ``callback`` synchronously for every later change, in order; returns an unsubscribe."""
        ...

    def record_event(
        self, involved: ApiObject, reason: str, message: str, type: str = "Normal", action: str = ""
    ) -> Event:
        """Record (or count again) an event about ``involved``."""
        ...

    def events(self) -> builtins.list[Event]:
        """Recorded events, first recorded first."""
        ...
