"""Live mode: kubesched against a real API server (client, informers, store, leader election)."""

from ._config import ClientSettings, ConfigError, client_settings, load_rest_config, resolve_kubeconfig
from ._connect import ClientConnection, rest_client_for
from ._fence import Fenced, WriteFence
from ._informer import Informer
from ._ratelimit import TokenBucket
from ._rest import ApiError, RestClient, error_for_status
from ._store import LIVE_KINDS, OPTIONAL_KINDS, POD_FIELD_SELECTOR, LiveStore

__all__ = [
    "LIVE_KINDS",
    "OPTIONAL_KINDS",
    "POD_FIELD_SELECTOR",
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
    "error_for_status",
    "load_rest_config",
    "resolve_kubeconfig",
    "rest_client_for",
]
