"""MemoryStore: the embedded API server kubesched simulates against.

Behaves as the parts of kube-apiserver a scheduler touches (master 2026):

- every write takes the next value of one global resourceVersion counter, and a stale
  ``metadata.resourceVersion`` on update fails with Conflict (optimistic concurrency);
- every change is one WatchEvent, delivered to subscribers synchronously and in order (a
  subscriber that writes during delivery has its own change queued after the current one), and
  kept so that ``events_since(rv)`` can resume a watch after a list;
- create runs admission: Priority for pods and PriorityClasses (plugin/pkg/admission/priority)
  and DefaultTolerationSeconds for pods; a pod created with scheduling gates gets
  PodScheduled=False, reason SchedulingGated (the pod strategy's PrepareForCreate);
- ``bind`` is the pods/binding subresource (pkg/registry/core/pod/storage/storage.go assignPod):
  it sets spec.nodeName and PodScheduled=True, and fails when the pod is bound or terminating;
- pod deletion is graceful (pkg/registry/core/pod/strategy.go CheckGracefulDelete): the grace
  period is the request's or spec.terminationGracePeriodSeconds; an unscheduled or finished pod
  goes at once; otherwise deletionTimestamp = now + grace and the pod is removed when the grace
  period ends on the injected clock (the kubelet's part, simulated);
- events are aggregated like the scheduler's event recorder: a repeat raises ``count``.

With ``simulate_kubelet`` (the default), binding also does what a kubelet would do next: the pod
becomes Running and Ready with ``status.startTime`` = now, which PDB health and preemption's
victim ordering read. With ``simulate_disruption_controller`` (the default), a PDB's status
(disruptionsAllowed, currentHealthy, ...) is recomputed whenever a pod in its namespace changes,
as the disruption controller would (see _disruption.py); a PDB created with a status (a
cluster dump) keeps it as given. Turn them off to get the bare API server behaviour.
"""

from __future__ import annotations

import bisect
import builtins
import hashlib
import threading
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from ..api import (
    DELETE,
    AdmissionError,
    AdmissionWarning,
    Path,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ResourceClaim,
    add_default_tolerations,
    admit_pod,
    admit_pod_changes,
    default_toleration_changes,
    format_time,
    system_priority_classes,
    validate_priority_class,
)
from ..api.loader import KINDS, ApiObject, LoadedObjects, kind_of
from ..clock import Clock, Timer, VirtualClock
from ..dra import selector_errors
from ..process import gc_paused
from ._conditions import apply_scheduling_gated_condition, scheduling_gated_changes, update_pod_conditions
from ._disruption import pdb_selects, pdb_status
from ._store import AlreadyExists, Conflict, Event, Invalid, NotFound, StoreError, WatchEvent

__all__ = ["Expired", "MemoryStore"]

_Key = tuple[str, str]  # (namespace, name)
CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING = "ClearingNominatedNodeNameAfterBinding"
"""kube-apiserver's feature gate (KEP-5278, kubernetes PR #132443)."""

_BOOTSTRAP_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


# The conditions binding sets True (update_pod_conditions copies each, so they are shared).
_SCHEDULED_TRUE: tuple[Mapping[str, Any], ...] = ({"type": "PodScheduled", "status": "True"},)
_SCHEDULED_AND_RUNNING_TRUE: tuple[Mapping[str, Any], ...] = (
    *_SCHEDULED_TRUE, *({"type": t, "status": "True"} for t in ("Initialized", "ContainersReady", "Ready")))


def _missing_classes_warning(missing: Mapping[str, int]) -> str:
    """One line for every pod that kept its priority although its class is not in the input."""
    names = ", ".join(f"{name} ({n} pod{'s' if n != 1 else ''})" for name, n in sorted(missing.items()))
    return (f"PriorityClasses missing from the input: {names}; these pods keep their spec.priority "
            "(include the PriorityClasses in the input to check it)")
def _check_selectors(obj: ApiObject) -> None:
    """The CEL selectors of a DRA object must compile (validateCELSelector): the API server
    refuses the object otherwise."""
    errors = selector_errors(obj)
    if errors:
        raise Invalid(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")


class Expired(StoreError):
    """A watch asked to resume from a resourceVersion older than the kept history (HTTP 410)."""

    reason = "Expired"


class MemoryStore:
    """The embedded API server (see the module doc). ``clock`` drives graceful termination."""

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        simulate_kubelet: bool = True,
        simulate_disruption_controller: bool = True,
        history_limit: int | None = None,
        clear_nominated_node_name_after_binding: bool = True,
        event_limit: int | None = None,
    ) -> None:
        self._clock: Clock = clock if clock is not None else VirtualClock()
        self.simulate_kubelet = simulate_kubelet
        self.clear_nominated_node_name_after_binding = clear_nominated_node_name_after_binding
        self.simulate_disruption_controller = simulate_disruption_controller
        self._loading = False
        self._history_limit = history_limit
        # At most this many recorded events, the oldest dropped first (a long replay binds
        # millions of pods, one Scheduled event each; None keeps them all).
        self._event_limit = event_limit
        # PDBs created with a status (a cluster dump) keep it as given: never recomputed.
        self._given_pdb_status: set[_Key] = set()
        self._objects: dict[str, dict[_Key, ApiObject]] = {k: {} for k in KINDS}
        self._rv = 0
        # kind -> resourceVersion of its last write (caches of derived data check one kind)
        self._kind_rv: dict[str, int] = {}
        self._history: list[WatchEvent] = []
        self._subscribers: list[Callable[[WatchEvent], None]] = []
        self._pending: deque[WatchEvent] = deque()
        self._dispatching = False
        self._events: dict[tuple[str, ...], Event] = {}
        self._timers: dict[str, Timer] = {}
        self._lock = threading.RLock()
        # Objects every cluster starts with; a manifest may redefine them (see load()).
        self._bootstrap: set[tuple[str, str, str]] = set()
        for pc in system_priority_classes():
            self._put(pc, admit=False)
            self._bootstrap.add(("PriorityClass", "", pc.name))
        from ..api import Namespace

        for ns in _BOOTSTRAP_NAMESPACES:
            self._put(
                Namespace.from_dict({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
                admit=False,
            )
            self._bootstrap.add(("Namespace", "", ns))

    # -- reading --------------------------------------------------------------------
    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def resource_version(self) -> int:
        return self._rv

    def kind_version(self, kind: str) -> int:
        """The resourceVersion of the last create, update or delete of a ``kind`` object (0 if
        none): unchanged means no object of that kind changed."""
        return self._kind_rv.get(kind, 0)

    def get(self, kind: str, namespace: str, name: str) -> Any:
        with self._lock:
            obj = self._bucket(kind).get((namespace, name))
            if obj is None:
                raise NotFound(f'{KINDS[kind].plural} "{name}" not found')
            return obj

    def try_get(self, kind: str, namespace: str, name: str) -> Any:
        """The object or None."""
        with self._lock:
            return self._bucket(kind).get((namespace, name))

    def list(self, kind: str, namespace: str | None = None) -> builtins.list[Any]:
        with self._lock:
            bucket = self._objects.get(kind, {})
            return [bucket[k] for k in sorted(bucket) if namespace is None or k[0] == namespace]

    def priority_classes(self) -> dict[str, PriorityClass]:
        with self._lock:
            return {k[1]: v for k, v in self._objects["PriorityClass"].items()}  # type: ignore[misc]

    # -- writing --------------------------------------------------------------------
    def create(self, obj: ApiObject) -> Any:
        with self._lock:
            return self._put(obj, admit=True)

    def update(self, obj: ApiObject) -> Any:
        with self._lock:
            kind = kind_of(obj)
            key = (obj.meta.namespace, obj.meta.name)
            current = self.get(kind, *key)
            want = obj.meta.resource_version
            if want and want != current.meta.resource_version:
                raise Conflict(
                    f'Operation cannot be fulfilled on {KINDS[kind].plural} "{obj.meta.name}": the object '
                    "has been modified; please apply your changes to the latest version and try again"
                )
            if isinstance(obj, PriorityClass):
                others = [pc for k, pc in self._objects["PriorityClass"].items() if k != key]
                self._admission(lambda: validate_priority_class(obj, others, update=True))  # type: ignore[arg-type]
            keep: dict[Path, Any] = {("metadata", "uid"): current.meta.uid or obj.meta.uid}
            created = current.raw.get("metadata", {}).get("creationTimestamp")
            if created is not None:
                keep[("metadata", "creationTimestamp")] = created
            return self._write(kind, key, current, obj, keep)

    def update_status(self, obj: ApiObject) -> Any:
        """The ``status`` subresource: :meth:`update`, with the API server's status rule for
        ResourceClaims (a populated allocation is immutable)."""
        if isinstance(obj, ResourceClaim):
            with self._lock:
                current = self.try_get("ResourceClaim", obj.meta.namespace, obj.meta.name)
                error = obj.status_update_error(current) if isinstance(current, ResourceClaim) else None
                if error is not None:
                    raise Invalid(error)
                return self.update(obj)
        return self.update(obj)

    def delete(self, kind: str, namespace: str, name: str, grace_period_seconds: int | None = None) -> None:
        with self._lock:
            current = self.get(kind, namespace, name)
            if not isinstance(current, Pod):
                self._remove(kind, (namespace, name))
                return
            grace = (
                grace_period_seconds
                if grace_period_seconds is not None
                else (current.termination_grace_period_seconds)
            )
            if not current.node_name or current.is_terminal:
                grace = 0  # CheckGracefulDelete: nothing runs it, so nothing to wait for
            if grace <= 0:
                self._remove(kind, (namespace, name))
                return
            if current.is_terminating:
                old = current.meta.deletion_grace_period_seconds
                if old is not None and old <= grace:
                    return  # a deletion already under way ends no later: nothing to do
            pod = self._write(
                kind,
                (namespace, name),
                current,
                current,
                {
                    ("metadata", "deletionTimestamp"): format_time(self._clock.now + grace),
                    ("metadata", "deletionGracePeriodSeconds"): grace,
                },
            )
            self._schedule_removal(pod, grace)

    def _schedule_removal(self, pod: Pod, delay: float) -> None:
        """Remove ``pod`` (this incarnation, by uid) after ``delay`` seconds on the clock."""
        uid, namespace, name = pod.meta.uid, pod.namespace, pod.name
        if uid in self._timers:
            self._timers.pop(uid).cancel()
        self._timers[uid] = self._clock.schedule(
            delay, lambda: self._finish_termination(namespace, name, uid)
        )

    def evict(self, namespace: str, name: str) -> None:
        """Delete a pod with its own grace period (what preemption does to victims)."""
        self.delete("Pod", namespace, name)

    def bind(self, namespace: str, name: str, node_name: str, uid: str | None = None) -> Pod:
        with self._lock:
            pod: Pod = self.get("Pod", namespace, name)
            if uid is not None and pod.meta.uid != uid:
                raise Conflict(
                    f"pod {name}: precondition failed: UID in precondition: {uid}, "
                    f"UID in object meta: {pod.meta.uid}"
                )
            if pod.is_terminating:
                raise Conflict(f"pod {name} is being deleted, cannot be assigned to a host")
            if pod.node_name:
                raise Conflict(f'pod {name} is already assigned to node "{pod.node_name}"')
            now = self._clock.now
            changes: dict[Path, Any] = {("spec", "nodeName"): node_name}
            set_true = _SCHEDULED_TRUE
            if self.simulate_kubelet:
                set_true = _SCHEDULED_AND_RUNNING_TRUE
                changes[("status", "phase")] = "Running"
                if pod.start_time is None:
                    changes[("status", "startTime")] = format_time(now)
            conditions, _ = update_pod_conditions(pod.conditions, set_true, now)
            changes[("status", "conditions")] = conditions
            if pod.nominated_node_name and self.clear_nominated_node_name_after_binding:
                # KEP-5278 (kubernetes PR #132443, feature ClearingNominatedNodeNameAfterBinding,
                # alpha in 1.34, beta and on by default since 1.35): the binding API clears the
                # nomination. Before 1.35 a bound pod keeps the nominatedNodeName preemption gave it.
                changes[("status", "nominatedNodeName")] = DELETE
            return self._write("Pod", (namespace, name), pod, pod, changes)

    def follow_feature_gates(self, features: Mapping[str, bool]) -> None:
        """Behave as an API server with these feature gates (the release a simulation runs as,
        the scheduler's resolved gates): ClearingNominatedNodeNameAfterBinding (on by default
        since 1.35; a v1.32 to v1.34 cluster keeps a bound pod's nominatedNodeName)."""
        self.clear_nominated_node_name_after_binding = bool(
            features.get(CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING, True))

    def patch_pod_status(
        self,
        namespace: str,
        name: str,
        conditions: Sequence[Mapping[str, Any]] = (),
        nominated_node_name: str | None = None,
    ) -> Pod:
        with self._lock:
            pod: Pod = self.get("Pod", namespace, name)
            changes: dict[Path, Any] = {}
            current, changed = update_pod_conditions(pod.conditions, conditions, self._clock.now)
            if changed:
                changes[("status", "conditions")] = current
            if nominated_node_name is not None and nominated_node_name != pod.nominated_node_name:
                changes[("status", "nominatedNodeName")] = nominated_node_name or DELETE
            if not changes:
                return pod
            return self._write("Pod", (namespace, name), pod, pod, changes)

    def load(self, objects: LoadedObjects | Iterable[ApiObject]) -> builtins.list[Any]:
        """Create everything, admitted, all or nothing: raises one StoreError naming the object
        (and, for LoadedObjects, where it came from) and leaves the store unchanged.

        Kinds go in dependency order (PriorityClasses before pods, whatever the file order). A
        manifest may redefine the built-in namespaces and system PriorityClasses, as a dump of a
        real cluster does. Pods are admitted as stored pods (``admit_pod(stored=True)``): one
        with ``spec.priority`` naming a class the input lacks keeps its priority, and one
        :class:`AdmissionWarning` names the missing classes once the load succeeded."""
        with self._lock, gc_paused():
            loaded = objects if isinstance(objects, LoadedObjects) else None
            items = list(objects.objects if isinstance(objects, LoadedObjects) else objects)
            order = {k: i for i, k in enumerate(KINDS)}
            items.sort(key=lambda o: order[kind_of(o)])

            def fail(obj: ApiObject, exc: StoreError) -> StoreError:
                where = loaded.origin_of(obj) if loaded is not None else ""
                prefix = f"{where} " if where else ""
                # Admission names the object itself ("pod ns/p: ..."); the prefix already does.
                msg = str(exc)
                for own in (f"pod {obj.meta.key}: ", f"{kind_of(obj)} {obj.meta.name}: "):
                    msg = msg.removeprefix(own)
                return type(exc)(f"{prefix}({kind_of(obj)} {obj.meta.key}): {msg}")

            classes = dict(self.priority_classes())
            seen: set[tuple[str, str, str]] = set()
            ready: builtins.list[tuple[ApiObject, bool]] = []  # (object, replaces a bootstrap object)
            for obj in items:
                kind = kind_of(obj)
                ident = (kind, obj.meta.namespace, obj.meta.name)
                replaces = ident in self._bootstrap
                try:
                    if ident in seen or (not replaces and self.try_get(*ident) is not None):
                        raise AlreadyExists(f'{KINDS[kind].plural} "{obj.meta.name}" already exists')
                    seen.add(ident)
                    if isinstance(obj, PriorityClass):
                        others = [pc for n, pc in classes.items() if n != obj.name]
                        self._admission(lambda o=obj, e=others: validate_priority_class(o, e))  # type: ignore[misc]
                        classes[obj.name] = obj
                    _check_selectors(obj)
                except StoreError as exc:
                    raise fail(obj, exc) from exc
                ready.append((obj, replaces))
            admitted: builtins.list[tuple[ApiObject, bool]] = []
            missing: dict[str, int] = {}  # PriorityClass name -> pods that kept their priority
            for obj, replaces in ready:
                if isinstance(obj, Pod):
                    try:
                        obj = self._admission(lambda o=obj: admit_pod(o, classes, stored=True))  # type: ignore[misc]
                        obj = add_default_tolerations(obj)
                        obj = apply_scheduling_gated_condition(obj, self._clock.now)
                    except StoreError as exc:
                        raise fail(obj, exc) from exc
                    if obj.priority_class_name and obj.priority_class_name not in classes:
                        missing[obj.priority_class_name] = missing.get(obj.priority_class_name, 0) + 1
                admitted.append((obj, replaces))
            self._loading = True
            try:
                out = self._commit(admitted)
            finally:
                self._loading = False
            for pdb in out:
                if isinstance(pdb, PodDisruptionBudget) and "status" not in pdb.raw:
                    self._sync_pdbs(pdb.namespace)
            if missing:
                warnings.warn(AdmissionWarning(_missing_classes_warning(missing)), stacklevel=2)
            return out

    def _commit(self, admitted: builtins.list[tuple[ApiObject, bool]]) -> builtins.list[Any]:
        """Create the admitted objects (redefined bootstrap objects are replaced)."""
        out = []
        for obj, replaces in admitted:
            if replaces:
                kind = kind_of(obj)
                key = (obj.meta.namespace, obj.meta.name)
                self._bootstrap.discard((kind, *key))
                out.append(self._write(kind, key, self._bucket(kind)[key], obj))
            else:
                out.append(self._put(obj, admit=False))
        return out

    # -- watching ------------------------------------------------------------------
    def subscribe(self, callback: Callable[[WatchEvent], None]) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def events_since(self, resource_version: int) -> builtins.list[WatchEvent]:
        with self._lock:
            # The oldest version a caller may resume from: the one before the oldest event kept;
            # with no event kept (history_limit=0, or all trimmed) only the current version.
            # Anything older is 410 Gone, so that a tracker relists instead of missing changes.
            oldest = (self._history[0].resource_version if self._history else self._rv + 1) - 1
            if resource_version < oldest:
                raise Expired(f"too old resource version: {resource_version} ({oldest})")
            i = bisect.bisect_right(self._history, resource_version, key=lambda e: e.resource_version)
            return self._history[i:]

    # -- events ---------------------------------------------------------------------
    def record_event(
        self, involved: ApiObject, reason: str, message: str, type: str = "Normal", action: str = ""
    ) -> Event:
        with self._lock:
            kind = kind_of(involved)
            meta = involved.meta
            key = (kind, meta.namespace, meta.name, meta.uid, type, reason, message, action)
            now = self._clock.now
            old = self._events.get(key)
            ev = Event._make(kind, meta.namespace, meta.name, meta.uid, type, reason, message,
                             old.count + 1 if old else 1, old.first_timestamp if old else now, now, action)
            self._events[key] = ev
            if self._event_limit is not None and len(self._events) > self._event_limit:
                del self._events[next(iter(self._events))]
            return ev

    def events(self) -> builtins.list[Event]:
        with self._lock:
            return list(self._events.values())

    # -- internals -------------------------------------------------------------------
    def _bucket(self, kind: str) -> dict[_Key, ApiObject]:
        bucket = self._objects.get(kind)
        if bucket is None:
            raise NotFound(f"unknown kind {kind!r}")
        return bucket

    @staticmethod
    def _admission(fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except AdmissionError as exc:
            raise Invalid(str(exc)) from exc

    def admit(self, obj: ApiObject) -> Any:
        """What ``create`` would store, without storing it: the admission plugins' work
        (selectors checked, a pod's priority resolved, default tolerations, the
        SchedulingGated condition). Raises Invalid. ``capacity`` admits the copies it places
        only in the scheduler's cache this way."""
        changes = self._admission_changes(obj)
        return obj.with_changes(changes) if changes else obj

    def _admission_changes(self, obj: ApiObject) -> dict[Path, Any]:
        """The edits :meth:`admit` makes, as one change set: the Priority plugin's, then
        DefaultTolerationSeconds', then the SchedulingGated condition. None of them reads a
        field another writes, so applying them at once (with the write's own uid, time stamp
        and resourceVersion, in :meth:`_put`) gives the object the three edits in turn would,
        keys in the same order, for one derived copy instead of four."""
        _check_selectors(obj)
        if isinstance(obj, PriorityClass):
            pcs = list(self._objects["PriorityClass"].values())
            self._admission(lambda: validate_priority_class(obj, pcs))  # type: ignore[arg-type]
        elif isinstance(obj, Pod):
            pod = obj
            classes = self.priority_classes()
            changes: dict[Path, Any] = self._admission(lambda: admit_pod_changes(pod, classes))
            changes.update(default_toleration_changes(pod))
            changes.update(scheduling_gated_changes(pod, self._clock.now))
            return changes
        return {}

    def _put(self, obj: ApiObject, admit: bool) -> Any:
        kind = kind_of(obj)
        if not obj.meta.name:
            raise Invalid(f"{kind}: metadata.name: Required value: name is required")
        if KINDS[kind].namespaced and not obj.meta.namespace:
            obj = obj.with_changes({("metadata", "namespace"): "default"})
        key = (obj.meta.namespace, obj.meta.name)
        if key in self._bucket(kind):
            raise AlreadyExists(f'{KINDS[kind].plural} "{obj.meta.name}" already exists')
        changes: dict[Path, Any] = self._admission_changes(obj) if admit else {}
        if not obj.meta.uid:
            changes[("metadata", "uid")] = _uuid5(f"{kind}/{key}/{self._rv + 1}")
        if obj.meta.creation_timestamp is None:
            changes[("metadata", "creationTimestamp")] = format_time(self._clock.now)
        new = self._write(kind, key, None, obj, changes)
        if isinstance(new, Pod) and new.is_terminating:
            # A terminating pod from a manifest: the kubelet would remove it by its deletion time
            # stamp; never wait longer than its grace period from now (the clock may start long
            # before the dump was taken), and not at all for a pod on no node.
            grace = new.meta.deletion_grace_period_seconds
            if grace is None:
                grace = new.termination_grace_period_seconds
            due = (new.meta.deletion_timestamp or 0.0) - self._clock.now
            self._schedule_removal(new, min(max(0.0, due), float(grace)) if new.node_name else 0.0)
        return new

    def _write(self, kind: str, key: _Key, old: ApiObject | None, obj: ApiObject,
               changes: Mapping[Path, Any] | None = None) -> Any:
        """Store ``obj`` with ``changes`` applied and the next resourceVersion (one derived copy
        for both), and emit the watch event."""
        self._rv += 1
        self._kind_rv[kind] = self._rv
        new = obj.with_changes({**(changes or {}), ("metadata", "resourceVersion"): str(self._rv)})
        self._bucket(kind)[key] = new
        self._emit(WatchEvent._make("ADDED" if old is None else "MODIFIED", kind, old, new, self._rv))
        if kind == "PodDisruptionBudget" and old is None:
            if "status" in new.raw:
                self._given_pdb_status.add(key)
            else:
                self._given_pdb_status.discard(key)
        if kind == "Pod":
            self._sync_pdbs(key[0], old, new)
        elif kind == "PodDisruptionBudget" and old is None and "status" not in new.raw:
            self._sync_pdbs(key[0])
        return new

    def _remove(self, kind: str, key: _Key) -> None:
        old = self._bucket(kind).pop(key)
        self._bootstrap.discard((kind, *key))
        timer = self._timers.pop(old.meta.uid, None)
        if timer is not None:
            timer.cancel()
        self._rv += 1
        self._kind_rv[kind] = self._rv
        self._emit(WatchEvent._make("DELETED", kind, old, None, self._rv))
        if kind == "Pod":
            self._sync_pdbs(key[0], old)

    def _sync_pdbs(self, namespace: str, *changed: ApiObject | None) -> None:
        """The simulated disruption controller: rewrite the status of this namespace's PDBs
        when the pods they count changed (see _disruption.py). With ``changed`` pods (old and
        new versions), only the PDBs selecting one of them are recomputed."""
        if not self.simulate_disruption_controller or self._loading:
            return
        if not self._objects["PodDisruptionBudget"]:
            return  # no PDB at all: nothing to recompute (the usual case, on every pod write)
        pdbs = [
            (k, v)
            for k, v in self._objects["PodDisruptionBudget"].items()
            if k[0] == namespace
            and k not in self._given_pdb_status
            and (not changed or any(isinstance(p, Pod) and pdb_selects(v, p) for p in changed))  # type: ignore[arg-type]
        ]
        if not pdbs:
            return
        pods = [p for k, p in self._objects["Pod"].items() if k[0] == namespace]
        for key, pdb in pdbs:
            status = pdb_status(pdb, pods)  # type: ignore[arg-type]
            if status != pdb.raw.get("status"):
                self._write("PodDisruptionBudget", key, pdb, pdb, {("status",): status})

    def _finish_termination(self, namespace: str, name: str, uid: str) -> None:
        with self._lock:
            self._timers.pop(uid, None)
            pod = self._objects["Pod"].get((namespace, name))
            if pod is not None and pod.meta.uid == uid:
                self._remove("Pod", (namespace, name))

    def _emit(self, event: WatchEvent) -> None:
        self._history.append(event)
        if self._history_limit is not None and len(self._history) > self._history_limit:
            del self._history[: len(self._history) - self._history_limit]
        self._pending.append(event)
        if self._dispatching:
            return  # delivered, in order, by the outer loop
        self._dispatching = True
        try:
            while self._pending:
                ev = self._pending.popleft()
                for cb in list(self._subscribers):
                    cb(ev)
        finally:
            self._dispatching = False
            self._pending.clear()


_OID: Final = uuid.NAMESPACE_OID.bytes
_VARIANT_MASK: Final = ~(0xC000 << 48)
_VERSION_MASK: Final = ~(0xF000 << 64)
_RFC_4122_V5: Final = 0x8000 << 48 | 5 << 76


def _uuid5(name: str) -> str:
    """``str(uuid.uuid5(uuid.NAMESPACE_OID, name))`` (the same SHA-1, bits and text) without
    building a UUID object: uuid5 was a seventh of the store's cost of creating a pod."""
    value = int.from_bytes(hashlib.sha1(_OID + name.encode()).digest()[:16])
    x = "%032x" % (value & _VARIANT_MASK & _VERSION_MASK | _RFC_4122_V5)
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"
