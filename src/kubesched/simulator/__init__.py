"""The simulator: manifests admitted into an embedded store, the controllers and the scheduler
run on a virtual clock until nothing more can happen, and what happened on the way.

What kube-scheduler-simulator does for one scheduler, as a library under the front ends: the
``simulate`` and ``capacity`` commands render its results, benchmarks and tests call it
directly. :mod:`kubesched.simulator.capacity` answers cluster-capacity's questions (how many
more copies fit, how many nodes to add) on top of it.
"""

from ._explain import (
    PodExplainer,
    SimulatedExplanation,
    explain_pod,
    explain_simulated_pod,
    explain_workload,
    split_pod_key,
)
from ._report import (
    dump_yaml,
    explanation_json,
    explanation_to_dict,
    snapshot_pieces,
    snapshot_text,
    state_manifests,
    state_pieces,
)
from ._simulation import (
    BOUND,
    DELETED,
    FAILED,
    FINISHED,
    PENDING,
    PREEMPTED,
    SCHEDULED,
    SCHEDULER_ERROR,
    SUCCEEDED,
    TERMINATING,
    UNSCHEDULABLE,
    NodeAllocation,
    PodDevice,
    PodOutcome,
    Preemption,
    ProgressFn,
    Simulation,
    Simulator,
    allocations,
    run_simulation,
)

__all__ = [
    "BOUND",
    "DELETED",
    "FAILED",
    "FINISHED",
    "PENDING",
    "PREEMPTED",
    "SCHEDULED",
    "SCHEDULER_ERROR",
    "SUCCEEDED",
    "TERMINATING",
    "UNSCHEDULABLE",
    "NodeAllocation",
    "PodDevice",
    "PodExplainer",
    "PodOutcome",
    "Preemption",
    "ProgressFn",
    "SimulatedExplanation",
    "Simulation",
    "Simulator",
    "allocations",
    "dump_yaml",
    "explain_pod",
    "explain_simulated_pod",
    "explain_workload",
    "explanation_json",
    "explanation_to_dict",
    "run_simulation",
    "snapshot_pieces",
    "snapshot_text",
    "split_pod_key",
    "state_manifests",
    "state_pieces",
]
