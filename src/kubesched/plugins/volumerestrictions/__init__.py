"""VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions upstream)."""

from .volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)

__all__ = ["ERR_REASON_DISK_CONFLICT", "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT", "VolumeRestrictions"]
