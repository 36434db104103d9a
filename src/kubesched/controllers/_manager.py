"""The controller manager: the workload controllers, driven by the clock, acting on the store.

What kube-controller-manager is to a cluster, for a simulation: it watches the store and, when
something a controller cares about changed (a workload, a pod a workload controls, a node while
DaemonSets exist), schedules one reconcile at the current instant of the clock. The reconcile
is level-triggered, as upstream's sync handlers are: each controller compares what exists with
what its objects want and creates what is missing, so running it again changes nothing.
Deployments go first (their ReplicaSets get pods in the same pass). Random name suffixes come
from one generator seeded with the simulation's seed: same input and seed, same names.

The scheduler never calls this; ``simulate`` (and later modes that run a clock) do.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..api import PersistentVolumeClaim, Pod
from ..api.loader import ApiObject
from ..clock import Clock, Timer
from ..cluster import Store, StoreError, WatchEvent
from ._context import Context
from ._daemonset import DaemonSetController
from ._deployment import DeploymentController
from ._job import JobController
from ._kubelet import PodRunner
from ._persistentvolume import PersistentVolumeController
from ._pods import controller_ref
from ._replicaset import ReplicaSetController
from ._resourceclaim import ResourceClaimController
from ._statefulset import StatefulSetController

log = logging.getLogger(__name__)

__all__ = ["WORKLOAD_KINDS", "ControllerManager"]

WORKLOAD_KINDS: Final = (
    "Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet", "Job")
"""In reconcile order."""


class ControllerManager:
    def __init__(self, store: Store, clock: Clock, seed: int = 0,
                 features: Mapping[str, bool] | None = None) -> None:
        """``features``: feature gates (WorkloadWithJob: every root Job gets a Workload)."""
        self.store = store
        self.clock = clock
        self.ctx = Context(store, random.Random(seed), clock, requeue=self._requeue,
                           features=dict(features or {}))
        self._later: list[Timer] = []
        self.deployments = DeploymentController(self.ctx)
        self.replica_sets = ReplicaSetController(self.ctx)
        self.stateful_sets = StatefulSetController(self.ctx)
        self.daemon_sets = DaemonSetController(self.ctx)
        self.jobs = JobController(self.ctx)
        self.runner = PodRunner(store, clock)
        self.resource_claims = ResourceClaimController(self.ctx)
        self.volumes = PersistentVolumeController(self.ctx)
        self._claim_pods: dict[tuple[str, str], None] = {}  # pods whose claims to generate, in order
        self._released: dict[str, None] = {}  # uids of pods gone or finished, whose claims to release
        self._syncs: dict[str, Callable[[Any], None]] = {
            "Deployment": self.deployments.sync,
            "ReplicaSet": self.replica_sets.sync,
            "ReplicationController": self.replica_sets.sync,
            "StatefulSet": self.stateful_sets.sync,
            "DaemonSet": self.daemon_sets.sync,
            "Job": self.jobs.sync,
        }
        self._tick: Timer | None = None
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def created(self) -> list[ApiObject]:
        """Every object the controllers created, first version, in creation order."""
        return self.ctx.created

    def start(self) -> None:
        """Watch the store, let the kubelet time the pods already running, and reconcile now."""
        self._unsubscribe = self.store.subscribe(self._on_event)
        for pod in self.store.list("Pod"):
            self.runner.observe(pod)
            self._observe_claims(pod, gone=False)
        self.volumes.queue_all([c for c in self.store.list("PersistentVolumeClaim")
                                if isinstance(c, PersistentVolumeClaim)])
        self._request()

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        for t in self._later:
            t.cancel()
        self._later = []

    def next_due(self) -> float:
        """When the controllers (or the kubelet) will next act on their own: a pending
        reconcile, or a pod finishing; ``math.inf`` when nothing is due."""
        tick = self._tick.when if self._tick is not None and not self._tick.cancelled else math.inf
        self._later = [t for t in self._later if not t.cancelled]
        later = min((t.when for t in self._later), default=math.inf)
        return min(tick, later, self.runner.next_due())

    def sync_all(self) -> None:
        """One reconcile of every workload, kind by kind in WORKLOAD_KINDS order."""
        self._tick = None
        for kind in WORKLOAD_KINDS:
            sync = self._syncs[kind]
            for obj in self.store.list(kind):
                try:
                    sync(obj)
                except (StoreError, ValueError) as exc:
                    # The API server refused a write (a pod name an unowned pod already has, a
                    # template admission rejects): upstream's sync handler returns the error,
                    # processNextWorkItem logs it and the object is synced again later; the
                    # other workloads go on (pkg/controller/*, HandleError).
                    log.warning("syncing %s %s: %s", kind, obj.meta.key, exc)
        self._sync_resource_claims()
        self.volumes.sync()  # after the workloads: a StatefulSet's new claims are bound at once

    def _sync_resource_claims(self) -> None:
        """The resourceclaim controller's work queue: pods whose template claims are missing,
        then the claims of pods that are gone or finished."""
        while self._claim_pods:
            key = next(iter(self._claim_pods))
            del self._claim_pods[key]
            pod = self.store.try_get("Pod", *key)
            if isinstance(pod, Pod):
                self.resource_claims.sync_pod(pod)
        if self._released:
            uids = list(self._released)
            self._released.clear()
            self.resource_claims.release(uids)

    def _observe_claims(self, pod: Pod, gone: bool) -> None:
        """Queue the resourceclaim controller's work for ``pod`` (a pod with resource claims, or
        with the claim the scheduler created for its extended resources backed by DRA)."""
        if not pod.raw.get("spec", {}).get("resourceClaims") and not (
                (pod.raw.get("status") or {}).get("extendedResourceClaimStatus")):
            return
        if gone or pod.is_terminal or pod.meta.deletion_timestamp is not None:
            self._released[pod.uid] = None
            self._request()
        elif len(pod.resource_claim_statuses) < sum(
                1 for c in pod.resource_claims if c.resource_claim_template_name is not None):
            self._claim_pods[(pod.namespace, pod.name)] = None
            self._request()

    def _requeue(self, delay: float) -> None:
        """A reconcile ``delay`` seconds from now (once fired, it no longer counts as due); none
        when one is already due by then."""
        due = self.clock.now + delay
        if any(not t.cancelled and t.when <= due for t in self._later):
            return
        holder: list[Timer] = []

        def fire() -> None:
            holder[0].cancelled = True
            self._request()

        holder.append(self.clock.schedule(delay, fire))
        self._later.append(holder[0])

    def _request(self) -> None:
        if self._tick is None:
            self._tick = self.clock.schedule(0.0, self.sync_all)

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind in self._syncs:
            self._request()
        elif ev.kind == "Pod" and not ev.is_pending_pod_status_update:
            pod = ev.new if ev.new is not None else ev.old
            if isinstance(ev.new, Pod):
                self.runner.observe(ev.new)
            if isinstance(pod, Pod):
                self._observe_claims(pod, gone=ev.new is None)
            ref = controller_ref(pod) if isinstance(pod, Pod) else None
            if ref is not None and ref.get("kind") in self._syncs:
                self._request()
        elif ev.kind == "Node" and ev.type != "DELETED" and self.store.list("DaemonSet"):
            self._request()
        elif ev.kind == "ResourceClaim":
            self.resource_claims.observe(ev.old, ev.new)  # type: ignore[arg-type]
        elif ev.kind == "PersistentVolumeClaim":
            claim = ev.new if isinstance(ev.new, PersistentVolumeClaim) else None
            meta = (ev.new if ev.new is not None else ev.old).meta  # type: ignore[union-attr]
            if self.volumes.observe_claim(claim, (meta.namespace, meta.name)):
                self._request()
        elif ev.kind == "PersistentVolume":
            self.volumes.observe_volume(ev.old, ev.new)  # type: ignore[arg-type]
        elif ev.kind == "StorageClass" and ev.new is not None:
            self.volumes.observe_class()
        elif ev.kind == "ResourceClaimTemplate" and ev.type == "ADDED" and ev.new is not None:
            for pod in self.store.list("Pod", ev.new.meta.namespace):
                self._observe_claims(pod, gone=False)


