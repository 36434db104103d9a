"""What the volume plugins share (VolumeBinding, VolumeRestrictions, VolumeZone,
NodeVolumeLimits): the listers they read PVs, PVCs, StorageClasses and CSINodes through, and
the storage helpers upstream keeps in k8s.io/component-helpers/storage/volume (claim class,
matching, the pod's claim references). Kept out of any one plugin so that the plugin packages
stay independent of each other."""

from . import listers, storage_helpers

__all__ = ["listers", "storage_helpers"]
