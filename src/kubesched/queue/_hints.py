"""Queueing hints: which plugins care about an event, and whether it may help a parked pod.

Mirrors the hint half of pkg/scheduler/backend/queue/scheduling_queue.go (isPodWorthRequeuing,
isEventOfInterest, buildEventMap) and buildQueueingHintMap in pkg/scheduler/scheduler.go
(master 2026). A profile's hint map lists, per registered event, the plugin and its hint
function; a pod is asked about only by the plugins that rejected it (``unschedulable_plugins``
and ``pending_plugins``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from ..api import Pod
from ..framework import (
    ActionType,
    CandidatePodsFn,
    ClusterEvent,
    EnqueueExtensions,
    EventResource,
    Plugin,
    QueuedPodInfo,
    QueueingHint,
    QueueingHintFn,
)
from ._events import is_wildcard, matches

__all__ = [
    "HintIndex",
    "QueueingHintEntry",
    "QueueingHintMap",
    "QueueingStrategy",
    "build_queueing_hint_map",
    "is_event_of_interest",
    "is_pod_worth_requeuing",
    "plugin_events",
    "rejector_plugins",
]

_log = logging.getLogger(__name__)


class QueueingHintEntry(NamedTuple):
    """One registration: ``plugin`` wants ``event``; ``hint`` None means always Queue;
    ``candidates`` (optional) names the only pods the hint can queue for an event."""

    event: ClusterEvent
    plugin: str
    hint: QueueingHintFn | None = None
    candidates: CandidatePodsFn | None = None


QueueingHintMap = Mapping[str, Sequence[QueueingHintEntry]]
"""Profile (schedulerName) -> the registrations of that profile's plugins."""


class QueueingStrategy(enum.IntEnum):
    """queueingStrategy: where a pod goes after a hint decision."""

    QUEUE_SKIP = 0
    QUEUE_AFTER_BACKOFF = 1
    QUEUE_IMMEDIATELY = 2


# UnrollWildCardResource: what a plugin without EnqueueExtensions is assumed to care about.
_ALL_RESOURCES = (
    EventResource.POD, EventResource.NODE, EventResource.PERSISTENT_VOLUME,
    EventResource.PERSISTENT_VOLUME_CLAIM, EventResource.CSI_NODE, EventResource.CSI_DRIVER,
    EventResource.CSI_STORAGE_CAPACITY, EventResource.STORAGE_CLASS,
    EventResource.VOLUME_ATTACHMENT,
)


def build_queueing_hint_map(profiles: Mapping[str, Iterable[Plugin]]) -> dict[str, list[QueueingHintEntry]]:
    """buildQueueingHintMap: each plugin's ``events_to_register()``.

    A plugin that does not implement EnqueueExtensions is registered for every event of every
    resource (the unrolled wildcard), so pods it rejects are retried on any change; a plugin
    that registers no event is never the reason for a move (only the timeout flush moves it).
    Pass the plugins that can reject pods (PreEnqueue, PreFilter, Filter, Reserve, Permit).
    """
    out: dict[str, list[QueueingHintEntry]] = {}
    for profile, plugins in profiles.items():
        entries: list[QueueingHintEntry] = []
        seen: set[str] = set()
        for pl in plugins:
            name = pl.name()
            if name in seen:
                continue
            seen.add(name)
            if isinstance(pl, EnqueueExtensions):
                entries.extend(QueueingHintEntry(e.event, name, e.hint, e.candidates)
                               for e in pl.events_to_register())
            else:
                entries.extend(QueueingHintEntry(ClusterEvent(r, ActionType.ALL), name)
                               for r in _ALL_RESOURCES)
        out[profile] = entries
    return out


class HintIndex(Mapping[str, Sequence[QueueingHintEntry]]):
    """A hint map (it is one: profile -> registrations) that also answers, per incoming event,
    whether any profile cares (isEventOfInterest) and which registrations of a profile match it,
    in registration order. Both answers are computed once per distinct event and kept: events
    come from a small fixed set, while they are asked about for every store write and every
    parked pod. The map must not change after construction (the queue builds it once)."""

    def __init__(self, hint_map: QueueingHintMap) -> None:
        self._map = hint_map
        self._interest: dict[ClusterEvent, bool] = {}
        self._matching: dict[tuple[str, ClusterEvent], tuple[QueueingHintEntry, ...] | None] = {}
        self._candidate_fns: dict[ClusterEvent, tuple[CandidatePodsFn, ...] | None] = {}

    def __getitem__(self, profile: str) -> Sequence[QueueingHintEntry]:
        return self._map[profile]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        known = self._interest.get(event)
        if known is None:
            known = self._interest[event] = is_wildcard(event) or any(
                matches(e.event, event) for entries in self._map.values() for e in entries)
        return known

    def candidates(self, event: ClusterEvent, old_obj: Any, new_obj: Any) -> set[str] | None:
        """The uids of the only pods some hint may queue for this event, when every
        registration matching it (in any profile) names its candidates; None otherwise (a
        wildcard, a registration without hint or without ``candidates``). A pod outside the
        set, rejected by some plugin, is skipped by every hint: it need not be asked."""
        if is_wildcard(event):
            return None
        if event in self._candidate_fns:
            fns = self._candidate_fns[event]
        else:
            found: list[CandidatePodsFn] | None = []
            for entries in self._map.values():
                for e in entries:
                    if matches(e.event, event):
                        if e.hint is None or e.candidates is None or found is None:
                            found = None
                        else:
                            found.append(e.candidates)
            fns = self._candidate_fns[event] = None if found is None else tuple(found)
        if fns is None:
            return None
        out: set[str] = set()
        for fn in fns:
            uids = fn(old_obj, new_obj)
            if uids is None:
                return None
            out.update(uids)
        return out

    def matching(self, profile: str, event: ClusterEvent) -> tuple[QueueingHintEntry, ...] | None:
        """The profile's registrations matching ``event``; None for an unknown profile."""
        key = (profile, event)
        try:
            return self._matching[key]
        except KeyError:
            entries = self._map.get(profile)
            found = None if entries is None else tuple(e for e in entries if matches(e.event, event))
            self._matching[key] = found
            return found


def _index(hint_map: QueueingHintMap) -> HintIndex:
    return hint_map if isinstance(hint_map, HintIndex) else HintIndex(hint_map)


_NO_PLUGINS: frozenset[str] = frozenset()


def rejector_plugins(p: QueuedPodInfo) -> set[str]:
    """UnschedulablePlugins ∪ PendingPlugins."""
    return (p.unschedulable_plugins or set()) | (p.pending_plugins or set())


def _run_hint(entry: QueueingHintEntry, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
    if entry.hint is None:
        return QueueingHint.QUEUE
    try:
        return entry.hint(pod, old_obj, new_obj)
    except Exception:
        # An erroring hint counts as Queue so that the pod cannot get stuck.
        _log.exception("QueueingHintFn of %s failed for %s on %s", entry.plugin, pod.key, entry.event)
        return QueueingHint.QUEUE


def is_pod_worth_requeuing(hint_map: QueueingHintMap, p: QueuedPodInfo, event: ClusterEvent,
                           old_obj: Any, new_obj: Any) -> QueueingStrategy:
    """isPodWorthRequeuing: Queue from a Pending plugin means activeQ at once; Queue from an
    Unschedulable plugin means after backoff; all Skip keeps the pod parked. A pod with no
    rejecting plugin, or a wildcard event (for this pod), always moves after backoff."""
    unschedulable = p.unschedulable_plugins or _NO_PLUGINS
    pending = p.pending_plugins or _NO_PLUGINS
    if not unschedulable and not pending:  # no rejecting plugin
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    if is_wildcard(event):
        # A wildcard event carrying a pod (ForceActivate) is for that pod only.
        if new_obj is not None and (not isinstance(new_obj, Pod) or new_obj.uid != p.pod.uid):
            return QueueingStrategy.QUEUE_SKIP
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    entries = _index(hint_map).matching(p.pod.scheduler_name, event)
    if entries is None:
        return QueueingStrategy.QUEUE_AFTER_BACKOFF
    strategy = QueueingStrategy.QUEUE_SKIP
    for entry in entries:
        # Only a rejecting plugin's hint counts (membership in the union, without building it:
        # this runs for every parked pod on every event of interest).
        if entry.plugin not in unschedulable and entry.plugin not in pending:
            continue
        if _run_hint(entry, p.pod, old_obj, new_obj) == QueueingHint.QUEUE_SKIP:
            continue
        if entry.plugin in pending:
            return QueueingStrategy.QUEUE_IMMEDIATELY
        if not pending:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
    return strategy


def is_event_of_interest(hint_map: QueueingHintMap, event: ClusterEvent) -> bool:
    """isEventOfInterest: a wildcard, or an event some profile's plugin registered."""
    return _index(hint_map).is_event_of_interest(event)


def plugin_events(hint_map: QueueingHintMap) -> dict[str, tuple[ClusterEvent, ...]]:
    """buildEventMap: plugin name -> the events it registered (any profile)."""
    out: dict[str, list[ClusterEvent]] = {}
    for entries in hint_map.values():
        for e in entries:
            out.setdefault(e.plugin, []).append(e.event)
    return {k: tuple(v) for k, v in out.items()}
