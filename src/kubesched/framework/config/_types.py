"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as frozen dataclasses.

Mirrors staging/src/k8s.io/kube-scheduler/config/v1/types.go (master 2026). Values here are
already defaulted (pkg/scheduler/apis/config/v1/defaults.go): the loader fills every default, so
the runtime never has to guess. Unset optional values stay ``None`` where upstream keeps a nil
pointer with meaning (a profile's ``percentageOfNodesToScore``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...api import NEWEST_KUBE_VERSION, KubeVersion, fields

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "KIND",
    "ClientConnectionConfiguration",
    "ConfigError",
    "Extender",
    "ExtenderManagedResource",
    "ExtenderTLSConfig",
    "FieldError",
    "LeaderElectionConfiguration",
    "PluginConfig",
    "PluginRef",
    "PluginSet",
    "Plugins",
    "Profile",
    "SchedulerConfig",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass(frozen=True, slots=True)
class FieldError:
    """One validation error, formatted as k8s.io/apimachinery's field.Error."""

    path: str
    kind: str  # "Invalid value", "Required value", "Duplicate value", "Unsupported value", …
    value: Any = None
    detail: str = ""
    show_value: bool = True

    @staticmethod
    def invalid(path: str, value: Any, detail: str) -> FieldError:
        return FieldError(path, "Invalid value", value, detail)

    @staticmethod
    def required(path: str, detail: str = "") -> FieldError:
        return FieldError(path, "Required value", None, detail, show_value=False)

    @staticmethod
    def duplicate(path: str, value: Any) -> FieldError:
        return FieldError(path, "Duplicate value", value)

    @staticmethod
    def unknown(path: str) -> FieldError:
        return FieldError(path, "unknown field", None, show_value=False)

    @staticmethod
    def raw(path: str, message: str) -> FieldError:
        """An error whose text was already formatted (plugin args validation)."""
        return FieldError(path, "", None, message, show_value=False)

    def __str__(self) -> str:
        if not self.kind:
            return f"{self.path}: {self.detail}"
        s = f"{self.path}: {self.kind}"
        if self.show_value:
            s += f": {fields.go_value(self.value, limit=1000)}"
        if self.detail:
            s += f": {self.detail}"
        return s


class ConfigError(ValueError):
    """An invalid configuration: names the source (file) and every offending field."""

    def __init__(self, errors: list[FieldError], source: str = "") -> None:
        self.errors = list(errors)
        self.source = source
        body = "; ".join(str(e) for e in self.errors)
        super().__init__(f"{source}: {body}" if source else body)


@dataclass(frozen=True, slots=True)
class PluginRef:
    """``{name, weight}``; weight 0 means unset (the runtime treats it as 1 for Score)."""

    name: str
    weight: int = 0


@dataclass(frozen=True, slots=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[PluginRef, ...] = ()

    def enabled_names(self) -> list[str]:
        return [p.name for p in self.enabled]

    def disabled_names(self) -> set[str]:
        return {p.name for p in self.disabled}


@dataclass(frozen=True, slots=True)
class Plugins:
    """Plugin sets per extension point, plus ``multiPoint`` (expanded by the runtime)."""

    pre_enqueue: PluginSet = field(default_factory=PluginSet)
    queue_sort: PluginSet = field(default_factory=PluginSet)
    pre_filter: PluginSet = field(default_factory=PluginSet)
    filter: PluginSet = field(default_factory=PluginSet)
    post_filter: PluginSet = field(default_factory=PluginSet)
    pre_score: PluginSet = field(default_factory=PluginSet)
    score: PluginSet = field(default_factory=PluginSet)
    reserve: PluginSet = field(default_factory=PluginSet)
    permit: PluginSet = field(default_factory=PluginSet)
    pre_bind: PluginSet = field(default_factory=PluginSet)
    bind: PluginSet = field(default_factory=PluginSet)
    post_bind: PluginSet = field(default_factory=PluginSet)
    multi_point: PluginSet = field(default_factory=PluginSet)

    def get(self, key: str) -> PluginSet:
        """The set for a config key (``preFilter``, ``multiPoint``, …)."""
        return getattr(self, PLUGIN_SET_FIELDS[key])

    def all_enabled_names(self) -> list[str]:
        """Every enabled name across all sets, sorted (upstream's pluginsNames)."""
        return sorted({p.name for key in PLUGIN_SET_FIELDS for p in self.get(key).enabled})


PLUGIN_SET_FIELDS: dict[str, str] = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "queue_sort",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
    "multiPoint": "multi_point",
}


@dataclass(frozen=True, slots=True)
class PluginConfig:
    """``pluginConfig[]``: args are the plugin's decoded ``Args`` (a PluginArgs), or the raw
    mapping for a plugin without an Args class."""

    name: str
    args: Any = None


@dataclass(frozen=True, slots=True)
class Profile:
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins = field(default_factory=Plugins)
    plugin_config: tuple[PluginConfig, ...] = ()

    def args_for(self, name: str) -> Any:
        for pc in self.plugin_config:
            if pc.name == name:
                return pc.args
        return None


@dataclass(frozen=True, slots=True)
class ExtenderManagedResource:
    name: str
    ignored_by_scheduler: bool = False


@dataclass(frozen=True, slots=True)
class ExtenderTLSConfig:
    """``tlsConfig`` of an extender (v1.ExtenderTLSConfig). The ``*_data`` fields hold the
    decoded bytes (they are base64 in the file, as Go encodes ``[]byte``); data wins over the
    file of the same thing (client-go's dataFromSliceOrFile)."""

    insecure: bool = False
    server_name: str = ""
    cert_file: str = ""
    key_file: str = ""
    ca_file: str = ""
    cert_data: bytes = b""
    key_data: bytes = b""
    ca_data: bytes = b""


@dataclass(frozen=True, slots=True)
class Extender:
    """An HTTP extender (v1.Extender). ``http_timeout`` is in seconds; 0 means the client's
    default of 5 s (DefaultExtenderTimeout, pkg/scheduler/extender.go)."""

    url_prefix: str = ""
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    weight: int = 0
    bind_verb: str = ""
    enable_https: bool = False
    tls_config: ExtenderTLSConfig | None = None
    http_timeout: float = 0.0
    node_cache_capable: bool = False
    managed_resources: tuple[ExtenderManagedResource, ...] = ()
    ignorable: bool = False

    DEFAULT_TIMEOUT = 5.0

    @property
    def effective_timeout(self) -> float:
        return self.http_timeout or self.DEFAULT_TIMEOUT


@dataclass(frozen=True, slots=True)
class LeaderElectionConfiguration:
    """``leaderElection`` (component-base's LeaderElectionConfiguration), defaulted as
    kube-scheduler does (SetDefaults_KubeSchedulerConfiguration, then
    RecommendedDefaultLeaderElectionConfiguration): elect, 15 s / 10 s / 2 s, a ``leases`` lock
    named ``kube-system/kube-scheduler``. Durations are in seconds."""

    leader_elect: bool = True
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    resource_lock: str = "leases"
    resource_name: str = "kube-scheduler"
    resource_namespace: str = "kube-system"


@dataclass(frozen=True, slots=True)
class ClientConnectionConfiguration:
    """``clientConnection`` (component-base's ClientConnectionConfiguration) with the
    scheduler's own defaults (protobuf content type, 50 qps, burst 100); an empty
    ``kubeconfig`` means the default loading rules (``$KUBECONFIG``, ``~/.kube/config``,
    in-cluster)."""

    kubeconfig: str = ""
    accept_content_types: str = ""
    content_type: str = "application/vnd.kubernetes.protobuf"
    qps: float = 50.0
    burst: int = 100


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """A defaulted, validated KubeSchedulerConfiguration.

    ``out_of_tree`` holds the plugins the config named by import path or entry point, by
    plugin name, so the runtime can add them to the in-tree registry; ``in_tree`` is the in-tree
    registry the config was decoded against (``new_profile_map``'s default: the framework
    itself never imports a plugin).

    ``kube_version``: the release whose scheduler this configuration runs as (``--kube-version``;
    not a KubeSchedulerConfiguration field: each release's kube-scheduler *is* one release);
    ``features``: every known feature gate at that release's default with the caller's
    ``--feature-gates`` on top (:func:`~kubesched.framework.feature_gates_for`): what the
    default plugin set and the plugins were decided with."""

    parallelism: int = 16
    percentage_of_nodes_to_score: int | None = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    profiles: tuple[Profile, ...] = ()
    extenders: tuple[Extender, ...] = ()
    delay_cache_until_active: bool = False
    enable_profiling: bool = True
    enable_contention_profiling: bool = True
    leader_election: LeaderElectionConfiguration = field(default_factory=LeaderElectionConfiguration)
    client_connection: ClientConnectionConfiguration = field(default_factory=ClientConnectionConfiguration)
    out_of_tree: Mapping[str, Any] = field(default_factory=dict)
    in_tree: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    source: str = ""
    kube_version: KubeVersion = NEWEST_KUBE_VERSION
    features: Mapping[str, bool] = field(default_factory=dict, compare=False, repr=False)

    def profile(self, scheduler_name: str) -> Profile | None:
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None
