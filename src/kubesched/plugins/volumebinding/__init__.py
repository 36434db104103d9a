"""VolumeBinding (pkg/scheduler/framework/plugins/volumebinding upstream), the storage helpers
it reads (kept in plugins/helper/volume, shared with the other volume plugins), and what a PV
controller or provisioner writes (volume_writes: the simulations' PersistentVolume controller in
kubesched.controllers writes the same)."""

from ..helper.volume.storage_helpers import (
    ANN_SELECTED_NODE,
    ANN_STORAGE_CLASS,
    check_access_modes,
    claim_class,
    find_matching_volume,
    is_delay_binding_mode,
    is_volume_bound_to_claim,
    pod_claim_refs,
    pv_class,
)
from .binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    NOT_SUPPORTED_PROVISIONER,
    VolumeBinder,
)
from .volume_binding import ERR_UNBOUND_IMMEDIATE, UtilizationShapePoint, VolumeBinding, VolumeBindingArgs
from .volume_writes import (
    ANN_STORAGE_PROVISIONER,
    allowed_topology_terms,
    bind_volume_to_claim,
    bound_claim,
    claim_with_provisioner,
    node_topology_terms,
    provisioned_volume,
)

__all__ = [
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_CLASS",
    "ANN_STORAGE_PROVISIONER",
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_UNBOUND_IMMEDIATE",
    "NOT_SUPPORTED_PROVISIONER",
    "UtilizationShapePoint",
    "VolumeBinder",
    "VolumeBinding",
    "VolumeBindingArgs",
    "allowed_topology_terms",
    "bind_volume_to_claim",
    "bound_claim",
    "check_access_modes",
    "claim_class",
    "claim_with_provisioner",
    "find_matching_volume",
    "is_delay_binding_mode",
    "is_volume_bound_to_claim",
    "node_topology_terms",
    "pod_claim_refs",
    "provisioned_volume",
    "pv_class",
]
