"""Scheduler extenders, client side: HTTP webhooks that filter, prioritize, preempt and bind.

Mirrors pkg/scheduler/extender.go (HTTPExtender, master 2026), the JSON of
k8s.io/kube-scheduler/extender/v1 (types.go) and buildExtenders (pkg/scheduler/scheduler.go).
Requests are ``POST <urlPrefix>/<verb>`` with a JSON body; any status other than 200 is an
error. ``nodeCacheCapable`` extenders get node names instead of full Node objects.
``ignorable`` extenders' errors are skipped by the scheduler. ``managedResources`` restrict
the pods an extender is interested in; those ``ignoredByScheduler`` are left to the extender
by NodeResourcesFit. The HTTP client (TLS, timeout) is in :mod:`._extender_transport`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..api.extenderv1 import (
    MAX_EXTENDER_PRIORITY,
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    MetaPod,
    MetaVictims,
    Victims,
    WireError,
    decode_host_priority_list,
)
from ..framework import parse_go_duration
from ..framework.config import ExtenderTLSConfig, decode_extender
from ..plugins.names import NODE_RESOURCES_FIT
from ..plugins.noderesources import NodeResourcesFitArgs
from ._extender_transport import ExtenderError, Transport, make_transport

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeInfo
    from ..framework.config import Extender, SchedulerConfig

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "MAX_EXTENDER_PRIORITY",
    "ExtenderConfig",
    "ExtenderError",
    "HTTPExtender",
    "Victims",
    "build_extenders",
    "parse_duration",
]

_log = logging.getLogger(__name__)

DEFAULT_EXTENDER_TIMEOUT = 5.0
"""DefaultExtenderTimeout (extender.go): used when httpTimeout is unset or zero."""


def parse_duration(value: Any, path: str = "httpTimeout") -> float:
    """A metav1.Duration (Go duration string such as ``"30s"`` or ``"1m30s"``) or a number of
    seconds -> seconds; ValueError naming ``path`` otherwise."""
    if value is None or value == "":
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    try:
        return parse_go_duration(str(value))
    except ValueError as exc:
        raise ValueError(f"{path}: invalid duration {value!r}") from exc


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtenderConfig:
    """One ``extenders[]`` entry of KubeSchedulerConfiguration v1 (config.Extender)."""

    url_prefix: str
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    bind_verb: str = ""
    weight: int = 0
    enable_https: bool = False
    tls_config: ExtenderTLSConfig | None = None
    http_timeout: float = 0.0
    node_cache_capable: bool = False
    managed_resources: tuple[tuple[str, bool], ...] = ()  # (name, ignoredByScheduler)
    ignorable: bool = False

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str = "extenders[0]") -> ExtenderConfig:
        """Decode and validate with the configuration's own rules (a ConfigError, a
        ValueError, names each bad field under ``path``)."""
        m = re.fullmatch(r"extenders\[(\d+)\]", path)
        return _from_config_object(decode_extender(d, int(m.group(1)) if m else 0))


def _node_name(ni: NodeInfo) -> str:
    return ni.name


class HTTPExtender:
    """extender.go HTTPExtender."""

    def __init__(self, config: ExtenderConfig, transport: Transport | None = None) -> None:
        """NewHTTPExtender; a ValueError for unusable TLS material."""
        self.config = config
        self.extender_url = config.url_prefix
        self.weight = config.weight
        self.timeout = config.http_timeout or DEFAULT_EXTENDER_TIMEOUT
        self.managed_resources = frozenset(n for n, _ in config.managed_resources)
        self._transport = transport or make_transport(config.tls_config, config.enable_https)
        self._warned = False
        self._warn_lock = threading.Lock()

    # -- identity and capabilities ------------------------------------------------------
    def name(self) -> str:
        return self.extender_url

    def __repr__(self) -> str:
        return f"HTTPExtender({self.extender_url!r})"

    def is_ignorable(self) -> bool:
        return self.config.ignorable

    def is_binder(self) -> bool:
        return bool(self.config.bind_verb)

    def is_prioritizer(self) -> bool:
        return bool(self.config.prioritize_verb)

    def is_filter(self) -> bool:
        return bool(self.config.filter_verb)

    def supports_preemption(self) -> bool:
        return bool(self.config.preempt_verb)

    def is_interested(self, pod: Pod) -> bool:
        """IsInterested: every pod when no managedResources, else pods whose containers or init
        containers request or limit one of them."""
        if not self.managed_resources:
            return True
        for c in (*pod.containers, *pod.init_containers):
            if any(r in self.managed_resources for r in (*c.requests, *c.limits)):
                return True
        return False

    def log_skipped_error(self, verb: str, err: BaseException) -> None:
        """Log an error of this extender that the scheduler skips (an ignorable extender's, or
        any prioritize error). Upstream logs every one at Info level; a warning the first time
        tells the user without repeating it for every pod, later ones go to debug."""
        with self._warn_lock:
            first, self._warned = not self._warned, True
        if first:
            _log.warning("extender %s: %s failed, skipped: %s (later errors of this extender "
                         "are not shown)", self.extender_url, verb, err)
        else:
            _log.debug("extender %s: %s failed, skipped: %s", self.extender_url, verb, err)

    # -- verbs --------------------------------------------------------------------------
    def _send(self, verb: str, args: Mapping[str, Any] | Sequence[Any]) -> Any:
        url = self.extender_url.rstrip("/") + "/" + verb
        body = json.dumps(args).encode()
        code, out = self._transport(url, body, self.timeout)
        if code != 200:
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {code}")
        try:
            return json.loads(out or b"null")
        except ValueError as exc:
            raise ExtenderError(f"failed {verb} with extender at URL {url}: {exc}") from exc

    def _args(self, pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, Any]:
        """ExtenderArgs: full nodes, or only their names for node-cache-capable extenders."""
        if self.config.node_cache_capable:
            return ExtenderArgs(pod, node_names=[_node_name(n) for n in nodes]).to_json()
        return ExtenderArgs(pod, nodes=[n.node for n in nodes if n.node is not None]).to_json()

    def _decode(self, verb: str, decode: Callable[[Any], Any], value: Any) -> Any:
        """An answer as its extender/v1 type; one that does not decode is this call's error."""
        try:
            return decode(value)
        except WireError as exc:
            raise ExtenderError(f"failed {verb} with extender at URL {self.extender_url}: {exc}") from exc

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]
               ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]:
        """Filter -> (feasible nodes, failedNodes, failedAndUnresolvableNodes).

        Difference from upstream: when a non-cache-capable extender returns full Node objects,
        upstream builds fresh NodeInfos without pods; we map them back to the input NodeInfos by
        name (unknown names are kept as bare NodeInfos), so scoring still sees the node's pods."""
        if not self.config.filter_verb:
            return list(nodes), {}, {}
        by_name = {_node_name(n): n for n in nodes}
        answer = self._send(self.config.filter_verb, self._args(pod, nodes))
        result: ExtenderFilterResult = self._decode("filter", ExtenderFilterResult.from_json, answer)
        if result.error:
            raise ExtenderError(result.error)
        out: list[NodeInfo] = []
        names = result.node_names
        if self.config.node_cache_capable and names is not None:
            for name in names:
                ni = by_name.get(name)
                if ni is None:
                    raise ExtenderError(f"extender {self.extender_url!r} claims a filtered node "
                                        f"{name!r} which is not found in the input node list")
                out.append(ni)
        elif result.nodes is not None:
            from ..cache import NodeInfo as _NodeInfo

            for node in result.nodes:
                ni = by_name.get(node.name)
                out.append(ni if ni is not None else _NodeInfo.of(node))
        unresolvable = result.failed_and_unresolvable_nodes
        return out, result.failed_nodes, unresolvable

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """Prioritize -> ([(host, score)], weight). No prioritize verb: zero scores, weight 0."""
        if not self.config.prioritize_verb:
            return [(_node_name(n), 0) for n in nodes], 0
        result = self._decode("prioritize", decode_host_priority_list,
                              self._send(self.config.prioritize_verb, self._args(pod, nodes)))
        return [(hp.host, hp.score) for hp in result], self.weight

    def bind(self, pod: Pod, node_name: str) -> None:
        """Bind with ExtenderBindingArgs; the extender is expected to create the Binding."""
        if not self.is_binder():
            raise ExtenderError(f"unexpected empty bindVerb in extender {self.extender_url}")
        args = ExtenderBindingArgs(pod.name, pod.namespace, pod.uid, node_name).to_json()
        result: ExtenderBindingResult = self._decode(
            "bind", ExtenderBindingResult.from_json, self._send(self.config.bind_verb, args))
        if result.error:
            raise ExtenderError(result.error)

    def process_preemption(self, pod: Pod, node_name_to_victims: Mapping[str, Victims],
                           get_node: Callable[[str], NodeInfo | None]) -> dict[str, Victims]:
        """ProcessPreemption: send the candidate victims (meta victims, i.e. pod UIDs, to
        node-cache-capable extenders) and map the returned meta victims back to pods."""
        if not self.supports_preemption():
            raise ExtenderError(f"preempt verb is not defined for extender {self.extender_url} "
                                "but run into ProcessPreemption")
        if self.config.node_cache_capable:
            meta = {n: MetaVictims([MetaPod(p.uid) for p in v.pods], v.num_pdb_violations)
                    for n, v in node_name_to_victims.items()}
            args = ExtenderPreemptionArgs(pod, node_name_to_meta_victims=meta)
        else:
            args = ExtenderPreemptionArgs(pod, node_name_to_victims=dict(node_name_to_victims))
        answer = self._send(self.config.preempt_verb, args.to_json())
        result: ExtenderPreemptionResult = self._decode("preempt", ExtenderPreemptionResult.from_json, answer)
        out: dict[str, Victims] = {}
        for node_name, mv in (result.node_name_to_meta_victims or {}).items():
            ni = get_node(node_name)
            if ni is None:
                raise ExtenderError(f"extender: {self.extender_url} claims to preempt on node "
                                    f"{node_name} but the node is not found")
            by_uid = {pi.pod.uid: pi.pod for pi in ni.pods}
            victims = Victims(num_pdb_violations=mv.num_pdb_violations)
            for meta_pod in mv.pods:
                p = by_uid.get(meta_pod.uid)
                if p is None:
                    raise ExtenderError(f"extender: {self.extender_url} claims to preempt pod (UID: "
                                        f"{meta_pod.uid}) on node: {node_name}, but the pod is not "
                                        "found on that node")
                victims.pods.append(p)
            out[node_name] = victims
        return out


def _from_config_object(e: Extender) -> ExtenderConfig:
    """From the decoded configuration's Extender (same fields, snake_case)."""
    return ExtenderConfig(
        url_prefix=e.url_prefix, filter_verb=e.filter_verb, preempt_verb=e.preempt_verb,
        prioritize_verb=e.prioritize_verb, bind_verb=e.bind_verb, weight=e.weight,
        enable_https=e.enable_https, tls_config=e.tls_config,
        http_timeout=float(e.http_timeout or 0.0), node_cache_capable=e.node_cache_capable,
        managed_resources=tuple((m.name, m.ignored_by_scheduler) for m in e.managed_resources),
        ignorable=e.ignorable)


def extenders_from_config(
        entries: Sequence[ExtenderConfig | Extender | Mapping[str, Any]]) -> list[HTTPExtender]:
    """Build HTTPExtenders from config entries (ExtenderConfig, the decoded configuration's
    Extender objects, or v1 dicts), in order. At most one extender may bind (validation.go).
    A ValueError names the entry whose TLS material is unusable."""
    out = []
    for i, e in enumerate(entries):
        if isinstance(e, ExtenderConfig):
            cfg = e
        elif isinstance(e, Mapping):
            cfg = ExtenderConfig.from_dict(e, f"extenders[{i}]")
        else:
            cfg = _from_config_object(e)
        try:
            out.append(HTTPExtender(cfg))
        except ValueError as exc:
            raise ValueError(f"extenders[{i}] ({cfg.url_prefix}): {exc}") from exc
    if sum(1 for x in out if x.is_binder()) > 1:
        raise ValueError("extenders: only one extender can implement bind")
    return out


def build_extenders(config: SchedulerConfig) -> tuple[list[HTTPExtender], SchedulerConfig]:
    """buildExtenders (scheduler.go): the extenders, ignorable ones last, and the configuration
    with every profile's NodeResourcesFit ``ignoredResources`` replaced by the
    ``ignoredByScheduler`` managed resources of all extenders (they take precedence over the
    plugin args). A profile without NodeResourcesFit args is an error then, as upstream.
    A ValueError names the configuration's file when it has one."""
    try:
        return _build_extenders(config)
    except ValueError as exc:
        raise ValueError(f"{config.source}: {exc}" if config.source else str(exc)) from exc


def _build_extenders(config: SchedulerConfig) -> tuple[list[HTTPExtender], SchedulerConfig]:
    built = extenders_from_config(list(config.extenders))
    extenders = [e for e in built if not e.is_ignorable()] + [e for e in built if e.is_ignorable()]
    ignored = tuple(name for e in built for name, by_scheduler in e.config.managed_resources
                    if by_scheduler)
    if not ignored:
        return extenders, config
    profiles = []
    for prof in config.profiles:
        configs = list(prof.plugin_config)
        for k, pc in enumerate(configs):
            if pc.name == NODE_RESOURCES_FIT:
                if not isinstance(pc.args, NodeResourcesFitArgs):  # buildExtenders' type assertion
                    raise ValueError(f"want args to be of type NodeResourcesFitArgs, got "
                                     f"{type(pc.args).__name__}")
                args = dataclasses.replace(pc.args, ignored_resources=ignored)
                configs[k] = dataclasses.replace(pc, args=args)
                break
        else:
            raise ValueError("can't find NodeResourcesFitArgs in plugin config")
        profiles.append(dataclasses.replace(prof, plugin_config=tuple(configs)))
    return extenders, dataclasses.replace(config, profiles=tuple(profiles))
