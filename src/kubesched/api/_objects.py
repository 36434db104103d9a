"""The other kinds the scheduler reads: Namespace, PriorityClass, PodDisruptionBudget,
PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode.

Each keeps its manifest in ``raw`` and parses the fields the scheduler uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._meta import ManifestObject, ObjectMeta, parse_int32
from ._pod import parse_resource_list
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
        policy = d.get("preemptionPolicy") or "PreemptLowerPriority"
        if policy not in ("PreemptLowerPriority", "Never"):
            raise ValueError(f"preemptionPolicy: {policy!r} is not PreemptLowerPriority or Never")
        return PriorityClass(
            d,
            _meta(d),
            value,
            bool(d.get("globalDefault") or False),
            str(policy),
            str(d.get("description") or ""),
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
        spec = d.get("spec") or {}
        status = d.get("status")
        ma = spec.get("minAvailable")
        mu = spec.get("maxUnavailable")
        if ma is not None and mu is not None:
            raise ValueError("spec: minAvailable and maxUnavailable cannot be both set")
        for fname, v in (("minAvailable", ma), ("maxUnavailable", mu)):
            if isinstance(v, str) and not (v.endswith("%") and v[:-1].isdigit()) and not v.isdigit():
                raise ValueError(f"spec.{fname}: {v!r} must be an integer or a percentage")
        da = status.get("disruptionsAllowed") if status else None
        return PodDisruptionBudget(
            d,
            _meta(d),
            selector=LabelSelector.from_dict(spec.get("selector")),
            min_available=ma,
            max_unavailable=mu,
            disruptions_allowed=int(da) if da is not None else None,
            disrupted_pods=dict((status or {}).get("disruptedPods") or {}),
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
        spec = d.get("spec") or {}
        na = (spec.get("nodeAffinity") or {}).get("required")
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
            access_modes=tuple(spec.get("accessModes") or ()),
            storage_class_name=str(spec.get("storageClassName") or ""),
            node_affinity=NodeSelector.from_dict(na, "spec.nodeAffinity.required")
            if na is not None
            else None,
            claim_ref=spec.get("claimRef"),
            phase=str((d.get("status") or {}).get("phase") or "Available"),
            volume_mode=str(spec.get("volumeMode") or "Filesystem"),
            source={k: v for k, v in spec.items() if k not in common},
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
        spec = d.get("spec") or {}
        meta = _meta(d)
        scn = spec.get("storageClassName")
        return PersistentVolumeClaim(
            d,
            meta,
            storage_class_name=str(scn) if scn is not None else None,
            access_modes=tuple(spec.get("accessModes") or ()),
            requests=parse_resource_list(
                (spec.get("resources") or {}).get("requests"), "spec.resources.requests"
            ),
            volume_name=str(spec.get("volumeName") or ""),
            selector=LabelSelector.from_dict(spec.get("selector")),
            phase=str((d.get("status") or {}).get("phase") or "Pending"),
            volume_mode=str(spec.get("volumeMode") or "Filesystem"),
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
            provisioner=str(d.get("provisioner") or ""),
            volume_binding_mode=str(d.get("volumeBindingMode") or "Immediate"),
            allowed_topologies=tuple(d.get("allowedTopologies") or ()),
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
        for drv in (d.get("spec") or {}).get("drivers") or []:
            name = str(drv.get("name") or "")
            count = (drv.get("allocatable") or {}).get("count")
            drivers[name] = int(count) if count is not None else None
            keys[name] = tuple(drv.get("topologyKeys") or ())
        return CSINode(d, _meta(d), drivers, keys)
