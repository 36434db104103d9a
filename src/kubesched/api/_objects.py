"""The other kinds the scheduler reads: Namespace, PriorityClass, PodDisruptionBudget,
PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode.

Each keeps its manifest in ``raw`` and parses the fields the scheduler uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta, parse_int32
from ._pod import conditions, parse_resource_list
from ._selectors import LabelSelector, NodeSelector

__all__ = [
    "CSINode",
    "Namespace",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PodDisruptionBudget",
    "PriorityClass",
    "StorageClass",
]


def _meta(d: Mapping[str, Any]) -> ObjectMeta:
    meta = ObjectMeta.from_dict(d.get("metadata") or {})
    if not meta.name:
        raise ValueError("metadata.name: required")
    return meta


@dataclass(frozen=True, slots=True, eq=False)
class _Object(ManifestObject):
    raw: Mapping[str, Any]
    meta: ObjectMeta


@dataclass(frozen=True, slots=True, eq=False)
class Namespace(_Object):
    @property
    def labels(self) -> Mapping[str, str]:
        return self.meta.labels

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Namespace:
        return Namespace(d, _meta(d))


@dataclass(frozen=True, slots=True, eq=False)
class PriorityClass(_Object):
    value: int
    global_default: bool
    preemption_policy: str  # PreemptLowerPriority | Never
    description: str

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> PriorityClass:
        if "value" not in d:
            raise ValueError("value: required")
        value = parse_int32(d["value"], "value")
        policy = f.string(d.get("preemptionPolicy"), "preemptionPolicy") or "PreemptLowerPriority"
        if policy not in ("PreemptLowerPriority", "Never"):
            raise ValueError(f"preemptionPolicy: {policy!r} is not PreemptLowerPriority or Never")
        return PriorityClass(
            d,
            _meta(d),
            value,
            f.boolean(d.get("globalDefault"), "globalDefault"),
            policy,
            f.string(d.get("description"), "description"),
        )


@dataclass(frozen=True, slots=True, eq=False)
class PodDisruptionBudget(_Object):
    selector: LabelSelector | None
    min_available: int | str | None  # an integer or a percentage string ("50%")
    max_unavailable: int | str | None
    disruptions_allowed: int | None  # status.disruptionsAllowed; None when the manifest has no status
    disrupted_pods: Mapping[str, Any]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> PodDisruptionBudget:
        spec = f.mapping(d.get("spec"), "spec")
        status = f.mapping(d.get("status"), "status")
        ma = f.int_or_string(spec.get("minAvailable"), "spec.minAvailable")
        mu = f.int_or_string(spec.get("maxUnavailable"), "spec.maxUnavailable")
        if ma is not None and mu is not None:
            raise ValueError("spec: minAvailable and maxUnavailable cannot be both set")
        disrupted = f.mapping(status.get("disruptedPods"), "status.disruptedPods")  # names are read
        conditions(status.get("conditions"), "status.conditions")  # rewritten by the disruption controller
        return PodDisruptionBudget(
            d,
            _meta(d),
            selector=LabelSelector.from_dict(spec.get("selector"), "spec.selector"),
            min_available=ma,
            max_unavailable=mu,
            disruptions_allowed=f.opt_int32(status.get("disruptionsAllowed"), "status.disruptionsAllowed"),
            disrupted_pods=dict(disrupted),
        )


@dataclass(frozen=True, slots=True, eq=False)
class PersistentVolume(_Object):
    capacity: Mapping[str, int]
    access_modes: tuple[str, ...]
    storage_class_name: str
    node_affinity: NodeSelector | None
    claim_ref: Mapping[str, Any] | None
    phase: str
    volume_mode: str
    source: Mapping[str, Any]  # the spec minus the common fields: which plugin provides it

    @property
    def labels(self) -> Mapping[str, str]:
        return self.meta.labels

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> PersistentVolume:
        spec = f.mapping(d.get("spec"), "spec")
        na = f.mapping(spec.get("nodeAffinity"), "spec.nodeAffinity").get("required")
        claim_ref = spec.get("claimRef")
        if claim_ref is not None:
            claim_ref = f.mapping(claim_ref, "spec.claimRef")
            for key in ("namespace", "name", "uid"):
                f.string(claim_ref.get(key), f"spec.claimRef.{key}")
        common = {
            "capacity",
            "accessModes",
            "storageClassName",
            "nodeAffinity",
            "claimRef",
            "persistentVolumeReclaimPolicy",
            "volumeMode",
            "mountOptions",
        }
        return PersistentVolume(
            d,
            _meta(d),
            capacity=parse_resource_list(spec.get("capacity"), "spec.capacity"),
            access_modes=f.strings(spec.get("accessModes"), "spec.accessModes"),
            storage_class_name=f.string(spec.get("storageClassName"), "spec.storageClassName"),
            node_affinity=NodeSelector.from_dict(na, "spec.nodeAffinity.required")
            if na is not None
            else None,
            claim_ref=claim_ref,
            phase=f.string(f.mapping(d.get("status"), "status").get("phase"), "status.phase") or "Available",
            volume_mode=f.string(spec.get("volumeMode"), "spec.volumeMode") or "Filesystem",
            source={k: _volume_source(v, f"spec.{k}") for k, v in spec.items() if k not in common},
        )


@dataclass(frozen=True, slots=True, eq=False)
class PersistentVolumeClaim(_Object):
    storage_class_name: str | None  # None: not set (default class applies); "": explicitly no class
    access_modes: tuple[str, ...]
    requests: Mapping[str, int]
    volume_name: str
    selector: LabelSelector | None
    phase: str
    volume_mode: str
    annotations: Mapping[str, str]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> PersistentVolumeClaim:
        spec = f.mapping(d.get("spec"), "spec")
        meta = _meta(d)
        scn = spec.get("storageClassName")
        return PersistentVolumeClaim(
            d,
            meta,
            storage_class_name=f.string(scn, "spec.storageClassName") if scn is not None else None,
            access_modes=f.strings(spec.get("accessModes"), "spec.accessModes"),
            requests=parse_resource_list(
                f.mapping(spec.get("resources"), "spec.resources").get("requests"), "spec.resources.requests"
            ),
            volume_name=f.string(spec.get("volumeName"), "spec.volumeName"),
            selector=LabelSelector.from_dict(spec.get("selector"), "spec.selector"),
            phase=f.string(f.mapping(d.get("status"), "status").get("phase"), "status.phase") or "Pending",
            volume_mode=f.string(spec.get("volumeMode"), "spec.volumeMode") or "Filesystem",
            annotations=meta.annotations,
        )


@dataclass(frozen=True, slots=True, eq=False)
class StorageClass(_Object):
    provisioner: str
    volume_binding_mode: str  # Immediate | WaitForFirstConsumer
    allowed_topologies: tuple[Mapping[str, Any], ...]
    is_default: bool

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> StorageClass:
        meta = _meta(d)
        ann = meta.annotations
        return StorageClass(
            d,
            meta,
            provisioner=f.string(d.get("provisioner"), "provisioner"),
            volume_binding_mode=f.string(d.get("volumeBindingMode"), "volumeBindingMode") or "Immediate",
            allowed_topologies=_allowed_topologies(d.get("allowedTopologies")),
            is_default=ann.get("storageclass.kubernetes.io/is-default-class") == "true",
        )


@dataclass(frozen=True, slots=True, eq=False)
class CSINode(_Object):
    drivers: Mapping[str, int | None]  # driver name -> allocatable.count (None: no limit)
    driver_topology_keys: Mapping[str, tuple[str, ...]]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> CSINode:
        drivers: dict[str, int | None] = {}
        keys: dict[str, tuple[str, ...]] = {}
        for drv, path in f.objects(f.mapping(d.get("spec"), "spec").get("drivers"), "spec.drivers"):
            name = f.string(drv.get("name"), f"{path}.name")
            count = f.mapping(drv.get("allocatable"), f"{path}.allocatable").get("count")
            drivers[name] = f.opt_int32(count, f"{path}.allocatable.count")
            keys[name] = f.strings(drv.get("topologyKeys"), f"{path}.topologyKeys")
        return CSINode(d, _meta(d), drivers, keys)


def _volume_source(v: Any, path: str) -> Any:
    """A PersistentVolume's source (``csi``, ``gcePersistentDisk``, ...): an object whose ids the
    volume plugins read are strings. Other spec fields (``mountOptions``) pass as written."""
    if isinstance(v, Mapping):
        for key in ("driver", "volumeHandle", "pdName", "volumeID", "diskName", "diskURI", "fsType"):
            if key in v:
                f.string(v[key], f"{path}.{key}")
    return v


def _allowed_topologies(v: Any) -> tuple[Mapping[str, Any], ...]:
    """StorageClass.allowedTopologies: topology selector terms, each a list of
    ``{key, values}`` label requirements (what VolumeBinding matches nodes against)."""
    out = []
    for term, path in f.objects(v, "allowedTopologies"):
        for req, rpath in f.objects(term.get("matchLabelExpressions"), f"{path}.matchLabelExpressions"):
            f.string(req.get("key"), f"{rpath}.key")
            f.strings(req.get("values"), f"{rpath}.values")
        out.append(term)
    return tuple(out)
