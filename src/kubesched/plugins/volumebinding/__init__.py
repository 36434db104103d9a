"""VolumeBinding (pkg/scheduler/framework/plugins/volumebinding upstream) and the storage
helpers the other volume plugins share."""

from .binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    VolumeBinder,
)
from .volume_binding import ERR_UNBOUND_IMMEDIATE, UtilizationShapePoint, VolumeBinding, VolumeBindingArgs

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_UNBOUND_IMMEDIATE",
    "UtilizationShapePoint",
    "VolumeBinder",
    "VolumeBinding",
    "VolumeBindingArgs",
]
