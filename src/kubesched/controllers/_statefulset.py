"""The StatefulSet controller: pods with stable ordinal names, and their claims.

Mirrors pkg/controller/statefulset (master 2026): ``stateful_set_utils.go``
(``newVersionedStatefulSetPod``: pod ``<set>-<ordinal>``, hostname the pod's name, subdomain the
service name, labels ``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index``
and ``controller-revision-hash`` = ``<set>-<revision hash>``; ``getPersistentVolumeClaims``:
claim ``<template>-<set>-<ordinal>`` labelled with the selector's matchLabels, mounted in
place of the template's volume of that name) and ``stateful_set_control.go``
(``updateStatefulSet``): ordinals ``[start, start+replicas)``; with ``OrderedReady`` the
controller creates the first missing pod and waits until every lower one is Running and Ready
(here: bound, and started by the simulated kubelet) and, with ``minReadySeconds``, has been
Ready that long (``isRunningAndAvailable``); with ``Parallel`` it creates every
missing pod at once. Claims are created before their pod. Scaling down (pods whose ordinal
is outside the range are condemned) deletes the highest ordinal first: with ``OrderedReady``
one per sync, once every replica is Running and Ready and each condemned pod above it is gone,
waiting for a condemned pod not Running and Ready (or not yet available) unless it is the
lowest unhealthy one; with ``Parallel`` all at once. The claims stay
(persistentVolumeClaimRetentionPolicy ``whenScaled: Retain``, the default); with
``whenScaled: Delete`` a condemned pod's claims get the pod as an owner and are deleted once
the pod is gone (the garbage collector's part). ``whenDeleted``, updates and recreating
failed pods are out of scope.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Final

from ..api import ORDERED_READY, PersistentVolumeClaim, Pod, StatefulSet, parse_time
from ._context import Context
from ._names import hash_controller_revision
from ._pods import claim, pod_manifest

__all__ = ["StatefulSetController", "claim_name", "revision_name"]

POD_NAME_LABEL: Final = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL: Final = "apps.kubernetes.io/pod-index"
REVISION_LABEL: Final = "controller-revision-hash"
_ORDINAL: Final = re.compile(r"^(.*)-([0-9]+)$")
DELETE_POLICY: Final = "Delete"


def _when_scaled(s: StatefulSet) -> str:
    """spec.persistentVolumeClaimRetentionPolicy.whenScaled (default Retain)."""
    policy = (s.raw.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy")
    value = policy.get("whenScaled") if isinstance(policy, dict) else None
    return value if isinstance(value, str) and value else "Retain"


def _healthy(pod: Pod) -> bool:
    """isHealthy: Running and Ready, and not terminating."""
    return is_running_and_ready(pod) and not pod.is_terminating


def ordinal_of(set_name: str, pod_name: str) -> int | None:
    """getParentNameAndOrdinal: the ordinal of a pod named ``<set>-<n>``, else None."""
    m = _ORDINAL.match(pod_name)
    if m is None or m[1] != set_name:
        return None
    return int(m[2])


def claim_name(template: PersistentVolumeClaim, s: StatefulSet, ordinal: int) -> str:
    """getPersistentVolumeClaimName."""
    return f"{template.name}-{s.name}-{ordinal}"


def revision_name(s: StatefulSet) -> str:
    """The current revision's name, ``<set>-<hash>``: history.HashControllerRevision over the
    revision's patch (getPatch: ``{"spec":{"template":{..., "$patch":"replace"}}}``), probed
    with ``status.collisionCount`` (0 when unset)."""
    template = {**copy.deepcopy(dict(s.template or {})), "$patch": "replace"}
    status = s.raw.get("status")
    cc = status.get("collisionCount") if isinstance(status, dict) else None
    probe = cc if type(cc) is int else 0
    return f"{s.name}-{hash_controller_revision({'spec': {'template': template}}, probe)}"


def is_running_and_ready(pod: Pod) -> bool:
    """isRunningAndReady: phase Running and the Ready condition True."""
    ready = pod.condition("Ready") or {}
    return pod.phase == "Running" and ready.get("status") == "True"


def available_in(pod: Pod, min_ready_seconds: int, now: float) -> float:
    """isRunningAndAvailable (podutil.IsPodAvailable) as a wait: seconds until the Ready pod has
    been Ready for ``min_ready_seconds`` (0: available now)."""
    if min_ready_seconds <= 0:
        return 0.0
    since = parse_time((pod.condition("Ready") or {}).get("lastTransitionTime"))
    if since is None:
        return 0.0
    return max(0.0, since + min_ready_seconds - now)


class StatefulSetController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def pods(self, s: StatefulSet) -> list[Pod]:
        return claim(self.ctx.store, s, "Pod", s.selector.matches)

    def sync(self, s: StatefulSet) -> None:
        """updateStatefulSet: the replicas in ordinal order, then the condemned pods."""
        if s.template is None or s.meta.deletion_timestamp is not None:
            return
        end = s.start_ordinal + s.replicas
        by_ordinal: dict[int, Pod] = {}
        condemned: list[tuple[int, Pod]] = []
        for p in self.pods(s):
            n = ordinal_of(s.name, p.name)
            if n is None:
                continue
            if s.start_ordinal <= n < end:
                by_ordinal[n] = p
            else:
                condemned.append((n, p))
        condemned.sort(key=lambda c: c[0], reverse=True)  # descendingOrdinal
        monotonic = s.pod_management_policy == ORDERED_READY
        if self._replicas(s, by_ordinal, monotonic):
            return
        self._collect_claims(s)
        if not condemned:
            return
        if _when_scaled(s) == DELETE_POLICY:
            for _, pod in condemned:
                self._claims_owned_by(s, pod)
        # firstUnhealthyPod: every replica is healthy by now (else the loop above blocked in
        # monotonic mode, and Parallel never waits), so the lowest unhealthy condemned ordinal
        first_unhealthy = next((p for _, p in reversed(condemned) if not _healthy(p)), None)
        for _, pod in condemned:
            if self._condemn(s, pod, pod is first_unhealthy, monotonic):
                return

    def _replicas(self, s: StatefulSet, by_ordinal: dict[int, Pod], monotonic: bool) -> bool:
        """processReplica over ``[start, start+replicas)``: create what is missing; in
        monotonic (OrderedReady) mode stop at the first pod created, terminating, not Running
        and Ready, or not yet available. True when it stopped (blocked)."""
        revision = revision_name(s)
        for ordinal in range(s.start_ordinal, s.start_ordinal + s.replicas):
            pod = by_ordinal.get(ordinal)
            if pod is None:
                self._create_claims(s, ordinal)
                self.ctx.create(Pod.from_dict(self._pod(s, ordinal, revision)))
                if monotonic:
                    return True  # OrderedReady: one at a time, wait for it to run
                continue
            if monotonic and (pod.is_terminating or not is_running_and_ready(pod)):
                return True
            if monotonic and (wait := available_in(pod, s.min_ready_seconds, self.ctx.clock.now)) > 0:
                self.ctx.requeue(wait)  # available after minReadySeconds: look again then
                return True
        return False

    def _condemn(self, s: StatefulSet, pod: Pod, first_unhealthy: bool, monotonic: bool) -> bool:
        """processCondemned: delete ``pod`` (the highest ordinal first); in monotonic mode wait
        for a terminating one to be gone, and for one not Running and Ready (or not yet
        available) unless it is the first unhealthy pod, and delete one per sync. True: stop."""
        if pod.is_terminating:
            return monotonic
        if monotonic and not first_unhealthy:
            if not is_running_and_ready(pod):
                return True
            if (wait := available_in(pod, s.min_ready_seconds, self.ctx.clock.now)) > 0:
                self.ctx.requeue(wait)
                return True
        self.ctx.delete(pod)
        return monotonic

    def _claims_owned_by(self, s: StatefulSet, pod: Pod) -> None:
        """UpdatePodClaimForRetentionPolicy with ``whenScaled: Delete``: a condemned pod's
        claims get the pod as an owner, so the garbage collector deletes them with it."""
        n = ordinal_of(s.name, pod.name)
        assert n is not None
        ref = {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.meta.uid}
        for t in s.volume_claim_templates:
            claim_ = self.ctx.store.try_get("PersistentVolumeClaim", s.namespace, claim_name(t, s, n))
            if claim_ is None or any(r.get("kind") == "Pod" and r.get("uid") == pod.meta.uid
                                     for r in claim_.meta.owner_references):
                continue
            refs = [dict(r) for r in claim_.meta.owner_references] + [ref]
            self.ctx.store.update(claim_.with_changes({("metadata", "ownerReferences"): refs}))

    def _collect_claims(self, s: StatefulSet) -> None:
        """The garbage collector's part for the set's claims: one owned by a pod that is gone
        (no pod of that name and uid) is deleted."""
        if not s.volume_claim_templates:
            return
        store = self.ctx.store
        prefixes = tuple(f"{t.name}-{s.name}-" for t in s.volume_claim_templates)
        for c in store.list("PersistentVolumeClaim", s.namespace):
            if not c.meta.name.startswith(prefixes):
                continue
            for r in c.meta.owner_references:
                if r.get("kind") != "Pod":
                    continue
                owner = store.try_get("Pod", s.namespace, str(r.get("name") or ""))
                if owner is None or (r.get("uid") and owner.meta.uid != r.get("uid")):
                    self.ctx.delete(c)
                    break

    def _pod(self, s: StatefulSet, ordinal: int, revision: str) -> dict[str, Any]:
        assert s.template is not None
        name = f"{s.name}-{ordinal}"
        d = pod_manifest(s.template, s, name, labels={
            REVISION_LABEL: revision, POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)})
        spec = d["spec"]
        spec["hostname"] = name
        if s.service_name:
            spec["subdomain"] = s.service_name
        if s.volume_claim_templates:
            volumes = [v for v in spec.get("volumes") or []
                       if not any(isinstance(v, dict) and v.get("name") == t.name
                                  for t in s.volume_claim_templates)]
            volumes += [{"name": t.name, "persistentVolumeClaim": {"claimName": claim_name(t, s, ordinal)}}
                        for t in s.volume_claim_templates]
            spec["volumes"] = volumes
        return d

    def _create_claims(self, s: StatefulSet, ordinal: int) -> None:
        """createPersistentVolumeClaims: each missing claim of the ordinal."""
        match_labels = dict((s.raw["spec"]["selector"] or {}).get("matchLabels") or {})
        for t in s.volume_claim_templates:
            name = claim_name(t, s, ordinal)
            if self.ctx.store.try_get("PersistentVolumeClaim", s.namespace, name) is not None:
                continue
            d = copy.deepcopy(dict(t.raw))
            d.pop("status", None)
            md = dict(d.get("metadata") or {})
            md.update(name=name, namespace=s.namespace, labels={**(md.get("labels") or {}), **match_labels})
            d.update(apiVersion="v1", kind="PersistentVolumeClaim", metadata=md)
            self.ctx.create(PersistentVolumeClaim.from_dict(d))

    @staticmethod
    def wanted(s: StatefulSet) -> int:
        return s.replicas
