"""Live mode's side of the cluster: a client for a real API server (kubeconfig resolution,
rate limiting, retries)."""

from ._config import ClientSettings, ConfigError, client_settings, load_rest_config, resolve_kubeconfig
from ._ratelimit import TokenBucket
from ._rest import ApiError, RestClient, error_for_status

__all__ = [
    "ApiError",
    "ClientSettings",
    "ConfigError",
    "RestClient",
    "TokenBucket",
    "client_settings",
    "error_for_status",
    "load_rest_config",
    "resolve_kubeconfig",
]
