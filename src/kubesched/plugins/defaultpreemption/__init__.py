"""DefaultPreemption (PostFilter): pod priority and preemption."""

from ._args import DefaultPreemptionArgs
from ._victim_rule import importance_sorter, potential_victims, reprieve
from .default_preemption import (
    ASYNC_PREEMPTION_FEATURE,
    NAME,
    NO_VICTIMS_REASON,
    DefaultPreemption,
    filter_pods_with_pdb_violation,
    pod_terminating_by_preemption,
)

__all__ = [
    "ASYNC_PREEMPTION_FEATURE",
    "NAME",
    "NO_VICTIMS_REASON",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "filter_pods_with_pdb_violation",
    "importance_sorter",
    "pod_terminating_by_preemption",
    "potential_victims",
    "reprieve",
]
