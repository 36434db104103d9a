"""The resourceclaim controller: ResourceClaims from a pod's ResourceClaimTemplates, and their
release when the pod is gone.

Mirrors pkg/controller/resourceclaim/controller.go (master 2026), the parts a simulation needs:

- ``syncPod`` / ``handleClaim``: for each ``spec.resourceClaims`` entry naming a template and
  not yet in ``status.resourceClaimStatuses``, create the claim from the template (its
  ``spec.spec``; labels and annotations from its ``spec.metadata``, plus the annotation
  ``resource.kubernetes.io/pod-claim-name``), named ``<pod>-<pod claim>-`` + 5 random
  characters (both parts cut proportionally when longer than 57 characters), owned by the pod
  (controller, blockOwnerDeletion); an orphan made earlier for the same pod and entry is
  reused. Then the pod status records the names (UpdateStatus). A pod that is finished or
  being deleted gets no new claim; a template that does not exist yet is retried when one is
  created.
- ``syncClaim``: a finished or deleted pod is removed from ``reservedFor``; a claim reserved
  for nobody is deleted when it was generated for a pod that is gone or finished (the garbage
  collector's part upstream), else deallocated (allocation, device status and the scheduler's
  finalizer removed) so its devices are free again. The claim the scheduler creates for a pod's
  extended resources backed by DRA (owned by the pod) is released the same way.

Random suffixes come from the manager's seeded generator: same input and seed, same names.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any, Final

from ..api import DELETE, Pod, ResourceClaim, ResourceClaimTemplate
from ..api.loader import ApiObject
from ..clock import Clock
from ..cluster import Store
from ._context import Context

__all__ = ["POD_CLAIM_NAME_ANNOTATION", "ResourceClaimController", "generate_claim_base", "generate_claims"]

POD_CLAIM_NAME_ANNOTATION: Final = "resource.kubernetes.io/pod-claim-name"
FINALIZER: Final = "resource.kubernetes.io/delete-protection"
MAX_BASE_LEN: Final = 57  # room for 5 random characters (and upstream's hyphen) in 63


def generate_claim_base(pod_name: str, claim_name: str) -> str:
    """handleClaim's generateName: ``<pod>-<claim>-``; when longer than 57 characters, both
    names are cut in proportion to their length (and the trailing hyphen dropped), so that the
    pod claim's name survives a long pod name."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) > MAX_BASE_LEN:
        n = len(base)
        base = (pod_name[: len(pod_name) * MAX_BASE_LEN // n] + "-"
                + claim_name[: len(claim_name) * MAX_BASE_LEN // n])
    return base


def _is_done(pod: Pod) -> bool:
    """isPodDone: none of its containers runs or ever will: a terminal phase, or deleted
    before it was scheduled (a scheduled pod being deleted keeps its devices until it is gone,
    i.e. until its graceful termination ends)."""
    return pod.is_terminal or (pod.meta.deletion_timestamp is not None and not pod.node_name)


def _owned_by(claim: ResourceClaim, pod_uid: str) -> bool:
    return any(ref.get("controller") is True and ref.get("uid") == pod_uid
               for ref in claim.meta.owner_references)


def _owner_uids(claim: ResourceClaim) -> list[str]:
    return [str(ref.get("uid")) for ref in claim.meta.owner_references
            if ref.get("controller") is True and ref.get("kind") == "Pod" and ref.get("uid")]


def _related_uids(claim: ResourceClaim) -> list[str]:
    """The uids a claim's release depends on: those of its owners and of its consumers."""
    return [*(str(ref.get("uid")) for ref in claim.meta.owner_references if ref.get("uid")),
            *(r.uid for r in claim.reserved_for if r.uid)]


class _ClaimIndex:
    """Claims by uid (upstream's informer indexers): built from the store on first use, then
    kept current by the store's watch (``observe``), so that a lookup costs the claims found,
    not every claim in the store."""

    def __init__(self, store: Store, keys: Callable[[ResourceClaim], Iterable[str]]) -> None:
        self._store = store
        self._keys = keys
        self._index: dict[str, dict[tuple[str, str], ResourceClaim]] | None = None

    def get(self, uid: str) -> Iterable[ResourceClaim]:
        if self._index is None:
            self._index = {}
            for claim in self._store.list("ResourceClaim"):
                self.observe(None, claim)
        return self._index.get(uid, {}).values()

    def observe(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        if self._index is None:
            return  # nothing to keep before the index is first needed
        for claim, add in ((old, False), (new, True)):
            if claim is None:
                continue
            key = (claim.meta.namespace, claim.meta.name)
            for uid in self._keys(claim):
                if add:
                    self._index.setdefault(uid, {})[key] = claim
                else:
                    bucket = self._index.get(uid)
                    if bucket is not None:
                        bucket.pop(key, None)
                        if not bucket:
                            del self._index[uid]


class ResourceClaimController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._by_owner = _ClaimIndex(ctx.store, _owner_uids)
        self._by_pod = _ClaimIndex(ctx.store, _related_uids)

    # -- pods -----------------------------------------------------------------------------------
    def sync_pod(self, pod: Pod) -> None:
        """syncPod: generate the missing claims of ``pod`` and record them in its status."""
        if _is_done(pod):
            return
        pod_claims = [c for c in pod.resource_claims if c.resource_claim_template_name is not None]
        if not pod_claims:
            return
        recorded = {s.name for s in pod.resource_claim_statuses}
        new_statuses: list[dict[str, Any]] = []
        for pod_claim in pod_claims:
            if pod_claim.name in recorded:
                continue
            name = self._handle_claim(pod, pod_claim.name, pod_claim.resource_claim_template_name or "")
            if name is None:
                continue  # the template does not exist (yet): retried on the template's creation
            new_statuses.append({"name": pod_claim.name, "resourceClaimName": name})
        if not new_statuses:
            return
        current = self.ctx.store.try_get("Pod", pod.namespace, pod.name)
        if current is None or current.uid != pod.uid:
            return
        statuses = [{"name": s.name, "resourceClaimName": s.resource_claim_name}
                    for s in current.resource_claim_statuses]
        self.ctx.store.update(current.with_changes(
            {("status", "resourceClaimStatuses"): [*statuses, *new_statuses]}))

    def _handle_claim(self, pod: Pod, pod_claim_name: str, template_name: str) -> str | None:
        orphan = self._find_pod_resource_claim(pod, pod_claim_name)
        if orphan is not None:
            return orphan.meta.name
        template = self.ctx.store.try_get("ResourceClaimTemplate", pod.namespace, template_name)
        if not isinstance(template, ResourceClaimTemplate):
            return None
        spec_meta = template.raw.get("spec", {}).get("metadata") or {}
        annotations = {**(spec_meta.get("annotations") or {}), POD_CLAIM_NAME_ANNOTATION: pod_claim_name}
        meta: dict[str, Any] = {
            "name": self.ctx.unique_name("ResourceClaim", pod.namespace,
                                         generate_claim_base(pod.name, pod_claim_name)),
            "namespace": pod.namespace,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                                 "controller": True, "blockOwnerDeletion": True}],
            "annotations": annotations,
        }
        if spec_meta.get("labels"):
            meta["labels"] = dict(spec_meta["labels"])
        manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
                    "spec": template.raw.get("spec", {}).get("spec") or {}}
        claim = self.ctx.create(ResourceClaim.from_dict(manifest))
        return str(claim.meta.name)

    def _find_pod_resource_claim(self, pod: Pod, pod_claim_name: str) -> ResourceClaim | None:
        """findPodResourceClaim: a claim of the pod's namespace owned by the pod and annotated
        with the entry's name. Looked up in an index of the claims by owner uid (upstream's
        informer indexer), built on first use and kept up to date by the store's watch: a scan
        per pod would make generating claims quadratic in the number of pods."""
        for claim in self._by_owner.get(pod.uid):
            if claim.meta.namespace == pod.namespace and \
                    claim.meta.annotations.get(POD_CLAIM_NAME_ANNOTATION) == pod_claim_name:
                return claim
        return None

    def observe(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        """A claim changed in the store: keep the indexes current."""
        self._by_owner.observe(old, new)
        self._by_pod.observe(old, new)

    # -- claims ---------------------------------------------------------------------------------
    def sync_claims(self, claims: Iterable[ResourceClaim]) -> None:
        for claim in claims:
            self.sync_claim(claim)

    def release(self, pod_uids: Iterable[str]) -> None:
        """syncClaim for every claim owned by or reserved for one of ``pod_uids`` (pods gone or
        finished), in the store's order (namespace, name). Found through an index by uid: a
        scan of every claim per released pod made pod churn quadratic."""
        found: dict[tuple[str, str], ResourceClaim] = {}
        for uid in pod_uids:
            for claim in self._by_pod.get(uid):
                found[(claim.meta.namespace, claim.meta.name)] = claim
        for key in sorted(found):
            self.sync_claim(found[key])

    def sync_claim(self, claim: ResourceClaim) -> None:
        """syncClaim: drop reservations of pods that are gone or finished; when the last one
        goes, deallocate the claim (its devices are free again, and the scheduler's queueing
        hint on the deallocation wakes the pods waiting for devices); a claim generated for a
        pod that is gone or finished is then deleted (the garbage collector's part)."""
        store = self.ctx.store
        ns = claim.meta.namespace
        owner = next((ref for ref in claim.meta.owner_references
                      if ref.get("controller") is True and ref.get("kind") == "Pod"), None)
        reserved = list(claim.raw.get("status", {}).get("reservedFor") or [])
        valid = [r for r in reserved if r.get("resource") != "pods" or self._pod_active(ns, r)]
        if len(valid) < len(reserved):
            changes: dict[tuple[str, ...], Any] = {("status", "reservedFor"): valid or DELETE}
            if not valid:
                finalizers = [f for f in claim.raw.get("metadata", {}).get("finalizers") or []
                              if f != FINALIZER]
                changes.update({("status", "allocation"): DELETE, ("status", "devices"): DELETE,
                                ("metadata", "finalizers"): finalizers or DELETE})
            store.update(claim.with_changes(changes))
        if not valid and owner is not None and not self._pod_active(ns, owner):
            store.delete("ResourceClaim", ns, claim.meta.name)

    def _pod_active(self, namespace: str, ref: Any) -> bool:
        pod = self.ctx.store.try_get("Pod", namespace, str(ref.get("name") or ""))
        return isinstance(pod, Pod) and pod.uid == ref.get("uid") and not _is_done(pod)


def generate_claims(store: Store, clock: Clock, seed: int = 0) -> list[ApiObject]:
    """One pass of the controller over every pod: the claims of their templates created and
    recorded in their status, as the controller would have done before the scheduler saw them
    (``explain`` runs no controllers, yet a pod waits for its claims). Returns the claims made."""
    ctx = Context(store, random.Random(seed), clock)
    controller = ResourceClaimController(ctx)
    for pod in store.list("Pod"):
        if isinstance(pod, Pod) and not pod.node_name:
            controller.sync_pod(pod)
    return list(ctx.created)
