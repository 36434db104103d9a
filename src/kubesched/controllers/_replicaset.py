"""The ReplicaSet controller, also acting for ReplicationControllers.

Mirrors pkg/controller/replicaset/replica_set.go (master 2026; the ReplicationController
controller is the same code behind an adapter) ``manageReplicas``: claim the pods the selector
matches; when fewer than ``spec.replicas`` are active, create the difference from the template,
each named ``<owner>-<5 random characters>`` (generateName ``<owner>-``); when more are active
(a scale down, or surplus pods adopted), delete the difference, at most ``burstReplicas`` (500)
per sync, chosen by ``getPodsToDelete``: the active pods ranked by ``ActivePodsWithRanks``
(_ranking.py) with each pod's rank the number of active pods on its node among the pods of
every ReplicaSet with the same controller (``getIndirectlyRelatedPods``: a Deployment's
ReplicaSets; none for a ReplicaSet without a controller, whose ranks are then all 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..api import Pod, ReplicaSet, ReplicationController, kind_of
from ._context import Context
from ._pods import claim, controller_ref, is_active, pod_manifest
from ._ranking import rank_for_deletion, related_ranks

__all__ = ["BURST_REPLICAS", "ReplicaSetController", "selector_matches"]

BURST_REPLICAS: Final = 500
"""kube-controller-manager's default burstReplicas: creations or deletions per sync at most."""

Owner = ReplicaSet | ReplicationController


def selector_matches(owner: Owner, labels: Mapping[str, str]) -> bool:
    """A ReplicaSet's label selector, or a ReplicationController's label map, selects ``labels``."""
    if isinstance(owner, ReplicaSet):
        return owner.selector.matches(labels)
    return all(labels.get(k) == v for k, v in owner.selector.items())


class ReplicaSetController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def pods(self, rs: Owner) -> list[Pod]:
        """The pods ``rs`` controls, orphans it selects adopted (ClaimPods)."""
        return claim(self.ctx.store, rs, "Pod", lambda labels: selector_matches(rs, labels))

    def sync(self, rs: Owner) -> None:
        """syncReplicaSet / manageReplicas."""
        if rs.template is None or rs.meta.deletion_timestamp is not None:
            return
        active = [p for p in self.pods(rs) if is_active(p)]
        diff = len(active) - rs.replicas
        if diff > 0:
            for pod in self._pods_to_delete(rs, active, min(diff, BURST_REPLICAS)):
                self.ctx.delete(pod)
            return
        base = f"{rs.name}-"
        for _ in range(-diff):
            name = self.ctx.unique_name("Pod", rs.namespace, base)
            self.ctx.create(Pod.from_dict(pod_manifest(rs.template, rs, name, generate_name=base)))

    def _pods_to_delete(self, rs: Owner, active: list[Pod], diff: int) -> list[Pod]:
        """getPodsToDelete: no ranking when every active pod goes."""
        if diff >= len(active):
            return active
        ranks = related_ranks(active, self._related_pods(rs), is_active)
        return rank_for_deletion(active, ranks=ranks, now=self.ctx.clock.now)[:diff]

    def _related_pods(self, rs: Owner) -> list[Pod]:
        """getIndirectlyRelatedPods: the pods selected by each ReplicaSet with the same
        controller as ``rs`` (itself included), each pod once."""
        ref = controller_ref(rs)
        if ref is None:
            return []
        store, kind = self.ctx.store, kind_of(rs)
        seen: set[str] = set()
        out: list[Pod] = []
        for other in store.list(kind, rs.namespace):
            oref = controller_ref(other)
            if oref is None or (oref.get("kind"), oref.get("name"), oref.get("uid")) != (
                    ref.get("kind"), ref.get("name"), ref.get("uid")):
                continue
            for pod in store.list("Pod", rs.namespace):
                if pod.uid not in seen and selector_matches(other, pod.labels):
                    seen.add(pod.uid)
                    out.append(pod)
        return out

    @staticmethod
    def wanted(rs: Owner) -> int:
        return rs.replicas
