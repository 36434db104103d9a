"""The scheduling framework: extension points, statuses, cycle state, events, the runtime.

Mirrors pkg/scheduler/framework and staging/src/k8s.io/kube-scheduler/framework.
"""

from ._batch import BatchFilterResult, BatchNames, NodeBatch
from ._cycle_state import CycleState, StateData
from ._events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from ._handle import Handle
from ._interface import (
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    BatchFilterPlugin,
    BatchScorePlugin,
    BindPlugin,
    EnqueueExtensions,
    FilterInputs,
    FilterPlugin,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
    filter_inputs,
)
from ._plugin_base import ArgsError, PluginArgs, PluginBase
from ._profiles import new_profile_map, registry_for
from ._registry import (
    ENTRY_POINT_GROUP,
    LoadedPlugin,
    PluginFactory,
    PluginLoadError,
    Registry,
    load_plugin,
)
from ._results import FilterOutcome, ScoreResult
from ._runtime import ExtensionPointObserver, Framework, PluginObserver, PodNominator
from ._runtime_build import FrameworkBuildError
from ._status import Code, Status, as_status, is_success
from ._waiting_pods import PermitFuture, WaitingPod

__all__ = [
    "ENTRY_POINT_GROUP",
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MIN_NODE_SCORE",
    "ActionType",
    "ArgsError",
    "BatchFilterPlugin",
    "BatchFilterResult",
    "BatchNames",
    "BatchScorePlugin",
    "BindPlugin",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "CycleState",
    "EnqueueExtensions",
    "EventResource",
    "ExtensionPointObserver",
    "FilterInputs",
    "FilterOutcome",
    "FilterPlugin",
    "Framework",
    "FrameworkBuildError",
    "Handle",
    "LoadedPlugin",
    "NodeBatch",
    "PermitFuture",
    "PermitPlugin",
    "Plugin",
    "PluginArgs",
    "PluginBase",
    "PluginFactory",
    "PluginLoadError",
    "PluginObserver",
    "PodNominator",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "QueueingHint",
    "QueueingHintFn",
    "Registry",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "ScoreResult",
    "StateData",
    "Status",
    "WaitingPod",
    "as_status",
    "filter_inputs",
    "is_success",
    "load_plugin",
    "new_profile_map",
    "registry_for",
]
