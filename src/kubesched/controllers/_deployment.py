"""The Deployment controller: a Deployment's ReplicaSet.

Mirrors pkg/controller/deployment/sync.go ``getNewReplicaSet`` (master 2026): the new
ReplicaSet is the owned one whose template equals the Deployment's, ignoring the
``pod-template-hash`` label (``EqualIgnoreHash``); when there is none, create
``<deployment>-<hash>`` with the hash of the template and ``status.collisionCount``
(:func:`compute_hash`), the hash added to the template's labels, to the selector's
matchLabels and to the ReplicaSet's labels, ``spec.replicas`` of the Deployment (no rollout:
there is no old ReplicaSet to scale down in a simulation that starts from manifests), the
Deployment's annotations (``copyDeploymentAnnotationsToReplicaSet``) and the
``deployment.kubernetes.io/revision``, ``desired-replicas`` and ``max-replicas`` (replicas +
maxSurge) annotations. A paused Deployment gets no new ReplicaSet. A Deployment whose size
changes scales its ReplicaSets (_deployment_scale.py). A name taken by a
ReplicaSet with another template is a hash collision: the count goes up and the hash is
computed again, as upstream does on its next sync.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from ..api import Deployment, ReplicaSet
from ._context import Context
from ._deployment_scale import (
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    DeploymentScaler,
    max_surge,
)
from ._names import canonical_json, compute_hash
from ._pods import claim, owner_reference

__all__ = ["POD_TEMPLATE_HASH_LABEL", "DeploymentController"]

POD_TEMPLATE_HASH_LABEL: Final = "pod-template-hash"
REVISION_ANNOTATION: Final = "deployment.kubernetes.io/revision"
LAST_APPLIED: Final = "kubectl.kubernetes.io/last-applied-configuration"


def _without_hash(template: Mapping[str, Any]) -> bytes:
    t = copy.deepcopy(dict(template))
    labels = (t.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH_LABEL, None)
    return canonical_json(t)


def _copied_annotations(d: Deployment) -> dict[str, str]:
    """copyDeploymentAnnotationsToReplicaSet: the Deployment's annotations but kubectl's
    last-applied configuration and the deployment.kubernetes.io/ ones the controller owns."""
    return {k: v for k, v in d.meta.annotations.items()
            if k != LAST_APPLIED and not k.startswith("deployment.kubernetes.io/")}


class DeploymentController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.scaler = DeploymentScaler(ctx)

    def replica_sets(self, d: Deployment) -> list[ReplicaSet]:
        """The ReplicaSets ``d`` controls (ClaimReplicaSets: orphans it selects adopted)."""
        return claim(self.ctx.store, d, "ReplicaSet", d.selector.matches)

    def sync(self, d: Deployment) -> None:
        """syncDeployment: the new ReplicaSet (created when missing), then ``scale`` when the
        Deployment is paused, its size changed (isScalingEvent) or one ReplicaSet at most is
        active (the rollout of several, which would otherwise run, is out of scope)."""
        want = _without_hash(d.template)
        rss = self.replica_sets(d)
        new = next((rs for rs in rss if rs.template is not None and _without_hash(rs.template) == want), None)
        old = [rs for rs in rss if rs is not new]
        if new is not None or d.paused:
            if (d.paused or sum(1 for rs in rss if rs.replicas > 0) <= 1
                    or self.scaler.is_scaling_event(d, rss)):
                self.scaler.scale(d, new, old)
            return
        store, cc = self.ctx.store, d.collision_count
        while True:
            h = compute_hash(d.template, cc)
            name = f"{d.name}-{h}"
            if store.try_get("ReplicaSet", d.namespace, name) is None:
                break
            cc = (cc or 0) + 1
        template = copy.deepcopy(dict(d.template))
        md = template["metadata"] = dict(template.get("metadata") or {})
        md["labels"] = {**(md.get("labels") or {}), POD_TEMPLATE_HASH_LABEL: h}
        selector = copy.deepcopy(dict(d.raw["spec"]["selector"]))
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH_LABEL: h}
        spec: dict[str, Any] = {"replicas": d.replicas, "selector": selector, "template": template}
        min_ready = d.raw["spec"].get("minReadySeconds")
        if min_ready is not None:
            spec["minReadySeconds"] = min_ready
        manifest = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": d.namespace, "labels": dict(md["labels"]),
                         "annotations": {**_copied_annotations(d),
                                         DESIRED_REPLICAS_ANNOTATION: str(d.replicas),
                                         MAX_REPLICAS_ANNOTATION: str(d.replicas + max_surge(d)),
                                         REVISION_ANNOTATION: "1"},
                         "ownerReferences": [owner_reference(d)]},
            "spec": spec,
        }
        self.ctx.create(ReplicaSet.from_dict(manifest))

    @staticmethod
    def wanted(d: Deployment) -> int:
        return d.replicas
