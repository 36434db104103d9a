"""v1.Pod: the fields the scheduler reads, parsed once; the manifest kept for round trips.

A :class:`Pod` is immutable. Changes (binding, status patches, admission) build a new Pod
from an edited copy of :attr:`Pod.raw`, so fields the scheduler does not know survive
unchanged and every reader sees a consistent object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _fields as f
from ._cached import cached_property
from ._meta import ManifestObject, ObjectMeta, parse_int32, time_field
from ._quantity import parse_quantity, resource_value
from ._raw import Path, with_paths
from ._resources import ResourceList, is_supported_pod_level_resource, pod_requests
from ._scheduling_group import pod_group_name_of
from ._selectors import LabelSelector, NodeSelector, NodeSelectorTerm, Toleration
from ._util_validation import FieldErrors, is_dns1123_label, is_dns1123_subdomain, is_extended_resource_name

__all__ = [
    "Affinity",
    "Container",
    "ContainerPort",
    "Pod",
    "PodAffinityTerm",
    "PodResourceClaim",
    "PodResourceClaimStatus",
    "TopologySpreadConstraint",
    "WeightedNodeSelectorTerm",
    "WeightedPodAffinityTerm",
    "compute_qos",
    "parse_resource_list",
]


_INTEGER_RESOURCES = frozenset({
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})
"""helper.IsIntegerResourceName's standard names (pkg/apis/core/helper); extended resources
(``domain/name``) are integer resources too."""


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or ("/" in name and is_extended_resource_name(name))


def parse_resource_list(d: Mapping[str, Any] | None, path: str) -> ResourceList:
    """A v1.ResourceList to integers (see :func:`resource_value`); errors name ``path``.

    Negative amounts are refused, as the API server's validation does for every resource list
    (ValidateNonnegativeQuantity, pkg/apis/core/validation/validation.go), and so is a fraction
    of an integer resource (pods, an extended resource: ValidateResourceQuantityValue's "must be
    an integer"). Amounts beyond int64 are accepted and saturate (:func:`resource_value`)."""
    out: ResourceList = {}
    for name, q in f.mapping(d, path).items():
        try:
            v = resource_value(str(name), q)
        except ValueError as exc:
            raise ValueError(f"{path}.{name}: {exc}") from exc
        # The sign of the exact amount (the API server's Cmp): a small negative amount rounds up
        # to 0, and an amount beyond int64 read as a release before 1.37 reads it may wrap.
        if (v <= 0 and parse_quantity(q) < 0) or (v > 0 and str(q).lstrip().startswith("-")):
            raise ValueError(f"{path}.{name}: must be greater than or equal to 0, got {q!r}")
        if _is_integer_resource(str(name)) and parse_quantity(q).denominator != 1:
            raise f.FieldValueError.invalid(f"{path}.{name}", q, "must be an integer")
        out[str(name)] = v
    return out


def _overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed: native resources (no domain, or ``kubernetes.io/``) other
    than hugepages may request less than their limit."""
    return ("/" not in name or "kubernetes.io/" in name) and not name.startswith("hugepages-")


def _check_requests_against_limits(res: Mapping[str, Any], requests: ResourceList, limits: ResourceList,
                                   path: str) -> None:
    """ValidateResourceRequirements' request/limit rules, on the amounts as written (exact, not
    the saturated integers): a request is at most its limit, and for a resource that cannot be
    overcommitted (extended, hugepages) equal to it.

    Deviation: upstream also requires such a resource's limit to be set ("Limit must be set for
    non overcommitable resources"); kubesched still accepts a request without one."""
    if not limits:
        return
    raw_req = f.mapping(res.get("requests"), f"{path}.requests")
    raw_lim = f.mapping(res.get("limits"), f"{path}.limits")
    for name, q in raw_req.items():
        lim = raw_lim.get(name)
        if lim is None:
            continue
        want, cap = parse_quantity(q), parse_quantity(lim)
        if want != cap and not _overcommit_allowed(str(name)):
            raise f.FieldValueError.invalid(f"{path}.requests", q, f"must be equal to {name} limit of {lim}")
        if want > cap:
            raise f.FieldValueError.invalid(f"{path}.requests", q,
                                            f"must be less than or equal to {name} limit of {lim}")


def _requests_and_limits(res: Any, path: str) -> tuple[ResourceList, ResourceList]:
    """Parse ``resources``; a limit without a request defaults the request to the limit, as the
    API server's defaulting does before the scheduler ever sees the pod
    (pkg/apis/core/v1/defaults.go SetDefaults_Pod / defaultPodRequests). ``raw`` is left as written."""
    res = f.mapping(res, path)
    requests = parse_resource_list(res.get("requests"), f"{path}.requests")
    limits = parse_resource_list(res.get("limits"), f"{path}.limits")
    _check_requests_against_limits(res, requests, limits, path)
    for name, q in limits.items():
        requests.setdefault(name, q)
    return requests, limits


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str = ""
    requests: Mapping[str, int] = field(default_factory=dict)
    limits: Mapping[str, int] = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str = ""  # "Always" on an init container makes it a sidecar

    @property
    def is_restartable_init(self) -> bool:
        return self.restart_policy == "Always"

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str, host_network: bool = False) -> Container:
        """Parse a container. With ``host_network`` a port without hostPort gets hostPort =
        containerPort, as the API server defaults it (SetDefaults_PodSpec defaultHostNetworkPorts)."""
        ports = []
        for p, ppath in f.objects(d.get("ports"), f"{path}.ports"):
            container_port = f.int32(p.get("containerPort"), f"{ppath}.containerPort")
            host_port = f.int32(p.get("hostPort"), f"{ppath}.hostPort")
            ports.append(ContainerPort(
                container_port,
                host_port or (container_port if host_network else 0),
                f.string(p.get("protocol"), f"{ppath}.protocol") or "TCP",
                f.string(p.get("hostIP"), f"{ppath}.hostIP"),
            ))
        requests, limits = _requests_and_limits(d.get("resources"), f"{path}.resources")
        return Container(
            name=f.string(d.get("name"), f"{path}.name"),
            image=f.string(d.get("image"), f"{path}.image"),
            requests=requests,
            limits=limits,
            ports=tuple(ports),
            restart_policy=f.string(d.get("restartPolicy"), f"{path}.restartPolicy"),
        )


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str) -> PodAffinityTerm:
        d = f.mapping(d, path)
        tk = f.string(d.get("topologyKey"), f"{path}.topologyKey")
        if not tk:
            raise ValueError(f"{path}.topologyKey: can not be empty")
        return PodAffinityTerm(
            label_selector=LabelSelector.from_dict(d.get("labelSelector"), f"{path}.labelSelector"),
            topology_key=tk,
            namespaces=f.strings(d.get("namespaces"), f"{path}.namespaces"),
            namespace_selector=LabelSelector.from_dict(
                d.get("namespaceSelector"), f"{path}.namespaceSelector"
            ),
            match_label_keys=f.strings(d.get("matchLabelKeys"), f"{path}.matchLabelKeys"),
            mismatch_label_keys=f.strings(d.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys"),
        )


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class WeightedNodeSelectorTerm:
    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class Affinity:
    node_required: NodeSelector | None = None
    node_preferred: tuple[WeightedNodeSelectorTerm, ...] = ()
    pod_affinity_required: tuple[PodAffinityTerm, ...] = ()
    pod_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    pod_anti_affinity_required: tuple[PodAffinityTerm, ...] = ()
    pod_anti_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()

    @staticmethod
    def from_dict(d: Mapping[str, Any] | None, path: str) -> Affinity | None:
        if not d:
            return None
        d = f.mapping(d, path)
        na = f.mapping(d.get("nodeAffinity"), f"{path}.nodeAffinity")
        pa = f.mapping(d.get("podAffinity"), f"{path}.podAffinity")
        paa = f.mapping(d.get("podAntiAffinity"), f"{path}.podAntiAffinity")
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        node_pref = tuple(
            WeightedNodeSelectorTerm(
                f.int32(p.get("weight"), f"{ppath}.weight"),
                NodeSelector.terms_from_list([p.get("preference") or {}], f"{ppath}.preference")[0],
            )
            for p, ppath in f.objects(
                na.get("preferredDuringSchedulingIgnoredDuringExecution"),
                f"{path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution",
            )
        )

        def terms(src: Mapping[str, Any], p: str) -> tuple[PodAffinityTerm, ...]:
            key = "requiredDuringSchedulingIgnoredDuringExecution"
            return tuple(
                PodAffinityTerm.from_dict(t, tpath) for t, tpath in f.objects(src.get(key), f"{p}.{key}")
            )

        def weighted(src: Mapping[str, Any], p: str) -> tuple[WeightedPodAffinityTerm, ...]:
            key = "preferredDuringSchedulingIgnoredDuringExecution"
            return tuple(
                WeightedPodAffinityTerm(
                    f.int32(t.get("weight"), f"{tpath}.weight"),
                    PodAffinityTerm.from_dict(t.get("podAffinityTerm") or {}, f"{tpath}.podAffinityTerm"),
                )
                for t, tpath in f.objects(src.get(key), f"{p}.{key}")
            )

        return Affinity(
            node_required=NodeSelector.from_dict(
                req, f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            )
            if req is not None
            else None,
            node_preferred=node_pref,
            pod_affinity_required=terms(pa, f"{path}.podAffinity"),
            pod_affinity_preferred=weighted(pa, f"{path}.podAffinity"),
            pod_anti_affinity_required=terms(paa, f"{path}.podAntiAffinity"),
            pod_anti_affinity_preferred=weighted(paa, f"{path}.podAntiAffinity"),
        )


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None  # Honor (default) | Ignore
    node_taints_policy: str | None = None  # Ignore (default) | Honor
    match_label_keys: tuple[str, ...] = ()

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str) -> TopologySpreadConstraint:
        ms = f.int32(d.get("maxSkew"), f"{path}.maxSkew")
        if ms <= 0:
            raise ValueError(f"{path}.maxSkew: must be greater than zero")
        wu = f.string(d.get("whenUnsatisfiable"), f"{path}.whenUnsatisfiable")
        if wu not in ("DoNotSchedule", "ScheduleAnyway"):
            raise ValueError(f"{path}.whenUnsatisfiable: {wu!r} is not DoNotSchedule or ScheduleAnyway")
        tk = f.string(d.get("topologyKey"), f"{path}.topologyKey")
        if not tk:
            raise ValueError(f"{path}.topologyKey: can not be empty")
        md = f.opt_int32(d.get("minDomains"), f"{path}.minDomains")
        # validateTopologySpreadConstraints (pkg/apis/core/validation/validation.go). Not enforced
        # here: minDomains only with DoNotSchedule (the scheduler ignores it for ScheduleAnyway).
        if md is not None and md <= 0:
            raise ValueError(f"{path}.minDomains: {md}: must be greater than zero")
        policies: dict[str, str | None] = {}
        for field_name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = d.get(field_name)
            if policy is not None and policy not in ("Honor", "Ignore"):
                raise ValueError(
                    f'{path}.{field_name}: Unsupported value: {f.go_value(policy)}: supported values: '
                    '"Honor", "Ignore"'
                )
            policies[field_name] = policy
        return TopologySpreadConstraint(
            max_skew=ms,
            topology_key=tk,
            when_unsatisfiable=wu,
            label_selector=LabelSelector.from_dict(d.get("labelSelector"), f"{path}.labelSelector"),
            min_domains=md,
            node_affinity_policy=policies["nodeAffinityPolicy"],
            node_taints_policy=policies["nodeTaintsPolicy"],
            match_label_keys=f.strings(d.get("matchLabelKeys"), f"{path}.matchLabelKeys"),
        )


@dataclass(frozen=True, slots=True)
class PodResourceClaim:
    """v1.PodResourceClaim: exactly one of ``resource_claim_name`` (an existing claim) and
    ``resource_claim_template_name`` (a claim made for the pod from a template)."""

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass(frozen=True, slots=True)
class PodResourceClaimStatus:
    """v1.PodResourceClaimStatus: the claim generated for a template reference (None: none
    was needed)."""

    name: str
    resource_claim_name: str | None = None


def parse_pod_resource_claims(claims: Any) -> tuple[PodResourceClaim, ...]:
    """``spec.resourceClaims`` checked as validatePodResourceClaims (pkg/apis/core/validation):
    each name a unique DNS label; exactly one of resourceClaimName / resourceClaimTemplateName,
    itself a DNS subdomain. Raises ValueError with upstream's field errors."""
    if not claims:
        return ()
    if not isinstance(claims, list | tuple):
        raise ValueError(f"spec.resourceClaims: must be a list, got {type(claims).__name__}")
    errs = FieldErrors()
    out = []
    seen: set[str] = set()
    for i, c in enumerate(claims):
        path = f"spec.resourceClaims[{i}]"
        if not isinstance(c, Mapping):
            raise ValueError(f"{path}: must be a mapping, got {type(c).__name__}")
        name = str(c.get("name") or "")
        if not name:
            errs.required(f"{path}.name")
        elif name in seen:
            errs.duplicate(f"{path}.name", name)
        else:
            errs.invalid_all(f"{path}.name", name, is_dns1123_label(name))
            seen.add(name)
        rcn, rctn = c.get("resourceClaimName"), c.get("resourceClaimTemplateName")
        if rcn is not None and rctn is not None:
            errs.invalid(path, name,
                         "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified")
        if rcn is None and rctn is None:
            errs.invalid(path, name, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
        for fname, v in (("resourceClaimName", rcn), ("resourceClaimTemplateName", rctn)):
            if v is not None:
                errs.invalid_all(f"{path}.{fname}", str(v), is_dns1123_subdomain(str(v)))
        out.append(PodResourceClaim(name, None if rcn is None else str(rcn),
                                    None if rctn is None else str(rctn)))
    errs.raise_if_any()
    return tuple(out)


def _claim_statuses(statuses: Any) -> tuple[PodResourceClaimStatus, ...]:
    if not statuses:
        return ()
    if not isinstance(statuses, list | tuple):
        raise ValueError(f"status.resourceClaimStatuses: must be a list, got {type(statuses).__name__}")
    return tuple(
        PodResourceClaimStatus(str(s.get("name") or ""),
                               None if s.get("resourceClaimName") is None else str(s["resourceClaimName"]))
        for s in statuses if isinstance(s, Mapping)
    )


@dataclass(frozen=True, eq=False)
class Pod(ManifestObject):
    """A parsed v1.Pod. ``priority`` is None until admission resolves it."""

    raw: Mapping[str, Any]
    meta: ObjectMeta
    node_name: str
    scheduler_name: str
    priority: int | None
    priority_class_name: str
    preemption_policy: str | None
    node_selector: Mapping[str, str]
    affinity: Affinity | None
    tolerations: tuple[Toleration, ...]
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...]
    scheduling_gates: tuple[str, ...]
    containers: tuple[Container, ...]
    init_containers: tuple[Container, ...]
    overhead: Mapping[str, int]
    pod_level_requests: Mapping[str, int] | None
    pod_level_limits: Mapping[str, int] | None
    volumes: tuple[Mapping[str, Any], ...]
    termination_grace_period_seconds: int
    phase: str
    nominated_node_name: str
    conditions: tuple[Mapping[str, Any], ...]
    start_time: float | None
    resource_claim_statuses: tuple[PodResourceClaimStatus, ...]

    # -- identity -------------------------------------------------------------
    @property
    def uid(self) -> str:
        return self.meta.uid or self.meta.key

    @property
    def labels(self) -> Mapping[str, str]:
        return self.meta.labels

    @property
    def is_terminating(self) -> bool:
        return self.meta.deletion_timestamp is not None

    @property
    def is_terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @cached_property
    def pod_group_name(self) -> str:
        """``spec.schedulingGroup.podGroupName``: the PodGroup this pod belongs to ("" for none;
        the field is immutable, so the cached value never goes stale)."""
        return pod_group_name_of(self.raw.get("spec") or {})

    @property
    def priority_value(self) -> int:
        """corev1helpers.PodPriority: nil priority counts as 0."""
        return self.priority or 0

    # -- resources ------------------------------------------------------------
    def _pairs(self, cs: tuple[Container, ...]) -> list[tuple[Mapping[str, int], bool]]:
        return [(c.requests, c.is_restartable_init) for c in cs]

    @cached_property
    def requests(self) -> ResourceList:
        """resource.PodRequests with overhead: what NodeResourcesFit filters on."""
        return pod_requests(
            self._pairs(self.containers),
            self._pairs(self.init_containers),
            self.pod_level_requests,
            self.overhead,
        )

    @cached_property
    def non_zero_requests(self) -> ResourceList:
        """PodRequests with missing container cpu/memory defaulted (100m / 200Mi): scoring's view."""
        return pod_requests(
            self._pairs(self.containers),
            self._pairs(self.init_containers),
            self.pod_level_requests,
            self.overhead,
            non_missing=True,
        )

    @cached_property
    def host_ports(self) -> tuple[ContainerPort, ...]:
        """Ports with a hostPort (schedutil.GetHostPorts, master 2026): restartable init containers
        (sidecars, which keep running) first, then the app containers; regular init containers'
        ports are not counted."""
        sidecars = tuple(c for c in self.init_containers if c.is_restartable_init)
        return tuple(p for c in (*sidecars, *self.containers) for p in c.ports if p.host_port > 0)

    @property
    def qos_class(self) -> str:
        """v1qos.GetPodQOS (pkg/apis/core/v1/helper/qos/qos.go, master 2026): ``status.qosClass``
        when set, else ComputePodQOS over cpu/memory of containers and init containers, or the
        pod-level resources where those are set (PodLevelResources)."""
        status_qos = (self.raw.get("status") or {}).get("qosClass")
        if status_qos:
            return str(status_qos)
        return compute_qos(self)

    @property
    def images(self) -> tuple[str, ...]:
        return tuple(c.image for c in (*self.init_containers, *self.containers) if c.image)

    @cached_property
    def pvc_names(self) -> tuple[str, ...]:
        """Claim names of persistentVolumeClaim volumes and generic ephemeral volumes
        (ephemeral claims are named ``<pod>-<volume>``)."""
        out = []
        for v in self.volumes:
            if "persistentVolumeClaim" in v:
                out.append(str((v.get("persistentVolumeClaim") or {}).get("claimName") or ""))
            elif "ephemeral" in v:
                out.append(f"{self.name}-{v.get('name')}")
        return tuple(out)

    @cached_property
    def resource_claims(self) -> tuple[PodResourceClaim, ...]:
        """``spec.resourceClaims`` (Dynamic Resource Allocation): the claims, by the name the
        containers use, each naming a ResourceClaim or a ResourceClaimTemplate. Validated when
        the pod is parsed (:func:`parse_pod_resource_claims`)."""
        return parse_pod_resource_claims((self.raw.get("spec") or {}).get("resourceClaims"))

    def condition(self, type_: str) -> Mapping[str, Any] | None:
        for c in self.conditions:
            if c.get("type") == type_:
                return c
        return None

    @property
    def is_ready(self) -> bool:
        c = self.condition("Ready")
        return c is not None and c.get("status") == "True"

    # -- building -------------------------------------------------------------
    def with_changes(self, changes: Mapping[Path, Any]) -> Pod:
        """A new Pod with ``changes`` (manifest path -> value, or ``DELETE``) applied.

        Only dicts along the changed paths are copied (see :func:`with_paths`). Store writes,
        binding, admission, default tolerations and status patches touch metadata, status and a
        few spec fields: only the fields fed by the changed parts are parsed again, and the
        values derived from the containers (requests, host ports) carry over. Other edits
        re-parse the pod.
        """
        raw = with_paths(self.raw, changes)
        plan = _edit_plan(tuple(changes))
        if plan is None:
            return Pod.from_dict(raw)
        meta_keys, spec_keys, status = plan
        fields: dict[str, Any] = {}
        if meta_keys:
            fields["meta"] = self.meta.updated(raw.get("metadata") or {}, meta_keys)
        if spec_keys:
            spec = raw.get("spec") or {}
            for key in spec_keys:
                fields.update(_SPEC_FIELD_PARSERS[key](spec))
        if status:
            fields.update(_status_fields(raw.get("status") or {}))
        return self._derive(raw, fields)

    def updated_from(self, raw: Mapping[str, Any]) -> Pod:
        """The Pod for ``raw``, a later version of this pod's manifest (an informer's update),
        equal to ``Pod.from_dict(raw)``.

        Why: in a live cluster almost every update of a pending pod is the binding being
        confirmed (``spec.nodeName``, a new resourceVersion and managedFields, the
        PodScheduled condition). When the spec differs from this one only in fields of
        _SPEC_FIELD_PARSERS, only those, the metadata keys that differ and the status are
        parsed (as :meth:`with_changes` does for the same edits); any other change parses
        ``raw`` whole."""
        old_spec, new_spec = self.raw.get("spec"), raw.get("spec")
        old_md, new_md = self.raw.get("metadata"), raw.get("metadata")
        if type(old_spec) is not dict or type(new_spec) is not dict or type(old_md) is not dict \
                or type(new_md) is not dict:
            return Pod.from_dict(raw)
        spec_keys = _changed_keys(old_spec, new_spec)
        if any(k not in _SPEC_FIELD_PARSERS for k in spec_keys):
            return Pod.from_dict(raw)
        fields: dict[str, Any] = {}
        meta_keys = [k for k in _changed_keys(old_md, new_md) if k not in _META_UNREAD]
        if meta_keys:
            fields["meta"] = self.meta.updated(new_md, meta_keys)
        for key in spec_keys:
            fields.update(_SPEC_FIELD_PARSERS[key](new_spec))
        fields.update(_status_fields(raw.get("status")))
        return self._derive(raw, fields)

    def _derive(self, raw: Mapping[str, Any], fields: Mapping[str, Any]) -> Pod:
        """A copy with ``raw`` and ``fields`` replaced, keeping the cached values derived from
        the containers (unchanged by the edits :meth:`with_changes` parses alone); the claim
        names also derive from the pod's name, so they are kept only while it is the same."""
        new = object.__new__(Pod)
        state = new.__dict__
        state.update(self.__dict__)
        state.update(fields)
        state["raw"] = raw
        if state["meta"].name != self.meta.name:
            state.pop("pvc_names", None)
        return new

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Pod:
        """Parse a manifest; raises ValueError naming the field on bad input."""
        if not isinstance(d, Mapping):
            raise ValueError("pod must be a mapping")
        spec = f.mapping(d.get("spec"), "spec")
        host_network = f.boolean(spec.get("hostNetwork"), "spec.hostNetwork")
        containers = tuple(
            Container.from_dict(c, cpath, host_network)
            for c, cpath in f.objects(spec.get("containers"), "spec.containers")
        )
        inits = tuple(
            Container.from_dict(c, cpath, host_network)
            for c, cpath in f.objects(spec.get("initContainers"), "spec.initContainers")
        )
        pod_res = f.mapping(spec.get("resources"), "spec.resources")
        parse_pod_resource_claims(spec.get("resourceClaims"))  # refuse bad claims at load
        pod_group_name_of(spec)  # refuse a bad spec.schedulingGroup at load
        return Pod(
            raw=d,
            **_cheap_fields(d),
            scheduler_name=f.string(spec.get("schedulerName"), "spec.schedulerName") or "default-scheduler",
            node_selector=f.string_map(spec.get("nodeSelector"), "spec.nodeSelector"),
            affinity=Affinity.from_dict(spec.get("affinity"), "spec.affinity"),
            topology_spread_constraints=tuple(
                TopologySpreadConstraint.from_dict(t, tpath)
                for t, tpath in f.objects(
                    spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints"
                )
            ),
            scheduling_gates=tuple(
                f.string(g.get("name"), f"{gpath}.name")
                for g, gpath in f.objects(spec.get("schedulingGates"), "spec.schedulingGates")
            ),
            containers=containers,
            init_containers=inits,
            overhead=parse_resource_list(spec.get("overhead"), "spec.overhead"),
            pod_level_requests=_pod_level_requests(pod_res, containers, inits),
            pod_level_limits=parse_resource_list(pod_res.get("limits"), "spec.resources.limits")
            if pod_res.get("limits")
            else None,
            volumes=_volumes(spec.get("volumes")),
            termination_grace_period_seconds=f.int64(
                spec.get("terminationGracePeriodSeconds"), "spec.terminationGracePeriodSeconds", 30),
        )


def _priority_field(spec: Mapping[str, Any]) -> dict[str, Any]:
    prio = spec.get("priority")
    return {"priority": parse_int32(prio, "spec.priority") if prio is not None else None}


def _tolerations_field(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {"tolerations": tuple(Toleration.from_dict(t, tpath)
                                 for t, tpath in f.objects(spec.get("tolerations"), "spec.tolerations"))}


def _preemption_policy_field(spec: Mapping[str, Any]) -> dict[str, Any]:
    policy = spec.get("preemptionPolicy")
    return {"preemption_policy": None if policy is None else f.string(policy, "spec.preemptionPolicy")}


_SPEC_FIELD_PARSERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "nodeName": lambda spec: {"node_name": f.string(spec.get("nodeName"), "spec.nodeName")},
    "priority": _priority_field,
    "priorityClassName": lambda spec: {
        "priority_class_name": f.string(spec.get("priorityClassName"), "spec.priorityClassName")},
    "preemptionPolicy": _preemption_policy_field,
    "tolerations": _tolerations_field,
}
"""Spec fields that binding, admission, default tolerations and nomination write, each with the
parser of the Pod fields it feeds (and nothing else does): re-parsed alone by with_changes."""


_META_UNREAD = frozenset({"managedFields"})
"""metadata keys :class:`ObjectMeta` does not read (every API write changes them)."""

_ABSENT = object()


def _changed_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The keys whose values differ between two dicts (added and removed ones included)."""
    if old == new:
        return []
    keys = [k for k, v in new.items() if old.get(k, _ABSENT) != v]
    keys += [k for k in old if k not in new]
    return keys


_EditPlan = tuple[frozenset[str | None], tuple[str, ...], bool]
_EDIT_PLANS: dict[tuple[Path, ...], _EditPlan | None] = {}
_EDIT_PLANS_MAX = 256


def _edit_plan(paths: tuple[Path, ...]) -> _EditPlan | None:
    """What :meth:`Pod.with_changes` re-parses for an edit of ``paths``: the metadata keys, the
    spec fields of _SPEC_FIELD_PARSERS, whether status changed; None when the pod must be
    parsed again. Memoized: the store writes the same few path sets (bind, status patches,
    resourceVersion stamps) over and over."""
    plan = _EDIT_PLANS.get(paths, False)
    if plan is not False:
        return plan  # type: ignore[return-value]
    plan = _make_edit_plan(paths)
    if len(_EDIT_PLANS) < _EDIT_PLANS_MAX:
        _EDIT_PLANS[paths] = plan
    return plan


def _make_edit_plan(paths: tuple[Path, ...]) -> _EditPlan | None:
    meta_keys: set[str | None] = set()
    spec_keys: dict[str, None] = {}  # (each parser feeds fields of its own: order is free)
    status = False
    for path in paths:
        top = path[0]
        if top == "metadata":
            meta_keys.add(path[1] if len(path) == 2 else None)
        elif top == "status":
            status = True
        elif top == "spec" and len(path) == 2 and path[1] in _SPEC_FIELD_PARSERS:
            spec_keys[path[1]] = None
        else:
            return None
    return frozenset(meta_keys), tuple(spec_keys), status


def _status_fields(status: Any) -> dict[str, Any]:
    status = f.mapping(status, "status")
    return {
        "phase": f.string(status.get("phase"), "status.phase") or "Pending",
        "nominated_node_name": f.string(status.get("nominatedNodeName"), "status.nominatedNodeName"),
        "conditions": conditions(status.get("conditions"), "status.conditions"),
        "start_time": time_field(status.get("startTime"), "status.startTime"),
        "resource_claim_statuses": _claim_statuses(status.get("resourceClaimStatuses")),
    }


def conditions(v: Any, path: str) -> tuple[Mapping[str, Any], ...]:
    """Pod or node conditions, kept as written: each an object whose ``type`` and ``status`` are
    strings (what the scheduler and the store match on). Time stamps are only compared and
    copied, never parsed, so they are left as they are. Runs on every status patch: the usual
    case (a list of dicts of strings) takes one pass without building paths."""
    if type(v) is list and all(
        type(c) is dict and type(c.get("type", "")) is str and type(c.get("status", "")) is str for c in v
    ):
        return tuple(v)
    out = []
    for c, cpath in f.objects(v, path):
        f.string(c.get("type"), f"{cpath}.type")
        f.string(c.get("status"), f"{cpath}.status")
        out.append(c)
    return tuple(out)


_VOLUME_STRING_FIELDS = (
    "claimName", "pdName", "volumeID", "diskName", "diskURI", "driver", "volumeHandle", "fsType",
    "pool", "image", "targetPortal", "iqn",
)


def _volumes(v: Any) -> tuple[Mapping[str, Any], ...]:
    """``spec.volumes``, kept as written (plugins read their sources): each volume an object
    with a string ``name`` whose sources are objects; the fields the volume plugins read from a
    source (claim name, disk ids, driver) are scalars."""
    out = []
    for vol, vpath in f.objects(v, "spec.volumes"):
        f.string(vol.get("name"), f"{vpath}.name")
        for key, source in vol.items():
            if key == "name":
                continue
            spath = f"{vpath}.{key}"
            source = f.mapping(source, spath)
            for name in _VOLUME_STRING_FIELDS:
                if name in source:
                    f.string(source[name], f"{spath}.{name}")
            if "readOnly" in source:
                f.boolean(source["readOnly"], f"{spath}.readOnly")
        out.append(vol)
    return tuple(out)


def _cheap_fields(d: Mapping[str, Any]) -> dict[str, Any]:
    """The Pod fields parsed from metadata, status and the spec fields of _SPEC_FIELD_PARSERS."""
    spec = f.mapping(d.get("spec"), "spec")
    fields = {"meta": ObjectMeta.from_dict(d.get("metadata") or {}), **_status_fields(d.get("status"))}
    for parse in _SPEC_FIELD_PARSERS.values():
        fields.update(parse(spec))
    return fields


def _pod_level_requests(
    pod_res: Mapping[str, Any], containers: tuple[Container, ...], inits: tuple[Container, ...]
) -> ResourceList | None:
    """Pod-level requests after the API server's defaulting (defaultPodRequests in
    pkg/apis/core/v1/defaults.go): with pod-level limits set, a supported resource with no
    pod-level request takes the containers' aggregate request (overcommittable cpu/memory) or,
    when no container requests it, the pod-level limit. Unsupported names are dropped."""
    pod_res = f.mapping(pod_res, "spec.resources")
    requests = parse_resource_list(pod_res.get("requests"), "spec.resources.requests")
    limits = parse_resource_list(pod_res.get("limits"), "spec.resources.limits")
    if limits:
        aggregate = pod_requests(
            [(c.requests, c.is_restartable_init) for c in containers],
            [(c.requests, c.is_restartable_init) for c in inits],
            None,
            None,
        )
        for name, q in aggregate.items():
            if name in ("cpu", "memory"):
                requests.setdefault(name, q)
        for name, q in limits.items():
            if is_supported_pod_level_resource(name):
                requests.setdefault(name, q)
    supported = {k: v for k, v in requests.items() if is_supported_pod_level_resource(k)}
    return supported or None


def compute_qos(pod: Pod) -> str:
    """ComputePodQOS (pkg/apis/core/v1/helper/qos/qos.go): BestEffort without cpu/memory
    requests or limits; Guaranteed when every container (or the pod level) limits both cpu and
    memory and the summed requests equal the summed limits; else Burstable."""
    requests: ResourceList = {}
    limits: ResourceList = {}
    guaranteed = True
    if pod.pod_level_requests or pod.pod_level_limits:
        sources: list[tuple[Mapping[str, int], Mapping[str, int]]] = [
            (pod.pod_level_requests or {}, pod.pod_level_limits or {})
        ]
    else:
        sources = [(c.requests, c.limits) for c in (*pod.containers, *pod.init_containers)]
    for reqs, lims in sources:
        for name in _QOS_RESOURCES:
            if reqs.get(name, 0) > 0:
                requests[name] = requests.get(name, 0) + reqs[name]
            if lims.get(name, 0) > 0:
                limits[name] = limits.get(name, 0) + lims[name]
        if not all(lims.get(name, 0) > 0 for name in _QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(k) == v for k, v in requests.items()) and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


_QOS_RESOURCES = ("cpu", "memory")
