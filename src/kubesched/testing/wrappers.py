"""Test builders for pods and nodes, after upstream's ``pkg/scheduler/testing/wrappers.go``.

``make_pod()`` / ``make_node()`` return mutable builders whose setters return the builder, so
upstream cases port unchanged (``MakePod().Name("p").Req(...).Obj()`` becomes
``make_pod().name("p").req({...}).obj()``). The builders edit a plain manifest dict and
``obj()`` parses it with ``Pod.from_dict`` / ``Node.from_dict``: tests exercise the same
parsing as real manifests, and the builder can go on being edited after ``obj()``.

Kept from upstream: each ``req`` call adds a container named ``con<N>``; ``capacity`` sets
capacity *and* allocatable and a node always has ``pods: 32`` unless told otherwise.
Differs: pods default to namespace ``default`` (the loader's default) instead of ``""``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Self

from ..api import Node, Pod, format_time
from ..cache import Snapshot

__all__ = ["NodeBuilder", "PodBuilder", "label_selector", "make_node", "make_pod", "snapshot_of"]

AffinityKind = Literal["required", "preferred"]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _quantities(res: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): v if isinstance(v, int | float) else str(v) for k, v in res.items()}


def label_selector(selector: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A ``metav1.LabelSelector`` dict from either a selector dict (``matchLabels`` /
    ``matchExpressions`` keys) or a plain label map (taken as ``matchLabels``)."""
    if selector is None:
        return None
    if set(selector) <= {"matchLabels", "matchExpressions"} and selector:
        return copy.deepcopy(dict(selector))
    return {"matchLabels": {str(k): str(v) for k, v in selector.items()}}


def _expr_selector(key: str, op: str, values: Sequence[str] = ()) -> dict[str, Any]:
    expr: dict[str, Any] = {"key": key, "operator": op}
    if values:
        expr["values"] = list(values)
    return {"matchExpressions": [expr]}


class _ObjectBuilder:
    """What every builder shares: a manifest dict, its sections, and the metadata setters.
    ``Self`` keeps the chain typed as the concrete builder."""

    _d: dict[str, Any]

    @property
    def _meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self._d["metadata"]
        return meta

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._d["spec"]
        return spec

    @property
    def _status(self) -> dict[str, Any]:
        status: dict[str, Any] = self._d.setdefault("status", {})
        return status

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the manifest built so far."""
        return copy.deepcopy(self._d)

    def name(self, name: str) -> Self:
        self._meta["name"] = name
        return self

    def uid(self, uid: str) -> Self:
        self._meta["uid"] = uid
        return self

    def label(self, key: str, value: str) -> Self:
        self._meta.setdefault("labels", {})[key] = value
        return self

    def labels(self, labels: Mapping[str, str]) -> Self:
        for k, v in labels.items():
            self.label(k, v)
        return self

    def annotation(self, key: str, value: str) -> Self:
        self._meta.setdefault("annotations", {})[key] = value
        return self


class PodBuilder(_ObjectBuilder):
    """A mutable v1.Pod manifest with chainable setters (upstream PodWrapper)."""

    def __init__(self) -> None:
        self._d: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "", "namespace": "default"},
            "spec": {"containers": []},
        }

    # -- internals --------------------------------------------------------------
    def _affinity(self, kind: str) -> dict[str, Any]:
        aff: dict[str, Any] = self._spec.setdefault("affinity", {}).setdefault(kind, {})
        return aff

    def obj(self) -> Pod:
        """The immutable Pod (upstream Obj())."""
        return Pod.from_dict(self.to_dict())

    # -- metadata ---------------------------------------------------------------
    def namespace(self, namespace: str) -> PodBuilder:
        self._meta["namespace"] = namespace
        return self

    def owner_reference(self, name: str, kind: str = "ReplicaSet", api_version: str = "apps/v1",
                        uid: str = "", controller: bool = True) -> PodBuilder:
        ref = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid or name,
               "controller": controller}
        self._meta.setdefault("ownerReferences", []).append(ref)
        return self

    def creation_timestamp(self, seconds: float) -> PodBuilder:
        self._meta["creationTimestamp"] = format_time(seconds)
        return self

    def deletion_timestamp(self, seconds: float) -> PodBuilder:
        self._meta["deletionTimestamp"] = format_time(seconds)
        return self

    def terminating(self) -> PodBuilder:
        """Upstream Terminating(): a deletion time stamp (epoch 0 unless one is set)."""
        self._meta.setdefault("deletionTimestamp", format_time(0))
        return self

    # -- containers and resources -------------------------------------------------
    def _container(self, res: Mapping[str, Any] | None, prefix: str, n: int,
                   limits: Mapping[str, Any] | None = None) -> dict[str, Any]:
        c: dict[str, Any] = {"name": f"{prefix}{n}", "image": "registry.k8s.io/pause:3.10"}
        resources: dict[str, Any] = {}
        if res:
            resources["requests"] = _quantities(res)
        if limits:
            resources["limits"] = _quantities(limits)
        if resources:
            c["resources"] = resources
        return c

    def req(self, res: Mapping[str, Any], limits: Mapping[str, Any] | None = None) -> PodBuilder:
        """Add a container requesting ``res`` (upstream Req: one container per call)."""
        cs = self._spec.setdefault("containers", [])
        cs.append(self._container(res, "con", len(cs), limits))
        return self

    def container(self, container: Mapping[str, Any]) -> PodBuilder:
        """Add a raw container dict."""
        self._spec.setdefault("containers", []).append(copy.deepcopy(dict(container)))
        return self

    def container_image(self, image: str) -> PodBuilder:
        """Add a container running ``image`` (upstream ContainerImage)."""
        cs = self._spec.setdefault("containers", [])
        cs.append({"name": f"con{len(cs)}", "image": image})
        return self

    def init_req(self, res: Mapping[str, Any], sidecar: bool = False) -> PodBuilder:
        """Add an init container (upstream InitReq); ``sidecar`` makes it restartable
        (``restartPolicy: Always``, upstream SidecarReq)."""
        cs = self._spec.setdefault("initContainers", [])
        c = self._container(res, "init-con", len(cs))
        if sidecar:
            c["restartPolicy"] = "Always"
        cs.append(c)
        return self

    def sidecar_req(self, res: Mapping[str, Any]) -> PodBuilder:
        return self.init_req(res, sidecar=True)

    def pod_level_req(self, res: Mapping[str, Any]) -> PodBuilder:
        """Pod-level ``spec.resources.requests`` (upstream Res)."""
        self._spec.setdefault("resources", {})["requests"] = _quantities(res)
        return self

    def overhead(self, res: Mapping[str, Any]) -> PodBuilder:
        self._spec["overhead"] = _quantities(res)
        return self

    def host_port(self, port: int, protocol: str = "TCP", ip: str = "") -> PodBuilder:
        """Add a container with one host port (upstream ContainerPort/HostPort)."""
        p: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if ip:
            p["hostIP"] = ip
        cs = self._spec.setdefault("containers", [])
        cs.append({"name": f"con{len(cs)}", "image": "registry.k8s.io/pause:3.10", "ports": [p]})
        return self

    # -- scheduling fields --------------------------------------------------------
    def node(self, node_name: str) -> PodBuilder:
        self._spec["nodeName"] = node_name
        return self

    def node_selector(self, selector: Mapping[str, str]) -> PodBuilder:
        self._spec["nodeSelector"] = dict(selector)
        return self

    def priority(self, value: int) -> PodBuilder:
        self._spec["priority"] = value
        return self

    def priority_class_name(self, name: str) -> PodBuilder:
        self._spec["priorityClassName"] = name
        return self

    def preemption_policy(self, policy: str) -> PodBuilder:
        self._spec["preemptionPolicy"] = policy
        return self

    def scheduler_name(self, name: str) -> PodBuilder:
        self._spec["schedulerName"] = name
        return self

    def termination_grace_period(self, seconds: int) -> PodBuilder:
        self._spec["terminationGracePeriodSeconds"] = seconds
        return self

    def toleration(self, key: str = "", value: str = "", effect: str = "", operator: str | None = None,
                   toleration_seconds: int | None = None) -> PodBuilder:
        """Add a toleration; the operator defaults to Equal with a value, else Exists."""
        t: dict[str, Any] = {"operator": operator or ("Equal" if value else "Exists")}
        if key:
            t["key"] = key
        if value:
            t["value"] = value
        if effect:
            t["effect"] = effect
        if toleration_seconds is not None:
            t["tolerationSeconds"] = toleration_seconds
        self._spec.setdefault("tolerations", []).append(t)
        return self

    def _node_term(self, expr: Mapping[str, Any]) -> PodBuilder:
        na = self._affinity("nodeAffinity")
        terms = na.setdefault(_REQUIRED, {}).setdefault("nodeSelectorTerms", [])
        if not terms:
            terms.append({"matchExpressions": []})
        terms[0].setdefault("matchExpressions", []).append(dict(expr))
        return self

    def node_affinity_in(self, key: str, values: Sequence[str]) -> PodBuilder:
        """ANDs ``key In values`` into the first required term (upstream NodeAffinityIn)."""
        return self._node_term({"key": key, "operator": "In", "values": list(values)})

    def node_affinity_not_in(self, key: str, values: Sequence[str]) -> PodBuilder:
        return self._node_term({"key": key, "operator": "NotIn", "values": list(values)})

    def node_affinity_term(self, term: Mapping[str, Any]) -> PodBuilder:
        """ORs a raw NodeSelectorTerm into the required node affinity."""
        na = self._affinity("nodeAffinity")
        na.setdefault(_REQUIRED, {}).setdefault("nodeSelectorTerms", []).append(copy.deepcopy(dict(term)))
        return self

    def preferred_node_affinity(self, weight: int, term: Mapping[str, Any]) -> PodBuilder:
        na = self._affinity("nodeAffinity")
        na.setdefault(_PREFERRED, []).append({"weight": weight, "preference": copy.deepcopy(dict(term))})
        return self

    def _pod_affinity(self, kind_key: str, topology_key: str, selector: Mapping[str, Any] | None,
                      kind: AffinityKind, weight: int, namespaces: Sequence[str] | None,
                      namespace_selector: Mapping[str, Any] | None,
                      match_label_keys: Sequence[str] | None,
                      mismatch_label_keys: Sequence[str] | None) -> PodBuilder:
        term: dict[str, Any] = {"topologyKey": topology_key}
        sel = label_selector(selector)
        if sel is not None:
            term["labelSelector"] = sel
        if namespaces is not None:
            term["namespaces"] = list(namespaces)
        if namespace_selector is not None:
            term["namespaceSelector"] = label_selector(namespace_selector) or {}
        if match_label_keys:
            term["matchLabelKeys"] = list(match_label_keys)
        if mismatch_label_keys:
            term["mismatchLabelKeys"] = list(mismatch_label_keys)
        aff = self._affinity(kind_key)
        if kind == "required":
            aff.setdefault(_REQUIRED, []).append(term)
        else:
            aff.setdefault(_PREFERRED, []).append({"weight": weight, "podAffinityTerm": term})
        return self

    def pod_affinity(self, topology_key: str, selector: Mapping[str, Any] | None,
                     kind: AffinityKind = "required", weight: int = 1,
                     namespaces: Sequence[str] | None = None,
                     namespace_selector: Mapping[str, Any] | None = None,
                     match_label_keys: Sequence[str] | None = None,
                     mismatch_label_keys: Sequence[str] | None = None) -> PodBuilder:
        """Add a pod affinity term; ``selector`` is a LabelSelector dict or a label map."""
        return self._pod_affinity("podAffinity", topology_key, selector, kind, weight, namespaces,
                                  namespace_selector, match_label_keys, mismatch_label_keys)

    def pod_anti_affinity(self, topology_key: str, selector: Mapping[str, Any] | None,
                          kind: AffinityKind = "required", weight: int = 1,
                          namespaces: Sequence[str] | None = None,
                          namespace_selector: Mapping[str, Any] | None = None,
                          match_label_keys: Sequence[str] | None = None,
                          mismatch_label_keys: Sequence[str] | None = None) -> PodBuilder:
        return self._pod_affinity("podAntiAffinity", topology_key, selector, kind, weight, namespaces,
                                  namespace_selector, match_label_keys, mismatch_label_keys)

    def pod_affinity_exists(self, label_key: str, topology_key: str,
                            kind: AffinityKind = "required", weight: int = 1) -> PodBuilder:
        """Upstream PodAffinityExists."""
        return self.pod_affinity(topology_key, _expr_selector(label_key, "Exists"), kind, weight)

    def pod_affinity_in(self, label_key: str, topology_key: str, values: Sequence[str],
                        kind: AffinityKind = "required", weight: int = 1) -> PodBuilder:
        return self.pod_affinity(topology_key, _expr_selector(label_key, "In", values), kind, weight)

    def pod_affinity_not_in(self, label_key: str, topology_key: str, values: Sequence[str],
                            kind: AffinityKind = "required", weight: int = 1) -> PodBuilder:
        return self.pod_affinity(topology_key, _expr_selector(label_key, "NotIn", values), kind, weight)

    def pod_anti_affinity_exists(self, label_key: str, topology_key: str,
                                 kind: AffinityKind = "required", weight: int = 1) -> PodBuilder:
        return self.pod_anti_affinity(topology_key, _expr_selector(label_key, "Exists"), kind, weight)

    def pod_anti_affinity_in(self, label_key: str, topology_key: str, values: Sequence[str],
                             kind: AffinityKind = "required", weight: int = 1) -> PodBuilder:
        return self.pod_anti_affinity(topology_key, _expr_selector(label_key, "In", values), kind, weight)

    def pod_anti_affinity_not_in(self, label_key: str, topology_key: str, values: Sequence[str],
                                 kind: AffinityKind = "required", weight: int = 1) -> PodBuilder:
        return self.pod_anti_affinity(topology_key, _expr_selector(label_key, "NotIn", values), kind, weight)

    def spread_constraint(self, max_skew: int, topology_key: str, when_unsatisfiable: str,
                          selector: Mapping[str, Any] | None, min_domains: int | None = None,
                          node_affinity_policy: str | None = None, node_taints_policy: str | None = None,
                          match_label_keys: Sequence[str] | None = None) -> PodBuilder:
        """Add a topology spread constraint (upstream SpreadConstraint, same argument order)."""
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": topology_key,
                             "whenUnsatisfiable": when_unsatisfiable}
        sel = label_selector(selector)
        if sel is not None:
            c["labelSelector"] = sel
        if min_domains is not None:
            c["minDomains"] = min_domains
        if node_affinity_policy is not None:
            c["nodeAffinityPolicy"] = node_affinity_policy
        if node_taints_policy is not None:
            c["nodeTaintsPolicy"] = node_taints_policy
        if match_label_keys:
            c["matchLabelKeys"] = list(match_label_keys)
        self._spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def scheduling_gates(self, gates: Iterable[str]) -> PodBuilder:
        self._spec["schedulingGates"] = [{"name": g} for g in gates]
        return self

    def pod_group(self, name: str) -> PodBuilder:
        """``spec.schedulingGroup.podGroupName``: the pod belongs to that PodGroup."""
        self._spec["schedulingGroup"] = {"podGroupName": name}
        return self

    def resource_claims(self, names: Iterable[str]) -> PodBuilder:
        """``spec.resourceClaims`` (DRA), each naming a ResourceClaim of the same name."""
        self._spec["resourceClaims"] = [{"name": n, "resourceClaimName": n} for n in names]
        return self

    def pvc(self, claim_name: str, volume_name: str | None = None, read_only: bool = False) -> PodBuilder:
        """Add a persistentVolumeClaim volume (upstream PVC)."""
        src: dict[str, Any] = {"claimName": claim_name}
        if read_only:
            src["readOnly"] = True
        return self.volume({"name": volume_name or claim_name, "persistentVolumeClaim": src})

    def volume(self, volume: Mapping[str, Any]) -> PodBuilder:
        """Add a raw v1.Volume dict."""
        self._spec.setdefault("volumes", []).append(copy.deepcopy(dict(volume)))
        return self

    # -- status -------------------------------------------------------------------
    def nominated_node_name(self, node_name: str) -> PodBuilder:
        self._status["nominatedNodeName"] = node_name
        return self

    def start_time(self, seconds: float) -> PodBuilder:
        self._status["startTime"] = format_time(seconds)
        return self

    def phase(self, phase: str) -> PodBuilder:
        self._status["phase"] = phase
        return self

    def condition(self, type_: str, status: str = "True", reason: str = "", message: str = "") -> PodBuilder:
        c: dict[str, Any] = {"type": type_, "status": status}
        if reason:
            c["reason"] = reason
        if message:
            c["message"] = message
        conds = [x for x in self._status.get("conditions", []) if x.get("type") != type_]
        conds.append(c)
        self._status["conditions"] = conds
        return self

    def conditions(self, conditions: Iterable[Mapping[str, Any]]) -> PodBuilder:
        self._status["conditions"] = [dict(c) for c in conditions]
        return self

    def ready(self) -> PodBuilder:
        """Phase Running with a Ready=True condition (what PDB health counts)."""
        return self.phase("Running").condition("Ready", "True")


class NodeBuilder(_ObjectBuilder):
    """A mutable v1.Node manifest with chainable setters (upstream NodeWrapper)."""

    def __init__(self) -> None:
        self._d: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": ""},
            "spec": {},
            "status": {},
        }
        self.capacity({})

    def obj(self) -> Node:
        """The immutable Node (upstream Obj())."""
        return Node.from_dict(self.to_dict())

    def capacity(self, res: Mapping[str, Any]) -> NodeBuilder:
        """Set capacity and allocatable to ``res`` plus ``pods: 32`` unless given (upstream Capacity)."""
        q = {"pods": "32", **_quantities(res)}
        self._status["capacity"] = dict(q)
        self._status["allocatable"] = dict(q)
        return self

    def allocatable(self, res: Mapping[str, Any]) -> NodeBuilder:
        """Set allocatable alone (capacity unchanged)."""
        self._status["allocatable"] = _quantities(res)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        t: dict[str, Any] = {"key": key, "effect": effect}
        if value:
            t["value"] = value
        self._spec.setdefault("taints", []).append(t)
        return self

    def taints(self, taints: Iterable[Mapping[str, Any]]) -> NodeBuilder:
        self._spec["taints"] = [dict(t) for t in taints]
        return self

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        self._spec["unschedulable"] = value
        return self

    def images(self, images: Mapping[str, int]) -> NodeBuilder:
        """Images present on the node: name -> size in bytes (upstream Images)."""
        self._status["images"] = [{"names": [n], "sizeBytes": s} for n, s in images.items()]
        return self

    def condition(self, type_: str, status: str = "True") -> NodeBuilder:
        conds = [c for c in self._status.get("conditions", []) if c.get("type") != type_]
        conds.append({"type": type_, "status": status})
        self._status["conditions"] = conds
        return self


def make_pod() -> PodBuilder:
    """A pod builder (upstream MakePod)."""
    return PodBuilder()


def make_node() -> NodeBuilder:
    """A node builder with ``pods: 32`` capacity (upstream MakeNode)."""
    return NodeBuilder()


def snapshot_of(nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> Snapshot:
    """A Snapshot of ``nodes`` with each pod on the node its ``node_name`` names, image states
    included (upstream cache.NewSnapshot); pods naming no listed node are left out."""
    return Snapshot.from_objects(nodes, [p for p in pods if p.node_name])
