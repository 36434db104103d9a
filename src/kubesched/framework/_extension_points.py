"""The extension points as data: config key, plugin methods, the arity each method takes.

One table shared by the config (plugin sets per point), the runtime (one plugin list per point,
in upstream's getExtensionPoints order, pkg/scheduler/framework/runtime/framework.go) and the
out-of-tree loader (which checks that a class really implements the points it is enabled for).
Membership is decided by method presence, as Go decides it by interface satisfaction.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

__all__ = ["EXTENSION_POINTS", "EXTENSION_POINT_BY_KEY", "ExtensionPoint", "implements", "signature_problem"]


@dataclass(frozen=True, slots=True)
class ExtensionPoint:
    key: str
    """The field in ``profiles[].plugins`` (``preFilter``, ``score``, …)."""
    type_name: str
    """Upstream's interface name, used in errors as upstream does (``ScorePlugin``)."""
    methods: tuple[tuple[str, tuple[str, ...]], ...]
    """(method, parameter names after self) a plugin needs for this point."""

    def implemented_by(self, obj: Any) -> bool:
        return all(callable(getattr(obj, m, None)) for m, _ in self.methods)


EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("preFilter", "PreFilterPlugin", (("pre_filter", ("state", "pod", "nodes")),)),
    ExtensionPoint("filter", "FilterPlugin", (("filter", ("state", "pod", "node_info")),)),
    ExtensionPoint("postFilter", "PostFilterPlugin",
                   (("post_filter", ("state", "pod", "filtered_node_status")),)),
    ExtensionPoint("reserve", "ReservePlugin", (("reserve", ("state", "pod", "node_name")),
                                                ("unreserve", ("state", "pod", "node_name")))),
    ExtensionPoint("preScore", "PreScorePlugin", (("pre_score", ("state", "pod", "nodes")),)),
    ExtensionPoint("score", "ScorePlugin", (("score", ("state", "pod", "node_info")),)),
    ExtensionPoint("preBind", "PreBindPlugin", (("pre_bind", ("state", "pod", "node_name")),)),
    ExtensionPoint("bind", "BindPlugin", (("bind", ("state", "pod", "node_name")),)),
    ExtensionPoint("postBind", "PostBindPlugin", (("post_bind", ("state", "pod", "node_name")),)),
    ExtensionPoint("permit", "PermitPlugin", (("permit", ("state", "pod", "node_name")),)),
    ExtensionPoint("preEnqueue", "PreEnqueuePlugin", (("pre_enqueue", ("pod",)),)),
    ExtensionPoint("queueSort", "QueueSortPlugin", (("less", ("a", "b")),)),
)

EXTENSION_POINT_BY_KEY: dict[str, ExtensionPoint] = {e.key: e for e in EXTENSION_POINTS}


def implements(obj: Any) -> list[str]:
    """The config keys of the extension points ``obj`` (a class or an instance) implements."""
    return [e.key for e in EXTENSION_POINTS if e.implemented_by(obj)]


def signature_problem(cls: type, method: str, params: tuple[str, ...]) -> str | None:
    """Why ``cls.method`` cannot be called with ``params`` positionally, or None.

    Like pluggy's _verify_hook: the check happens once at load, so a wrong signature fails with
    the plugin and method named instead of deep inside a scheduling cycle."""
    fn = getattr(cls, method, None)
    if not callable(fn):
        return f"does not define {method}({', '.join(params)})"
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    ps = list(sig.parameters.values())
    if ps and ps[0].name in ("self", "cls") and inspect.isfunction(fn):
        ps = ps[1:]
    if any(p.kind == p.VAR_POSITIONAL for p in ps):
        return None
    positional = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    required_kw = [p for p in ps if p.kind == p.KEYWORD_ONLY and p.default is p.empty]
    if len(required) > len(params) or len(positional) < len(params) or required_kw:
        got = ", ".join(p.name for p in ps)
        return f"{method}({got}) must accept ({', '.join(params)})"
    return None
