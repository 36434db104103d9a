"""In-tree volume -> CSI translation, the part NodeVolumeLimits needs.

Mirrors k8s.io/csi-translation-lib (translate.go and plugins/{aws_ebs,gce_pd,azure_disk,
openstack_cinder}.go, master 2026): which in-tree sources are migratable, their CSI driver
names, and the volume handles the translated PVs get (so that the same disk counts once), plus
pkg/volume/util.GetCSIAttachLimitKey and nodevolumelimits/utils.go isCSIMigrationOn.
Portworx (migration behind a feature gate) is not translated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...api import CSINode, PersistentVolume

__all__ = [
    "ATTACHABLE_VOLUMES_PREFIX",
    "InTreePlugin",
    "csi_attach_limit_key",
    "csi_driver_for_provisioner",
    "inline_plugin",
    "is_csi_migration_on",
    "migration_on",
    "pv_plugin",
]

ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
RESOURCE_NAME_LENGTH_LIMIT = 63
UNSPECIFIED = "UNSPECIFIED"
_ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
_REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


@dataclass(frozen=True, slots=True)
class InTreePlugin:
    plugin_name: str  # e.g. kubernetes.io/gce-pd
    csi_driver: str
    source_key: str  # the volume source field, e.g. gcePersistentDisk


PLUGINS = (
    InTreePlugin("kubernetes.io/aws-ebs", "ebs.csi.aws.com", "awsElasticBlockStore"),
    InTreePlugin("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "gcePersistentDisk"),
    InTreePlugin("kubernetes.io/azure-disk", "disk.csi.azure.com", "azureDisk"),
    InTreePlugin("kubernetes.io/cinder", "cinder.csi.openstack.org", "cinder"),
)
_BY_NAME = {p.plugin_name: p for p in PLUGINS}


def csi_attach_limit_key(driver: str) -> str:
    """GetCSIAttachLimitKey: ``attachable-volumes-csi-<driver>``, shortened with a sha1 suffix
    when it would reach the 63-character resource name limit."""
    prefix = ATTACHABLE_VOLUMES_PREFIX + "csi-"
    if len(prefix) + len(driver) >= RESOURCE_NAME_LENGTH_LIMIT:
        return prefix + driver[:23] + hashlib.sha1(driver.encode()).hexdigest()[:16]
    return prefix + driver


def is_csi_migration_on(csi_node: CSINode | None, plugin_name: str) -> bool:
    """isCSIMigrationOn: the migrations of the four supported plugins are GA, so only a CSINode
    is needed."""
    return migration_on(csi_node is not None, plugin_name)


def migration_on(has_csi_node: bool, plugin_name: str) -> bool:
    """isCSIMigrationOn given only whether the node has a CSINode (all it depends on), so that
    callers can resolve volumes once for every node with (or without) one."""
    return has_csi_node and plugin_name in _BY_NAME


def csi_driver_for_provisioner(provisioner: str) -> str | None:
    """The CSI driver an in-tree provisioner migrated to, or None when it is not in-tree."""
    p = _BY_NAME.get(provisioner)
    return p.csi_driver if p is not None else None


def _ebs_volume_id(volume_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: ``aws://<zone>/<id>`` -> ``<id>``."""
    if not volume_id.startswith("aws://"):
        return volume_id
    rest = volume_id[len("aws://"):]
    return rest.split("/", 1)[1] if "/" in rest else rest


def _handle(plugin: InTreePlugin, src: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
    if plugin.source_key == "awsElasticBlockStore":
        return _ebs_volume_id(str(src.get("volumeID") or ""))
    if plugin.source_key == "azureDisk":
        return str(src.get("diskURI") or "")
    if plugin.source_key == "cinder":
        return str(src.get("volumeID") or "")
    pd = str(src.get("pdName") or "")
    if labels is None:  # inline volume
        return f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{pd}"
    zone = next((labels[k] for k in _ZONE_LABELS if k in labels), "")
    if "__" in zone:  # a regional disk
        region = next((labels[k] for k in _REGION_LABELS if k in labels), UNSPECIFIED)
        return f"projects/{UNSPECIFIED}/regions/{region}/disks/{pd}"
    return f"projects/{UNSPECIFIED}/zones/{zone or UNSPECIFIED}/disks/{pd}"


def inline_plugin(volume: Mapping[str, Any]) -> tuple[InTreePlugin, str] | None:
    """IsInlineMigratable + TranslateInTreeInlineVolumeToCSI: (plugin, volume handle)."""
    for p in PLUGINS:
        src = volume.get(p.source_key)
        if isinstance(src, Mapping):
            return p, _handle(p, src, None)
    return None


def pv_plugin(pv: PersistentVolume) -> tuple[InTreePlugin, str] | None:
    """IsPVMigratable + TranslateInTreePVToCSI: (plugin, volume handle)."""
    for p in PLUGINS:
        src = pv.source.get(p.source_key)
        if isinstance(src, Mapping):
            return p, _handle(p, src, pv.labels)
    return None
