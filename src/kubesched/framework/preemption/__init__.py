"""Generic preemption: the Evaluator (algorithm), the Interface (a plugin's policy hooks), the
Executor (API calls, synchronous or asynchronous) and the victim-ordering helpers.

Mirrors pkg/scheduler/framework/preemption (master 2026).
"""

from ._decided import DecidedNodes
from ._evaluator import PREEMPTION_NOT_HELPFUL, Evaluator, list_pdbs
from ._executor import (
    DISRUPTION_TARGET,
    PREEMPTED_REASON,
    REASON_PREEMPTION_BY_SCHEDULER,
    Executor,
    disruption_target_condition,
    get_lower_priority_nominated_pods,
)
from ._interface import Candidate, Interface
from ._util import (
    ScoreFunc,
    VictimList,
    Victims,
    VictimsSummary,
    default_ordered_score_funcs,
    get_earliest_pod_start_time,
    get_pod_start_time,
    importance_columns,
    importance_key,
    more_important_pod,
    pick_one_node_for_preemption,
)

__all__ = [
    "DISRUPTION_TARGET",
    "PREEMPTED_REASON",
    "PREEMPTION_NOT_HELPFUL",
    "REASON_PREEMPTION_BY_SCHEDULER",
    "Candidate",
    "DecidedNodes",
    "Evaluator",
    "Executor",
    "Interface",
    "ScoreFunc",
    "VictimList",
    "Victims",
    "VictimsSummary",
    "default_ordered_score_funcs",
    "disruption_target_condition",
    "get_earliest_pod_start_time",
    "get_lower_priority_nominated_pods",
    "get_pod_start_time",
    "importance_columns",
    "importance_key",
    "list_pdbs",
    "more_important_pod",
    "pick_one_node_for_preemption",
]
