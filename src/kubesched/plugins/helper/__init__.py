"""Helpers shared by the in-tree plugins (pkg/scheduler/framework/plugins/helper upstream):
score normalization, the broken-linear shape function, and Go integer arithmetic."""

from ._features import feature_enabled
from ._gomath import go_div, go_div_array, go_mod
from ._normalize_score import default_normalize_score
from ._shape_score import FunctionShapePoint, broken_linear, build_broken_linear_function

__all__ = [
    "FunctionShapePoint",
    "broken_linear",
    "build_broken_linear_function",
    "default_normalize_score",
    "feature_enabled",
    "go_div",
    "go_div_array",
    "go_mod",
]
