"""VolumeZone (pkg/scheduler/framework/plugins/volumezone upstream)."""

from .volume_zone import ERR_REASON_CONFLICT, VolumeZone

__all__ = ["ERR_REASON_CONFLICT", "VolumeZone"]
