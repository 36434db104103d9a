"""Upstream's consumable capacity unit tests (structured/internal/experimental/
consumable_capacity_test.go, TestConsumableCapacity), ported."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubesched.api import DeviceCapacity
from kubesched.dra.structured import DeviceID
from kubesched.dra.structured._capacity import (
    _consumed,
    _violates,
    consumed_from_request,
    insert_consumed,
    remove_consumed,
)

ONE, TWO, THREE = Fraction(1), Fraction(2), Fraction(3)
DEVICE = DeviceID("driver-a", "pool-1", "device-1")


def test_insert_remove_consumed_capacity_collection() -> None:
    collection: dict[DeviceID, dict[str, Fraction]] = {}
    insert_consumed(collection, DEVICE, {"capacity-0": ONE})
    insert_consumed(collection, DEVICE, {"capacity-0": ONE})
    assert collection[DEVICE]["capacity-0"] == TWO
    remove_consumed(collection, DEVICE, {"capacity-0": ONE})
    assert collection[DEVICE]["capacity-0"] == ONE
    remove_consumed(collection, DEVICE, {"capacity-0": ONE})
    assert DEVICE not in collection  # empty again: removed


def test_consumed_capacity_from_request() -> None:
    capacity = {
        "capacity-0": DeviceCapacity(TWO, {"default": "2", "validRange": {"min": "1"}}),  # requested value
        "capacity-1": DeviceCapacity(TWO, {"default": "1", "validRange": {"min": "1"}}),  # the default
        "dummy": DeviceCapacity(ONE),  # no request, no policy: the whole capacity
    }
    consumed = consumed_from_request({"capacity-0": ONE, "dummy": ONE}, capacity)
    assert consumed == {"capacity-0": ONE, "capacity-1": ONE, "dummy": ONE}


@pytest.mark.parametrize(
    ("requested", "policy", "violates"),
    [
        pytest.param(ONE, None, False, id="no constraint"),
        pytest.param(
            ONE, {"default": "1", "validRange": {"min": "1", "max": "2"}}, False, id="less than maximum"
        ),
        pytest.param(
            TWO, {"default": "1", "validRange": {"min": "1", "max": "1"}}, True, id="more than maximum"
        ),
        pytest.param(ONE, {"default": "1", "validValues": ["1"]}, False, id="in set"),
        pytest.param(TWO, {"default": "1", "validValues": ["1"]}, True, id="not in set"),
    ],
)
def test_violate_capacity_request_policy(requested: Fraction, policy: Any, violates: bool) -> None:
    assert _violates(requested, policy) is violates


@pytest.mark.parametrize(
    ("requested", "value", "policy", "expected"),
    [
        pytest.param(None, ONE, {}, ONE, id="empty"),
        pytest.param(None, TWO, {"default": "1", "validRange": {"min": "1"}}, ONE, id="min in range"),
        pytest.param(None, TWO, {"default": "1", "validValues": ["1"]}, ONE, id="default in set"),
        pytest.param(
            TWO, TWO, {"default": "1", "validRange": {"min": "1"}}, TWO, id="more than min in range"
        ),
        pytest.param(
            ONE, TWO, {"default": "1", "validRange": {"min": "2"}}, TWO, id="less than min in range"
        ),
        pytest.param(
            TWO,
            THREE,
            {"default": "1", "validRange": {"min": "1", "step": "2"}},
            THREE,
            id="with step (round up)",
        ),
        pytest.param(
            TWO,
            TWO,
            {"default": "1", "validRange": {"min": "1", "step": "1"}},
            TWO,
            id="with step (no remaining)",
        ),
        pytest.param(
            TWO, THREE, {"default": "1", "validValues": ["1", "2", "3"]}, TWO, id="valid value in set"
        ),
        pytest.param(TWO, THREE, {"default": "1", "validValues": ["1", "3"]}, THREE, id="set (round up)"),
        pytest.param(THREE, THREE, {"default": "1", "validValues": ["1", "2"]}, THREE, id="larger than set"),
    ],
)
def test_calculate_consumed_capacity(
    requested: Fraction | None, value: Fraction, policy: Any, expected: Fraction
) -> None:
    assert _consumed(requested, DeviceCapacity(value, policy)) == expected
