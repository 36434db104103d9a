"""The CEL part of the API server's validation of DRA objects.

validateCELSelector (pkg/apis/resource/validation/validation.go, master 2026): every selector of
a DeviceClass (and of a 1.33/1.34 DeviceTaintRule), and of each request and sub-request of a
ResourceClaim or a template, must
compile in the NewExpressions environment (what a create uses) and its worst-case cost must
stay within CELSelectorExpressionMaxCost. The structural checks are done when the object is
parsed (:mod:`kubesched.api`); this needs the CEL compiler, so the store runs it on admission.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..api import DeviceClaim, DeviceClass, DeviceTaintRule, FieldErrors, ResourceClaim, ResourceClaimTemplate

if TYPE_CHECKING:
    from .cel import Features

__all__ = ["selector_errors"]


def _claim_selectors(devices: DeviceClaim, path: str) -> Iterator[tuple[str, str]]:
    for i, req in enumerate(devices.requests):
        if req.exactly is not None:
            for j, expr in enumerate(req.exactly.selectors):
                yield f"{path}.requests[{i}].exactly.selectors[{j}].cel.expression", expr
        for k, sub in enumerate(req.first_available):
            for j, expr in enumerate(sub.selectors):
                yield f"{path}.requests[{i}].firstAvailable[{k}].selectors[{j}].cel.expression", expr


def _selectors(obj: object) -> Iterator[tuple[str, str]]:
    if isinstance(obj, DeviceClass):
        for j, expr in enumerate(obj.selectors):
            yield f"spec.selectors[{j}].cel.expression", expr
    elif isinstance(obj, ResourceClaim):
        yield from _claim_selectors(obj.devices, "spec.devices")
    elif isinstance(obj, ResourceClaimTemplate):
        yield from _claim_selectors(obj.devices, "spec.spec.devices")
    elif isinstance(obj, DeviceTaintRule):  # v1alpha3 of 1.33/1.34 (validateDeviceTaintSelector)
        for j, expr in enumerate(obj.selectors):
            yield f"spec.deviceSelector.selectors[{j}].cel.expression", expr


def selector_errors(obj: object, features: Features | None = None) -> list[str]:
    """The field errors of ``obj``'s CEL selectors (none for other kinds), as upstream words
    them: ``<path>: Invalid value: "<expression>": compilation failed: ...`` or
    ``<path>: Forbidden: too complex, exceeds cost limit``."""
    selectors = list(_selectors(obj))
    if not selectors:  # every other kind, and most objects: no need to load the CEL engine
        return []
    from .cel import CEL_SELECTOR_EXPRESSION_MAX_COST, get_compiler

    compiler = get_compiler(features)
    errs = FieldErrors()
    for path, expr in selectors:
        result = compiler.compile(expr, "NewExpressions")
        if result.error is not None:
            errs.invalid(path, expr, result.error.detail)
        elif result.max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
            errs.forbidden(path, "too complex, exceeds cost limit")
    return errs.errors
