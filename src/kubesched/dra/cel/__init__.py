"""Device selectors in CEL, as ``k8s.io/dynamic-resource-allocation/cel``.

Compile an expression once (:func:`get_compiler` ``.compile``, memoized), evaluate it against
any number of devices (:meth:`CompilationResult.device_matches`). Compile errors are
:class:`CELError` values on the result; runtime errors raise :class:`SelectorEvalError`.
"""

from ._compile import (
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    CELError,
    CompilationResult,
    Compiler,
    Device,
    EnvType,
    Features,
    SelectorEvalError,
    get_compiler,
)
from ._library import Quantity, Semver, parse_semver

__all__ = [
    "CEL_SELECTOR_EXPRESSION_MAX_COST",
    "CELError",
    "CompilationResult",
    "Compiler",
    "Device",
    "EnvType",
    "Features",
    "Quantity",
    "SelectorEvalError",
    "Semver",
    "get_compiler",
    "parse_semver",
]
