"""VolumeRestrictions: disk conflicts with pods already on the node, and ReadWriteOncePod claims.

Mirrors pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go (master
2026). Inline GCE PD, AWS EBS, iSCSI and RBD volumes conflict with the same disk used by a pod on
the node (unless both mounts are read-only, for GCE PD, iSCSI and RBD): Unschedulable
ErrReasonDiskConflict. A ReadWriteOncePod claim already used by any scheduled pod makes every
node Unschedulable (preemption can free it): ErrReasonReadWriteOncePodConflict. PreFilter
counts those uses once (the snapshot's used-PVC set) and AddPod/RemovePod keep the count right
during preemption dry runs and the nominated-pods pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

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
from ..helper import cycle_snapshot
from ..helper.volume.listers import PVC, VolumeListers, not_found
from ..names import VOLUME_RESTRICTIONS

if TYPE_CHECKING:
    from ...api import Pod
    from ...cache import NodeInfo, PodInfo
    from ...framework import Handle

__all__ = [
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT",
    "NAME",
    "VolumeRestrictions",
]

NAME = VOLUME_RESTRICTIONS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
# Newest upstream wording (older releases said "node has pod using PersistentVolumeClaim with the
# same name and ReadWriteOncePod access mode").
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
    "by another pod")
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
_RESTRICTED = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")

Volume = Mapping[str, Any]


def needs_restrictions_check(v: Volume) -> bool:
    """needsRestrictionsCheck: a GCE PD, AWS EBS, RBD or iSCSI volume."""
    return any(v.get(k) is not None for k in _RESTRICTED)


def _src(v: Volume, kind: str) -> Mapping[str, Any] | None:
    s = v.get(kind)
    return s if isinstance(s, Mapping) else None


def is_volume_conflict(volume: Volume, pod: Pod) -> bool:
    """isVolumeConflict: ``volume`` (of the incoming pod) against every volume of ``pod``."""
    for ev in pod.volumes:
        a, b = _src(volume, "gcePersistentDisk"), _src(ev, "gcePersistentDisk")
        if a is not None and b is not None and a.get("pdName") == b.get("pdName") \
                and not (a.get("readOnly") and b.get("readOnly")):
            return True
        a, b = _src(volume, "awsElasticBlockStore"), _src(ev, "awsElasticBlockStore")
        if a is not None and b is not None and a.get("volumeID") == b.get("volumeID"):
            return True
        a, b = _src(volume, "iscsi"), _src(ev, "iscsi")
        if a is not None and b is not None and a.get("iqn") == b.get("iqn") \
                and not (a.get("readOnly") and b.get("readOnly")):
            return True
        a, b = _src(volume, "rbd"), _src(ev, "rbd")
        if a is not None and b is not None:
            # The API server defaults the pool to "rbd".
            same = (bool(set(a.get("monitors") or ()) & set(b.get("monitors") or ()))
                    and (a.get("pool") or "rbd") == (b.get("pool") or "rbd")
                    and a.get("image") == b.get("image"))
            if same and not (a.get("readOnly") and b.get("readOnly")):
                return True
    return False


def satisfy_volume_conflicts(pod: Pod, pods_on_node: Sequence[Pod]) -> bool:
    """satisfyVolumeConflicts."""
    for v in pod.volumes:
        if not needs_restrictions_check(v):
            continue
        if any(is_volume_conflict(v, ev) for ev in pods_on_node):
            return False
    return True


def _claim_names(pod: Pod) -> list[str]:
    return [str((v.get("persistentVolumeClaim") or {}).get("claimName") or "")
            for v in pod.volumes if v.get("persistentVolumeClaim") is not None]


@dataclass(slots=True)
class _PreFilterState:
    read_write_once_pod_pvcs: frozenset[str]
    conflicting_pvc_ref_count: int

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * sum(
            1 for c in _claim_names(pod) if c in self.read_write_once_pod_pvcs)


def _state(cs: CycleState) -> _PreFilterState:
    try:
        return cs.read_as(PRE_FILTER_STATE_KEY, _PreFilterState)
    except KeyError:
        raise KeyError(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState') from None


class _Extensions:
    """AddPod / RemovePod on the ReadWriteOncePod use count."""

    @staticmethod
    def _update(state: CycleState, pod_info: PodInfo, multiplier: int) -> Status | None:
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        s.update_with_pod(pod_info.pod, multiplier)
        return None

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        return self._update(state, pod_info_to_add, 1)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        return self._update(state, pod_info_to_remove, -1)


class VolumeRestrictions(PluginBase):
    NAME: ClassVar[str] = NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the verdict reads the pod's volumes (ConfigMap and Secret ones aside)."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.listers = VolumeListers(handle.store if handle is not None else None)
        self._extensions = _Extensions()

    def pre_filter_extensions(self) -> _Extensions:
        return self._extensions

    # -- events ---------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister with queueing hints on (Node/Add only: preCheck is gone)."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                                 self.is_schedulable_after_assigned_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.is_schedulable_after_pvc_added),
        ]

    @staticmethod
    def is_schedulable_after_pvc_added(pod: Pod, old: Any, new: Any) -> QueueingHint:
        if new.namespace == pod.namespace and new.name in _claim_names(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_assigned_pod_deleted(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A deleted pod in the namespace whose disks conflicted, or that used one of the pod's
        claims (the access mode is not fetched, as upstream, issue 124566)."""
        deleted: Pod = old
        if deleted.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if not satisfy_volume_conflicts(pod, [deleted]):
            return QueueingHint.QUEUE
        claims = set(_claim_names(deleted))
        if any(c in claims for c in _claim_names(pod)):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- PreFilter --------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:
            return None, Status.skip()  # nothing to check or count (most pods)
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        rwop: set[str] = set()
        for name in _claim_names(pod):
            pvc = self.listers.pvc(pod.namespace, name)
            if pvc is None:
                return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, not_found(PVC, name))
            if READ_WRITE_ONCE_POD in pvc.access_modes:
                rwop.add(pvc.name)
        count = self._used_by_pods(pod.namespace, rwop, nodes)
        if not needs_check and count == 0:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(frozenset(rwop), count))
        return None, None

    def _used_by_pods(self, namespace: str, claims: set[str], nodes: Sequence[NodeInfo]) -> int:
        """How many of ``claims`` IsPVCUsedByPods: the snapshot's set of claims used by scheduled
        (or assumed) pods, kept with the snapshot; read from the nodes' own counts when ``nodes``
        are not the cycle snapshot's."""
        if not claims:
            return 0
        snap = cycle_snapshot(self.handle)
        if snap is not None and snap.node_info_list is nodes:
            return sum(1 for c in claims if snap.is_pvc_used_by_pods(f"{namespace}/{c}"))
        return sum(1 for c in claims if any(f"{namespace}/{c}" in ni.pvc_ref_counts for ni in nodes))

    # -- Filter -----------------------------------------------------------------------------
    @staticmethod
    def _read_write_once_pod_status(state: CycleState) -> Status | None:
        """getPreFilterState + satisfyReadWriteOncePod."""
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        if s.conflicting_pvc_ref_count > 0:
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not satisfy_volume_conflicts(pod, [pi.pod for pi in node_info.pods]):
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        return self._read_write_once_pod_status(state)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """Without inline disks the result is the same for every node (the claim check); with
        them, the per-node rule runs on each node (it needs the node's pods)."""
        n = len(nodes)
        if not pod.volumes:
            return BatchFilterResult.all_success(n)
        if not any(needs_restrictions_check(v) for v in pod.volumes):
            st = self._read_write_once_pod_status(state)
            return BatchFilterResult.all_success(n) if st is None else BatchFilterResult.uniform(n, st)
        return BatchFilterResult.from_statuses([self.filter(state, pod, ni) for ni in nodes.node_infos()])
