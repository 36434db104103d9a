"""Scheduler extenders, client side: HTTP webhooks that filter, prioritize, preempt and bind.

Mirrors pkg/scheduler/extender.go (HTTPExtender, master 2026) and the JSON of
k8s.io/kube-scheduler/extender/v1 (types.go). Requests are ``POST <urlPrefix>/<verb>`` with a
JSON body; any status other than 200 is an error. ``nodeCacheCapable`` extenders get node names
instead of full Node objects. ``ignorable`` extenders' errors are skipped by the scheduler.
``managedResources`` restrict the pods an extender is interested in. Uses urllib only.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeInfo

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "MAX_EXTENDER_PRIORITY",
    "ExtenderConfig",
    "ExtenderError",
    "HTTPExtender",
    "Victims",
    "parse_duration",
]

MAX_EXTENDER_PRIORITY = 10
"""extenderv1.MaxExtenderPriority: extender scores are 0..10, scaled by MaxNodeScore/10."""

DEFAULT_EXTENDER_TIMEOUT = 5.0
"""DefaultExtenderTimeout (extender.go): used when httpTimeout is unset or zero."""


class ExtenderError(Exception):
    """An extender call failed (transport, HTTP status, or an ``error`` in its result)."""


_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(value: Any, path: str = "httpTimeout") -> float:
    """A metav1.Duration (Go duration string such as ``"30s"`` or ``"1m30s"``) or a number of
    seconds -> seconds; ValueError naming ``path`` otherwise."""
    if value is None or value == "":
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    s = str(value).strip()
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    for m in _DURATION_RE.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if pos != len(s) or pos == 0:
        raise ValueError(f"{path}: invalid duration {value!r}")
    return total


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
    http_timeout: float = 0.0
    node_cache_capable: bool = False
    managed_resources: tuple[tuple[str, bool], ...] = ()  # (name, ignoredByScheduler)
    ignorable: bool = False

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str = "extenders[0]") -> ExtenderConfig:
        """Decode and validate (ValidateExtenders' rules that concern one extender)."""
        known = {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "bindVerb", "weight",
                 "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources",
                 "ignorable"}
        for k in d:
            if k not in known:
                raise ValueError(f"{path}.{k}: unknown field")
        weight = int(d.get("weight") or 0)
        prioritize = str(d.get("prioritizeVerb") or "")
        if weight < 0 or (prioritize and weight <= 0):
            raise ValueError(f"{path}.weight: must have a positive weight applied to it")
        mr = tuple((str(m.get("name") or ""), bool(m.get("ignoredByScheduler") or False))
                   for m in (d.get("managedResources") or []))
        return ExtenderConfig(
            url_prefix=str(d.get("urlPrefix") or ""),
            filter_verb=str(d.get("filterVerb") or ""),
            preempt_verb=str(d.get("preemptVerb") or ""),
            prioritize_verb=prioritize,
            bind_verb=str(d.get("bindVerb") or ""),
            weight=weight,
            enable_https=bool(d.get("enableHTTPS") or False),
            http_timeout=parse_duration(d.get("httpTimeout"), f"{path}.httpTimeout"),
            node_cache_capable=bool(d.get("nodeCacheCapable") or False),
            managed_resources=mr,
            ignorable=bool(d.get("ignorable") or False),
        )


@dataclass(slots=True)
class Victims:
    """extenderv1.Victims: the pods preemption would evict on a node."""

    pods: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0


Transport = Callable[[str, bytes, float], tuple[int, bytes]]
"""(url, body, timeout) -> (HTTP status, response body)."""


def _urllib_transport(url: str, body: bytes, timeout: float) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return int(resp.status), resp.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), b""
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        raise ExtenderError(f"Post {url!r}: {exc}") from exc


def _node_name(ni: NodeInfo) -> str:
    return ni.name


class HTTPExtender:
    """extender.go HTTPExtender."""

    def __init__(self, config: ExtenderConfig, transport: Transport | None = None) -> None:
        self.config = config
        self.extender_url = config.url_prefix
        self.weight = config.weight
        self.timeout = config.http_timeout or DEFAULT_EXTENDER_TIMEOUT
        self.managed_resources = frozenset(n for n, _ in config.managed_resources)
        self._transport = transport or _urllib_transport

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

    # -- verbs --------------------------------------------------------------------------
    def _send(self, verb: str, args: Mapping[str, Any]) -> Any:
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
            return {"pod": pod.to_dict(), "nodes": None, "nodenames": [_node_name(n) for n in nodes]}
        items = [n.node.to_dict() for n in nodes if n.node is not None]
        return {"pod": pod.to_dict(), "nodes": {"items": items}, "nodenames": None}

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]
               ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]:
        """Filter -> (feasible nodes, failedNodes, failedAndUnresolvableNodes).

        Difference from upstream: when a non-cache-capable extender returns full Node objects,
        upstream builds fresh NodeInfos without pods; we map them back to the input NodeInfos by
        name (unknown names are kept as bare NodeInfos), so scoring still sees the node's pods."""
        if not self.config.filter_verb:
            return list(nodes), {}, {}
        by_name = {_node_name(n): n for n in nodes}
        result = self._send(self.config.filter_verb, self._args(pod, nodes)) or {}
        if result.get("error"):
            raise ExtenderError(str(result["error"]))
        out: list[NodeInfo] = []
        names = result.get("nodenames")
        if self.config.node_cache_capable and names is not None:
            for name in names:
                ni = by_name.get(name)
                if ni is None:
                    raise ExtenderError(f"extender {self.extender_url!r} claims a filtered node "
                                        f"{name!r} which is not found in the input node list")
                out.append(ni)
        elif result.get("nodes") is not None:
            from ..api import Node
            from ..cache import NodeInfo as _NodeInfo

            for item in result["nodes"].get("items") or []:
                name = str((item.get("metadata") or {}).get("name") or "")
                ni = by_name.get(name)
                out.append(ni if ni is not None else _NodeInfo.of(Node.from_dict(item)))
        failed = {str(k): str(v) for k, v in (result.get("failedNodes") or {}).items()}
        unresolvable = {str(k): str(v)
                        for k, v in (result.get("failedAndUnresolvableNodes") or {}).items()}
        return out, failed, unresolvable

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """Prioritize -> ([(host, score)], weight). No prioritize verb: zero scores, weight 0."""
        if not self.config.prioritize_verb:
            return [(_node_name(n), 0) for n in nodes], 0
        result = self._send(self.config.prioritize_verb, self._args(pod, nodes)) or []
        return [(str(hp.get("host") or ""), int(hp.get("score") or 0)) for hp in result], self.weight

    def bind(self, pod: Pod, node_name: str) -> None:
        """Bind with ExtenderBindingArgs; the extender is expected to create the Binding."""
        if not self.is_binder():
            raise ExtenderError(f"unexpected empty bindVerb in extender {self.extender_url}")
        args = {"podName": pod.name, "podNamespace": pod.namespace, "podUID": pod.uid,
                "node": node_name}
        result = self._send(self.config.bind_verb, args) or {}
        if result.get("error"):
            raise ExtenderError(str(result["error"]))

    def process_preemption(self, pod: Pod, node_name_to_victims: Mapping[str, Victims],
                           get_node: Callable[[str], NodeInfo | None]) -> dict[str, Victims]:
        """ProcessPreemption: send the candidate victims (meta victims, i.e. pod UIDs, to
        node-cache-capable extenders) and map the returned meta victims back to pods."""
        if not self.supports_preemption():
            raise ExtenderError(f"preempt verb is not defined for extender {self.extender_url} "
                                "but run into ProcessPreemption")
        if self.config.node_cache_capable:
            meta = {n: {"pods": [{"uid": p.uid} for p in v.pods], "numPDBViolations": v.num_pdb_violations}
                    for n, v in node_name_to_victims.items()}
            args: dict[str, Any] = {"pod": pod.to_dict(), "nodeNameToVictims": None,
                                    "nodeNameToMetaVictims": meta}
        else:
            full = {n: {"pods": [p.to_dict() for p in v.pods], "numPDBViolations": v.num_pdb_violations}
                    for n, v in node_name_to_victims.items()}
            args = {"pod": pod.to_dict(), "nodeNameToVictims": full, "nodeNameToMetaVictims": None}
        result = self._send(self.config.preempt_verb, args) or {}
        out: dict[str, Victims] = {}
        for node_name, mv in (result.get("nodeNameToMetaVictims") or {}).items():
            ni = get_node(node_name)
            if ni is None:
                raise ExtenderError(f"extender: {self.extender_url} claims to preempt on node "
                                    f"{node_name} but the node is not found")
            by_uid = {pi.pod.uid: pi.pod for pi in ni.pods}
            victims = Victims(num_pdb_violations=int(mv.get("numPDBViolations") or 0))
            for meta_pod in mv.get("pods") or []:
                uid = str(meta_pod.get("uid") or "")
                p = by_uid.get(uid)
                if p is None:
                    raise ExtenderError(f"extender: {self.extender_url} claims to preempt pod (UID: "
                                        f"{uid}) on node: {node_name}, but the pod is not found on that node")
                victims.pods.append(p)
            out[node_name] = victims
        return out


def _from_config_object(e: Any) -> ExtenderConfig:
    """From the decoded configuration's Extender (same fields, snake_case)."""
    return ExtenderConfig(
        url_prefix=e.url_prefix, filter_verb=e.filter_verb, preempt_verb=e.preempt_verb,
        prioritize_verb=e.prioritize_verb, bind_verb=e.bind_verb, weight=e.weight,
        enable_https=e.enable_https, http_timeout=float(e.http_timeout or 0.0),
        node_cache_capable=e.node_cache_capable,
        managed_resources=tuple((m.name, m.ignored_by_scheduler) for m in e.managed_resources),
        ignorable=e.ignorable)


def extenders_from_config(entries: Sequence[Any]) -> list[HTTPExtender]:
    """Build HTTPExtenders from config entries: ExtenderConfig, the decoded configuration's
    Extender objects, or v1 dicts. At most one extender may bind (validation.go)."""
    out = []
    for i, e in enumerate(entries):
        if isinstance(e, ExtenderConfig):
            cfg = e
        elif isinstance(e, Mapping):
            cfg = ExtenderConfig.from_dict(e, f"extenders[{i}]")
        else:
            cfg = _from_config_object(e)
        out.append(HTTPExtender(cfg))
    if sum(1 for x in out if x.is_binder()) > 1:
        raise ValueError("extenders: only one extender can implement bind")
    return out
