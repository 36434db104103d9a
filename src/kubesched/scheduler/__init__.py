"""The scheduler: schedule_one, the binding cycle, failure handling, event handlers, extenders.

Mirrors pkg/scheduler (scheduler.go, schedule_one.go, eventhandlers.go, extender.go,
metrics/metrics.go), master 2026.
"""

from ..framework import Diagnosis, FitError, NodeToStatus
from ._algorithm import (
    FeasibleNodes,
    ScheduleAlgorithm,
    ScheduleResult,
    go_set_list,
    num_feasible_nodes_to_find,
)
from ._attempt_hook import AttemptHook
from ._binding import BindingMode
from ._diagnosis import NoNodesAvailableError, excluded_by_pre_filter, fit_error_for_single_node
from ._dry_run import DryRun, DryRunOptions, DryRunResult, NodeRecord, PostFilterRecord
from ._eventhandlers import node_scheduling_properties_change
from ._explain import (
    Explainer,
    ExplainError,
    Explanation,
    FilterVerdict,
    NodeExplanation,
    PluginScore,
    WaitingClaim,
    explain,
    explain_in,
)
from ._extender import ExtenderConfig, ExtenderError, HTTPExtender, Victims
from ._loop import FIXED_POINT_HORIZON, IDLE_WAIT, run
from ._metrics import SchedulerMetrics
from ._realtime import run_realtime
from ._schedule_one import ScheduleOne
from ._scheduler import RunSummary, Scheduler, SchedulerOptions

__all__ = [
    "FIXED_POINT_HORIZON",
    "IDLE_WAIT",
    "AttemptHook",
    "BindingMode",
    "Diagnosis",
    "DryRun",
    "DryRunOptions",
    "DryRunResult",
    "ExplainError",
    "Explainer",
    "Explanation",
    "ExtenderConfig",
    "ExtenderError",
    "FeasibleNodes",
    "FilterVerdict",
    "FitError",
    "HTTPExtender",
    "NoNodesAvailableError",
    "NodeExplanation",
    "NodeRecord",
    "NodeToStatus",
    "PluginScore",
    "PostFilterRecord",
    "RunSummary",
    "ScheduleAlgorithm",
    "ScheduleOne",
    "ScheduleResult",
    "Scheduler",
    "SchedulerMetrics",
    "SchedulerOptions",
    "Victims",
    "WaitingClaim",
    "excluded_by_pre_filter",
    "explain",
    "explain_in",
    "fit_error_for_single_node",
    "go_set_list",
    "node_scheduling_properties_change",
    "num_feasible_nodes_to_find",
    "run",
    "run_realtime",
]
