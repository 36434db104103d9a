"""Values and functions of Go's ``text/template`` as upstream's scheduler_perf uses them.

How ``fmt`` prints a value (``%v``), ``encoding/json``'s compact form (the ``JSON`` function),
template truth, the builtins (text/template's ``funcs.go``) and upstream's FuncMap
(test/integration/scheduler_perf/create.go ``getTemplateFuncs``). The engine that calls them
is :mod:`._gotemplate`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

__all__ = ["FUNCS", "MISSING", "TemplateError", "basic_kind", "go_print", "truth"]


class TemplateError(ValueError):
    """A template that cannot be parsed or executed; the message names the line."""


class _Missing:
    """A missing map key (Go: an invalid reflect.Value): prints ``<no value>``, is false, and
    becomes nil when passed to a function."""

    def __repr__(self) -> str:
        return "<no value>"


MISSING = _Missing()


# -- printing (fmt %v) --------------------------------------------------------------------------
def _go_float(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64) as fmt's %v uses it (exponent from 1e21 up)."""
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if math.isnan(f):
        return "NaN"
    if f == 0:
        return "0"
    # repr gives the shortest digits that round-trip, as Go's -1 precision does.
    _sign, digit_tuple, dexp = Decimal(repr(abs(f))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exp = int(dexp) + len(digit_tuple) - 1  # the decimal exponent of the first digit
    sign = "-" if f < 0 else ""
    if exp < -4 or exp >= 21:
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{m}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    if len(digits) <= exp + 1:
        return sign + digits + "0" * (exp + 1 - len(digits))
    return f"{sign}{digits[:exp + 1]}.{digits[exp + 1:]}"


def go_print(v: Any) -> str:
    """A value as Go's fmt prints it with %v."""
    if v is MISSING:
        return "<no value>"
    if v is None:
        return "<nil>"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _go_float(v)
    if isinstance(v, str):
        return v
    if isinstance(v, Mapping):
        return "map[" + " ".join(f"{go_print(k)}:{go_print(v[k])}" for k in sorted(v, key=str)) + "]"
    if isinstance(v, (list, tuple)):
        return "[" + " ".join(go_print(x) for x in v) + "]"
    return str(v)


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return int(v)
    if isinstance(v, Mapping):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return None if v is MISSING else v


def _go_json(v: Any) -> str:
    """encoding/json.Marshal: compact, map keys sorted, <, > and & escaped as Go escapes them."""
    out = json.dumps(_json_value(v), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return (out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


# -- functions ----------------------------------------------------------------------------------
def truth(v: Any) -> bool:
    """text/template's truth: false, 0, nil, an empty string, list or map are false."""
    if v is MISSING or v is None:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float, str, list, tuple, Mapping)):
        return bool(v)
    return True


def _to_float(v: Any) -> float:
    """upstream's toFloat64: numbers, and strings that parse as a float."""
    if isinstance(v, bool):
        raise TemplateError(f"cannot cast {go_print(v)} to float64")
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            pass
    raise TemplateError(f"cannot cast {go_print(v)} to float64")


def _go_int(f: float) -> int:
    """Go's int(float64): truncation toward zero."""
    return int(f)


def _to_int(v: Any) -> int:
    """``Int``: an integer from an int, a float (truncated) or a decimal string."""
    if isinstance(v, bool):
        raise TemplateError(f"Int: cannot convert {go_print(v)} to int")
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v)
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            pass
        try:
            return int(float(v))
        except ValueError:
            pass
    raise TemplateError(f"Int: cannot convert {go_print(v)} to int")


def _divide(i: Any, j: Any) -> float:
    d = _to_float(j)
    if d == 0:
        raise TemplateError("division by zero")
    return _to_float(i) / d


def _mod(a: Any, b: Any) -> int:
    x, y = _go_int(_to_float(a)), _go_int(_to_float(b))
    if y == 0:
        raise TemplateError("integer divide by zero")
    return int(math.fmod(x, y))


def basic_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if v is None or v is MISSING:
        return "nil"
    return "other"


def _eq(a: Any, *bs: Any) -> bool:
    if not bs:
        raise TemplateError("missing argument for comparison")
    ka = basic_kind(a)
    for b in bs:
        kb = basic_kind(b)
        if ka == "other" or kb == "other":
            raise TemplateError("non-comparable types")
        if ka != kb and "nil" not in (ka, kb):
            raise TemplateError("incompatible types for comparison")
        if a == b:
            return True
    return False


def _ordered(name: str, op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def cmp(a: Any, b: Any) -> bool:
        ka, kb = basic_kind(a), basic_kind(b)
        if ka not in ("int", "float", "string") or kb not in ("int", "float", "string"):
            raise TemplateError(f"{name}: invalid type for comparison")
        if ka != kb:
            raise TemplateError(f"{name}: incompatible types for comparison")
        return op(a, b)
    return cmp


def _len(v: Any) -> int:
    if isinstance(v, (str, list, tuple, Mapping)):
        return len(v.encode() if isinstance(v, str) else v)
    raise TemplateError(f"len of type {basic_kind(v)}")


def _index(v: Any, *keys: Any) -> Any:
    for k in keys:
        if isinstance(v, Mapping):
            v = v.get(k, None)
        elif isinstance(v, (list, tuple, str)):
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(v):
                raise TemplateError(f"index out of range: {go_print(k)}")
            v = v[k]
        else:
            raise TemplateError(f"can't index item of type {basic_kind(v)}")
    return v


def _printf(fmt: str, *args: Any) -> str:
    """fmt.Sprintf for the verbs templates use: %v %s %d %f %g %q %%."""
    out: list[str] = []
    it = iter(args)
    i = 0
    spec = re.compile(r"%([-+ 0#]*)(\d*)(?:\.(\d+))?([vsdfgqxX%])")
    while i < len(fmt):
        m = spec.match(fmt, i) if fmt[i] == "%" else None
        if m is None:
            out.append(fmt[i])
            i += 1
            continue
        flags, width, prec, verb = m.groups()
        i = m.end()
        if verb == "%":
            out.append("%")
            continue
        try:
            a = next(it)
        except StopIteration:
            out.append(f"%!{verb}(MISSING)")
            continue
        if verb in "vs":
            s = go_print(a)
        elif verb == "d" and isinstance(a, int) and not isinstance(a, bool):
            s = str(a)
        elif verb in "xX" and isinstance(a, int) and not isinstance(a, bool):
            s = format(a, verb)
        elif verb in "fg" and isinstance(a, (int, float)) and not isinstance(a, bool):
            s = f"{float(a):.{int(prec) if prec else 6}f}" if verb == "f" else _go_float(float(a))
        elif verb == "q" and isinstance(a, str):
            s = json.dumps(a, ensure_ascii=False)
        else:
            s = f"%!{verb}({go_print(a)})"
        if width:
            s = s.ljust(int(width)) if "-" in flags else s.rjust(int(width), "0" if "0" in flags else " ")
        out.append(s)
    extra = list(it)
    if extra:
        out.append("%!(EXTRA " + ", ".join(go_print(a) for a in extra) + ")")
    return "".join(out)


FUNCS: dict[str, Callable[..., Any]] = {
    # builtins (and / or are short-circuiting and handled by the executor)
    "not": lambda v: not truth(v),
    "eq": _eq,
    "ne": lambda a, b: not _eq(a, b),
    "lt": _ordered("lt", lambda a, b: a < b),
    "le": _ordered("le", lambda a, b: a <= b),
    "gt": _ordered("gt", lambda a, b: a > b),
    "ge": _ordered("ge", lambda a, b: a >= b),
    "len": _len,
    "index": _index,
    "print": lambda *a: "".join(
        (" " if i and not isinstance(x, str) and not isinstance(a[i - 1], str) else "") + go_print(x)
        for i, x in enumerate(a)),
    "println": lambda *a: " ".join(go_print(x) for x in a) + "\n",
    "printf": _printf,
    # upstream's scheduler_perf FuncMap (create.go getTemplateFuncs)
    "AddFloat": lambda *n: sum((_to_float(x) for x in n), 0.0),
    "AddInt": lambda *n: _go_int(sum((_to_float(x) for x in n), 0.0)),
    "SubtractFloat": lambda i, j: _to_float(i) - _to_float(j),
    "SubtractInt": lambda i, j: _go_int(_to_float(i) - _to_float(j)),
    "MultiplyFloat": lambda *n: math.prod(_to_float(x) for x in n),
    "MultiplyInt": lambda *n: _go_int(math.prod(_to_float(x) for x in n)),
    "DivideFloat": _divide,
    "DivideInt": lambda i, j: _go_int(_divide(i, j)),
    "Mod": _mod,
    "Int": _to_int,
    "JSON": _go_json,
}
