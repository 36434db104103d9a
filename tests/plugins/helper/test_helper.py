"""plugins/helper: normalize_score_test.go, shape_score_test.go and Go integer division."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.plugins.helper import (
    FunctionShapePoint,
    broken_linear,
    build_broken_linear_function,
    default_normalize_score,
    go_div,
    go_div_array,
    go_mod,
)


@pytest.mark.parametrize(
    ("reverse", "scores", "expected"),
    [
        pytest.param(False, [10, 20, 30], [33, 66, 100], id="scale"),
        pytest.param(True, [10, 20, 30], [67, 34, 0], id="reverse"),
        pytest.param(False, [0, 0, 0], [0, 0, 0], id="all-zero"),
        pytest.param(True, [0, 0, 0], [100, 100, 100], id="all-zero-reverse"),
        pytest.param(False, [], [], id="empty"),
        pytest.param(False, [1000, 3, 700], [100, 0, 70], id="truncates"),
    ],
)
def test_default_normalize_score(reverse: bool, scores: list[int], expected: list[int]) -> None:
    arr = np.array(scores, dtype=np.int64)
    default_normalize_score(100, reverse, arr)
    assert arr.tolist() == expected


@pytest.mark.parametrize(
    ("a", "b", "q"),
    [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, 5, 0)],
)
def test_go_div_truncates_toward_zero(a: int, b: int, q: int) -> None:
    assert go_div(a, b) == q
    assert go_div_array(np.array([a]), np.array([b])).tolist() == [q]
    assert go_mod(a, b) == a - q * b


@pytest.mark.parametrize(
    ("b", "q"),
    [
        pytest.param(0, [0, 0, 0], id="int-zero"),
        pytest.param(np.int64(0), [0, 0, 0], id="numpy-scalar-zero"),
        pytest.param(np.array([2, 0, -2]), [3, 0, -4], id="zero-entries"),
        pytest.param(np.int64(-2), [-3, 3, -4], id="numpy-scalar"),
    ],
)
def test_go_div_array_zero_divisor_entries_are_zero(b: int | np.ndarray, q: list[int]) -> None:
    # callers guard these entries; the helper must not raise or warn on them
    assert go_div_array(np.array([7, -7, 9]), b).tolist() == q


@settings(derandomize=True)
@given(st.integers(-(10**15), 10**15), st.integers(-(10**6), 10**6))
def test_go_div_array_broadcasts_like_int(a: int, b: int) -> None:
    want = go_div(a, b) if b else 0
    assert go_div_array(np.array([a, -a]), np.array([b, b])).tolist() == [want, -want]
    assert go_div_array(a, b).tolist() == want


@settings(derandomize=True)
@given(st.integers(-(10**12), 10**12), st.integers(-(10**6), 10**6).filter(bool))
def test_go_div_array_agrees_with_int(a: int, b: int) -> None:
    assert go_div_array(np.array([a]), b).tolist() == [go_div(a, b)]


SHAPE = [
    FunctionShapePoint(10, 1),
    FunctionShapePoint(20, 6),
    FunctionShapePoint(30, 10),
    FunctionShapePoint(50, 2),
]


@pytest.mark.parametrize(
    ("p", "expected"),
    [(0, 1), (10, 1), (15, 3), (20, 6), (25, 8), (30, 10), (40, 6), (45, 4), (50, 2), (70, 2)],
)
def test_broken_linear_function(p: int, expected: int) -> None:
    # between (20,6) and (30,10) at 25: 6 + (10-6)*(25-20)/(30-20) = 6 + 20/10 = 8
    # between (30,10) and (50,2) at 45: 10 + (2-10)*(45-30)/(50-30) = 10 + (-120/20) = 4
    assert build_broken_linear_function(SHAPE)(p) == expected
    assert broken_linear(SHAPE, np.array([p])).tolist() == [expected]


def test_broken_linear_negative_slope_truncates() -> None:
    # 10 + (-8)*(31-30)/20 = 10 + trunc(-0.4) = 10 (Go), while floor division would give 9
    assert build_broken_linear_function(SHAPE)(31) == 10
    assert broken_linear(SHAPE, np.array([31, 31])).tolist() == [10, 10]
