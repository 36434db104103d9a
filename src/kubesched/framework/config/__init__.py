"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): load, default, validate.

``load_config(path)`` / ``loads_config(text)`` / ``from_dict(d)`` return a defaulted,
validated :class:`SchedulerConfig`; ``default_config()`` is what kube-scheduler runs with when
given no file. Invalid input raises :class:`ConfigError` naming the file and each field.
"""

from ._decode import decode_extender, default_config, from_dict, load_config, loads_config
from ._defaults import default_plugins, merge_plugin_set, merge_plugins
from ._types import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    KIND,
    ClientConnectionConfiguration,
    ConfigError,
    Extender,
    ExtenderManagedResource,
    ExtenderTLSConfig,
    FieldError,
    LeaderElectionConfiguration,
    PluginConfig,
    PluginRef,
    Plugins,
    PluginSet,
    Profile,
    SchedulerConfig,
)

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
    "decode_extender",
    "default_config",
    "default_plugins",
    "from_dict",
    "load_config",
    "loads_config",
    "merge_plugin_set",
    "merge_plugins",
]
