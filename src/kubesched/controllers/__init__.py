"""Workload controllers for simulations: what kube-controller-manager's Deployment, ReplicaSet,
ReplicationController, StatefulSet, DaemonSet, Job, ResourceClaim and PersistentVolume
controllers do to the store, driven by the clock. Used by ``simulate`` (and later modes that run
a clock), never by the scheduler itself.
"""

from ._kubelet import RUN_SECONDS_ANNOTATION, PodRunner, run_seconds
from ._manager import WORKLOAD_KINDS, ControllerManager
from ._names import (
    ALPHANUMS,
    canonical_json,
    compute_hash,
    generate_name,
    hash_controller_revision,
    random_string,
    safe_encode_string,
)
from ._persistentvolume import RESYNC_PERIOD, claims_waiting_for_binding
from ._planned import PlannedPods, planned_pods, planned_share
from ._pods import is_active
from ._resourceclaim import (
    POD_CLAIM_NAME_ANNOTATION,
    ResourceClaimController,
    generate_claim_base,
    generate_claims,
)
from ._status import WorkloadStatus, owning_workloads, workload_kind, workload_owners, workload_statuses

__all__ = [
    "ALPHANUMS",
    "POD_CLAIM_NAME_ANNOTATION",
    "RESYNC_PERIOD",
    "RUN_SECONDS_ANNOTATION",
    "WORKLOAD_KINDS",
    "ControllerManager",
    "PlannedPods",
    "PodRunner",
    "ResourceClaimController",
    "WorkloadStatus",
    "canonical_json",
    "claims_waiting_for_binding",
    "compute_hash",
    "generate_claim_base",
    "generate_claims",
    "generate_name",
    "hash_controller_revision",
    "is_active",
    "owning_workloads",
    "planned_pods",
    "planned_share",
    "random_string",
    "run_seconds",
    "safe_encode_string",
    "workload_kind",
    "workload_owners",
    "workload_statuses",
]
