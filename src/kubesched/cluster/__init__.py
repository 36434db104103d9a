"""The cluster the scheduler talks to: the ``Store`` protocol and the embedded ``MemoryStore``."""

from ._auth import (
    ANONYMOUS,
    DEFAULT_ALWAYS_ALLOW_PATHS,
    DelegatedAuth,
    DelegatedAuthOptions,
    UserInfo,
    parse_paths,
    refuse_failed_handshake,
)
from ._conditions import SCHEDULING_GATED, update_pod_condition
from ._disruption import pdb_selects
from ._memory import Expired, MemoryStore
from ._store import (
    AlreadyExists,
    ChangeLog,
    Conflict,
    Event,
    Invalid,
    KindVersioned,
    NotFound,
    Store,
    StoreError,
    WatchEvent,
    WatchEventType,
)

__all__ = [
    "ANONYMOUS",
    "DEFAULT_ALWAYS_ALLOW_PATHS",
    "SCHEDULING_GATED",
    "AlreadyExists",
    "ChangeLog",
    "Conflict",
    "DelegatedAuth",
    "DelegatedAuthOptions",
    "Event",
    "Expired",
    "Invalid",
    "KindVersioned",
    "MemoryStore",
    "NotFound",
    "Store",
    "StoreError",
    "UserInfo",
    "WatchEvent",
    "WatchEventType",
    "parse_paths",
    "pdb_selects",
    "refuse_failed_handshake",
    "update_pod_condition",
]
