"""Resource quantities as exact numbers.

Mirrors k8s.io/apimachinery/pkg/api/resource/quantity.go: a quantity is a decimal or binary
SI number (``100m``, ``1.5Gi``, ``2G``, ``1e3``). The scheduler reads quantities through
``Value()`` (rounded up to an integer, away from zero) and ``MilliValue()`` (cpu, rounded up),
so we keep the exact value as a :class:`fractions.Fraction` and round only at those two doors.

Both doors return an int64, as upstream's do: a value beyond it saturates to the int64 rail of
its sign (``cpu: 1E`` is 10^21 millicores: MilliValue() is 2^63-1). Newest upstream saturates
there (``int64Amount.AsScaledInt64`` / ``positiveScaleInt64``, apimachinery amount.go and math.go)
and ParseQuantity caps binary-SI magnitudes at 2^63-1; where a quantity falls back to upstream's
``inf.Dec`` form (more than 19 digits) ``scaledValue`` may wrap around instead, and there we
saturate too (a wrapped amount is nobody's intent). Sums of such amounts are the caller's: see
:func:`saturate`.

Parsing is memoised on the input (the same few strings, ``"4"``, ``"32Gi"``, ``"100m"``, recur in
every node and pod of a cluster): results are immutable, so sharing them is safe.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "QuantityError",
    "format_quantity",
    "milli_value",
    "parse_quantity",
    "read_out_of_range_quantities",
    "resource_value",
    "saturate",
    "value",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


class QuantityError(ValueError):
    """A string that Kubernetes would not accept as a quantity."""


_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# <signedNumber><suffix>; the number has digits with an optional fraction; the suffix is a
# binary SI suffix, a decimal SI suffix or a decimal exponent (e/E followed by a signed int).
_QUANTITY_RE = re.compile(
    r"^(?P<num>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)


_CACHE_SIZE = 4096


def parse_quantity(text: str | int | float) -> Fraction:
    """Parse a quantity to its exact value (``"100m"`` -> 1/10, ``"1.5Gi"`` -> 1610612736)."""
    if isinstance(text, bool):
        raise QuantityError(f"quantity must be a string or number, not {text!r}")
    if isinstance(text, str | int | float):
        return _parse_cached(text)
    return _parse(text)  # not hashable, or an odd type: parse (and fail) without the cache


def _parse(text: str | int | float) -> Fraction:
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(f"quantity {text!r} is not finite")
        return Fraction(str(text))
    s = str(text).strip()
    m = _QUANTITY_RE.match(s)
    if not m:
        raise QuantityError(
            f"quantities must match the regular expression "
            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got {text!r}"
        )
    number = Fraction(m.group("num"))
    suffix = m.group("suffix") or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    return number * Fraction(10) ** int(suffix[1:])


# typed: ``1`` and ``1.0`` are distinct entries (they parse alike, but a float goes through str()).
_parse_cached = lru_cache(maxsize=_CACHE_SIZE, typed=True)(_parse)


def saturate(n: int) -> int:
    """``n`` clamped to the int64 range: what an int64 holds of an amount too large for it
    (mostPositive / mostNegative, apimachinery math.go)."""
    return INT64_MAX if n > INT64_MAX else INT64_MIN if n < INT64_MIN else n


def _ceil_away_from_zero(x: Fraction) -> int:
    return saturate(math.ceil(x) if x >= 0 else math.floor(x))


def value(text: str | int | float) -> int:
    """``Quantity.Value()``: the value rounded up (away from zero) to an integer, saturated to
    int64 (wrapped as before kubernetes PR #141305 under :func:`read_out_of_range_quantities`)."""
    return _scaled(text, 1)


def milli_value(text: str | int | float) -> int:
    """``Quantity.MilliValue()``: the value in thousandths, rounded up (away from zero),
    saturated to int64 (or wrapped, see :func:`value`)."""
    return _scaled(text, 1000)


_SATURATE = [True]


def read_out_of_range_quantities(saturate: bool) -> bool:
    """Read quantities beyond int64 from here on as newest apimachinery does (``saturate``:
    kubernetes PR #141305, in Kubernetes 1.37) or as every release before it does (the
    ``QuantityValueSaturates`` release switch, which ``--kube-version`` sets for the process
    before any input is read); returns the previous setting.

    Before #141305, ``Value()``/``MilliValue()`` (``ScaledValue``) dropped the overflow flag:
    an amount ParseQuantity kept as an ``int64Amount`` (at most 18 digits, a decimal scale)
    multiplies up through ``positiveScaleInt64``, whose 1, 2, 3, 6 and 9-place cases return
    the wrapped product and whose other cases return 0 (``cpu: 1E`` is 10^18 at scale 18: its
    MilliValue() is 0, so a node with it has no cpu); an amount kept as an ``inf.Dec`` goes
    through ``scaledValue``, whose ``big.Int.Int64()`` keeps the low 64 bits. ParseQuantity
    caps binary-SI amounts at 2^63-1 in both releases. Negative amounts (refused by the API
    server in what the scheduler reads) are read alike."""
    previous = _SATURATE[0]
    _SATURATE[0] = saturate
    return previous


def _scaled(text: str | int | float, scale: int) -> int:
    if isinstance(text, str | int | float) and not isinstance(text, bool):
        return _scaled_cached(text, scale, _SATURATE[0])
    return _ceil_away_from_zero(parse_quantity(text) * scale)


@lru_cache(maxsize=_CACHE_SIZE, typed=True)
def _scaled_cached(text: str | int | float, scale: int, saturating: bool) -> int:
    exact = _parse_cached(text) * scale
    n = math.ceil(exact) if exact >= 0 else math.floor(exact)
    if saturating or INT64_MIN <= n <= INT64_MAX:
        return saturate(n)
    return _wrapped(text, scale)


_MAX_INT64_FACTORS = 18  # apimachinery quantity.go maxInt64Factors
_EXPONENT = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def _wrap(n: int) -> int:
    """big.Int.Int64() / an int64 product: the low 64 bits, as a signed int64."""
    low = abs(n) & (2**64 - 1)
    v = low - 2**64 if low >= 2**63 else low
    if n < 0:
        v = -v if v != INT64_MIN else INT64_MIN
    return v


def _int64_multiply(a: int, b: int) -> tuple[int, bool]:
    """int64Multiply (apimachinery math.go): the wrapped product and whether it fits."""
    if a in (0, 1) or b in (0, 1):
        return _wrap(a * b), True
    if INT64_MIN in (a, b):
        return 0, False
    c = _wrap(a * b)
    return c, c == a * b


def _positive_scale_int64(base: int, places: int) -> int:
    """positiveScaleInt64 before kubernetes PR #141305, its flag dropped by ScaledValue."""
    if places == 0:
        return base
    if places in (1, 2, 3, 6, 9):
        return _int64_multiply(base, 10**places)[0]
    value_ = base
    for _ in range(places):
        value_, ok = _int64_multiply(value_, 10)
        if not ok:
            return 0
    return value_


def _wrapped(text: str | int | float, scale: int) -> int:
    """``ScaledValue`` of an amount beyond int64, as apimachinery before kubernetes PR #141305
    reads it (see :func:`read_out_of_range_quantities`)."""
    s = str(text).strip() if not isinstance(text, float) else str(text)
    m = _QUANTITY_RE.match(s)
    assert m is not None  # parsed already
    sign, digits = (-1, m.group("num")[1:]) if m.group("num").startswith("-") else \
        (1, m.group("num").lstrip("+"))
    num, _, denom = digits.partition(".")
    num = num.lstrip("0") or "0"  # parseQuantityString strips leading zeros, keeps one
    suffix = m.group("suffix") or ""
    exact = _parse_cached(text) * scale
    target = {1: 0, 1000: -3}[scale]
    if suffix in _BINARY:  # int64Amount only for whole numbers of few digits; else a capped inf.Dec
        exponent = _BINARY[suffix].bit_length() - 1
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1 if not denom else -1
        if precision >= 0:
            product, ok = _int64_multiply(int(num), 1 << exponent)
            if ok:
                return _positive_scale_int64(sign * product, -target)
        capped = min(abs(_parse_cached(text)), Fraction(INT64_MAX)) * scale
        return _wrap(sign * math.ceil(capped))
    exponent = _EXPONENT[suffix] if suffix in _EXPONENT else int(suffix[1:])
    if _MAX_INT64_FACTORS - (len(num) + len(denom)) >= 0 and exponent - len(denom) >= -9:
        amount_scale = exponent - len(denom)
        amount = sign * int(num + denom)
        if amount_scale >= target:
            return _positive_scale_int64(amount, amount_scale - target)
    return _wrap(math.ceil(exact) if exact >= 0 else math.floor(exact))


def resource_value(name: str, text: str | int | float) -> int:
    """The integer the scheduler keeps for resource ``name``: millicores for cpu, else Value().

    Mirrors framework.Resource.Add (pkg/scheduler/framework/types.go): cpu via MilliValue,
    memory, ephemeral-storage, pods and scalar (extended, hugepages) resources via Value.
    """
    return milli_value(text) if name == "cpu" else value(text)


_BINARY_DESC = sorted(_BINARY.items(), key=lambda kv: -kv[1])


def format_quantity(name: str, amount: int) -> str:
    """The inverse of :func:`resource_value` for display: ``1500`` cpu -> ``1500m``, ``2000`` ->
    ``2``; byte amounts (memory, storage, hugepages) with the largest binary suffix that divides
    them (``1Gi``); counts as is."""
    if name == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if amount and (name in ("memory", "ephemeral-storage", "storage") or name.startswith("hugepages-")):
        for suffix, factor in _BINARY_DESC:
            if amount % factor == 0:
                return f"{amount // factor}{suffix}"
    return str(amount)
