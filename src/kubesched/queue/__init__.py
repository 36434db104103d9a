"""The scheduling queue (activeQ, backoffQ, unschedulablePods) and the nominator.

Mirrors pkg/scheduler/backend/queue (master 2026). ``PriorityQueue`` is the entry point; build
its queueing-hint map from the profiles' plugins with ``build_queueing_hint_map``.
"""

from ._active_queue import InFlightEvent
from ._backoff_queue import BACKOFF_Q_ORDERING_WINDOW, LessFn, SortKeyFn, calculate_backoff_duration
from ._events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_ASSIGNED_POD_UPDATE,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_DELETE,
    EVENT_UNSCHEDULED_POD_UPDATE,
    is_wildcard,
    pod_scheduling_properties_change,
)
from ._hints import QueueingHintEntry, QueueingHintMap, QueueingStrategy, build_queueing_hint_map
from ._nominator import MODE_NOOP, MODE_OVERRIDE, Nominator, PodLookup
from ._scheduling_queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    UNSCHEDULABLE_PODS_FLUSH_INTERVAL,
    UNSCHEDULABLE_Q,
    PreEnqueueCheck,
    PriorityQueue,
)

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "BACKOFF_Q_ORDERING_WINDOW",
    "DEFAULT_POD_INITIAL_BACKOFF",
    "DEFAULT_POD_MAX_BACKOFF",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "MODE_NOOP",
    "MODE_OVERRIDE",
    "UNSCHEDULABLE_PODS_FLUSH_INTERVAL",
    "UNSCHEDULABLE_Q",
    "InFlightEvent",
    "LessFn",
    "Nominator",
    "PodLookup",
    "PreEnqueueCheck",
    "PriorityQueue",
    "QueueingHintEntry",
    "QueueingHintMap",
    "QueueingStrategy",
    "SortKeyFn",
    "build_queueing_hint_map",
    "calculate_backoff_duration",
    "is_wildcard",
    "pod_scheduling_properties_change",
]
