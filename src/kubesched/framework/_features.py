"""Feature gates the framework itself reads (pkg/features upstream), passed in, never global.

The Workload API gates (KEP-4671 and successors, alpha in master 2026, off by default):
``GenericWorkload`` serves the Workload and PodGroup objects and ``spec.schedulingGroup``;
``GangScheduling`` (which depends on it) adds the GangScheduling plugin to the default profile
and makes a new unscheduled pod an event for the pods its gang keeps waiting.

Defaults per release: :data:`VERSIONED_FEATURE_GATES` records, for each gate kubesched reads,
upstream's versioned feature specs (``defaultVersionedKubernetesFeatureGates`` in
pkg/features/kube_features.go and pkg/scheduler/features, master 2026): a list of
``(release, default)`` entries, the one with the highest release not above the release
kubesched behaves as being in force (component-base's ``VersionedSpecs`` lookup for an
emulated version). A gate whose first entry is newer does not exist in that release: off, and
enabling it is an error, as upstream's ``--feature-gates`` refuses a gate the emulated version
does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..api import KubeVersion

__all__ = ["GANG_SCHEDULING", "GENERIC_WORKLOAD", "VERSIONED_FEATURE_GATES", "feature_dependency_errors",
           "feature_gates_for", "gang_scheduling_enabled", "gate_default"]

GENERIC_WORKLOAD: Final = "GenericWorkload"
GANG_SCHEDULING: Final = "GangScheduling"

_DEPENDENCIES: Final[Mapping[str, tuple[str, ...]]] = {GANG_SCHEDULING: (GENERIC_WORKLOAD,)}


def _v(text: str) -> KubeVersion:
    return KubeVersion.parse(text)


VERSIONED_FEATURE_GATES: Final[Mapping[str, tuple[tuple[KubeVersion, bool], ...]]] = {
    # kube-apiserver's (the simulated API server clears a bound pod's nomination, KEP-5278).
    "ClearingNominatedNodeNameAfterBinding": ((_v("1.34"), False), (_v("1.35"), True)),
    "DRAAdminAccess": ((_v("1.32"), False), (_v("1.34"), True)),
    "DRAConsumableCapacity": ((_v("1.34"), False), (_v("1.36"), True)),
    "DRADeviceBindingConditions": ((_v("1.34"), False), (_v("1.36"), True)),
    "DRADeviceCompatibilityGroups": ((_v("1.37"), False),),
    "DRADeviceTaintRules": ((_v("1.35"), False), (_v("1.37"), True)),
    "DRADeviceTaints": ((_v("1.33"), False), (_v("1.36"), True)),
    "DRAExtendedResource": ((_v("1.34"), False), (_v("1.36"), True)),
    "DRAListTypeAttributes": ((_v("1.36"), False),),
    "DRAPartitionableDevices": ((_v("1.33"), False), (_v("1.36"), True)),
    "DRAPreemption": ((_v("1.37"), False),),
    "DRAPrioritizedList": ((_v("1.33"), False), (_v("1.34"), True)),
    "DRAResourceClaimDeviceStatus": ((_v("1.32"), False), (_v("1.33"), True)),
    "DynamicResourceAllocation": ((_v("1.26"), False), (_v("1.34"), True)),
    GANG_SCHEDULING: ((_v("1.35"), False),),
    GENERIC_WORKLOAD: ((_v("1.35"), False),),
    "InPlacePodVerticalScaling": ((_v("1.27"), False), (_v("1.33"), True)),
    "InPlacePodVerticalScalingSchedulerPreemption": ((_v("1.37"), False),),
    "MatchLabelKeysInPodTopologySpread": ((_v("1.25"), False), (_v("1.27"), True)),
    "NodeInclusionPolicyInPodTopologySpread": ((_v("1.25"), False), (_v("1.26"), True)),
    "NominatedNodeNameForExpectation": ((_v("1.34"), False), (_v("1.35"), True)),
    # KEP-5598: the scheduler reuses one pod's filtering and scoring for the next pods with the
    # same signature (framework/_opportunistic_batch.py); beta and on from 1.35.
    "OpportunisticBatching": ((_v("1.35"), True),),
    "SchedulerAsyncPreemption": ((_v("1.32"), False), (_v("1.33"), True)),
    "SchedulerPopFromBackoffQ": ((_v("1.33"), True),),
    "SchedulerQueueingHints": ((_v("1.28"), False), (_v("1.32"), True)),
    "StorageCapacityScoring": ((_v("1.33"), False),),
}
"""Gate -> (release, default) entries in release order, as upstream's VersionedSpecs."""


def _introduced(name: str) -> KubeVersion | None:
    specs = VERSIONED_FEATURE_GATES.get(name)
    return specs[0][0] if specs else None


def gate_default(name: str, version: KubeVersion) -> bool:
    """The default of a known gate in ``version``: the entry with the highest release <= version
    (off before the gate's first release)."""
    default = False
    for release, value in VERSIONED_FEATURE_GATES[name]:
        if release <= version:
            default = value
    return default


def feature_gates_for(version: KubeVersion, overrides: Mapping[str, bool] | None = None) -> dict[str, bool]:
    """Every known gate at its default for ``version``, then ``overrides`` (``--feature-gates``)
    on top. Raises ValueError for a gate enabled in a release that does not have it yet."""
    gates = {name: gate_default(name, version) for name in VERSIONED_FEATURE_GATES}
    for name, value in (overrides or {}).items():
        first = _introduced(name)
        if value and first is not None and version < first:
            raise ValueError(f"{name} is not available in Kubernetes {version} (it was added in {first})")
        gates[name] = bool(value)
    return gates


def gang_scheduling_enabled(features: Mapping[str, bool] | None) -> bool:
    """Both gates on (each off by default, as upstream)."""
    f = features or {}
    return bool(f.get(GENERIC_WORKLOAD, False)) and bool(f.get(GANG_SCHEDULING, False))


def feature_dependency_errors(features: Mapping[str, bool]) -> list[str]:
    """A gate enabled without a gate it depends on (component-base's dependency check)."""
    return [f"{name} feature gate requires {dep} to be enabled"
            for name, deps in _DEPENDENCIES.items() if features.get(name, False)
            for dep in deps if not features.get(dep, False)]
