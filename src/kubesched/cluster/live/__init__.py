"""Live mode: kubesched against a real API server (client, informers, store, leader election)."""

from ._config import (
    ClientSettings,
    ConfigError,
    client_settings,
    context_namespace,
    load_rest_config,
    resolve_kubeconfig,
)
from ._connect import ClientConnection, rest_client_for
from ._fence import Fenced, WriteFence
from ._informer import Informer
from ._pager import list_kind
from ._ratelimit import TokenBucket
from ._rest import ApiError, RestClient, error_for_status
from ._snapshot import READ_KINDS, list_cluster, read_kinds
from ._store import LIVE_KINDS, OPTIONAL_KINDS, POD_FIELD_SELECTOR, LiveStore, watched_kinds

__all__ = [
    "LIVE_KINDS",
    "OPTIONAL_KINDS",
    "POD_FIELD_SELECTOR",
    "READ_KINDS",
    "ApiError",
    "ClientConnection",
    "ClientSettings",
    "ConfigError",
    "Fenced",
    "Informer",
    "LiveStore",
    "RestClient",
    "TokenBucket",
    "WriteFence",
    "client_settings",
    "context_namespace",
    "error_for_status",
    "list_cluster",
    "list_kind",
    "load_rest_config",
    "read_kinds",
    "resolve_kubeconfig",
    "rest_client_for",
    "watched_kinds",
]
