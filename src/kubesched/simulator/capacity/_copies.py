"""The copies ``kubesched capacity`` places: of a pod, or the next replicas of a workload.

A pod's copies are cluster-capacity's (pkg/framework/podgenerator.go, ``singlePodGenerator``):
the pod with no node, named ``<name>-<i>`` from 0 and a fresh uid each, admitted once as the API
server would admit the pod (priority, default tolerations).

A workload's copies are what its controller would create if it were scaled up one replica at a
time: the controller's own ``sync`` runs on the workload with more replicas (a StatefulSet with
``Parallel`` management, so the next ordinals come without waiting; a Job with room for more
active pods) against a store view that keeps the pods it creates instead of writing them. The
copies therefore carry the controller's names, labels, owner references and hostnames, and a
StatefulSet's claims are created for real (the volume binder must see them), those of an
Immediate class bound or provisioned at once by the PersistentVolume controller. Copies are made in
batches that double in size, so a long run calls ``sync`` a logarithmic number of times.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any, Final

from ...api import (
    INDEXED,
    ApiObject,
    Deployment,
    Job,
    PersistentVolumeClaim,
    Pod,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
    format_time,
    kind_of,
)
from ...cluster import MemoryStore
from ...controllers import ControllerManager, is_active

__all__ = ["COPY_KINDS", "pod_copies", "resolve_workload", "workload_copies"]

COPY_KINDS: Final = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job")
"""Workload kinds whose next replicas capacity counts (a DaemonSet has one pod per node)."""

_FIRST_BATCH: Final = 1
_MAX_BATCH: Final = 4096


def _new_uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def pod_copies(store: MemoryStore, template: Pod, rng: random.Random) -> Iterator[Pod]:
    """``<name>-0``, ``<name>-1``, ...: the template without node, status or identity, admitted
    once (raises the store's Invalid when admission refuses it)."""
    d = template.to_dict()
    d.pop("status", None)
    d["metadata"] = {k: v for k, v in (d.get("metadata") or {}).items()
                     if k not in ("uid", "resourceVersion", "creationTimestamp", "generateName")}
    d["metadata"].setdefault("namespace", "default")
    d.setdefault("spec", {}).pop("nodeName", None)
    base: Pod = store.admit(Pod.from_dict(d))
    base = base.with_changes({("metadata", "creationTimestamp"): format_time(store.clock.now)})
    name = template.name
    i = 0
    while True:
        yield base.with_changes({("metadata", "name"): f"{name}-{i}", ("metadata", "uid"): _new_uid(rng)})
        i += 1


class _Capture:
    """The store as a controller sees it while capacity scales its workload: pods it creates
    are admitted and kept here, not written (reads of pods include them, so the controller
    counts them as its own); everything else goes to the real store."""

    def __init__(self, store: MemoryStore, rng: random.Random) -> None:
        self._store = store
        self._rng = rng
        self.pods: list[Pod] = []
        self._by_name: dict[tuple[str, str], Pod] = {}

    def create(self, obj: ApiObject) -> Any:
        if not isinstance(obj, Pod):
            return self._store.create(obj)
        pod: Pod = self._store.admit(obj)
        pod = pod.with_changes({("metadata", "uid"): _new_uid(self._rng),
                                ("metadata", "creationTimestamp"): format_time(self._store.clock.now)})
        self.pods.append(pod)
        self._by_name[(pod.namespace, pod.name)] = pod
        return pod

    def try_get(self, kind: str, namespace: str, name: str) -> Any:
        if kind == "Pod" and (namespace, name) in self._by_name:
            return self._by_name[(namespace, name)]
        return self._store.try_get(kind, namespace, name)

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        out = self._store.list(kind, namespace)
        if kind == "Pod":
            out = [*out, *(p for p in self.pods if namespace is None or p.namespace == namespace)]
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def resolve_workload(store: MemoryStore, ref: str) -> ApiObject:
    """``KIND/NAMESPACE/NAME`` -> the workload in the store; ValueError naming what is wrong."""
    parts = ref.split("/")
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"--workload {ref}: expected KIND/NAMESPACE/NAME, e.g. Deployment/default/web")
    kind, namespace, name = parts
    known = {k.lower(): k for k in (*COPY_KINDS, "DaemonSet")}
    canonical = known.get(kind.lower())
    if canonical is None:
        raise ValueError(f"--workload {ref}: unknown kind {kind!r} (one of {', '.join(COPY_KINDS)})")
    if canonical == "DaemonSet":
        raise ValueError(f"--workload {ref}: a DaemonSet runs one pod per node and has no replicas to add")
    obj = store.try_get(canonical, namespace, name)
    if obj is None:
        raise ValueError(f"--workload {ref}: no {canonical} {namespace}/{name} in the input")
    return obj


def workload_copies(store: MemoryStore, workload: ApiObject, rng: random.Random) -> Iterator[Pod]:
    """The pods the workload's controller would create next, one at a time (see the module
    docstring); ValueError when the controller creates none (a paused Deployment without a
    ReplicaSet, a suspended Job, a workload without a template)."""
    capture = _Capture(store, rng)
    controllers = ControllerManager(capture, store.clock, rng.getrandbits(64))  # never started
    target = _replica_source(controllers, workload)
    batch = _FIRST_BATCH
    taken = 0
    while True:
        before = len(capture.pods)
        made = len(controllers.created)
        _scale_and_sync(controllers, target, batch)
        # The PersistentVolume controller binds (or provisions) the new claims of Immediate
        # classes before the scheduler sees their pods, as it would in the cluster.
        controllers.volumes.queue_all([o for o in controllers.created[made:]
                                       if isinstance(o, PersistentVolumeClaim)])
        controllers.volumes.sync()
        if len(capture.pods) == before:
            raise ValueError(f"{kind_of(workload)} {workload.meta.namespace}/{workload.meta.name}: "
                             "its controller creates no pods (paused, suspended or without a template)")
        while taken < len(capture.pods):
            yield capture.pods[taken]
            taken += 1
        batch = min(batch * 2, _MAX_BATCH)


def _replica_source(controllers: ControllerManager, workload: ApiObject) -> ApiObject:
    """The object whose controller creates the pods: a Deployment's ReplicaSet (the newest
    one it controls), else the workload itself."""
    if not isinstance(workload, Deployment):
        return workload
    owned = controllers.deployments.replica_sets(workload)
    if not owned:
        raise ValueError(f"Deployment {workload.meta.namespace}/{workload.meta.name}: no ReplicaSet "
                         "(a paused Deployment creates none)")
    return max(owned, key=lambda rs: (rs.meta.creation_timestamp or 0.0, rs.meta.name))


def _scale_and_sync(controllers: ControllerManager, target: ApiObject, more: int) -> None:
    """Run the controller's sync on ``target`` scaled so that it creates ``more`` pods."""
    if isinstance(target, ReplicaSet | ReplicationController):
        rsc = controllers.replica_sets
        active = sum(1 for p in rsc.pods(target) if is_active(p))
        rsc.sync(target.with_changes({("spec", "replicas"): active + more}))
    elif isinstance(target, StatefulSet):
        ssc = controllers.stateful_sets
        have = len(ssc.pods(target))
        ssc.sync(target.with_changes({("spec", "replicas"): max(target.replicas, have) + more,
                                      ("spec", "podManagementPolicy"): "Parallel"}))
    elif isinstance(target, Job):
        jc = controllers.jobs
        pods = jc.pods(target)
        active = sum(1 for p in pods if is_active(p))
        done = sum(1 for p in pods if p.phase == "Succeeded")
        # Room for ``more`` active pods; enough completions (Indexed: enough free indexes) left.
        completions = (target.completions + len(pods) + more
                       if target.completion_mode == INDEXED and target.completions is not None
                       else done + active + more)
        jc.sync(target.with_changes({("spec", "parallelism"): active + more,
                                     ("spec", "completions"): completions}))
