"""cluster-capacity's questions on a simulated cluster at rest (kubernetes-sigs/cluster-capacity):
how many copies of a pod, or further replicas of a workload, still fit (:func:`count_copies`
over :func:`pod_copies` / :func:`workload_copies`), and the fewest nodes of a template that let
every pending pod schedule (:func:`nodes_to_add`). ``kubesched capacity`` renders the answers.
"""

from ._copies import COPY_KINDS, pod_copies, resolve_workload, workload_copies
from ._count import (
    LIMIT_REACHED,
    SCHEDULER_ERROR,
    UNSCHEDULABLE,
    CapacityResult,
    Failure,
    count_copies,
    format_reasons,
    why_unschedulable,
)
from ._nodes import HOSTNAME_LABEL, AddNodesResult, load_node_template, node_copies, nodes_to_add

__all__ = [
    "COPY_KINDS",
    "HOSTNAME_LABEL",
    "LIMIT_REACHED",
    "SCHEDULER_ERROR",
    "UNSCHEDULABLE",
    "AddNodesResult",
    "CapacityResult",
    "Failure",
    "count_copies",
    "format_reasons",
    "load_node_template",
    "node_copies",
    "nodes_to_add",
    "pod_copies",
    "resolve_workload",
    "why_unschedulable",
    "workload_copies",
]
