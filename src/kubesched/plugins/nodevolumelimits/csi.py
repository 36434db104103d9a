"""NodeVolumeLimits: CSI attach limits per driver on each node.

Mirrors pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (CSILimits, master 2026; the
non-CSI in-tree limit plugins were removed upstream). The pod's attachable volumes (PVCs ->
PV -> CSI driver and volume handle; unbound claims counted for their StorageClass provisioner;
generic ephemeral volumes; in-tree GCE PD / AWS EBS / Azure Disk / Cinder volumes translated to
their CSI drivers when the node has a CSINode) plus the unique volumes already used on the node
must stay within ``CSINode.spec.drivers[].allocatable.count`` (or the node's
``attachable-volumes-csi-<driver>`` allocatable): else Unschedulable ErrReasonMaxVolumeCountExceeded.

Not modelled: VolumeAttachment objects (volumes attached to a node by pods already gone) and
the VolumeLimitScaling feature (CSIDriver ``preventPodSchedulingIfMissing``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ...framework import (
    ActionType,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeBatch,
    PluginBase,
    PreFilterResult,
    QueueingHint,
    Status,
)
from ..names import NODE_VOLUME_LIMITS
from ..volumebinding.listers import PVC, VolumeListers, not_found
from ..volumebinding.storage_helpers import claim_class, ephemeral_owner_error, pod_claim_refs, pod_uses_claim
from .csi_translation import (
    ATTACHABLE_VOLUMES_PREFIX,
    csi_attach_limit_key,
    csi_driver_for_provisioner,
    inline_plugin,
    is_csi_migration_on,
    pv_plugin,
)

if TYPE_CHECKING:
    from ...api import CSINode, PersistentVolumeClaim, Pod
    from ...cache import NodeInfo
    from ...framework import Handle

__all__ = ["ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "NAME", "CSILimits"]

NAME = NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
# Upstream draws a random 32-character prefix so unbound claims' synthetic handles never
# collide with real ones; a fixed one keeps runs reproducible.
UNBOUND_VOLUME_ID_PREFIX = "kubesched-unbound-claim"


class _Unresolvable(Exception):
    """A PVC of the incoming pod is missing (apierrors.IsNotFound upstream)."""


class CSILimits(PluginBase):
    NAME: ClassVar[str] = NAME

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.listers = VolumeListers(handle.store if handle is not None else None)
        # node name -> (allocatable, CSINode, limits): see _volume_limits.
        self._limits: dict[str, tuple[Mapping[str, int], CSINode | None, dict[str, int]]] = {}

    # -- events ---------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # Any new CSINode may make room: no hint, as upstream.
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE),
                                 self.is_schedulable_after_csi_node_updated),
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                                 self.is_schedulable_after_assigned_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.is_schedulable_after_pvc_added),
            ClusterEventWithHint(ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE)),
        ]

    @staticmethod
    def is_schedulable_after_csi_node_updated(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Some driver's allocatable count grew (or its limit went away)."""
        if old is None:
            return QueueingHint.QUEUE
        for driver, before in old.drivers.items():
            if before is None or driver not in new.drivers:
                continue
            after = new.drivers[driver]
            if after is None or after > before:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_assigned_pod_deleted(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Only a scheduled pod with attachable volumes frees a slot."""
        deleted: Pod = old
        if not deleted.volumes or not deleted.node_name:
            return QueueingHint.QUEUE_SKIP
        if pod_claim_refs(deleted) or any(inline_plugin(v) is not None for v in deleted.volumes):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_pvc_added(pod: Pod, old: Any, new: Any) -> QueueingHint:
        return QueueingHint.QUEUE if pod_uses_claim(pod, new) else QueueingHint.QUEUE_SKIP

    # -- PreFilter --------------------------------------------------------------------------
    @staticmethod
    def _has_attachable(pod: Pod) -> bool:
        return bool(pod_claim_refs(pod)) or any(inline_plugin(v) is not None for v in pod.volumes)

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Skip unless the pod has a PVC, an ephemeral or a migratable inline volume."""
        if self._has_attachable(pod):
            return None, None
        return None, Status.of(Code.SKIP)

    # -- volume resolution ------------------------------------------------------------------
    def _driver_info(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfo: (driver, volume handle) of a claim, ("", "") when not countable."""
        if not pvc.volume_name:
            return self._driver_info_from_sc(csi_node, pvc)
        pv = self.listers.pv(pvc.volume_name)
        if pv is None:
            return self._driver_info_from_sc(csi_node, pvc)
        csi = pv.source.get("csi")
        if isinstance(csi, Mapping):
            return str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")
        migrated = pv_plugin(pv)
        if migrated is None or not is_csi_migration_on(csi_node, migrated[0].plugin_name):
            return "", ""
        return migrated[0].csi_driver, migrated[1]

    def _driver_info_from_sc(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfoFromSC: the class's provisioner and a synthetic handle per claim."""
        sc_name = claim_class(pvc)
        if not sc_name:
            return "", ""
        sc = self.listers.storage_class(sc_name)
        if sc is None:
            return "", ""
        handle = f"{UNBOUND_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        driver = csi_driver_for_provisioner(sc.provisioner)
        if driver is not None:
            if not is_csi_migration_on(csi_node, sc.provisioner):
                return "", ""
            return driver, handle
        return sc.provisioner, handle

    def _attachable_volumes(self, pod: Pod, csi_node: CSINode | None, new_pod: bool,
                            result: dict[str, str]) -> None:
        """filterAttachableVolumes: unique name ``<driver>/<handle>`` -> limit key."""
        refs = iter(pod_claim_refs(pod))
        for v in pod.volumes:
            if v.get("persistentVolumeClaim") is None and v.get("ephemeral") is None:
                inline = inline_plugin(v)
                if inline is not None and is_csi_migration_on(csi_node, inline[0].plugin_name):
                    driver = inline[0].csi_driver
                    result[f"{driver}/{inline[1]}"] = csi_attach_limit_key(driver)
                continue
            ref = next(refs)
            if not ref.claim_name:
                raise ValueError("PersistentVolumeClaim had no name")
            pvc = self.listers.pvc(pod.namespace, ref.claim_name)
            if pvc is None:
                if new_pod:
                    raise _Unresolvable(f"looking up PVC {pod.namespace}/{ref.claim_name}: "
                                        + not_found(PVC, ref.claim_name))
                continue
            if ref.ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err:
                    raise ValueError(err)
            driver, handle = self._driver_info(csi_node, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self._filter(pod, node_info, None)

    def _volume_limits(self, node_name: str, allocatable: Mapping[str, int],
                       csi_node: CSINode | None) -> dict[str, int]:
        """volume_limits, kept per node while the node's allocatable and CSINode are the same
        objects (both are replaced, never changed in place, when they change). Read-only."""
        hit = self._limits.get(node_name)
        if hit is not None and hit[0] is allocatable and hit[1] is csi_node:
            return hit[2]
        limits = volume_limits(allocatable, csi_node)
        self._limits[node_name] = (allocatable, csi_node, limits)
        return limits

    def _new_volumes(self, pod: Pod, csi_node: CSINode | None) -> dict[str, str] | Status:
        """The incoming pod's attachable volumes on a node with ``csi_node``, or the status
        their resolution fails with."""
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csi_node, True, new_volumes)
        except _Unresolvable as exc:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
        except ValueError as exc:
            return Status.from_error(exc)
        return new_volumes

    def _resolves_without_csi_node(self, pod: Pod) -> bool:
        """Whether the pod's attachable volumes are the same on every node: every volume is a
        claim (or an ephemeral one) whose PV has a CSI source, or a missing claim (the same
        error everywhere); inline volumes, unbound claims and in-tree PVs consult the node's
        CSINode (migration, StorageClass provisioner)."""
        refs = iter(pod_claim_refs(pod))
        for v in pod.volumes:
            if v.get("persistentVolumeClaim") is None and v.get("ephemeral") is None:
                if inline_plugin(v) is not None:
                    return False
                continue
            ref = next(refs, None)
            if ref is None or not ref.claim_name:
                continue
            pvc = self.listers.pvc(pod.namespace, ref.claim_name)
            if pvc is None:
                continue
            if not pvc.volume_name:
                return False
            pv = self.listers.pv(pvc.volume_name)
            if pv is None or not isinstance(pv.source.get("csi"), Mapping):
                return False
        return True

    def _filter(self, pod: Pod, node_info: NodeInfo,
                shared_new_volumes: dict[str, str] | Status | None) -> Status | None:
        """Filter on one node; ``shared_new_volumes`` is the pod's attachable volumes when they
        do not depend on the node (computed once per batch), None to resolve them here."""
        if not pod.volumes:
            return None
        node = node_info.node
        if node is None:
            return Status.from_error(RuntimeError("node not found"))
        csi_node = self.listers.csi_node(node.name)
        resolved = self._new_volumes(pod, csi_node) if shared_new_volumes is None else shared_new_volumes
        if isinstance(resolved, Status):
            return resolved
        if not resolved:
            return None
        new_volumes = dict(resolved)
        limits = self._volume_limits(node.name, node_info.allocatable, csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        try:
            for pi in node_info.pods:
                self._attachable_volumes(pi.pod, csi_node, False, attached)
        except ValueError as exc:
            return Status.from_error(exc)
        attached_count: dict[str, int] = {}
        for unique, key in attached.items():
            new_volumes.pop(unique, None)  # a volume shared with a pod on the node counts once
            attached_count[key] = attached_count.get(key, 0) + 1
        new_count: dict[str, int] = {}
        for key in new_volumes.values():
            new_count[key] = new_count.get(key, 0) + 1
        for key, count in new_count.items():
            limit = limits.get(key)
            if limit is not None and attached_count.get(key, 0) + count > limit:
                return Status.of(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """Pods without attachable volumes: O(1) success (PreFilter skips them). Otherwise the
        per-node rule on each node (counts depend on the node's pods and CSINode), with the
        incoming pod's volumes resolved once when they do not depend on the node."""
        if not pod.volumes or not self._has_attachable(pod):
            return BatchFilterResult.all_success(len(nodes))
        shared = self._new_volumes(pod, None) if self._resolves_without_csi_node(pod) else None
        if isinstance(shared, dict) and not shared:
            return BatchFilterResult.all_success(len(nodes))  # nothing attachable anywhere
        return BatchFilterResult.from_statuses([self._filter(pod, ni, shared) for ni in nodes.node_infos()])


def volume_limits(allocatable: Mapping[str, int], csi_node: CSINode | None) -> dict[str, int]:
    """getVolumeLimits: the node's ``attachable-volumes-*`` allocatable, overridden by the
    CSINode drivers' ``allocatable.count``."""
    out = {k: v for k, v in allocatable.items() if k.startswith(ATTACHABLE_VOLUMES_PREFIX)}
    if csi_node is not None:
        for driver, count in csi_node.drivers.items():
            if count is not None:
                out[csi_attach_limit_key(driver)] = count
    return out
