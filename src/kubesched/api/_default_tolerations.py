"""The DefaultTolerationSeconds admission plugin, enabled by default on every API server.

Mirrors plugin/pkg/admission/defaulttolerationseconds/admission.go (master 2026): a pod created
without a NoExecute toleration for ``node.kubernetes.io/not-ready`` / ``unreachable`` gets one
for 300 seconds. The scheduler's TaintToleration filter considers NoExecute taints, so without
this a simulated pod would be refused by a not-ready node that a real cluster would accept.
"""

from __future__ import annotations

from typing import Any, Final

from ._pod import Pod
from ._raw import Path

__all__ = [
    "DEFAULT_TOLERATION_SECONDS",
    "TAINT_NODE_NOT_READY",
    "TAINT_NODE_UNREACHABLE",
    "add_default_tolerations",
    "default_toleration_changes",
]

DEFAULT_TOLERATION_SECONDS: Final = 300
TAINT_NODE_NOT_READY: Final = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE: Final = "node.kubernetes.io/unreachable"


def add_default_tolerations(pod: Pod) -> Pod:
    """The pod with the two default NoExecute tolerations added where it has none covering them
    (a toleration with an empty key or effect covers them too)."""
    changes = default_toleration_changes(pod)
    return pod.with_changes(changes) if changes else pod


def default_toleration_changes(pod: Pod) -> dict[Path, Any]:
    """:func:`add_default_tolerations` as the edit it makes (empty when none), for a store that
    applies it in one derived copy with its own."""
    missing = []
    for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not any(t.key in ("", key) and t.effect in ("", "NoExecute") for t in pod.tolerations):
            missing.append(key)
    if not missing:
        return {}
    existing: list[Any] = list((pod.raw.get("spec") or {}).get("tolerations") or [])
    added = [
        {
            "key": key,
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
        }
        for key in missing
    ]
    return {("spec", "tolerations"): existing + added}
