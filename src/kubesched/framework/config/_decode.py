"""Decoding a KubeSchedulerConfiguration: strict v1 decode, plugin resolution, defaults.

Follows kube-scheduler's load path (cmd/kube-scheduler/app/options/configfile.go): decode
strictly (unknown fields are errors), apply v1 defaults (pkg/scheduler/apis/config/v1/defaults.go:
SetDefaults_KubeSchedulerConfiguration, setDefaults_KubeSchedulerProfile), then validate
(``_validation.py``). Every error names its field path. Plugin names are resolved here: in-tree
names, names from a caller's registry, import paths ``package.module:Class`` and
``kubesched.plugins`` entry points; out-of-tree classes are checked against the extension
points they are enabled for, and each plugin's ``pluginConfig`` args are decoded through its
``Args`` class with upstream's defaults filled in.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

from ...api import NEWEST_KUBE_VERSION, ExcessiveAliasing, KubeVersion, safe_load_yaml
from .._features import feature_gates_for
from .._interface import args_type
from .._plugin_base import ArgsError
from .._registry import ENTRY_POINT_GROUP, PluginLoadError, check_plugin_class, load_plugin
from ._defaults import default_plugins, merge_plugins
from ._types import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    KIND,
    PLUGIN_SET_FIELDS,
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
from ._validation import validate_config, validate_extenders

__all__ = ["decode_extender", "default_config", "from_dict", "load_config"]

T = TypeVar("T")

_TOP_KEYS = {
    "apiVersion", "kind", "parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds",
    "podMaxBackoffSeconds", "profiles", "extenders", "leaderElection", "clientConnection",
    "enableProfiling", "enableContentionProfiling", "delayCacheUntilActive",
}
_PROFILE_KEYS = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}
_EXTENDER_KEYS = {
    "urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb", "enableHTTPS",
    "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable",
}
_LEADER_ELECTION_KEYS = {"leaderElect", "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock",
                         "resourceName", "resourceNamespace"}
_CLIENT_CONNECTION_KEYS = {"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"}
_TLS_STRINGS = {"serverName": "server_name", "certFile": "cert_file", "keyFile": "key_file",
                "caFile": "ca_file"}
_TLS_BYTES = {"certData": "cert_data", "keyData": "key_data", "caData": "ca_data"}


class _Decoder:
    """One decode: collects every field error, resolves plugin names once."""

    def __init__(self, registry: Mapping[str, Any] | None, features: Mapping[str, bool],
                 kube_version: KubeVersion) -> None:
        from ...plugins.registry import in_tree_names, in_tree_registry

        self.errors: list[FieldError] = []
        self.features = features
        self.kube_version = kube_version
        self.in_tree: dict[str, Any] = dict(in_tree_registry(features))
        self.factories: dict[str, Any] = dict(self.in_tree)
        self.known: set[str] = set(in_tree_names())
        if registry:
            self.factories.update(registry)
            self.known.update(registry)
        self.out_of_tree: dict[str, Any] = {}
        self.sources: dict[str, str] = {}

    # -- primitive fields -------------------------------------------------------------
    def mapping(self, v: Any, path: str) -> Mapping[str, Any] | None:
        if v is None:
            return None
        if not isinstance(v, Mapping):
            self.errors.append(FieldError.invalid(path, _short(v), "must be an object"))
            return None
        return v

    def check_keys(self, d: Mapping[str, Any], allowed: set[str], path: str) -> None:
        for k in d:
            if k not in allowed:
                self.errors.append(FieldError.unknown(f"{path}.{k}" if path else str(k)))

    def typed(self, d: Mapping[str, Any], key: str, path: str, typ: type[T], default: T,
              bits: int = 32) -> T:
        """``d[key]`` as ``typ`` (``default`` when unset). Integers are Go's int32 (``bits``: 64
        for the int64 fields): a number out of range is refused as strict decoding refuses it."""
        v = d.get(key)
        if v is None:
            return default
        ok = isinstance(v, typ) and not (typ is int and isinstance(v, bool))
        if typ is float and isinstance(v, int) and not isinstance(v, bool):
            return float(v)  # type: ignore[return-value]
        if not ok:
            what = {int: "an integer", bool: "a boolean", str: "a string", float: "a number"}[typ]
            self.errors.append(FieldError.invalid(_join(path, key), _short(v), f"must be {what}"))
            return default
        if typ is int and not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
            self.errors.append(FieldError.invalid(_join(path, key), v, f"must be an int{bits}"))
            return default
        return v

    def seq(self, v: Any, path: str) -> list[Any]:
        if v is None:
            return []
        if not isinstance(v, list):
            self.errors.append(FieldError.invalid(path, _short(v), "must be a list"))
            return []
        return v

    # -- plugins ----------------------------------------------------------------------
    def resolve(self, name: str, path: str) -> str | None:
        """The plugin name ``name`` refers to, loading out-of-tree classes; None on error."""
        if name in self.known:
            return name
        try:
            loaded = load_plugin(name)
        except PluginLoadError as exc:
            self.errors.append(FieldError.invalid(path, name, str(exc)))
            return None
        if loaded is None:
            self.errors.append(FieldError.invalid(
                path, name, f"no such plugin: not in-tree, not an entry point of group "
                f"{ENTRY_POINT_GROUP!r}, not an import path 'package.module:Class'"))
            return None
        prev = self.factories.get(loaded.name)
        if prev is not None and prev is not loaded.factory:
            self.errors.append(FieldError.invalid(
                path, name, f"plugin name {loaded.name!r} is already taken by another plugin"))
            return None
        self.factories[loaded.name] = loaded.factory
        self.known.add(loaded.name)
        self.out_of_tree[loaded.name] = loaded.factory
        self.sources[loaded.name] = loaded.source
        return loaded.name

    def plugin_set(self, v: Any, path: str, key: str) -> PluginSet:
        d = self.mapping(v, path)
        if d is None:
            return PluginSet()
        self.check_keys(d, {"enabled", "disabled"}, path)
        enabled: list[PluginRef] = []
        for i, item in enumerate(self.seq(d.get("enabled"), f"{path}.enabled")):
            ref = self.plugin_ref(item, f"{path}.enabled[{i}]")
            if ref is None:
                continue
            name = self.resolve(ref.name, f"{path}.enabled[{i}].name")
            if name is None:
                continue
            if key != "multiPoint":
                try:
                    check_plugin_class(name, self.factories.get(name), [key], self.sources.get(name, ""))
                except PluginLoadError as exc:
                    self.errors.append(FieldError.invalid(f"{path}.enabled[{i}].name", ref.name, str(exc)))
                    continue
            enabled.append(PluginRef(name, ref.weight))
        disabled: list[PluginRef] = []
        for i, item in enumerate(self.seq(d.get("disabled"), f"{path}.disabled")):
            ref = self.plugin_ref(item, f"{path}.disabled[{i}]")
            if ref is None:
                continue
            name = ref.name
            if ":" in name:  # disabling by import path: same plugin as its NAME
                name = self.resolve(name, f"{path}.disabled[{i}].name") or name
            disabled.append(PluginRef(name))
        return PluginSet(tuple(enabled), tuple(disabled))

    def plugin_ref(self, v: Any, path: str) -> PluginRef | None:
        d = self.mapping(v, path)
        if d is None:
            return None
        self.check_keys(d, {"name", "weight"}, path)
        name = self.typed(d, "name", path, str, "")
        if not name:
            self.errors.append(FieldError.required(f"{path}.name"))
            return None
        weight = self.typed(d, "weight", path, int, 0)
        return PluginRef(name, weight)

    def plugins(self, v: Any, path: str) -> Plugins | None:
        d = self.mapping(v, path)
        if d is None:
            return None
        self.check_keys(d, set(PLUGIN_SET_FIELDS), path)
        sets = {f: self.plugin_set(d.get(k), f"{path}.{k}", k) for k, f in PLUGIN_SET_FIELDS.items()}
        return Plugins(**sets)

    def args(self, name: str, raw: Any, path: str) -> Any:
        """Decode one plugin's args through its Args class (defaults filled, validated)."""
        args_cls = args_type(self.factories.get(name))
        if args_cls is None:
            return raw
        if raw is not None and not isinstance(raw, Mapping):
            if isinstance(raw, args_cls):
                return raw
            self.errors.append(FieldError.invalid(path, _short(raw), "has to match plugin args"))
            return None
        try:
            return args_cls.from_dict(raw)
        except (ArgsError, ValueError, TypeError) as exc:
            self.errors.append(_args_error(path, str(exc)))
            return None

    def profile(self, v: Any, path: str, single: bool) -> Profile | None:
        d = self.mapping(v, path)
        if d is None:
            return None
        self.check_keys(d, _PROFILE_KEYS, path)
        name_default = DEFAULT_SCHEDULER_NAME if single else ""
        if "schedulerName" in d and d["schedulerName"] is None:
            d = {k: x for k, x in d.items() if k != "schedulerName"}
        scheduler_name = self.typed(d, "schedulerName", path, str, name_default)
        pct: int | None = None
        if d.get("percentageOfNodesToScore") is not None:
            pct = self.typed(d, "percentageOfNodesToScore", path, int, 0)
        custom = self.plugins(d.get("plugins"), f"{path}.plugins")
        plugins = merge_plugins(default_plugins(self.features), custom)
        configs: list[PluginConfig] = []
        for i, item in enumerate(self.seq(d.get("pluginConfig"), f"{path}.pluginConfig")):
            ipath = f"{path}.pluginConfig[{i}]"
            pc = self.mapping(item, ipath)
            if pc is None:
                continue
            self.check_keys(pc, {"name", "args"}, ipath)
            name = self.typed(pc, "name", ipath, str, "")
            if ":" in name or (name and name not in self.known and load_plugin(name) is not None):
                name = self.resolve(name, f"{ipath}.name") or name
            configs.append(PluginConfig(name, self.args(name, pc.get("args"), f"{ipath}.args")))
        existing = {c.name for c in configs}
        for name in plugins.all_enabled_names():  # setDefaults_KubeSchedulerProfile
            if name in existing:
                continue
            if args_type(self.factories.get(name)) is not None:
                configs.append(PluginConfig(name, self.args(name, None, f"{path}.pluginConfig[{name}].args")))
        return Profile(scheduler_name, pct, plugins, tuple(configs))

    def extender(self, v: Any, path: str) -> Extender | None:
        d = self.mapping(v, path)
        if d is None:
            return None
        self.check_keys(d, _EXTENDER_KEYS, path)
        timeout = 0.0
        raw_timeout = d.get("httpTimeout")
        if raw_timeout is not None:
            try:
                from .._duration import parse_go_duration

                timeout = (parse_go_duration(raw_timeout) if isinstance(raw_timeout, str)
                           else float(raw_timeout))
            except (TypeError, ValueError) as exc:
                self.errors.append(FieldError.invalid(f"{path}.httpTimeout", _short(raw_timeout), str(exc)))
        managed: list[ExtenderManagedResource] = []
        for i, item in enumerate(self.seq(d.get("managedResources"), f"{path}.managedResources")):
            mpath = f"{path}.managedResources[{i}]"
            m = self.mapping(item, mpath)
            if m is None:
                continue
            self.check_keys(m, {"name", "ignoredByScheduler"}, mpath)
            managed.append(ExtenderManagedResource(self.typed(m, "name", mpath, str, ""),
                                                   self.typed(m, "ignoredByScheduler", mpath, bool, False)))
        tls = self.tls_config(d.get("tlsConfig"), f"{path}.tlsConfig")
        s: Callable[[str], str] = lambda k: self.typed(d, k, path, str, "")  # noqa: E731
        return Extender(
            url_prefix=s("urlPrefix"), filter_verb=s("filterVerb"), preempt_verb=s("preemptVerb"),
            prioritize_verb=s("prioritizeVerb"), weight=self.typed(d, "weight", path, int, 0),
            bind_verb=s("bindVerb"), enable_https=self.typed(d, "enableHTTPS", path, bool, False),
            tls_config=tls, http_timeout=timeout,
            node_cache_capable=self.typed(d, "nodeCacheCapable", path, bool, False),
            managed_resources=tuple(managed), ignorable=self.typed(d, "ignorable", path, bool, False),
        )

    def tls_config(self, v: Any, path: str) -> ExtenderTLSConfig | None:
        """v1.ExtenderTLSConfig, strictly: the ``*Data`` fields are base64 (Go's ``[]byte``)."""
        d = self.mapping(v, path)
        if d is None:
            return None
        self.check_keys(d, {"insecure", *_TLS_STRINGS, *_TLS_BYTES}, path)
        fields: dict[str, Any] = {"insecure": self.typed(d, "insecure", path, bool, False)}
        for key, attr in _TLS_STRINGS.items():
            fields[attr] = self.typed(d, key, path, str, "")
        for key, attr in _TLS_BYTES.items():
            fields[attr] = self.base64(d, key, path)
        return ExtenderTLSConfig(**fields)

    def base64(self, d: Mapping[str, Any], key: str, path: str) -> bytes:
        """A Go ``[]byte`` field: standard base64 (line breaks ignored, as encoding/base64)."""
        raw = self.typed(d, key, path, str, "")
        try:
            return base64.b64decode(raw.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError) as exc:
            self.errors.append(FieldError.invalid(_join(path, key), _short(raw),
                                                  f"illegal base64 data ({exc})"))
            return b""

    def duration(self, d: Mapping[str, Any], key: str, path: str, default: float) -> float:
        """A metav1.Duration field: a Go duration string (``15s``, ``1m30s``); zero or absent
        means ``default``, as the defaulting funcs compare with the zero Duration."""
        raw = d.get(key)
        if raw is None:
            return default
        from .._duration import parse_go_duration

        if not isinstance(raw, str):
            self.errors.append(FieldError.invalid(_join(path, key), _short(raw),
                                                  'must be a duration string such as "15s"'))
            return default
        try:
            seconds = parse_go_duration(raw)
        except ValueError as exc:
            self.errors.append(FieldError.invalid(_join(path, key), _short(raw), str(exc)))
            return default
        return seconds if seconds != 0 else default

    def leader_election(self, v: Any, path: str) -> LeaderElectionConfiguration:
        """``leaderElection``: SetDefaults_KubeSchedulerConfiguration fills resourceLock,
        resourceNamespace and resourceName, then RecommendedDefaultLeaderElectionConfiguration
        the durations and ``leaderElect`` (component-base/config/v1alpha1/defaults.go)."""
        base = LeaderElectionConfiguration()
        d = self.mapping(v, path)
        if d is None:
            return base
        self.check_keys(d, _LEADER_ELECTION_KEYS, path)
        s: Callable[[str, str], str] = lambda k, dflt: self.typed(d, k, path, str, "") or dflt  # noqa: E731
        return LeaderElectionConfiguration(
            leader_elect=self.typed(d, "leaderElect", path, bool, base.leader_elect),
            lease_duration=self.duration(d, "leaseDuration", path, base.lease_duration),
            renew_deadline=self.duration(d, "renewDeadline", path, base.renew_deadline),
            retry_period=self.duration(d, "retryPeriod", path, base.retry_period),
            resource_lock=s("resourceLock", base.resource_lock),
            resource_name=s("resourceName", base.resource_name),
            resource_namespace=s("resourceNamespace", base.resource_namespace),
        )

    def client_connection(self, v: Any, path: str) -> ClientConnectionConfiguration:
        """``clientConnection`` with the scheduler's own defaults (contentType protobuf, qps 50,
        burst 100; a zero value counts as unset); ``acceptContentTypes`` stays as given."""
        base = ClientConnectionConfiguration()
        d = self.mapping(v, path)
        if d is None:
            return base
        self.check_keys(d, _CLIENT_CONNECTION_KEYS, path)
        return ClientConnectionConfiguration(
            kubeconfig=self.typed(d, "kubeconfig", path, str, ""),
            accept_content_types=self.typed(d, "acceptContentTypes", path, str, ""),
            content_type=self.typed(d, "contentType", path, str, "") or base.content_type,
            qps=self.typed(d, "qps", path, float, 0.0) or base.qps,
            burst=self.typed(d, "burst", path, int, 0) or base.burst,
        )

    def config(self, d: Mapping[str, Any], source: str) -> SchedulerConfig:
        self.check_keys(d, _TOP_KEYS, "")
        api = d.get("apiVersion")
        if api is not None and api != API_VERSION:
            self.errors.append(FieldError("apiVersion", "Unsupported value", api,
                                          f'supported values: "{API_VERSION}"'))
        kind = d.get("kind")
        if kind is not None and kind != KIND:
            self.errors.append(FieldError("kind", "Unsupported value", kind, f'supported values: "{KIND}"'))
        raw_profiles = self.seq(d.get("profiles"), "profiles") or [{}]
        profiles = [self.profile(p, f"profiles[{i}]", len(raw_profiles) == 1)
                    for i, p in enumerate(raw_profiles)]
        extenders = [self.extender(e, f"extenders[{i}]")
                     for i, e in enumerate(self.seq(d.get("extenders"), "extenders"))]
        profiling = self.typed(d, "enableProfiling", "", bool, True)
        return SchedulerConfig(
            parallelism=self.typed(d, "parallelism", "", int, 16),
            percentage_of_nodes_to_score=self.typed(d, "percentageOfNodesToScore", "", int, 0),
            pod_initial_backoff_seconds=self.typed(d, "podInitialBackoffSeconds", "", int, 1, bits=64),
            pod_max_backoff_seconds=self.typed(d, "podMaxBackoffSeconds", "", int, 10, bits=64),
            profiles=tuple(p for p in profiles if p is not None),
            extenders=tuple(e for e in extenders if e is not None),
            delay_cache_until_active=self.typed(d, "delayCacheUntilActive", "", bool, False),
            enable_profiling=profiling,
            enable_contention_profiling=self.typed(d, "enableContentionProfiling", "", bool, profiling),
            leader_election=self.leader_election(d.get("leaderElection"), "leaderElection"),
            client_connection=self.client_connection(d.get("clientConnection"), "clientConnection"),
            out_of_tree=dict(self.out_of_tree),
            in_tree=self.in_tree,
            source=source,
            kube_version=self.kube_version,
            features=dict(self.features),
        )


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _short(v: Any) -> Any:
    r = v if isinstance(v, str | int | float | bool) else repr(v)
    return r if not isinstance(r, str) or len(r) <= 80 else r[:77] + "..."


def _args_error(path: str, msg: str) -> FieldError:
    """Prefix an args error with its pluginConfig path: ``scoringStrategy.type: Unsupported
    value`` becomes ``profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value``."""
    head, sep, tail = msg.partition(": ")
    if sep and head and " " not in head:
        return FieldError.raw(f"{path}{head if head.startswith('[') else '.' + head}", tail)
    return FieldError.raw(path, msg)


def from_dict(d: Mapping[str, Any] | None, *, registry: Mapping[str, Any] | None = None,
              features: Mapping[str, bool] | None = None, source: str = "",
              kube_version: KubeVersion | None = None) -> SchedulerConfig:
    """Decode, default and validate a KubeSchedulerConfiguration mapping.

    ``registry`` adds plugins (name -> factory/class) to the in-tree ones, as upstream's
    ``app.WithPlugin`` does; ``kube_version`` (default: the newest) is the release whose
    defaults apply, ``features`` the gates set on top of that release's defaults. Raises
    :class:`ConfigError` listing every invalid field (ValueError for a gate the release lacks)."""
    if d is None:
        d = {}
    if not isinstance(d, Mapping):
        err = FieldError.invalid("<root>", _short(d), "must be a KubeSchedulerConfiguration object")
        raise ConfigError([err], source)
    version = kube_version if kube_version is not None else NEWEST_KUBE_VERSION
    dec = _Decoder(registry, feature_gates_for(version, features), version)
    cfg = dec.config(d, source)
    errors = dec.errors + _unshadowed(validate_config(cfg), dec.errors)
    if errors:
        raise ConfigError(errors, source)
    return cfg


def _unshadowed(errors: list[FieldError], decoding: list[FieldError]) -> list[FieldError]:
    """Validation errors not about a field that failed to decode (its default stands in for it,
    and would only be reported a second time). Upstream stops at the first strict-decoding error;
    kubesched reports decoding and validation errors together, so that one run names every bad
    field, as a field.ErrorList aggregate does."""
    bad = [e.path for e in decoding]
    return [e for e in errors if not any(e.path == p or e.path.startswith((p + ".", p + "[")) for p in bad)]


def load_config(path: str | Path, *, registry: Mapping[str, Any] | None = None,
                features: Mapping[str, bool] | None = None,
                kube_version: KubeVersion | None = None) -> SchedulerConfig:
    """Read a YAML/JSON KubeSchedulerConfiguration file; errors name the file and field."""
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError([FieldError.raw("<file>", f"cannot read: {exc.strerror or exc}")], str(p)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError([FieldError.raw(
            "<file>", f"not a YAML or JSON text file (byte {exc.start} is not UTF-8)")], str(p)) from exc
    return loads_config(text, str(p), registry=registry, features=features, kube_version=kube_version)


def loads_config(text: str, source: str = "", *, registry: Mapping[str, Any] | None = None,
                 features: Mapping[str, bool] | None = None,
                 kube_version: KubeVersion | None = None) -> SchedulerConfig:
    """A KubeSchedulerConfiguration's YAML/JSON text (a file's, named ``source``, or typed in
    ``kubesched ui``'s editor): decoded, defaulted and validated as :func:`load_config` does.
    An invalid YAML text is one ``<file>`` error whose ``__cause__`` is the parser's (its mark
    holds the line)."""
    try:
        doc = safe_load_yaml(text)
    except ExcessiveAliasing as exc:  # well-formed, but refused before it expands (as kubectl)
        raise ConfigError([FieldError.raw("<file>", str(exc))], source) from exc
    except yaml.YAMLError as exc:
        raise ConfigError([FieldError.raw("<file>", f"invalid YAML: {exc}")], source) from exc
    except RecursionError:  # as the manifest loader says it
        raise ConfigError([FieldError.raw("<file>", "invalid YAML: nested too deeply")], source) from None
    if doc is None:  # kube-scheduler refuses it too: there is no kind to decode
        raise ConfigError([FieldError.raw(
            "<file>", f"empty: a configuration needs at least apiVersion: {API_VERSION} and kind: {KIND}")],
            source)
    return from_dict(doc, registry=registry, features=features, source=source, kube_version=kube_version)


def default_config(features: Mapping[str, bool] | None = None,
                   kube_version: KubeVersion | None = None) -> SchedulerConfig:
    """The configuration kube-scheduler (of ``kube_version``, default the newest) runs with
    when given no file."""
    return from_dict({}, features=features, kube_version=kube_version)


def decode_extender(d: Any, index: int = 0) -> Extender:
    """One ``extenders[index]`` entry decoded and validated on its own, with the same rules and
    field paths as in a whole configuration. Raises :class:`ConfigError`."""
    dec = _Decoder(None, feature_gates_for(NEWEST_KUBE_VERSION), NEWEST_KUBE_VERSION)
    ext = dec.extender(d, f"extenders[{index}]")
    errors = dec.errors or (validate_extenders((ext,), index) if ext is not None else [])
    if errors or ext is None:
        raise ConfigError(errors)
    return ext
