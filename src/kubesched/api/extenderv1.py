"""The scheduler extender's wire format: ``k8s.io/kube-scheduler/extender/v1`` (types.go).

One definition for both sides: kube-scheduler's client (:mod:`kubesched.scheduler._extender`)
and kubesched's extender server (:mod:`kubesched.extender`). Upstream's types carry no JSON
tags, so Go writes the Go field names as they are (``Pod``, ``NodeNames``, ``FailedNodes``,
``NumPDBViolations``, ``UID``, ``Host``, ``Score`` ...); :meth:`to_json` writes exactly those,
and nil pointers, maps and slices as ``null``. Go's decoder matches keys case-insensitively
(an exact match first), so :meth:`from_json` does too: a client writing ``nodenames`` is
understood like one writing ``NodeNames``.

Decoding is strict about types (a string where a list belongs, a pod that does not parse) and
raises :class:`WireError` naming the field, so a server can answer 400 instead of failing later.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._node import Node
from ._pod import Pod

__all__ = [
    "MAX_EXTENDER_PRIORITY",
    "MIN_EXTENDER_PRIORITY",
    "ExtenderArgs",
    "ExtenderBindingArgs",
    "ExtenderBindingResult",
    "ExtenderFilterResult",
    "ExtenderPreemptionArgs",
    "ExtenderPreemptionResult",
    "HostPriority",
    "MetaPod",
    "MetaVictims",
    "Victims",
    "WireError",
    "decode_host_priority_list",
    "encode_host_priority_list",
    "host_priority_list_text",
]

MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
"""MaxExtenderPriority: extender scores are 0..10; kube-scheduler multiplies them by the
extender's weight and by MaxNodeScore / MaxExtenderPriority (10)."""


class WireError(ValueError):
    """A request or answer that does not decode as the extender/v1 type it should be."""


# -- Go's encoding/json, the parts used here ---------------------------------------------------
def _get(obj: Mapping[str, Any], name: str) -> Any:
    """The value of Go field ``name``: the exact key, else any key equal to it ignoring case
    (encoding/json's field matching)."""
    if name in obj:
        return obj[name]
    low = name.lower()
    for k, v in obj.items():
        if isinstance(k, str) and k.lower() == low:
            return v
    return None


def _object(v: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise WireError(f"{path}: want a JSON object, got {_kind(v)}")
    return v


def _opt_object(v: Any, path: str) -> Mapping[str, Any] | None:
    return None if v is None else _object(v, path)


def _list(v: Any, path: str) -> list[Any] | None:
    if v is None:
        return None
    if not isinstance(v, list):
        raise WireError(f"{path}: want a JSON array, got {_kind(v)}")
    return v


def _str(v: Any, path: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        raise WireError(f"{path}: want a string, got {_kind(v)}")
    return v


def _int(v: Any, path: str) -> int:
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, int | float) or (isinstance(v, float) and not v.is_integer()):
        raise WireError(f"{path}: want an integer, got {_kind(v)}")
    return int(v)


def _str_map(v: Any, path: str) -> dict[str, str]:
    m = _opt_object(v, path) or {}
    return {str(k): _str(x, f"{path}[{k}]") for k, x in m.items()}


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def _pod(v: Any, path: str) -> Pod:
    try:
        return Pod.from_dict(_object(v, path))
    except WireError:
        raise
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        raise WireError(f"{path}: {exc}") from exc


def _node(v: Any, path: str) -> Node:
    try:
        return Node.from_dict(_object(v, path))
    except WireError:
        raise
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        raise WireError(f"{path}: {exc}") from exc


def _node_list(v: Any, path: str) -> list[Node] | None:
    """A v1.NodeList's items (its TypeMeta and ListMeta carry nothing the extender uses)."""
    if v is None:
        return None
    items = _list(_get(_object(v, path), "items"), f"{path}.items") or []
    return [_node(n, f"{path}.items[{i}]") for i, n in enumerate(items)]


def _encode_node_list(nodes: list[Node] | None) -> dict[str, Any] | None:
    return None if nodes is None else {"metadata": {}, "items": [n.to_dict() for n in nodes]}


_STR_ONLY = frozenset({str})


def _names(v: Any, path: str) -> list[str] | None:
    items = _list(v, path)
    if items is None:
        return None
    if {*map(type, items)} <= _STR_ONLY:  # the usual case, thousands of names: one C-level pass
        return list(items)
    return [_str(x, f"{path}[{i}]") for i, x in enumerate(items)]


# -- the types -----------------------------------------------------------------------------------
@dataclass(slots=True)
class Victims:
    """Victims: the pods preemption would evict on a node, and how many PDBs that violates."""

    pods: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"Pods": [p.to_dict() for p in self.pods], "NumPDBViolations": self.num_pdb_violations}

    @staticmethod
    def from_json(v: Any, path: str) -> Victims:
        obj = _object(v, path)
        pods = _list(_get(obj, "Pods"), f"{path}.Pods") or []
        return Victims([_pod(p, f"{path}.Pods[{i}]") for i, p in enumerate(pods)],
                       _int(_get(obj, "NumPDBViolations"), f"{path}.NumPDBViolations"))


@dataclass(frozen=True, slots=True)
class MetaPod:
    """MetaPod: a pod by UID (what node-cache-capable extenders exchange)."""

    uid: str

    def to_json(self) -> dict[str, Any]:
        return {"UID": self.uid}

    @staticmethod
    def from_json(v: Any, path: str) -> MetaPod:
        return MetaPod(_str(_get(_object(v, path), "UID"), f"{path}.UID"))


@dataclass(slots=True)
class MetaVictims:
    """MetaVictims: victims by UID."""

    pods: list[MetaPod] = field(default_factory=list)
    num_pdb_violations: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"Pods": [p.to_json() for p in self.pods], "NumPDBViolations": self.num_pdb_violations}

    @staticmethod
    def from_json(v: Any, path: str) -> MetaVictims:
        obj = _object(v, path)
        pods = _list(_get(obj, "Pods"), f"{path}.Pods") or []
        return MetaVictims([MetaPod.from_json(p, f"{path}.Pods[{i}]") for i, p in enumerate(pods)],
                           _int(_get(obj, "NumPDBViolations"), f"{path}.NumPDBViolations"))


@dataclass(slots=True)
class ExtenderArgs:
    """ExtenderArgs (filter and prioritize): the pod and the candidate nodes, as full Node
    objects (``nodeCacheCapable: false``) or as names (``nodeCacheCapable: true``)."""

    pod: Pod
    nodes: list[Node] | None = None
    node_names: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"Pod": self.pod.to_dict(), "Nodes": _encode_node_list(self.nodes),
                "NodeNames": self.node_names}

    @staticmethod
    def from_json(v: Any, known: Callable[[Mapping[str, Any]], Pod | None] | None = None) -> ExtenderArgs:
        """``known``: given the Pod's JSON object, a Pod already parsed from an equal manifest
        (what parsing it would give), or None to parse it: a server asked about the same pod
        twice per cycle (filter, prioritize) parses it at most once."""
        obj = _object(v, "ExtenderArgs")
        pod = _get(obj, "Pod")
        if pod is None:
            raise WireError("ExtenderArgs.Pod: missing")
        parsed = known(_object(pod, "ExtenderArgs.Pod")) if known is not None else None
        return ExtenderArgs(parsed if parsed is not None else _pod(pod, "ExtenderArgs.Pod"),
                            _node_list(_get(obj, "Nodes"), "ExtenderArgs.Nodes"),
                            _names(_get(obj, "NodeNames"), "ExtenderArgs.NodeNames"))


@dataclass(slots=True)
class ExtenderFilterResult:
    """ExtenderFilterResult: the nodes that fit (in the form they came), the rejected ones with
    their reason, those preemption cannot help (they win over ``failed_nodes``), or an error."""

    nodes: list[Node] | None = None
    node_names: list[str] | None = None
    failed_nodes: dict[str, str] = field(default_factory=dict)
    failed_and_unresolvable_nodes: dict[str, str] = field(default_factory=dict)
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"Nodes": _encode_node_list(self.nodes), "NodeNames": self.node_names,
                "FailedNodes": self.failed_nodes, "FailedAndUnresolvableNodes":
                self.failed_and_unresolvable_nodes, "Error": self.error}

    @staticmethod
    def from_json(v: Any) -> ExtenderFilterResult:
        obj = _opt_object(v, "ExtenderFilterResult") or {}
        p = "ExtenderFilterResult"
        return ExtenderFilterResult(
            _node_list(_get(obj, "Nodes"), f"{p}.Nodes"), _names(_get(obj, "NodeNames"), f"{p}.NodeNames"),
            _str_map(_get(obj, "FailedNodes"), f"{p}.FailedNodes"),
            _str_map(_get(obj, "FailedAndUnresolvableNodes"), f"{p}.FailedAndUnresolvableNodes"),
            _str(_get(obj, "Error"), f"{p}.Error"))


@dataclass(frozen=True, slots=True)
class HostPriority:
    """HostPriority: a node's score, 0..MaxExtenderPriority."""

    host: str
    score: int

    def to_json(self) -> dict[str, Any]:
        return {"Host": self.host, "Score": self.score}


def encode_host_priority_list(items: list[HostPriority]) -> list[dict[str, Any]]:
    """HostPriorityList as JSON."""
    return [hp.to_json() for hp in items]


_PLAIN_NAMES = re.compile(r"[a-z0-9.\-]*")
"""Characters of DNS subdomain names (what node names are): nothing to escape in JSON."""


_SCORE_TAILS = {i: f'", "Score": {i}}}' for i in range(MAX_EXTENDER_PRIORITY + 1)}
"""What follows a plain host name in its HostPriority, per extender score."""
_SCORE_TAILS_NEXT = {i: tail + ', {"Host": "' for i, tail in _SCORE_TAILS.items()}
"""The same, followed by the start of the next HostPriority."""


def host_priority_list_text(hosts: Sequence[str], scores: Sequence[int]) -> str:
    """HostPriorityList as JSON text, from parallel sequences: the same document as
    ``json.dumps(encode_host_priority_list(...))`` without an object per node (a server
    answering for thousands of nodes per request allocates nothing the collector tracks).
    Plain names (nothing to escape) with scores 0..MaxExtenderPriority, what the server
    answers, are one join of the names and per-score constant strings (no Python code and
    no string built per node)."""
    if len(hosts) != len(scores):
        raise ValueError(f"{len(hosts)} hosts but {len(scores)} scores")
    if not hosts:
        return "[]"
    if _PLAIN_NAMES.fullmatch("".join(hosts)):  # nothing to escape
        try:
            parts: list[str] = [*hosts, *hosts]
            parts[0::2] = hosts
            parts[1::2] = map(_SCORE_TAILS_NEXT.__getitem__, scores)
            parts[-1] = _SCORE_TAILS[scores[-1]]
            return '[{"Host": "' + "".join(parts) + "]"
        except KeyError:  # a score outside 0..MaxExtenderPriority
            pass
    items = [f'{{"Host": {json.dumps(h)}, "Score": {int(sc)}}}' for h, sc in zip(hosts, scores, strict=True)]
    return "[" + ", ".join(items) + "]"


def decode_host_priority_list(v: Any) -> list[HostPriority]:
    """HostPriorityList from JSON (``null`` is an empty list, as Go decodes it)."""
    items = _list(v, "HostPriorityList") or []
    out = []
    for i, x in enumerate(items):
        obj = _object(x, f"HostPriorityList[{i}]")
        out.append(HostPriority(_str(_get(obj, "Host"), f"HostPriorityList[{i}].Host"),
                                _int(_get(obj, "Score"), f"HostPriorityList[{i}].Score")))
    return out


@dataclass(slots=True)
class ExtenderPreemptionArgs:
    """ExtenderPreemptionArgs: the preemptor and, per candidate node, the victims the scheduler
    chose: full pods (``nodeCacheCapable: false``) or UIDs (``nodeCacheCapable: true``)."""

    pod: Pod
    node_name_to_victims: dict[str, Victims] | None = None
    node_name_to_meta_victims: dict[str, MetaVictims] | None = None

    def to_json(self) -> dict[str, Any]:
        full = self.node_name_to_victims
        meta = self.node_name_to_meta_victims
        return {"Pod": self.pod.to_dict(),
                "NodeNameToVictims": None if full is None else {n: v.to_json() for n, v in full.items()},
                "NodeNameToMetaVictims": None if meta is None else {n: v.to_json() for n, v in meta.items()}}

    @staticmethod
    def from_json(v: Any) -> ExtenderPreemptionArgs:
        p = "ExtenderPreemptionArgs"
        obj = _object(v, p)
        pod = _get(obj, "Pod")
        if pod is None:
            raise WireError(f"{p}.Pod: missing")
        full = _opt_object(_get(obj, "NodeNameToVictims"), f"{p}.NodeNameToVictims")
        meta = _opt_object(_get(obj, "NodeNameToMetaVictims"), f"{p}.NodeNameToMetaVictims")
        return ExtenderPreemptionArgs(
            _pod(pod, f"{p}.Pod"),
            None if full is None else {str(n): Victims.from_json(x, f"{p}.NodeNameToVictims[{n}]")
                                       for n, x in full.items()},
            None if meta is None else {str(n): MetaVictims.from_json(x, f"{p}.NodeNameToMetaVictims[{n}]")
                                       for n, x in meta.items()})


@dataclass(slots=True)
class ExtenderPreemptionResult:
    """ExtenderPreemptionResult: the nodes kept and their victims, always by UID."""

    node_name_to_meta_victims: dict[str, MetaVictims] | None = None

    def to_json(self) -> dict[str, Any]:
        meta = self.node_name_to_meta_victims
        return {"NodeNameToMetaVictims": None if meta is None else {n: v.to_json() for n, v in meta.items()}}

    @staticmethod
    def from_json(v: Any) -> ExtenderPreemptionResult:
        p = "ExtenderPreemptionResult"
        obj = _opt_object(v, p) or {}
        meta = _opt_object(_get(obj, "NodeNameToMetaVictims"), f"{p}.NodeNameToMetaVictims")
        return ExtenderPreemptionResult(
            None if meta is None else {str(n): MetaVictims.from_json(x, f"{p}.NodeNameToMetaVictims[{n}]")
                                       for n, x in meta.items()})


@dataclass(frozen=True, slots=True)
class ExtenderBindingArgs:
    """ExtenderBindingArgs: bind this pod to that node."""

    pod_name: str
    pod_namespace: str
    pod_uid: str
    node: str

    def to_json(self) -> dict[str, Any]:
        return {"PodName": self.pod_name, "PodNamespace": self.pod_namespace, "PodUID": self.pod_uid,
                "Node": self.node}

    @staticmethod
    def from_json(v: Any) -> ExtenderBindingArgs:
        p = "ExtenderBindingArgs"
        obj = _object(v, p)
        return ExtenderBindingArgs(*(_str(_get(obj, k), f"{p}.{k}")
                                     for k in ("PodName", "PodNamespace", "PodUID", "Node")))


@dataclass(frozen=True, slots=True)
class ExtenderBindingResult:
    """ExtenderBindingResult: an error message, empty when the binding was made."""

    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"Error": self.error}

    @staticmethod
    def from_json(v: Any) -> ExtenderBindingResult:
        obj = _opt_object(v, "ExtenderBindingResult") or {}
        return ExtenderBindingResult(_str(_get(obj, "Error"), "ExtenderBindingResult.Error"))
