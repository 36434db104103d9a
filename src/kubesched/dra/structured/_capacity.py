"""Consumable capacity (DRAConsumableCapacity): devices with ``allowMultipleAllocations``
are shared by several claims, each consuming part of the device's capacities.

Mirrors ``structured/internal/*/consumable_capacity.go`` and the ConsumedCapacity helpers of
``schedulerapi/types.go``: a request's capacity is rounded up to what the device's
``requestPolicy`` allows (``validRange`` min/step, ``validValues``), an unrequested capacity
consumes the policy default (else the whole capacity), and a request that violates the
policy or does not fit in what is left does not fit the device.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...api import DeviceCapacity, parse_quantity
from ._types import ConsumedCapacity, ConsumedCapacityCollection, DeviceID

__all__ = ["consumed_from_request", "fits_capacity", "insert_consumed", "remove_consumed"]


def _q(v: Any) -> Fraction | None:
    return None if v is None else parse_quantity(v)


def _int_value(q: Fraction) -> int:
    """Quantity.Value(): rounded up to an integer."""
    return math.ceil(q)


def _consumed(requested: Fraction | None, cap: DeviceCapacity) -> Fraction:
    """calculateConsumedCapacity."""
    policy = cap.request_policy
    if requested is None:
        default = _q(policy.get("default")) if policy else None
        return default if default is not None else cap.value
    if not policy:
        return requested
    valid_range = policy.get("validRange")
    if valid_range and valid_range.get("min") is not None:
        lo = parse_quantity(valid_range["min"])
        if requested < lo:
            return lo
        step = _q(valid_range.get("step"))
        if step is None:
            return requested
        added = _int_value(requested) - _int_value(lo)
        n = -(-added // _int_value(step))
        return Fraction(_int_value(lo) + _int_value(step) * n)
    valid_values = policy.get("validValues")
    if valid_values is not None:
        for v in valid_values:
            q = parse_quantity(v)
            if requested <= q:
                return q
    return requested


def _violates(value: Fraction, policy: Mapping[str, Any] | None) -> bool:
    """violatesPolicy."""
    if not policy:
        return False
    default = _q(policy.get("default"))
    if default is not None and value == default:
        return False
    valid_range = policy.get("validRange")
    if valid_range is not None:
        hi = _q(valid_range.get("max"))
        if hi is not None and value > hi:
            return True
        step = _q(valid_range.get("step"))
        if step is not None:
            lo = _q(valid_range.get("min")) or Fraction(0)
            # Go's % truncates toward zero.
            added = _int_value(value) - _int_value(lo)
            return math.fmod(added, _int_value(step)) != 0
        return False
    valid_values = policy.get("validValues")
    if valid_values:
        return all(value != parse_quantity(v) for v in valid_values)
    return False


def fits_capacity(
    consumed: ConsumedCapacity | None,
    requests: Mapping[str, Fraction] | None,
    capacity: Mapping[str, DeviceCapacity],
    allocating: ConsumedCapacity | None,
) -> bool | None:
    """CmpRequestOverCapacity: True when the request fits beside what is consumed already
    and what is being allocated now; None (upstream: an error, the device is skipped) when
    the request names a capacity the device does not have."""
    if requests and any(name not in capacity for name in requests):
        return None
    allocating = allocating or {}
    for name, cap in capacity.items():
        value = _consumed(requests.get(name) if requests else None, cap)
        if _violates(value, cap.request_policy):
            return False
        total = (consumed or {}).get(name, Fraction(0)) + value + allocating.get(name, Fraction(0))
        if total > cap.value:
            return False
    return True


def consumed_from_request(
    requests: Mapping[str, Fraction] | None, capacity: Mapping[str, DeviceCapacity]
) -> ConsumedCapacity:
    """GetConsumedCapacityFromRequest: what one allocation consumes of each capacity."""
    return {name: _consumed(requests.get(name) if requests else None, cap) for name, cap in capacity.items()}


def insert_consumed(
    collection: ConsumedCapacityCollection, device: DeviceID, consumed: ConsumedCapacity
) -> None:
    """ConsumedCapacityCollection.Insert."""
    current = collection.setdefault(device, {})
    for name, q in consumed.items():
        current[name] = current.get(name, Fraction(0)) + q


def remove_consumed(
    collection: ConsumedCapacityCollection, device: DeviceID, consumed: ConsumedCapacity
) -> None:
    """ConsumedCapacityCollection.Remove: an entry that drops to zero everywhere is removed."""
    current = collection.get(device)
    if current is None:
        return
    for name, q in consumed.items():
        if name in current:
            current[name] -= q
    if all(q == 0 for q in current.values()):
        del collection[device]
