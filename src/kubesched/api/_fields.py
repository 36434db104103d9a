"""Typed readers for manifest fields: every value the parsers take from a manifest goes through
one of these, so a field of the wrong type or out of range is refused with its path, never
with a Python error from deep inside a parser (or later, inside a plugin).

The API server decodes a manifest into typed Go structs before anything else looks at it: a
string where a list belongs, a fraction or ``.inf`` where an int32 belongs, a list where an
IntOrString belongs are all refused at the door (``json: cannot unmarshal string into Go struct
field PodSpec.spec.containers of type []v1.Container``). These readers are that door. Their
errors read like k8s.io/apimachinery's ``field.Error`` (``spec.containers: Invalid value:
"oops": must be a list``), the format the API server's validation uses, so a decoding error
and a validation error look alike.

Deliberately lenient where YAML authors are sloppy and nothing can go wrong: a number in a
string field (``version: 2`` as a label value) is read as its text, and an int field accepts a
whole float (``1.0``) or a decimal string, as the existing loader always did. ``null`` is
always "not set".
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "FieldValueError",
    "boolean",
    "go_value",
    "int32",
    "int64",
    "int_or_string",
    "mapping",
    "objects",
    "opt_int32",
    "opt_int64",
    "sequence",
    "string",
    "string_map",
    "strings",
]

INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

_EMPTY: Final[Mapping[str, Any]] = {}


def go_value(v: Any, limit: int = 80) -> str:
    """A value as field.Error prints it: strings quoted with escapes (Go's ``%q``: a newline in a
    value never breaks the error's line), booleans lower case, others plain; long values cut (a
    whole mapping in an error line helps nobody)."""
    if isinstance(v, str):
        s = json.dumps(v, ensure_ascii=False)
    elif isinstance(v, bool):
        s = "true" if v else "false"
    elif v is None:
        s = "null"
    else:
        s = str(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


class FieldValueError(ValueError):
    """A manifest field the API server would refuse; the message names the field path."""

    @staticmethod
    def invalid(path: str, value: Any, detail: str) -> FieldValueError:
        """field.Invalid: ``path: Invalid value: <value>: detail``."""
        return FieldValueError(f"{path}: Invalid value: {go_value(value)}: {detail}")

    @staticmethod
    def required(path: str, detail: str = "") -> FieldValueError:
        """field.Required: ``path: Required value[: detail]``."""
        return FieldValueError(f"{path}: Required value" + (f": {detail}" if detail else ""))


def mapping(v: Any, path: str) -> Mapping[str, Any]:
    """An object field; ``null`` or missing reads as empty."""
    if type(v) is dict:
        return v
    if v is None:
        return _EMPTY
    if isinstance(v, Mapping):
        return v
    raise FieldValueError.invalid(path, v, "must be an object")


def sequence(v: Any, path: str) -> list[Any] | tuple[Any, ...]:
    """A list field; ``null`` or missing reads as empty."""
    if type(v) is list:
        return v
    if v is None:
        return ()
    if isinstance(v, tuple):
        return v
    raise FieldValueError.invalid(path, v, "must be a list")


def objects(v: Any, path: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    """Each item of a list of objects, with its path ``path[i]``."""
    for i, item in enumerate(sequence(v, path)):
        ipath = f"{path}[{i}]"
        if type(item) is dict:
            yield item, ipath
        elif item is None:
            yield _EMPTY, ipath
        elif isinstance(item, Mapping):
            yield item, ipath
        else:
            raise FieldValueError.invalid(ipath, item, "must be an object")


def string(v: Any, path: str, default: str = "") -> str:
    """A string field (a number is read as its text); ``null`` gives ``default``."""
    if type(v) is str:
        return v
    if v is None:
        return default
    if isinstance(v, int | float) and not isinstance(v, bool) and not _nonfinite(v):
        return str(v)
    raise FieldValueError.invalid(path, v, "must be a string")


def strings(v: Any, path: str) -> tuple[str, ...]:
    """A list of strings."""
    if type(v) is list and all(type(s) is str for s in v):  # the usual case, without paths
        return tuple(v)
    return tuple(string(s, f"{path}[{i}]") for i, s in enumerate(sequence(v, path)))


def string_map(v: Any, path: str) -> dict[str, str]:
    """A ``map[string]string`` (labels, annotations, nodeSelector)."""
    if type(v) is dict and all(type(k) is str and type(s) is str for k, s in v.items()):
        return dict(v)  # the usual case, without building a path per entry
    return {str(k): string(s, f"{path}.{k}") for k, s in mapping(v, path).items()}


def boolean(v: Any, path: str, default: bool = False) -> bool:
    """A boolean field; ``null`` gives ``default``."""
    if v is True or v is False:
        return v
    if v is None:
        return default
    raise FieldValueError.invalid(path, v, "must be a boolean")


def _nonfinite(v: float) -> bool:
    return isinstance(v, float) and not math.isfinite(v)


def _integer(v: Any, path: str, lo: int, hi: int, bits: int) -> int:
    if type(v) is int:
        n = v
    elif isinstance(v, bool) or not isinstance(v, int | float | str):
        raise FieldValueError.invalid(path, v, "must be an integer")
    elif isinstance(v, float):
        if _nonfinite(v) or v != int(v):
            raise FieldValueError.invalid(path, v, "must be an integer")
        n = int(v)
    else:
        try:
            n = int(v)
        except ValueError:
            raise FieldValueError.invalid(path, v, "must be an integer") from None
    if not lo <= n <= hi:
        raise FieldValueError.invalid(path, v, f"must be an int{bits} (in the range [{lo}, {hi}])")
    return n


def int32(v: Any, path: str, default: int = 0) -> int:
    """An int32 field (``null`` gives ``default``)."""
    return default if v is None else _integer(v, path, INT32_MIN, INT32_MAX, 32)


def int64(v: Any, path: str, default: int = 0) -> int:
    """An int64 field (``null`` gives ``default``)."""
    return default if v is None else _integer(v, path, INT64_MIN, INT64_MAX, 64)


def opt_int32(v: Any, path: str) -> int | None:
    """An optional int32 (a Go ``*int32``): ``null`` stays None."""
    return None if v is None else _integer(v, path, INT32_MIN, INT32_MAX, 32)


def opt_int64(v: Any, path: str) -> int | None:
    """An optional int64 (a Go ``*int64``): ``null`` stays None."""
    return None if v is None else _integer(v, path, INT64_MIN, INT64_MAX, 64)


def int_or_string(v: Any, path: str) -> int | str | None:
    """An ``intstr.IntOrString`` (a PDB's minAvailable, ...): an int32 or a string; None if unset."""
    if v is None or type(v) is str:
        return v
    if isinstance(v, int | float) and not isinstance(v, bool):
        return _integer(v, path, INT32_MIN, INT32_MAX, 32)
    raise FieldValueError.invalid(path, v, "must be an integer or a string")
