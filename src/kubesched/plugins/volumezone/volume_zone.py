"""VolumeZone: the zone/region labels of a pod's bound PVs must match the node's.

Mirrors pkg/scheduler/framework/plugins/volumezone/volume_zone.go (master 2026). PreFilter
collects the topology labels of the PVs bound to the pod's claims (skipping unbound
WaitForFirstConsumer claims); Filter requires, for each, that the node has the same key (or
the GA key for a deprecated beta key) with one of the PV's values (``a__b`` is a set). A node
with no topology label at all passes (single-zone clusters).

The rule is written once over label columns (codes per node, -1 when missing): the batch path
reads the snapshot's ``label_column``, the per-node path a one-row view of the node's labels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

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
from ..helper.volume.listers import PV, PVC, SC, VolumeListers, not_found
from ..helper.volume.storage_helpers import claim_class
from ..names import VOLUME_ZONE

if TYPE_CHECKING:
    from ...api import PersistentVolume, Pod
    from ...cache import NodeInfo
    from ...framework import Handle

__all__ = ["ERR_REASON_CONFLICT", "NAME", "VolumeZone"]

NAME = VOLUME_ZONE
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION,
                   LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
MULTI_ZONE_DELIMITER = "__"

LabelColumn = Callable[[str], tuple[npt.NDArray[np.int32], list[str]]]


def translate_to_ga_label(label: str) -> str:
    if label == LABEL_FAILURE_DOMAIN_BETA_REGION:
        return LABEL_TOPOLOGY_REGION
    if label == LABEL_FAILURE_DOMAIN_BETA_ZONE:
        return LABEL_TOPOLOGY_ZONE
    return label


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """volumehelpers.LabelZonesToSet: ``__``-separated, trimmed; an empty item is an error
    (None), and upstream then ignores the label."""
    out = set()
    for z in value.split(MULTI_ZONE_DELIMITER):
        z = z.strip()
        if not z:
            return None
        out.add(z)
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class PVTopology:
    pv_name: str
    key: str
    values: frozenset[str]


def pv_topologies(pv: PersistentVolume) -> tuple[PVTopology, ...]:
    """getPVTopologies: one entry per topology label on the PV (unparsable values ignored)."""
    out = []
    for key in TOPOLOGY_LABELS:
        v = pv.labels.get(key)
        if v is None:
            continue
        zones = label_zones_to_set(v)
        if zones is not None:
            out.append(PVTopology(pv.name, key, zones))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    topologies: tuple[PVTopology, ...]

    def clone(self) -> _PreFilterState:
        return self


def zone_conflicts(topologies: Sequence[PVTopology], column: LabelColumn, n: int) -> npt.NDArray[np.bool_]:
    """The Filter rule over ``n`` nodes: True where the node has some topology label and one of
    the PV topologies finds neither its key (nor, failing that, the GA key) with an allowed value."""
    constrained = np.zeros(n, dtype=bool)
    for key in TOPOLOGY_LABELS:
        constrained |= column(key)[0] >= 0
    bad = np.zeros(n, dtype=bool)
    for t in topologies:
        codes, values = column(t.key)
        ga_codes, ga_values = column(translate_to_ga_label(t.key))
        allowed = np.array([v in t.values for v in values] + [False], dtype=bool)
        ga_allowed = np.array([v in t.values for v in ga_values] + [False], dtype=bool)
        # a code of -1 indexes the trailing False
        ok = np.where(codes >= 0, allowed[codes], ga_allowed[ga_codes])
        bad |= ~ok
    return constrained & bad


def _node_column(labels: Mapping[str, str]) -> LabelColumn:
    def column(key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
        if key in labels:
            return np.zeros(1, dtype=np.int32), [labels[key]]
        return np.full(1, -1, dtype=np.int32), []

    return column


class VolumeZone(PluginBase):
    NAME: ClassVar[str] = NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the verdict reads the pod's volumes (ConfigMap and Secret ones aside)."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.listers = VolumeListers(handle.store if handle is not None else None)

    # -- events ---------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister with queueing hints on (no UpdateNodeTaint: preCheck is gone)."""
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                                 self.is_schedulable_after_storage_class_added),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE,
                                              ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
                                 self.is_schedulable_after_pvc_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update),
                                 self.is_schedulable_after_pv_change),
        ]

    @staticmethod
    def _claim_names(pod: Pod) -> list[str]:
        """getPersistentVolumeClaimNameFromPod: persistentVolumeClaim volumes only."""
        return [str((v.get("persistentVolumeClaim") or {}).get("claimName") or "")
                for v in pod.volumes if v.get("persistentVolumeClaim") is not None]

    def is_schedulable_after_pvc_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if new is not None and new.namespace == pod.namespace and new.name in self._claim_names(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_storage_class_added(pod: Pod, old: Any, new: Any) -> QueueingHint:
        if new.volume_binding_mode == "WaitForFirstConsumer":
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_pv_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
        if old is None or pv_topologies(old) != pv_topologies(new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- PreFilter --------------------------------------------------------------------------
    def _pod_topologies(self, pod: Pod) -> tuple[tuple[PVTopology, ...], Status | None]:
        """getPVbyPod."""
        out: list[PVTopology] = []
        for name in self._claim_names(pod):
            if not name:
                return (), Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no name")
            pvc = self.listers.pvc(pod.namespace, name)
            if pvc is None:
                return (), Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, not_found(PVC, name))
            if not pvc.volume_name:
                sc_name = claim_class(pvc)
                if not sc_name:
                    return (), Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                         "PersistentVolumeClaim had no pv name and storageClass name")
                sc = self.listers.storage_class(sc_name)
                if sc is None:
                    return (), Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, not_found(SC, sc_name))
                if sc.volume_binding_mode == "WaitForFirstConsumer":
                    continue  # unbound: VolumeBinding decides
                return (), Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolume had no name")
            pv = self.listers.pv(pvc.volume_name)
            if pv is None:
                return (), Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, not_found(PV, pvc.volume_name))
            out.extend(pv_topologies(pv))
        return tuple(out), None

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:
            return None, Status.skip()  # no claim, no topology to match (most pods)
        topologies, status = self._pod_topologies(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(topologies))
        return None, None

    def _state_topologies(self, state: CycleState, pod: Pod) -> tuple[tuple[PVTopology, ...], Status | None]:
        s = state.get(PRE_FILTER_STATE_KEY)
        if isinstance(s, _PreFilterState):
            return s.topologies, None
        return self._pod_topologies(pod)  # upstream falls back to computing them

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.volumes:
            return None
        topologies, status = self._state_topologies(state, pod)
        if status is not None:
            return status
        labels = node_info.node.labels if node_info.node is not None else {}
        if zone_conflicts(topologies, _node_column(labels), 1)[0]:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        n = len(nodes)
        if not pod.volumes:
            return BatchFilterResult.all_success(n)
        topologies, status = self._state_topologies(state, pod)
        if status is not None:
            return BatchFilterResult.uniform(n, status)
        cols = nodes.snapshot.columns
        idx = nodes.indices

        def column(key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
            codes, values = cols.label_column(key)
            return codes[idx], values

        failed = zone_conflicts(topologies, column, n)
        return BatchFilterResult.from_mask(failed, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
