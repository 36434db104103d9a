"""DynamicResourcesArgs, with v1 defaults and validation.

Mirrors staging/src/k8s.io/kube-scheduler/config/v1 DynamicResourcesArgs (``filterTimeout``,
default 10s; ``bindingTimeout``, default 10m, config.DynamicResourcesBindingTimeoutDefault) and
ValidateDynamicResourcesArgs in pkg/scheduler/apis/config/validation/validation_pluginargs.go:
a negative filter timeout and a binding timeout under one second are refused. Durations are
Go's text form (``600s``, ``10m``) or seconds. Not checked: upstream also forbids setting a
field whose feature gate is off (args are validated before the gates are known here).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kubesched.framework import ArgsError, PluginArgs, format_go_duration, parse_go_duration

__all__ = ["DynamicResourcesArgs"]


def _seconds(path: str, v: Any) -> float:
    if isinstance(v, bool):
        raise ArgsError(f"{path}: Invalid value: {v!r}: must be a duration")
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return parse_go_duration(v)
        except ValueError as exc:
            raise ArgsError(f"{path}: Invalid value: {v!r}: {exc}") from None
    raise ArgsError(f"{path}: Invalid value: {v!r}: must be a duration")


@dataclasses.dataclass(frozen=True, kw_only=True)
class DynamicResourcesArgs(PluginArgs):
    filter_timeout: Any = "10s"
    binding_timeout: Any = "10m0s"

    @property
    def binding_timeout_seconds(self) -> float:
        return _seconds("bindingTimeout", self.binding_timeout)

    def validate(self) -> None:
        if _seconds("filterTimeout", self.filter_timeout) < 0:
            raise ArgsError(f'filterTimeout: Invalid value: "{self.filter_timeout}": '
                            "must be zero or positive")
        binding = self.binding_timeout_seconds
        if binding < 1:
            raise ArgsError(f"bindingTimeout: Invalid value: \"{format_go_duration(binding)}\": "
                            "must be at least 1 second")
