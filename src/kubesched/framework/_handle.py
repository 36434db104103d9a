"""Handle: what the framework gives a plugin (framework.Handle upstream).

Plugins reach the cluster only through the handle: the cycle's snapshot, the store (the API
server stand-in, used for listers and writes such as binding and preemption), the clock, the
seeded random source, waiting pods (Permit), the nominator and the filter re-run used by
preemption. Nothing here knows whether it runs in a simulation or against a live cluster.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from ._cycle_state import CycleState
from ._status import Status

if TYPE_CHECKING:
    from ..api import KubeVersion, Pod
    from ..cache import NodeInfo, PodGroupStates, PodInfo, Snapshot
    from ..clock import Clock
    from ..cluster import Store
    from ._interface import PodNominator, PreemptionExtender
    from ._waiting_pods import WaitingPod

__all__ = ["Handle", "PreemptionMetrics"]


class _Counter(Protocol):
    def inc(self, amount: float = 1) -> None: ...


class _Histogram(Protocol):
    def observe(self, amount: float) -> None: ...


class PreemptionMetrics(Protocol):
    """The metrics preemption reports (scheduler_preemption_attempts_total,
    scheduler_preemption_victims): the owning scheduler's SchedulerMetrics has them."""

    @property
    def preemption_attempts(self) -> _Counter: ...

    @property
    def preemption_victims(self) -> _Histogram: ...


class Handle(Protocol):
    @property
    def clock(self) -> Clock: ...

    @property
    def rng(self) -> random.Random: ...

    @property
    def store(self) -> Store | None:
        """The cluster store (None only for a framework built without one, in tests)."""
        ...

    @property
    def features(self) -> Mapping[str, bool]:
        """Feature gates, passed in (never read from a global)."""
        ...

    @property
    def kube_version(self) -> KubeVersion:
        """The release whose behaviour the plugins follow (``--kube-version``): a plugin
        whose rule changed between releases asks it, next to the rule."""
        ...

    @property
    def metrics(self) -> PreemptionMetrics | None:
        """The owning scheduler's metrics (None for a framework outside a scheduler, in
        tests): what preemption reports to."""
        ...

    def snapshot(self) -> Snapshot: ...

    def nominator(self) -> PodNominator | None: ...

    def extenders(self) -> list[PreemptionExtender]: ...

    def pod_group_states(self) -> PodGroupStates | None:
        """The pod groups' members (PodGroupManager upstream); None outside a scheduler."""
        ...

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def iterate_over_waiting_pods(self, fn: Callable[[WaitingPod], None]) -> None: ...

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status: ...

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status: ...

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status: ...
