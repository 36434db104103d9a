"""NodeVolumeLimits: CSI attach limits per driver on each node.

Mirrors pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (CSILimits, master 2026; the
non-CSI in-tree limit plugins were removed upstream). The pod's attachable volumes (PVCs ->
PV -> CSI driver and volume handle; unbound claims counted for their StorageClass provisioner;
generic ephemeral volumes; in-tree GCE PD / AWS EBS / Azure Disk / Cinder volumes translated to
their CSI drivers when the node has a CSINode) plus the unique volumes already used on the node
must stay within ``CSINode.spec.drivers[].allocatable.count`` (or the node's
``attachable-volumes-csi-<driver>`` allocatable): else Unschedulable ErrReasonMaxVolumeCountExceeded.

Upstream recounts every filtered node's volumes in each cycle; the per-node ``filter`` here does
the same (it is the reference), while ``filter_batch`` reads the counts from an index kept across
cycles and refreshed only for nodes whose pods changed or after a storage write
(_node_volumes.py), which gives the same statuses.

Not modelled: VolumeAttachment objects (volumes attached to a node by pods already gone) and
the VolumeLimitScaling feature (CSIDriver ``preventPodSchedulingIfMissing``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...cluster import KindVersioned
from ...framework import (
    VOLUMES_SIGNER_NAME,
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
    SignFragment,
    Status,
    volumes_signer,
)
from ..helper.volume.listers import CSI_NODE, PV, PVC, SC, VolumeListers, not_found
from ..helper.volume.storage_helpers import claim_class, ephemeral_owner_error, pod_claim_refs, pod_uses_claim
from ..names import NODE_VOLUME_LIMITS
from ._node_volumes import NodeVolumeIndex, NodeVolumes, PodVolumes
from .csi_translation import (
    ATTACHABLE_VOLUMES_PREFIX,
    csi_attach_limit_key,
    csi_driver_for_provisioner,
    inline_plugin,
    migration_on,
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

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the verdict reads the pod's volumes (ConfigMap and Secret ones aside)."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.listers = VolumeListers(handle.store if handle is not None else None)
        # node name -> (allocatable, CSINode, limits): see _volume_limits.
        self._limits: dict[str, tuple[Mapping[str, int], CSINode | None, dict[str, int]]] = {}
        # The batch path's per-node counts, kept across cycles (see _node_volumes.py).
        self._index = NodeVolumeIndex(self._read_node)

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
        if pod.volumes and self._has_attachable(pod):
            return None, None
        return None, Status.skip()

    # -- volume resolution ------------------------------------------------------------------
    def _driver_info(self, csi: bool, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfo: (driver, volume handle) of a claim, ("", "") when not countable.
        ``csi``: the node has a CSINode (all isCSIMigrationOn reads of it)."""
        if not pvc.volume_name:
            return self._driver_info_from_sc(csi, pvc)
        pv = self.listers.pv(pvc.volume_name)
        if pv is None:
            return self._driver_info_from_sc(csi, pvc)
        src = pv.source.get("csi")
        if isinstance(src, Mapping):
            return str(src.get("driver") or ""), str(src.get("volumeHandle") or "")
        migrated = pv_plugin(pv)
        if migrated is None or not migration_on(csi, migrated[0].plugin_name):
            return "", ""
        return migrated[0].csi_driver, migrated[1]

    def _driver_info_from_sc(self, csi: bool, pvc: PersistentVolumeClaim) -> tuple[str, str]:
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
            if not migration_on(csi, sc.provisioner):
                return "", ""
            return driver, handle
        return sc.provisioner, handle

    def _attachable_volumes(self, pod: Pod, csi: bool, new_pod: bool, result: dict[str, str]) -> None:
        """filterAttachableVolumes: unique name ``<driver>/<handle>`` -> limit key."""
        refs = iter(pod_claim_refs(pod))
        for v in pod.volumes:
            if v.get("persistentVolumeClaim") is None and v.get("ephemeral") is None:
                inline = inline_plugin(v)
                if inline is not None and migration_on(csi, inline[0].plugin_name):
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
            driver, handle = self._driver_info(csi, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _existing_pod_volumes(self, pod: Pod, csi: bool) -> PodVolumes:
        """An already placed pod's attachable volumes, or the error resolving them fails with."""
        out: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csi, False, out)
        except ValueError as exc:
            return exc
        return out

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self._filter(pod, node_info)

    def _volume_limits(self, node_name: str, allocatable: Mapping[str, int],
                       csi_node: CSINode | None) -> dict[str, int]:
        """volume_limits, kept per node while the node's allocatable is equal (a copy is kept:
        snapshot updates copy it) and its CSINode the same object (replaced, never changed in
        place, when it changes). Read-only."""
        hit = self._limits.get(node_name)
        if hit is not None and hit[1] is csi_node and hit[0] == allocatable:
            return hit[2]
        limits = volume_limits(allocatable, csi_node)
        self._limits[node_name] = (dict(allocatable), csi_node, limits)
        return limits

    def _new_volumes(self, pod: Pod, csi: bool) -> dict[str, str] | Status:
        """The incoming pod's attachable volumes on a node with (``csi``) or without a CSINode,
        or the status their resolution fails with."""
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csi, True, new_volumes)
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

    def _filter(self, pod: Pod, node_info: NodeInfo) -> Status | None:
        """CSILimits.Filter on one node, recounting the node's volumes: the reference the batch
        path's kept counts must agree with."""
        if not pod.volumes:
            return None
        node = node_info.node
        if node is None:
            return Status.from_error(RuntimeError("node not found"))
        csi_node = self.listers.csi_node(node.name)
        resolved = self._new_volumes(pod, csi_node is not None)
        if isinstance(resolved, Status):
            return resolved
        if not resolved:
            return None
        limits = self._volume_limits(node.name, node_info.allocatable, csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        try:
            for pi in node_info.pods:
                self._attachable_volumes(pi.pod, csi_node is not None, False, attached)
        except ValueError as exc:
            return Status.from_error(exc)
        return _check_counts(resolved, attached, _count(attached), limits)

    # -- batch Filter -----------------------------------------------------------------------
    def _storage_version(self) -> Hashable:
        """What every kept resolution depends on besides the nodes' pods: the versions of the
        kinds the listers read (:class:`~kubesched.cluster.KindVersioned`), or any change of
        the store when it only has the global resourceVersion every store has."""
        store = self.listers.store
        if store is None:
            return 0
        if isinstance(store, KindVersioned):
            kind_version = store.kind_version
            return (kind_version(PVC), kind_version(PV), kind_version(SC), kind_version(CSI_NODE))
        return store.resource_version

    def _read_node(self, node_info: NodeInfo, old: NodeVolumes | None) -> NodeVolumes:
        """The NodeVolumes of a node with its Node object; ``old`` (same storage version) lends
        the volumes of the pods it already had."""
        node = node_info.node
        assert node is not None
        csi_node = self.listers.csi_node(node.name)
        csi = csi_node is not None
        memo = old.pods if old is not None else {}
        pods: dict[str, tuple[Pod, PodVolumes]] = {}
        attached: dict[str, str] = {}
        error: ValueError | None = None
        for pi in node_info.pods:
            p = pi.pod
            hit = memo.get(p.uid)
            if hit is not None and _same_volumes(hit[0], p):
                vols = hit[1]
            else:
                vols = self._existing_pod_volumes(p, csi)
            pods[p.uid] = (p, vols)
            if error is not None:
                continue
            if isinstance(vols, ValueError):
                error = vols
            else:
                attached.update(vols)
        limits = self._volume_limits(node.name, node_info.allocatable, csi_node)
        return NodeVolumes(node_info.generation, csi, limits, attached, _count(attached), error, pods)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """Pods without attachable volumes: O(1) success (PreFilter skips them). Otherwise the
        pod's volumes are resolved once per CSINode presence, and each node's attached counts
        come from the index kept across cycles (_node_volumes.py): a node passes at once when
        every limit key has room for all the pod's volumes of that key; only the others (and
        node-less infos) take the exact check, volumes shared with the node counting once."""
        if not pod.volumes or not self._has_attachable(pod):
            return BatchFilterResult.all_success(len(nodes))
        without = self._new_volumes(pod, False)
        with_csi = without if self._resolves_without_csi_node(pod) else self._new_volumes(pod, True)
        if (isinstance(without, dict) and not without and isinstance(with_csi, dict) and not with_csi
                and nodes.all_have_nodes()):
            return BatchFilterResult.all_success(len(nodes))  # nothing attachable anywhere
        index = self._index
        index.sync(nodes.snapshot, self._storage_version())
        rows = nodes.indices
        index.refresh(nodes.snapshot, rows)
        out = _SparseResult(len(nodes))
        if with_csi is without:  # one resolution for every node
            self._check_rows(pod, nodes, without, None, out)
        else:
            has_csi = index.has_csi_node[rows]
            self._check_rows(pod, nodes, without, ~has_csi, out)
            self._check_rows(pod, nodes, with_csi, has_csi, out)
        return out.result()

    def _check_rows(self, pod: Pod, nodes: NodeBatch, resolved: dict[str, str] | Status,
                    mine: np.ndarray[Any, np.dtype[np.bool_]] | None, out: _SparseResult) -> None:
        """Filter on the batch positions ``mine`` (all when None): the nodes sharing one
        resolution ``resolved`` of the incoming pod's volumes. Node-less infos take the
        per-node rule; a node whose pods' volumes fail to resolve gets that error; the count
        check runs only where some limit key lacks room for all the pod's volumes of that key
        (volumes shared with the node's pods may still make it fit)."""
        index = self._index
        rows = nodes.indices
        no_node = index.no_node[rows]
        if isinstance(resolved, Status) or not resolved:
            if isinstance(resolved, Status):
                out.put_many(np.flatnonzero(~no_node if mine is None else mine & ~no_node), resolved)
            flagged = no_node
        else:
            flagged = index.flagged[rows]
            for key, count in _count(resolved).items():
                flagged |= index.headroom(key)[rows] < count
        if mine is not None:
            flagged &= mine
        if not flagged.any():
            return
        infos = nodes.snapshot.node_info_list
        for pos in np.flatnonzero(flagged).tolist():
            r = int(rows[pos])
            e = index.entries[r]
            if e is None or isinstance(resolved, Status) or not resolved:  # no Node: per-node rule
                out.put(pos, self._filter(pod, infos[r]))
            elif e.error is not None and e.limits:
                out.put(pos, Status.from_error(e.error))
            else:
                out.put(pos, _check_counts(resolved, e.attached, e.counts, e.limits))


def _same_volumes(a: Pod, b: Pod) -> bool:
    """Whether filterAttachableVolumes reads the same of both pods (same uid assumed): their
    volumes, and the namespace and name the claims are looked up by (an assumed pod and the
    bound one that replaces it are different objects with the same volumes)."""
    return a is b or (a.volumes == b.volumes and a.name == b.name and a.namespace == b.namespace)


def _count(volumes: Mapping[str, str]) -> dict[str, int]:
    """Unique volumes per limit key."""
    out: dict[str, int] = {}
    for key in volumes.values():
        out[key] = out.get(key, 0) + 1
    return out


def _check_counts(resolved: Mapping[str, str], attached: Mapping[str, str], attached_count: Mapping[str, int],
                  limits: Mapping[str, int]) -> Status | None:
    """The end of CSILimits.Filter: the incoming pod's volumes not already attached to the node,
    per limit key, on top of the node's attached count, must stay within the limit."""
    new_count = _count({u: k for u, k in resolved.items() if u not in attached})
    for key, count in new_count.items():
        limit = limits.get(key)
        if limit is not None and attached_count.get(key, 0) + count > limit:
            return _EXCEEDED
    return None


_EXCEEDED = Status.of(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


class _SparseResult:
    """A BatchFilterResult built from the few non-success positions."""

    def __init__(self, n: int) -> None:
        self.codes = np.zeros(n, dtype=np.int8)
        self.rids = np.zeros(n, dtype=np.int32)
        self.table: list[tuple[str, ...]] = [()]
        self._index: dict[tuple[str, ...], int] = {(): 0}

    def _rid(self, status: Status) -> int:
        rid = self._index.get(status.reasons)
        if rid is None:
            rid = self._index[status.reasons] = len(self.table)
            self.table.append(status.reasons)
        return rid

    def put(self, pos: int, status: Status | None) -> None:
        if status is not None and status.code != Code.SUCCESS:
            self.codes[pos] = int(status.code)
            self.rids[pos] = self._rid(status)

    def put_many(self, positions: np.ndarray[Any, np.dtype[np.int64]], status: Status) -> None:
        if positions.size and status.code != Code.SUCCESS:
            self.codes[positions] = int(status.code)
            self.rids[positions] = self._rid(status)

    def result(self) -> BatchFilterResult:
        return BatchFilterResult(self.codes, self.rids, self.table)


def volume_limits(allocatable: Mapping[str, int], csi_node: CSINode | None) -> dict[str, int]:
    """getVolumeLimits: the node's ``attachable-volumes-*`` allocatable, overridden by the
    CSINode drivers' ``allocatable.count``."""
    out = {k: v for k, v in allocatable.items() if k.startswith(ATTACHABLE_VOLUMES_PREFIX)}
    if csi_node is not None:
        for driver, count in csi_node.drivers.items():
            if count is not None:
                out[csi_attach_limit_key(driver)] = count
    return out
