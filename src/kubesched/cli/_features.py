"""``--feature-gates``: kube-scheduler's flag, ``Name=true,Other=false``.

Parsed as component-base's ``featureGate.Set`` parses it (comma-separated ``key=value``,
values as Go's ``strconv.ParseBool``), with its dependency check (GangScheduling needs
GenericWorkload). A bad value is bad input (exit code 2).
"""

from __future__ import annotations

from typing import Final

from ..framework import feature_dependency_errors

__all__ = ["FEATURE_GATES_HELP", "parse_feature_gates"]

FEATURE_GATES_HELP: Final = ("Feature gates as kube-scheduler's --feature-gates, e.g. "
                             "GenericWorkload=true,GangScheduling=true (gang scheduling).")

_TRUE: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE: Final = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_feature_gates(text: str | None) -> dict[str, bool]:
    """``A=true,B=false`` -> {"A": True, "B": False}; raises ValueError on a malformed entry."""
    gates: dict[str, bool] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(f"--feature-gates: missing bool value for {key or item}")
        if value in _TRUE:
            gates[key] = True
        elif value in _FALSE:
            gates[key] = False
        else:
            raise ValueError(f'--feature-gates: invalid value of {key}={value}, err: strconv.ParseBool: '
                             f'parsing "{value}": invalid syntax')
    errs = feature_dependency_errors(gates)
    if errs:
        raise ValueError("--feature-gates: " + "; ".join(errs))
    return gates
