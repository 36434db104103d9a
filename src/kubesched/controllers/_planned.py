"""How many pods an input makes the controllers create: counted before anything runs.

A Deployment with ``replicas: 2147483647`` is valid to the API server and would keep a
simulation creating and scheduling pods for days; the front ends refuse such an input up front
(``--max-pods``) and need the count, and the object that asks for the most, to say why.

What each object accounts for, at most, over a run without failures (what the controllers aim
at, as ``wanted`` in _status.py):

- a Deployment, ReplicaSet, ReplicationController or StatefulSet: ``spec.replicas``;
- a Job: ``spec.completions`` (each completion is one pod that ran), ``spec.parallelism`` when
  completions is unset (done when any pod succeeds);
- a DaemonSet: one pod per node of the input, an upper bound (its node selector, affinity and
  tolerations are not applied here);
- a Pod: one, unless a workload of the input controls it (counted with the workload, which
  adopts it); a ReplicaSet a Deployment of the input controls is counted with the Deployment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..api import (
    DaemonSet,
    Deployment,
    Job,
    Node,
    Pod,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
    kind_of,
)
from ..api.loader import ApiObject
from ._manager import WORKLOAD_KINDS
from ._pods import controller_ref

__all__ = ["PlannedPods", "planned_pods", "planned_share"]


@dataclass(frozen=True, slots=True)
class PlannedPods:
    """One object's share: ``pods`` it accounts for and ``why`` (``spec.replicas 3``)."""

    obj: ApiObject
    pods: int
    why: str


def planned_pods(objects: Sequence[ApiObject]) -> list[PlannedPods]:
    """Each object of ``objects`` that accounts for pods (see the module docstring), in input
    order; their sum is how many pods a run of this input creates or keeps, at most."""
    present = {(kind_of(o), o.meta.namespace, o.meta.name) for o in objects}
    nodes = sum(1 for o in objects if isinstance(o, Node))

    def controlled(obj: ApiObject) -> bool:
        ref = controller_ref(obj)
        return ref is not None and ref.get("kind") in WORKLOAD_KINDS \
            and (ref.get("kind"), obj.meta.namespace, ref.get("name")) in present

    out = []
    for obj in objects:
        share = planned_share(obj, nodes)
        if share is not None and not controlled(obj):
            out.append(share)
    return out


def planned_share(obj: ApiObject, nodes: int) -> PlannedPods | None:
    """The pods ``obj`` accounts for on its own (a DaemonSet: one per node of ``nodes``);
    None for an object that makes no pods."""
    if isinstance(obj, Pod):
        return PlannedPods(obj, 1, "a pod")
    if isinstance(obj, Deployment | ReplicaSet | ReplicationController | StatefulSet):
        return PlannedPods(obj, obj.replicas, f"spec.replicas {obj.replicas:,}")
    if isinstance(obj, Job):
        if obj.completions is not None:
            return PlannedPods(obj, obj.completions, f"spec.completions {obj.completions:,}")
        return PlannedPods(obj, obj.parallelism, f"spec.parallelism {obj.parallelism:,}")
    if isinstance(obj, DaemonSet):
        return PlannedPods(obj, nodes, f"one pod per node, {nodes:,} nodes")
    return None
