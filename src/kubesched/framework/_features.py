"""Feature gates the framework itself reads (pkg/features upstream), passed in, never global.

The Workload API gates (KEP-4671 and successors, alpha in master 2026, off by default):
``GenericWorkload`` serves the Workload and PodGroup objects and ``spec.schedulingGroup``;
``GangScheduling`` (which depends on it) adds the GangScheduling plugin to the default profile
and makes a new unscheduled pod an event for the pods its gang keeps waiting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["GANG_SCHEDULING", "GENERIC_WORKLOAD", "feature_dependency_errors", "gang_scheduling_enabled"]

GENERIC_WORKLOAD: Final = "GenericWorkload"
GANG_SCHEDULING: Final = "GangScheduling"

_DEPENDENCIES: Final[Mapping[str, tuple[str, ...]]] = {GANG_SCHEDULING: (GENERIC_WORKLOAD,)}


def gang_scheduling_enabled(features: Mapping[str, bool] | None) -> bool:
    """Both gates on (each off by default, as upstream)."""
    f = features or {}
    return bool(f.get(GENERIC_WORKLOAD, False)) and bool(f.get(GANG_SCHEDULING, False))


def feature_dependency_errors(features: Mapping[str, bool]) -> list[str]:
    """A gate enabled without a gate it depends on (component-base's dependency check)."""
    return [f"{name} feature gate requires {dep} to be enabled"
            for name, deps in _DEPENDENCIES.items() if features.get(name, False)
            for dep in deps if not features.get(dep, False)]
