"""A claim's constraints across its devices (matchAttribute, distinctAttribute).

Mirrors ``matchAttributeConstraint`` (allocator_*.go) and ``distinctAttributeConstraint``
(constraint.go): ``add`` is called when a device is about to be allocated and says whether the
constraint still holds, ``remove`` undoes one successful ``add`` while backtracking.
Constraints are monotonic: once one fails, more devices cannot fix it. With
DRAListTypeAttributes, attributes are compared as sets (a scalar is a set of one): matching
means a common value across all devices, distinct means pairwise disjoint.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from ...api import Device, DeviceAttribute
from ._types import DeviceID

__all__ = ["Constraint", "DistinctAttributeConstraint", "MatchAttributeConstraint", "lookup_attribute"]

_SCALAR = ("int", "bool", "string", "version")


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> DeviceAttribute | None:
    """lookupAttribute: the fully qualified name, or the bare name when the domain is the driver."""
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id.driver:
        return None
    return device.attributes.get(ident)


def _as_set(attr: DeviceAttribute) -> tuple[str, set[Any]] | None:
    """attributeAsSet: (value type, values); None for an empty list."""
    if attr.kind.endswith("s"):
        return (attr.kind[:-1], set(attr.value)) if attr.value else None
    return attr.kind, {attr.value}


def _intersects(a: tuple[str, set[Any]], b: tuple[str, set[Any]]) -> bool:
    return a[0] == b[0] and not a[1].isdisjoint(b[1])


class Constraint(Protocol):
    def add(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> bool: ...

    def remove(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> None: ...


class _ForRequests:
    """Which requests a constraint applies to: all when none are named; a sub-request counts
    when it or its parent request is named."""

    def __init__(self, requests: Iterable[str]) -> None:
        self.requests = frozenset(requests)

    def applies(self, request: str, sub_request: str) -> bool:
        if not self.requests:
            return True
        if request in self.requests:
            return True
        return bool(sub_request) and f"{request}/{sub_request}" in self.requests


class MatchAttributeConstraint(_ForRequests):
    """All devices share the attribute's value (or, with list attributes, some common value)."""

    def __init__(self, requests: Iterable[str], attribute: str, list_type_attributes: bool) -> None:
        super().__init__(requests)
        self.attribute = attribute
        self.list_type = list_type_attributes
        self.first: DeviceAttribute | None = None
        self.intersection: tuple[str, set[Any]] | None = None
        self.num_devices = 0

    def add(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> bool:
        if not self.applies(request, sub_request):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.num_devices == 0:
            if self.list_type:
                self.intersection = _as_set(attr)
                if self.intersection is None:
                    return False
            else:
                self.first = attr
            self.num_devices = 1
            return True
        if self.list_type:
            new = _as_set(attr)
            if new is None or self.intersection is None or not _intersects(self.intersection, new):
                return False
            # updateToIntersection: not undone by remove(), as upstream.
            self.intersection = (new[0], self.intersection[1] & new[1])
        else:
            if attr.kind not in _SCALAR or self.first is None:
                return False
            if self.first.kind != attr.kind or self.first.value != attr.value:
                return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> None:
        if self.applies(request, sub_request):
            self.num_devices -= 1


class DistinctAttributeConstraint(_ForRequests):
    """No two devices share the attribute's value. As upstream, the values seen are kept per
    request name, so two devices of one request are only compared with other requests'."""

    def __init__(self, requests: Iterable[str], attribute: str, list_type_attributes: bool) -> None:
        super().__init__(requests)
        self.attribute = attribute
        self.list_type = list_type_attributes
        self.attributes: dict[str, DeviceAttribute] = {}
        self.num_devices = 0

    def add(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> bool:
        if not self.applies(request, sub_request):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.num_devices != 0 and not self._distinct(attr):
            return False
        self.attributes[request] = attr
        self.num_devices += 1
        return True

    def _distinct(self, attr: DeviceAttribute) -> bool:
        if self.list_type:
            new = _as_set(attr)
            if new is None:
                return False
            for seen in self.attributes.values():
                old = _as_set(seen)
                if old is not None and _intersects(new, old):
                    return False
            return True
        if not self.attributes:
            return True
        if attr.kind not in _SCALAR:
            return False
        return all(
            not (seen.kind == attr.kind and seen.value == attr.value) for seen in self.attributes.values()
        )

    def remove(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> None:
        if self.applies(request, sub_request):
            self.attributes.pop(request, None)
            self.num_devices -= 1
