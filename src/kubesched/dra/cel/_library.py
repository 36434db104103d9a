"""The Kubernetes CEL libraries a device selector may call, as CEL values and functions.

Mirrors ``k8s.io/apiserver/pkg/cel/library`` (master 2026): ``quantity.go`` (``quantity()``,
``isQuantity()``, ``isInteger``, ``asInteger``, ``asApproximateFloat``, ``sign``, ``add``,
``sub``, ``isGreaterThan``, ``isLessThan``, ``compareTo``), ``semverlib.go`` (``semver()``,
``isSemver()`` with optional normalization, ``major``, ``minor``, ``patch``, the comparisons),
the string extensions of cel-go ``ext.Strings`` that selectors use (``split``, ``lowerAscii``,
``upperAscii``, ``trim``, ``replace``, ``join``, ``indexOf``, ``lastIndexOf``, ``substring``,
``charAt``), ``regex.go`` (``find``, ``findAll``) and the DRA ``includes`` function
(dynamic-resource-allocation/cel ``includesFunc``). Errors are returned as
:class:`celpy.evaluation.CELEvalError` values, as CEL propagates them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from functools import total_ordering
from typing import Any, Final

from celpy import celtypes
from celpy.evaluation import CELEvalError

from ...api import QuantityError, parse_quantity

__all__ = ["FUNCTIONS", "MAX_LIST_VALUES", "Quantity", "Semver", "parse_semver"]

MAX_LIST_VALUES: Final = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _err(message: str, exc: type[BaseException] = ValueError) -> CELEvalError:
    return CELEvalError(message, exc, ())


@total_ordering
class Quantity:
    """apiservercel.Quantity: an exact amount; ``==`` compares amounts (``1`` == ``1000m``)."""

    __slots__ = ("value",)

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Quantity({self.value})"


_SEMVER_RE: Final = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


class Semver:
    """apiservercel.Semver over blang/semver: ordered by major, minor, patch, then pre-release
    (a version without one is greater; identifiers compared numerically when numeric); build
    metadata is ignored, also by ``==``."""

    __slots__ = ("major", "minor", "patch", "pre")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[str, ...]) -> None:
        self.major, self.minor, self.patch, self.pre = major, minor, patch, pre

    def compare(self, other: Semver) -> int:
        a, b = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if a != b:
            return -1 if a < b else 1
        if self.pre == other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        for x, y in zip(self.pre, other.pre, strict=False):
            if x == y:
                continue
            xn, yn = x.isdigit(), y.isdigit()
            if xn and yn:
                return -1 if int(x) < int(y) else 1
            if xn != yn:
                return -1 if xn else 1
            return -1 if x < y else 1
        return -1 if len(self.pre) < len(other.pre) else (1 if len(self.pre) > len(other.pre) else 0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __repr__(self) -> str:
        pre = "-" + ".".join(self.pre) if self.pre else ""
        return f"Semver({self.major}.{self.minor}.{self.patch}{pre})"


def parse_semver(text: str, normalize: bool = False) -> Semver:
    """semver.Parse (strict: ``MAJOR.MINOR.PATCH[-pre][+build]``); with ``normalize`` first a
    ``v`` prefix is dropped, missing minor and patch become 0 and leading zeros go
    (semverlib's normalizeVersion). Raises ValueError."""
    if normalize:
        text = _normalize(text)
    m = _SEMVER_RE.match(text)
    if m is None:
        raise ValueError(f"invalid semver: {text}")
    pre = tuple(m.group(4).split(".")) if m.group(4) else ()
    return Semver(int(m.group(1)), int(m.group(2)), int(m.group(3)), pre)


def _normalize(text: str) -> str:
    text = text.removeprefix("v")
    extra = ""
    cut = min((i for i in (text.find("-"), text.find("+")) if i >= 0), default=-1)
    if cut >= 0:
        text, extra = text[:cut], text[cut:]
    parts = text.split(".")
    if len(parts) > 3:
        raise ValueError(f"invalid semver: {text}")
    parts += ["0"] * (3 - len(parts))
    return ".".join(p.lstrip("0") or "0" for p in parts) + extra


# -- quantity ---------------------------------------------------------------------------------
def _quantity(s: Any) -> Any:
    try:
        return Quantity(parse_quantity(str(s)))
    except (QuantityError, ValueError) as exc:
        return _err(f"quantities must match the regular expression: {exc}")


def _is_quantity(s: Any) -> celtypes.BoolType:
    try:
        parse_quantity(str(s))
    except (QuantityError, ValueError):
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _as_quantity(v: Any) -> Quantity | None:
    if isinstance(v, Quantity):
        return v
    if isinstance(v, celtypes.IntType):
        return Quantity(Fraction(int(v)))
    return None


def _is_integer(q: Any) -> Any:
    if not isinstance(q, Quantity):
        return _no_overload("isInteger", q)
    v = q.value
    return celtypes.BoolType(v.denominator == 1 and _INT64_MIN <= v <= _INT64_MAX)


def _as_integer(q: Any) -> Any:
    if not isinstance(q, Quantity):
        return _no_overload("asInteger", q)
    v = q.value
    if v.denominator != 1 or not _INT64_MIN <= v <= _INT64_MAX:
        return _err("cannot convert value to integer")
    return celtypes.IntType(int(v))


def _as_approximate_float(q: Any) -> Any:
    if not isinstance(q, Quantity):
        return _no_overload("asApproximateFloat", q)
    return celtypes.DoubleType(float(q.value))


def _sign(q: Any) -> Any:
    if not isinstance(q, Quantity):
        return _no_overload("sign", q)
    return celtypes.IntType((q.value > 0) - (q.value < 0))


def _arith(name: str, op: Callable[[Fraction, Fraction], Fraction]) -> Callable[[Any, Any], Any]:
    def fn(a: Any, b: Any) -> Any:
        qa, qb = _as_quantity(a), _as_quantity(b)
        if not isinstance(a, Quantity) or qb is None or qa is None:
            return _no_overload(name, a, b)
        return Quantity(op(qa.value, qb.value))

    return fn


# -- comparisons shared by quantity and semver ------------------------------------------------
def _compare(name: str, a: Any, b: Any) -> int | CELEvalError:
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return (a.value > b.value) - (a.value < b.value)
    if isinstance(a, Semver) and isinstance(b, Semver):
        return a.compare(b)
    return _no_overload(name, a, b)


def _is_greater_than(a: Any, b: Any) -> Any:
    c = _compare("isGreaterThan", a, b)
    return c if isinstance(c, CELEvalError) else celtypes.BoolType(c > 0)


def _is_less_than(a: Any, b: Any) -> Any:
    c = _compare("isLessThan", a, b)
    return c if isinstance(c, CELEvalError) else celtypes.BoolType(c < 0)


def _compare_to(a: Any, b: Any) -> Any:
    c = _compare("compareTo", a, b)
    return c if isinstance(c, CELEvalError) else celtypes.IntType(c)


# -- semver -----------------------------------------------------------------------------------
def _semver(s: Any, normalize: Any = False) -> Any:
    try:
        return parse_semver(str(s), bool(normalize))
    except ValueError as exc:
        return _err(f"could not parse semver: {exc}")


def _is_semver(s: Any, normalize: Any = False) -> celtypes.BoolType:
    try:
        parse_semver(str(s), bool(normalize))
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _semver_part(name: str) -> Callable[[Any], Any]:
    def fn(v: Any) -> Any:
        if not isinstance(v, Semver):
            return _no_overload(name, v)
        return celtypes.IntType(getattr(v, name))

    return fn


# -- strings and regular expressions ----------------------------------------------------------
def _str_fn(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(target: Any, *args: Any) -> Any:
        if not isinstance(target, celtypes.StringType):
            return _no_overload(name, target, *args)
        return fn(str(target), *args)

    return wrapped


def _split(s: str, sep: Any, n: Any = -1) -> Any:
    n = int(n)
    if n == 0:
        return celtypes.ListType()
    parts = s.split(str(sep)) if n < 0 else s.split(str(sep), n - 1)
    return celtypes.ListType(celtypes.StringType(p) for p in parts)


def _join(items: Any, sep: Any = "") -> Any:
    if not isinstance(items, celtypes.ListType):
        return _no_overload("join", items)
    return celtypes.StringType(str(sep).join(str(x) for x in items))


def _substring(s: str, start: Any, end: Any = None) -> Any:
    stop = len(s) if end is None else int(end)
    if not 0 <= int(start) <= stop <= len(s):
        return _err(f"index out of range: {start}", IndexError)
    return celtypes.StringType(s[int(start) : stop])


def _char_at(s: str, i: Any) -> Any:
    if not 0 <= int(i) <= len(s):
        return _err(f"index out of range: {i}", IndexError)
    return celtypes.StringType(s[int(i) : int(i) + 1])


def _find(s: str, pattern: Any) -> Any:
    m = re.search(str(pattern), s)
    return celtypes.StringType(m.group(0) if m else "")


def _find_all(s: str, pattern: Any, n: Any = -1) -> Any:
    found = [m.group(0) for m in re.finditer(str(pattern), s)]
    if int(n) >= 0:
        found = found[: int(n)]
    return celtypes.ListType(celtypes.StringType(x) for x in found)


# -- includes (DRAListTypeAttributes) ---------------------------------------------------------
def _includes(target: Any, arg: Any) -> Any:
    """includesFunc: list membership, or equality for a scalar; lists longer than the
    attribute limit are refused rather than scanned."""
    if isinstance(target, celtypes.ListType):
        for i, item in enumerate(target):
            if i >= MAX_LIST_VALUES:
                return _err(
                    f"'includes' function cannot be applied to lists longer than {MAX_LIST_VALUES} values"
                )
            if type(item) is type(arg) and item == arg:
                return celtypes.BoolType(True)
        return celtypes.BoolType(False)
    return celtypes.BoolType(type(target) is type(arg) and target == arg)


def _no_overload(name: str, *args: Any) -> CELEvalError:
    kinds = ", ".join(type(a).__name__ for a in args)
    return _err(f"no such overload: {name}({kinds})", TypeError)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "isInteger": _is_integer,
    "asInteger": _as_integer,
    "asApproximateFloat": _as_approximate_float,
    "sign": _sign,
    "add": _arith("add", lambda a, b: a + b),
    "sub": _arith("sub", lambda a, b: a - b),
    "isGreaterThan": _is_greater_than,
    "isLessThan": _is_less_than,
    "compareTo": _compare_to,
    "semver": _semver,
    "isSemver": _is_semver,
    "major": _semver_part("major"),
    "minor": _semver_part("minor"),
    "patch": _semver_part("patch"),
    "split": _str_fn("split", _split),
    "lowerAscii": _str_fn("lowerAscii", lambda s: celtypes.StringType(s.lower())),
    "upperAscii": _str_fn("upperAscii", lambda s: celtypes.StringType(s.upper())),
    "trim": _str_fn("trim", lambda s: celtypes.StringType(s.strip())),
    "replace": _str_fn(
        "replace", lambda s, old, new, n=-1: celtypes.StringType(s.replace(str(old), str(new), int(n)))
    ),
    "indexOf": _str_fn("indexOf", lambda s, sub, start=0: celtypes.IntType(s.find(str(sub), int(start)))),
    "lastIndexOf": _str_fn("lastIndexOf", lambda s, sub: celtypes.IntType(s.rfind(str(sub)))),
    "substring": _str_fn("substring", _substring),
    "charAt": _str_fn("charAt", _char_at),
    "find": _str_fn("find", _find),
    "findAll": _str_fn("findAll", _find_all),
    "join": _join,
    "includes": _includes,
}
"""Every function and method the DRA environment adds to CEL's standard ones."""
