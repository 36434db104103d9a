"""v1.Node: the fields the scheduler reads, parsed once; the manifest kept for round trips."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._meta import ManifestObject, ObjectMeta
from ._pod import parse_resource_list
from ._selectors import Taint

__all__ = ["ContainerImage", "Node"]


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(frozen=True, slots=True, eq=False)
class Node(ManifestObject):
    raw: Mapping[str, Any]
    meta: ObjectMeta
    unschedulable: bool
    taints: tuple[Taint, ...]
    allocatable: Mapping[str, int]
    capacity: Mapping[str, int]
    images: tuple[ContainerImage, ...]
    conditions: tuple[Mapping[str, Any], ...]

    @property
    def labels(self) -> Mapping[str, str]:
        return self.meta.labels

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Node:
        md = d.get("metadata") or {}
        meta = ObjectMeta.from_dict(md)
        spec = d.get("spec") or {}
        status = d.get("status") or {}
        capacity = parse_resource_list(status.get("capacity"), "status.capacity")
        # The API server defaults allocatable to capacity when the kubelet has not set it.
        alloc_raw = status.get("allocatable")
        allocatable = (
            parse_resource_list(alloc_raw, "status.allocatable") if alloc_raw is not None else dict(capacity)
        )
        images = tuple(
            ContainerImage(tuple(str(n) for n in (im.get("names") or [])), int(im.get("sizeBytes") or 0))
            for im in (status.get("images") or [])
        )
        return Node(
            raw=d,
            meta=meta,
            unschedulable=bool(spec.get("unschedulable") or False),
            taints=tuple(
                Taint.from_dict(t, f"spec.taints[{i}]") for i, t in enumerate(spec.get("taints") or [])
            ),
            allocatable=allocatable,
            capacity=capacity,
            images=images,
            conditions=tuple(status.get("conditions") or ()),
        )
