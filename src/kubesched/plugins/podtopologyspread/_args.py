"""PodTopologySpreadArgs, with v1 defaults and validation.

Mirrors staging/src/k8s.io/kube-scheduler/config/v1 PodTopologySpreadArgs (defaults.go:
``defaultingType: System``), the system default constraints of plugin.go, and
pkg/scheduler/apis/config/validation/validation_pluginargs.go ValidatePodTopologySpreadArgs.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ...api import SelectorError, TopologySpreadConstraint
from ...framework import ArgsError, PluginArgs

__all__ = [
    "LABEL_HOSTNAME",
    "LABEL_TOPOLOGY_ZONE",
    "LIST_DEFAULTING",
    "SYSTEM_DEFAULTING",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpreadArgs",
]

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"

# systemDefaultConstraints (plugin.go): hostname maxSkew 3, zone maxSkew 5, both ScheduleAnyway.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
)

_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _label_name_error(key: str) -> str | None:
    """metav1validation.ValidateLabelName (qualified name: optional DNS prefix, 63-char name)."""
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix)):
        return "prefix part must be a valid DNS subdomain"
    if not name or len(name) > 63 or not _NAME_PART.match(name):
        return ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
                "and end with an alphanumeric character")
    return None


@dataclasses.dataclass(frozen=True, kw_only=True)
class PodTopologySpreadArgs(PluginArgs):
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    defaulting_type: str = SYSTEM_DEFAULTING

    @classmethod
    def decode_field(cls, name: str, value: Any) -> Any:
        if name == "default_constraints":
            out = []
            for i, c in enumerate(value or ()):
                if isinstance(c, TopologySpreadConstraint):
                    out.append(c)
                    continue
                if not isinstance(c, dict):
                    raise ArgsError(f"defaultConstraints[{i}]: must be a mapping")
                if "labelSelector" in c:
                    raise ArgsError(f"defaultConstraints[{i}].labelSelector: Forbidden: constraint must not "
                                    "define a selector, as they deduced for each pod")
                try:
                    out.append(TopologySpreadConstraint.from_dict(c, f"defaultConstraints[{i}]"))
                except (ValueError, SelectorError) as exc:
                    raise ArgsError(str(exc)) from exc
            return tuple(out)
        return value

    def to_dict(self) -> dict[str, Any]:
        cons = []
        for c in self.default_constraints:
            d: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                                 "whenUnsatisfiable": c.when_unsatisfiable}
            cons.append(d)
        return {"defaultConstraints": cons, "defaultingType": self.defaulting_type}

    def validate(self) -> None:
        if self.defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
            raise ArgsError(f'defaultingType: Unsupported value: "{self.defaulting_type}": supported values: '
                            f'"{SYSTEM_DEFAULTING}", "{LIST_DEFAULTING}"')
        if self.defaulting_type == SYSTEM_DEFAULTING and self.default_constraints:
            raise ArgsError(f'defaultingType: Invalid value: "{SYSTEM_DEFAULTING}": when .defaultConstraints '
                            "are not empty")
        seen: set[tuple[str, str]] = set()
        for i, c in enumerate(self.default_constraints):
            p = f"defaultConstraints[{i}]"
            if c.max_skew <= 0:
                raise ArgsError(f"{p}.maxSkew: Invalid value: {c.max_skew}: not in valid range (0, inf)")
            if not c.topology_key:
                raise ArgsError(f"{p}.topologyKey: Required value: can not be empty")
            err = _label_name_error(c.topology_key)
            if err:
                raise ArgsError(f'{p}.topologyKey: Invalid value: "{c.topology_key}": {err}')
            if c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
                raise ArgsError(f'{p}.whenUnsatisfiable: Unsupported value: "{c.when_unsatisfiable}": '
                                f'supported values: "{DO_NOT_SCHEDULE}", "{SCHEDULE_ANYWAY}"')
            if c.label_selector is not None:
                raise ArgsError(f"{p}.labelSelector: Forbidden: constraint must not define a selector, as "
                                "they deduced for each pod")
            pair = (c.topology_key, c.when_unsatisfiable)
            if pair in seen:
                raise ArgsError(f'{p}: Duplicate value: "{{{c.topology_key}, {c.when_unsatisfiable}}}"')
            seen.add(pair)
