"""v1.Node: the fields the scheduler reads, parsed once; the manifest kept for round trips."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta
from ._pod import conditions, parse_resource_list
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
        meta = ObjectMeta.from_dict(d.get("metadata") or {})
        spec = f.mapping(d.get("spec"), "spec")
        status = f.mapping(d.get("status"), "status")
        capacity = parse_resource_list(status.get("capacity"), "status.capacity")
        # The API server defaults allocatable to capacity when the kubelet has not set it.
        alloc_raw = status.get("allocatable")
        allocatable = (
            parse_resource_list(alloc_raw, "status.allocatable") if alloc_raw is not None else dict(capacity)
        )
        images = tuple(
            ContainerImage(
                f.strings(im.get("names"), f"{ipath}.names"),
                f.int64(im.get("sizeBytes"), f"{ipath}.sizeBytes"),
            )
            for im, ipath in f.objects(status.get("images"), "status.images")
        )
        return Node(
            raw=d,
            meta=meta,
            unschedulable=f.boolean(spec.get("unschedulable"), "spec.unschedulable"),
            taints=tuple(
                Taint.from_dict(t, tpath) for t, tpath in f.objects(spec.get("taints"), "spec.taints")
            ),
            allocatable=allocatable,
            capacity=capacity,
            images=images,
            conditions=conditions(status.get("conditions"), "status.conditions"),
        )
