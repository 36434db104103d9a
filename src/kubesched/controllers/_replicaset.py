"""The ReplicaSet controller, also acting for ReplicationControllers.

Mirrors pkg/controller/replicaset/replica_set.go (master 2026; the ReplicationController
controller is the same code behind an adapter): claim the pods the selector matches, and when
fewer than ``spec.replicas`` are active, create the difference from the template, each named
``<owner>-<5 random characters>`` (generateName ``<owner>-``). Scaling down, and deleting
surplus pods, are out of scope (the simulation has no scaling).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..api import Pod, ReplicaSet, ReplicationController
from ._context import Context
from ._pods import claim, is_active, pod_manifest

__all__ = ["ReplicaSetController", "selector_matches"]


def selector_matches(owner: ReplicaSet | ReplicationController, labels: Mapping[str, str]) -> bool:
    """A ReplicaSet's label selector, or a ReplicationController's label map, selects ``labels``."""
    if isinstance(owner, ReplicaSet):
        return owner.selector.matches(labels)
    return all(labels.get(k) == v for k, v in owner.selector.items())


class ReplicaSetController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def pods(self, rs: ReplicaSet | ReplicationController) -> list[Pod]:
        """The pods ``rs`` controls, orphans it selects adopted (ClaimPods)."""
        return claim(self.ctx.store, rs, "Pod", lambda labels: selector_matches(rs, labels))

    def sync(self, rs: ReplicaSet | ReplicationController) -> None:
        """syncReplicaSet / manageReplicas (creation only)."""
        if rs.template is None:
            return
        active = [p for p in self.pods(rs) if is_active(p)]
        base = f"{rs.name}-"
        for _ in range(rs.replicas - len(active)):
            name = self.ctx.unique_name("Pod", rs.namespace, base)
            self.ctx.create(Pod.from_dict(pod_manifest(rs.template, rs, name, generate_name=base)))

    @staticmethod
    def wanted(rs: ReplicaSet | ReplicationController) -> int:
        return rs.replicas
