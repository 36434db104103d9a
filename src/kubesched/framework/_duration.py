"""Go's time.Duration text form, both ways.

Upstream messages print durations with Go's ``%v`` (``rejected due to timeout after waiting 10s
at plugin X``) and configs carry metav1.Duration strings (``httpTimeout: 30s``); matching
upstream's text needs Go's exact formatting (time.Duration.String) and parsing
(time.ParseDuration).
"""

from __future__ import annotations

import re

__all__ = ["format_go_duration", "parse_go_duration"]

_UNITS_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10**9,
             "m": 60 * 10**9, "h": 3600 * 10**9}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def _frac(v: int, prec: int) -> tuple[str, int]:
    """Go's fmtFrac: the fraction digits of v / 10**prec without trailing zeros."""
    digits = ""
    printed = False
    for _ in range(prec):
        d = v % 10
        printed = printed or d != 0
        if printed:
            digits = str(d) + digits
        v //= 10
    return ("." + digits if printed else ""), v


def format_go_duration(seconds: float) -> str:
    """time.Duration(seconds).String(): ``1.5s``, ``1m30s``, ``1h0m0s``, ``500ms``, ``0s``."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    neg = ns < 0
    u = -ns if neg else ns
    sign = "-" if neg else ""
    if u < 10**9:
        for prec, unit in ((0, "ns"), (3, "µs"), (6, "ms")):
            if u < 10 ** (prec + 3):
                frac, whole = _frac(u, prec)
                return f"{sign}{whole}{frac}{unit}"
    frac, whole_s = _frac(u, 9)
    out = f"{whole_s % 60}{frac}s"
    mins = whole_s // 60
    if mins > 0:
        out = f"{mins % 60}m{out}"
        hours = mins // 60
        if hours > 0:
            out = f"{hours}h{out}"
    return sign + out


def parse_go_duration(text: str) -> float:
    """time.ParseDuration, in seconds. Raises ValueError on a malformed string."""
    s = text.strip()
    if s in ("0", "+0", "-0"):
        return 0.0
    sign = 1.0
    if s[:1] in ("+", "-"):
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if not s:
        raise ValueError(f"time: invalid duration {text!r}")
    total = 0.0
    pos = 0
    for m in _PART.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS_NS[m.group(2)]
        pos = m.end()
    if pos != len(s):
        raise ValueError(f"time: invalid duration {text!r}")
    return sign * total / 1e9
