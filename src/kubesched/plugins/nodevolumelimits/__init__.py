"""NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits upstream: CSILimits)."""

from .csi import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, CSILimits, volume_limits
from .csi_translation import csi_attach_limit_key

NodeVolumeLimits = CSILimits  # the name configs and the registry use

__all__ = [
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "CSILimits",
    "NodeVolumeLimits",
    "csi_attach_limit_key",
    "volume_limits",
]
