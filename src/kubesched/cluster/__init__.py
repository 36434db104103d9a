"""The cluster the scheduler talks to: the ``Store`` protocol and the embedded ``MemoryStore``."""

from ._conditions import SCHEDULING_GATED, update_pod_condition
from ._disruption import pdb_selects
from ._memory import Expired, MemoryStore
from ._store import (
    AlreadyExists,
    ChangeLog,
    Clocked,
    Conflict,
    ControllerSimulation,
    Event,
    Invalid,
    KindVersioned,
    NotFound,
    StatusSubresource,
    Store,
    StoreError,
    WatchEvent,
    WatchEventType,
    status_update,
)

__all__ = [
    "SCHEDULING_GATED",
    "AlreadyExists",
    "ChangeLog",
    "Clocked",
    "Conflict",
    "ControllerSimulation",
    "Event",
    "Expired",
    "Invalid",
    "KindVersioned",
    "MemoryStore",
    "NotFound",
    "StatusSubresource",
    "Store",
    "StoreError",
    "WatchEvent",
    "WatchEventType",
    "pdb_selects",
    "status_update",
    "update_pod_condition",
]
