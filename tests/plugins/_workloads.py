"""Services and controllers for default topology spreading tests, and a store holding them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kubesched.api import DELETE, ApiObject, Pod, ReplicaSet, ReplicationController, Service, StatefulSet
from kubesched.cluster import MemoryStore

__all__ = ["Workloads", "replica_set", "replication_controller", "service", "stateful_set", "store_with",
           "workloads"]

_UNSET: Any = object()


def service(name: str = "svc", selector: dict[str, str] | None = _UNSET,
            namespace: str = "default") -> Service:
    """A Service; ``selector=None`` leaves ``spec.selector`` out (selects nothing)."""
    spec: dict[str, Any] = {"ports": [{"port": 80}]}
    if selector is not None:
        spec["selector"] = {} if selector is _UNSET else selector
    return Service.from_dict({"apiVersion": "v1", "kind": "Service",
                              "metadata": {"name": name, "namespace": namespace}, "spec": spec})


def replica_set(name: str, selector: dict[str, Any], namespace: str = "default") -> ReplicaSet:
    return ReplicaSet.from_dict({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                 "metadata": {"name": name, "namespace": namespace},
                                 "spec": {"selector": selector}})


def stateful_set(name: str, selector: dict[str, Any], namespace: str = "default") -> StatefulSet:
    return StatefulSet.from_dict({"apiVersion": "apps/v1", "kind": "StatefulSet",
                                  "metadata": {"name": name, "namespace": namespace},
                                  "spec": {"selector": selector}})


def replication_controller(name: str, selector: dict[str, str],
                           namespace: str = "default") -> ReplicationController:
    return ReplicationController.from_dict({"apiVersion": "v1", "kind": "ReplicationController",
                                            "metadata": {"name": name, "namespace": namespace},
                                            "spec": {"selector": selector}})


def store_with(*objects: ApiObject) -> MemoryStore:
    store = MemoryStore()
    store.load(objects)
    return store


# (apiVersion, kind) of the owners a pod may name; the last one is never a spreading owner.
OWNERS = (("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"), ("v1", "ReplicationController"),
          ("batch/v1", "Job"))


@dataclass(frozen=True)
class Workloads:
    """Services and a controller named ``rs`` (maybe absent) of the kind ``owner`` names."""

    objects: tuple[ApiObject, ...]
    owner: tuple[str, str]

    def own(self, pod: Pod) -> Pod:
        """``pod`` with its controller reference (if any) pointing at ``owner``'s kind, and
        without topology spread constraints when ``defaults`` (so the defaults apply)."""
        refs = [{**r, "apiVersion": self.owner[0], "kind": self.owner[1]} if r.get("controller") else r
                for r in pod.meta.owner_references]
        return pod.with_changes({("metadata", "ownerReferences"): refs}) if refs else pod

    @staticmethod
    def without_constraints(pod: Pod) -> Pod:
        return pod.with_changes({("spec", "topologySpreadConstraints"): DELETE})


_APP = st.sampled_from(["a", "b", "c"])
_TIER = st.sampled_from(["web", "db"])


@st.composite
def workloads(draw: st.DrawFn) -> Workloads:
    """0-2 Services of ``default`` selecting on app / tier (or everything, or nothing) and,
    usually, the controller ``rs`` with a selector on app or tier."""
    objs: list[ApiObject] = []
    for i in range(draw(st.integers(0, 2))):
        sel = draw(st.one_of(st.none(), st.just({}), st.builds(lambda a: {"app": a}, _APP),
                             st.builds(lambda t: {"tier": t}, _TIER)))
        objs.append(service(f"s{i}", sel))
    owner = draw(st.sampled_from(OWNERS))
    if draw(st.integers(0, 3)) > 0:
        app, tier = draw(_APP), draw(_TIER)
        if owner[1] == "ReplicationController":
            objs.append(replication_controller("rs", draw(st.sampled_from([{"app": app}, {"tier": tier}]))))
        elif owner[1] in ("ReplicaSet", "StatefulSet"):
            make = replica_set if owner[1] == "ReplicaSet" else stateful_set
            objs.append(make("rs", draw(st.sampled_from([
                {"matchLabels": {"app": app}},
                {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
                {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": [app]}]},
            ]))))
    return Workloads(tuple(objs), owner)
