"""How a Deployment's size is spread over its ReplicaSets when it is scaled.

Mirrors pkg/controller/deployment/sync.go ``scale`` and ``isScalingEvent`` and
pkg/controller/deployment/util/deployment_util.go (``FindActiveOrLatest``, ``IsSaturated``,
``GetReplicaSetProportion``, ``getReplicaSetFraction``), master 2026. With at most one active
ReplicaSet (replicas > 0; the common case) that one (or the newest) gets the Deployment's
replicas. With several (a rollout under way in the input), a saturated new ReplicaSet makes the
old ones go to 0; otherwise a RollingUpdate Deployment spreads the difference between
replicas + maxSurge and the ReplicaSets' total in proportion to each ReplicaSet's share of its
``max-replicas`` annotation, the largest first (the older first among equals when scaling down,
the newer when scaling up), the rounding leftover going to the first.

The ReplicaSet's status (availableReplicas) and the Deployment's (replicas), which kubesched's
controllers do not write, are computed from the pods, as the controllers would have written them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..api import Deployment, Pod, ReplicaSet, parse_time
from ._context import Context
from ._pods import controller_ref, is_active, refers_to

__all__ = ["DESIRED_REPLICAS_ANNOTATION", "MAX_REPLICAS_ANNOTATION", "DeploymentScaler", "max_surge"]

DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"


def max_surge(d: Deployment) -> int:
    """deploymentutil.MaxSurge: 0 unless RollingUpdate; else maxSurge scaled to the replicas,
    a percentage rounded up (GetScaledValueFromIntOrPercent)."""
    if d.strategy != "RollingUpdate":
        return 0
    if isinstance(d.max_surge, int):
        return d.max_surge
    return -(-int(d.max_surge[:-1]) * d.replicas // 100)


def _annotation_int(rs: ReplicaSet, key: str) -> int | None:
    """getIntFromAnnotation: strconv.Atoi of the annotation, None when absent or invalid."""
    text = rs.meta.annotations.get(key)
    if text is None:
        return None
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isascii() and body.isdigit() else None


def _round(x: float) -> int:
    """integer.RoundToInt32: math.Round, halves away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _by_creation(rs: ReplicaSet) -> tuple[float, str]:
    """ReplicaSetsByCreationTimestamp: older first, then by name."""
    ts = rs.meta.creation_timestamp
    return (ts if ts is not None else -math.inf, rs.name)


class DeploymentScaler:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def is_scaling_event(self, d: Deployment, rss: Sequence[ReplicaSet]) -> bool:
        """isScalingEvent: an active ReplicaSet whose desired-replicas annotation is not the
        Deployment's replicas."""
        for rs in rss:
            if rs.replicas > 0:
                desired = _annotation_int(rs, DESIRED_REPLICAS_ANNOTATION)
                if desired is not None and desired != d.replicas:
                    return True
        return False

    def scale(self, d: Deployment, new: ReplicaSet | None, old: Sequence[ReplicaSet]) -> None:
        """scale (sync.go)."""
        only = self._active_or_latest(new, old)
        if only is not None:
            if only.replicas != d.replicas:
                self.scale_replica_set(only, d.replicas, d)
            return
        if self._saturated(d, new):
            for rs in old:
                if rs.replicas > 0:
                    self.scale_replica_set(rs, 0, d)
            return
        if d.strategy != "RollingUpdate":
            return
        active = [rs for rs in [*old, new] if rs is not None and rs.replicas > 0]
        total = sum(rs.replicas for rs in active)
        allowed = d.replicas + max_surge(d) if d.replicas > 0 else 0
        to_add = allowed - total
        if to_add > 0:  # ReplicaSetsBySizeNewer
            active.sort(key=_by_creation, reverse=True)
            active.sort(key=lambda rs: rs.replicas, reverse=True)
        elif to_add < 0:  # ReplicaSetsBySizeOlder
            active.sort(key=_by_creation)
            active.sort(key=lambda rs: rs.replicas, reverse=True)
        sizes: list[int] = []
        added = 0
        for rs in active:
            if to_add != 0:
                p = self._proportion(rs, d, to_add, added)
                sizes.append(rs.replicas + p)
                added += p
            else:
                sizes.append(rs.replicas)
        for i, rs in enumerate(active):
            if i == 0 and to_add != 0:
                sizes[0] = max(0, sizes[0] + to_add - added)  # the leftover to the largest
            self.scale_replica_set(rs, sizes[i], d)

    def scale_replica_set(self, rs: ReplicaSet, size: int, d: Deployment) -> None:
        """scaleReplicaSet: the new size and setReplicasAnnotations (desired-replicas,
        max-replicas = replicas + maxSurge), written when either changes."""
        annotations = {DESIRED_REPLICAS_ANNOTATION: str(d.replicas),
                       MAX_REPLICAS_ANNOTATION: str(d.replicas + max_surge(d))}
        if rs.replicas == size and all(rs.meta.annotations.get(k) == v for k, v in annotations.items()):
            return
        changes: dict[tuple[str, ...], object] = {("spec", "replicas"): size}
        for k, v in annotations.items():
            changes[("metadata", "annotations", k)] = v
        self.ctx.store.update(rs.with_changes(changes))

    @staticmethod
    def _active_or_latest(new: ReplicaSet | None, old: Sequence[ReplicaSet]) -> ReplicaSet | None:
        """FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active;
        None when several are."""
        if new is None and not old:
            return None
        newest_first = sorted(old, key=_by_creation, reverse=True)
        active = [rs for rs in [*newest_first, new] if rs is not None and rs.replicas > 0]
        if not active:
            return new if new is not None else newest_first[0]
        return active[0] if len(active) == 1 else None

    def _saturated(self, d: Deployment, new: ReplicaSet | None) -> bool:
        """IsSaturated: the new ReplicaSet is at the Deployment's size, says so in its
        desired-replicas annotation, and has that many available pods."""
        if new is None:
            return False
        desired = _annotation_int(new, DESIRED_REPLICAS_ANNOTATION)
        return (desired is not None and new.replicas == d.replicas == desired
                and self._available(new) == d.replicas)

    def _available(self, rs: ReplicaSet) -> int:
        """status.availableReplicas: its active pods Ready for minReadySeconds."""
        min_ready = rs.raw.get("spec", {}).get("minReadySeconds") or 0
        now = self.ctx.clock.now
        n = 0
        for pod in self._pods_of(rs):
            ready = pod.condition("Ready") or {}
            if ready.get("status") != "True":
                continue
            since = parse_time(ready.get("lastTransitionTime"))
            if min_ready <= 0 or since is None or since + min_ready < now:
                n += 1
        return n

    def _pods_of(self, rs: ReplicaSet) -> list[Pod]:
        out = []
        for pod in self.ctx.store.list("Pod", rs.namespace):
            ref = controller_ref(pod)
            if ref is not None and is_active(pod) and refers_to(ref, rs):
                out.append(pod)
        return out

    def _proportion(self, rs: ReplicaSet, d: Deployment, to_add: int, added: int) -> int:
        """GetReplicaSetProportion: this ReplicaSet's part of ``to_add`` (bounded by what is
        left of it)."""
        if rs.replicas == 0 or to_add == 0 or to_add == added:
            return 0
        fraction = self._fraction(rs, d)
        allowed = to_add - added
        return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)

    def _fraction(self, rs: ReplicaSet, d: Deployment) -> int:
        """getReplicaSetFraction: the size ``rs`` would have at the new size in proportion to
        its max-replicas annotation (else the Deployment's status.replicas), minus its size."""
        if d.replicas == 0:
            return -rs.replicas
        annotated = _annotation_int(rs, MAX_REPLICAS_ANNOTATION)
        if annotated is None:
            status = d.raw.get("status") or {}
            annotated = status.get("replicas") if isinstance(status.get("replicas"), int) else None
            if annotated is None:  # not written by our controllers: the pods it counts
                annotated = sum(len(self._pods_of(o)) for o in self.ctx.store.list("ReplicaSet", d.namespace)
                                if (ref := controller_ref(o)) is not None and refers_to(ref, d))
        if annotated == 0:
            return 0  # upstream divides by zero here; no proportion to speak of
        return _round(rs.replicas * (d.replicas + max_surge(d)) / annotated) - rs.replicas
