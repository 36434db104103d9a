"""Quantities: exact parsing, Value()/MilliValue() rounding, cross-checked against the official client."""

from __future__ import annotations

import math
import random
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from kubernetes.utils import parse_quantity as k8s_parse_quantity

from kubesched.api import (
    QuantityError,
    format_quantity,
    milli_value,
    parse_quantity,
    read_out_of_range_quantities,
    resource_value,
    value,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("100m", Fraction(1, 10), id="milli"),
        pytest.param("0.5", Fraction(1, 2), id="decimal-fraction"),
        pytest.param("1.5Gi", Fraction(3 * 2**29), id="binary-fraction"),
        pytest.param("2G", Fraction(2 * 10**9), id="decimal-si"),
        pytest.param("1e3", Fraction(1000), id="exponent"),
        pytest.param("1E-3", Fraction(1, 1000), id="negative-exponent"),
        pytest.param("12Ki", Fraction(12 * 1024), id="kibi"),
        pytest.param("1E", Fraction(10**18), id="exa-not-exponent"),
        pytest.param(".5", Fraction(1, 2), id="leading-dot"),
        pytest.param("5.", Fraction(5), id="trailing-dot"),
        pytest.param("+3", Fraction(3), id="plus-sign"),
        pytest.param(7, Fraction(7), id="yaml-int"),
        pytest.param(0.25, Fraction(1, 4), id="yaml-float"),
    ],
)
def test_parse_quantity(text: str | int | float, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("text", ["", "1Kb", "1ki", "abc", "1.2.3", "1 Gi", "--1", "1e", "Mi", "1K"])
def test_parse_quantity_rejects(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        pytest.param("cpu", "100m", 100, id="cpu-millis"),
        pytest.param("cpu", "0.1m", 1, id="cpu-sub-milli-rounds-up"),
        pytest.param("cpu", "1.0001", 1001, id="cpu-ceil"),
        pytest.param("memory", "1.5Gi", 1610612736, id="memory-bytes"),
        pytest.param("memory", "100m", 1, id="memory-fraction-rounds-up"),
        pytest.param("pods", "110", 110, id="count"),
        pytest.param("example.com/gpu", "2", 2, id="extended"),
    ],
)
def test_resource_value(name: str, text: str, expected: int) -> None:
    assert resource_value(name, text) == expected


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        # AsScaledInt64 (apimachinery amount.go): an int64Amount whose value at the scale asked
        # for does not fit saturates to the rail of its sign.
        pytest.param("cpu", "1E", INT64_MAX, id="exa-cpu-millis"),
        pytest.param("example.com/foo", "10E", INT64_MAX, id="ten-exa-count"),
        pytest.param("cpu", "1e30", INT64_MAX, id="exponent-beyond-int64"),
        pytest.param("cpu", "-1E", -(2**63), id="negative-saturates-to-min"),
        # ParseQuantity caps a decimal/binary SI magnitude at the int64 maximum.
        pytest.param("memory", "16Ei", INT64_MAX, id="sixteen-exbibytes"),
        pytest.param("pods", "99999999999999999999", INT64_MAX, id="twenty-digit-count"),
        pytest.param("memory", "9223372036854775807", INT64_MAX, id="int64-max-exactly"),
        pytest.param("cpu", "9223372036854775807m", INT64_MAX, id="int64-max-millis-exactly"),
        pytest.param("cpu", "9223372036854775.808", INT64_MAX, id="one-milli-beyond"),
        pytest.param("memory", 2**64, INT64_MAX, id="yaml-int-beyond"),
    ],
)
def test_resource_value_saturates_to_int64(name: str, text: str | int, expected: int) -> None:
    assert resource_value(name, text) == expected


@pytest.mark.parametrize(
    ("name", "amount", "text"),
    [
        pytest.param("cpu", 1500, "1500m", id="cpu-millis"),
        pytest.param("cpu", 2000, "2", id="cpu-cores"),
        pytest.param("memory", 2**30, "1Gi", id="memory-gi"),
        pytest.param("memory", 1000, "1000", id="memory-bytes"),
        pytest.param("pods", 1024, "1024", id="count-not-binary"),
    ],
)
def test_format_quantity(name: str, amount: int, text: str) -> None:
    assert format_quantity(name, amount) == text
    assert resource_value(name, text) == amount


_SUFFIXES = ["", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]


def generated_quantities(n: int, seed: int = 20260301) -> list[str]:
    """``n`` valid quantity strings: optional sign, digits, optional fraction, any suffix form."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        sign = rnd.choice(["", "+"])
        whole = str(rnd.randint(0, 10 ** rnd.randint(0, 7)))
        frac = rnd.choice(["", f".{rnd.randint(0, 999999)}", "."])
        suffix = rnd.choice([*_SUFFIXES, f"e{rnd.randint(-9, 9)}", f"E+{rnd.randint(0, 6)}"])
        out.append(f"{sign}{whole}{frac}{suffix}")
    return out


def test_parse_quantity_matches_official_client() -> None:
    """Several hundred generated quantities agree with kubernetes.utils.parse_quantity, and
    Value()/MilliValue() are its ceilings (saturated to int64, as upstream's are)."""
    for text in generated_quantities(600):
        with localcontext() as ctx:
            ctx.prec = 100  # the client computes in Decimal; its default 28 digits would round
            expected = Fraction(Decimal(k8s_parse_quantity(text)))
        assert parse_quantity(text) == expected, text
        assert value(text) == min(math.ceil(expected), INT64_MAX), text
        assert milli_value(text) == min(math.ceil(expected * 1000), INT64_MAX), text


@pytest.mark.parametrize(("text", "wrapped_value", "wrapped_milli"), [
    # int64Amount{1, 18}: Value() fits; MilliValue() is positiveScaleInt64(1, 21), whose loop
    # gives up with 0 (a node with cpu: 1E has no cpu for v1.32 and v1.35.4, checked live)
    ("1E", 10**18, 0),
    ("10E", 0, 0), ("1e21", 0, 0), ("10P", 10**16, 0),
    # binary-SI beyond int64: ParseQuantity caps at 2^63-1 (an inf.Dec); MilliValue() keeps the
    # low 64 bits of (2^63-1) * 1000
    ("16Ei", 2**63 - 1, -1000), ("8Ei", 2**63 - 1, -1000),
    # 19 digits or more: an inf.Dec, scaledValue's big.Int.Int64() wraps
    ("9223372036854775807", 2**63 - 1, -1000),
    ("99999999999999999999m", 10**17, 99999999999999999999 - 5 * 2**64),
    ("4", 4, 4000), ("100m", 1, 100),
])
def test_before_1_37_out_of_range_amounts_wrap(text: str, wrapped_value: int, wrapped_milli: int) -> None:
    """apimachinery before kubernetes PR #141305 (QuantityValueSaturates): ScaledValue drops the
    overflow flag; since, it saturates. The reading is process-wide and put back after."""
    previous = read_out_of_range_quantities(False)
    try:
        assert (value(text), milli_value(text)) == (wrapped_value, wrapped_milli)
    finally:
        read_out_of_range_quantities(previous)
    assert value(text) == min(math.ceil(parse_quantity(text)), 2**63 - 1)
    assert milli_value(text) == min(math.ceil(parse_quantity(text) * 1000), 2**63 - 1)


def test_an_amount_that_wraps_negative_is_still_accepted() -> None:
    """The API server checks an amount's sign exactly (ValidateNonnegativeQuantity's Cmp), so it
    accepts ``cpu: "9223372036854775807"``; v1.32 to v1.36 then read MilliValue() -1000 of it."""
    from kubesched.api import parse_resource_list

    previous = read_out_of_range_quantities(False)
    try:
        assert parse_resource_list({"cpu": "9223372036854775807"}, "allocatable") == {"cpu": -1000}
        with pytest.raises(ValueError, match="must be greater than or equal to 0"):
            parse_resource_list({"cpu": "-16Ei"}, "allocatable")
    finally:
        read_out_of_range_quantities(previous)
