"""Go integer semantics, once.

Go's integer division truncates toward zero while Python's ``//`` floors; every upstream score
formula that divides (``maxPriority * score / maxCount``, ``requested * 100 / capacity``, …)
must use these helpers so negative operands round as in Go. They accept Python ints and numpy
int64 arrays alike (numpy's ``//`` also floors, so arrays need the same correction).
"""

from __future__ import annotations

from typing import TypeVar, overload

import numpy as np
import numpy.typing as npt

__all__ = ["go_div", "go_div_array", "go_mod"]

I64 = npt.NDArray[np.int64]
_T = TypeVar("_T", int, I64)


def _go_div_int(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_div_array(a: I64 | int, b: I64 | int) -> I64:
    """Element-wise Go ``a / b`` on int64 arrays (broadcasting). Division by zero yields 0
    where ``b == 0``: callers guard those entries as upstream does before dividing.

    ``np.fmod`` is C's (and Go's) remainder, with the sign of the dividend, so ``a - fmod(a, b)``
    is an exact multiple of ``b`` and floor division of it truncates as Go does: three numpy
    operations, no sign juggling (these run per node in every score)."""
    aa = np.asarray(a, dtype=np.int64)
    if isinstance(b, int | np.integer):
        if b == 0:
            return np.zeros(aa.shape, dtype=np.int64)
        return np.asarray((aa - np.fmod(aa, b)) // b, dtype=np.int64)
    bb = np.asarray(b, dtype=np.int64)
    zero = bb == 0
    if not zero.any():
        return np.asarray((aa - np.fmod(aa, bb)) // bb, dtype=np.int64)
    safe = np.where(zero, 1, bb)
    return np.where(zero, 0, (aa - np.fmod(aa, safe)) // safe).astype(np.int64)


@overload
def go_div(a: int, b: int) -> int: ...
@overload
def go_div(a: I64, b: I64 | int) -> I64: ...
@overload
def go_div(a: int, b: I64) -> I64: ...
def go_div(a: int | I64, b: int | I64) -> int | I64:
    """Go ``a / b`` for ints (raises ZeroDivisionError like Go panics) or int64 arrays."""
    if isinstance(a, int) and isinstance(b, int):
        return _go_div_int(a, b)
    return go_div_array(a, b)


def go_mod(a: int, b: int) -> int:
    """Go ``a % b``: the remainder has the sign of the dividend."""
    return a - _go_div_int(a, b) * b
