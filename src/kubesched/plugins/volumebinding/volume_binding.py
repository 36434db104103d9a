"""VolumeBinding: bound claims' PVs must fit the node; unbound WaitForFirstConsumer claims must
find an available PV or be provisionable there; Reserve assumes and PreBind writes the bindings.

Mirrors pkg/scheduler/framework/plugins/volumebinding/volume_binding.go and scorer.go (master
2026). Score is active only with the StorageCapacityScoring feature (alpha, off by default), and
then scores static bindings only (dynamic provisions need CSIStorageCapacity, not modelled).
See binder.py for what differs because a simulation has no PV controller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...api import fields, value
from ...framework import (
    MAX_NODE_SCORE,
    VOLUMES_SIGNER_NAME,
    ActionType,
    ArgsError,
    BatchFilterResult,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeBatch,
    PluginArgs,
    PluginBase,
    PreFilterResult,
    QueueingHint,
    SignFragment,
    Status,
    volumes_signer,
)
from ..helper import FunctionShapePoint, build_broken_linear_function
from ..helper.volume.listers import VolumeListers, not_found
from ..helper.volume.storage_helpers import (
    ANN_MIGRATED_PLUGINS,
    check_node_affinity,
    ephemeral_owner_error,
    pod_claim_refs,
    pod_uses_claim,
)
from ..names import VOLUME_BINDING
from .binder import (
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
    VolumeBindingError,
)

if TYPE_CHECKING:
    from ...api import PersistentVolume, Pod
    from ...cache import NodeInfo
    from ...framework import Handle

__all__ = ["NAME", "UtilizationShapePoint", "VolumeBinding", "VolumeBindingArgs"]

NAME = VOLUME_BINDING
STATE_KEY = NAME  # upstream: stateKey = Name
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
FEATURE_STORAGE_CAPACITY_SCORING = "StorageCapacityScoring"
_NODE_CONFLICT = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_CONFLICT)
_PV_NOT_EXIST = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_PV_NOT_EXIST)


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    utilization: int
    score: int


# SetDefaults_VolumeBindingArgs: with StorageCapacityScoring, prefer nodes with more free space.
DEFAULT_SHAPE = (UtilizationShapePoint(0, MAX_CUSTOM_PRIORITY_SCORE),
                 UtilizationShapePoint(MAX_UTILIZATION, 0))


@dataclass(frozen=True, kw_only=True)
class VolumeBindingArgs(PluginArgs):
    """VolumeBindingArgs (v1): ``bindTimeoutSeconds`` defaults to 600; an empty ``shape``
    takes DEFAULT_SHAPE when StorageCapacityScoring is on."""

    bind_timeout_seconds: int = 600
    shape: tuple[UtilizationShapePoint, ...] = field(default_factory=tuple)

    @classmethod
    def decode_field(cls, name: str, value: Any) -> Any:
        if name == "shape":
            return tuple(UtilizationShapePoint(fields.int32(p.get("utilization"), f"{ppath}.utilization"),
                                               fields.int32(p.get("score"), f"{ppath}.score"))
                         for p, ppath in fields.objects(value, "shape"))
        return value

    def validate(self) -> None:
        """ValidateVolumeBindingArgs (+ validateFunctionShape)."""
        if self.bind_timeout_seconds < 0:
            raise ArgsError(f"bindTimeoutSeconds: Invalid value: {self.bind_timeout_seconds}: "
                            "invalid BindTimeoutSeconds, should not be a negative value")
        for i, p in enumerate(self.shape):
            if not 0 <= p.utilization <= MAX_UTILIZATION:
                raise ArgsError(f"shape[{i}].utilization: Invalid value: {p.utilization}: "
                                f"not in valid range [0, {MAX_UTILIZATION}]")
            if i > 0 and p.utilization <= self.shape[i - 1].utilization:
                raise ArgsError(f"shape[{i}].utilization: Invalid value: {p.utilization}: "
                                "utilization values must be sorted in increasing order")
            if not 0 <= p.score <= MAX_CUSTOM_PRIORITY_SCORE:
                raise ArgsError(f"shape[{i}].score: Invalid value: {p.score}: "
                                f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")


class PodVolumesByNode(MutableMapping[str, PodVolumes]):
    """podVolumesByNode: each node's decisions, written by Filter. The bound-only batch path
    passes whole batches of nodes, all with empty decisions: it records their snapshot rows
    instead of a PodVolumes per node, and a node's empty PodVolumes is made when first read
    (Score, Reserve and PreBind read only feasible nodes, mostly the chosen one). A later
    write wins, as in the plain map: passing a batch drops the batch's earlier entries."""

    def __init__(self) -> None:
        self._by_node: dict[str, PodVolumes] = {}
        # (snapshot node_index, node_names, rows passed): one per snapshot layout seen
        self._passed: list[tuple[Mapping[str, int], Sequence[str], np.ndarray[Any, np.dtype[np.bool_]]]] = []

    def pass_rows(self, snapshot: Any, rows: np.ndarray[Any, np.dtype[np.int64]]) -> None:
        """Every node at ``rows`` of ``snapshot`` passed with empty decisions."""
        index = snapshot.node_index
        batch = np.zeros(len(snapshot.node_names), dtype=bool)
        batch[rows] = True
        for name in [n for n in self._by_node if index.get(n, -1) >= 0 and batch[index[n]]]:
            del self._by_node[name]
        for idx, _, mask in self._passed:
            if idx is index:
                mask |= batch
                return
        self._passed.append((index, snapshot.node_names, batch))

    def _passed_node(self, name: str) -> bool:
        for index, _, mask in self._passed:
            i = index.get(name)
            if i is not None and mask[i]:
                return True
        return False

    def __getitem__(self, name: str) -> PodVolumes:
        pv = self._by_node.get(name)
        if pv is None:
            if not self._passed_node(name):
                raise KeyError(name)
            pv = self._by_node[name] = PodVolumes()
        return pv

    def __setitem__(self, name: str, pv: PodVolumes) -> None:
        self._by_node[name] = pv

    def __delitem__(self, name: str) -> None:
        found = self._by_node.pop(name, None) is not None
        for index, _, mask in self._passed:
            i = index.get(name)
            if i is not None and mask[i]:
                mask[i] = False
                found = True
        if not found:
            raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        seen = set(self._by_node)
        yield from list(self._by_node)
        for _, names, mask in self._passed:
            for i in np.flatnonzero(mask).tolist():
                if names[i] not in seen:
                    seen.add(names[i])
                    yield names[i]

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(eq=False)
class _StateData:
    """Written in PreFilter, filled per node by Filter, used by Score/Reserve/PreBind. Shared
    by clones, as upstream's Clone returns the same pointer."""

    all_bound: bool = False
    pod_volumes_by_node: PodVolumesByNode = field(default_factory=PodVolumesByNode)
    pod_volume_claims: PodVolumeClaims | None = None
    has_static_bindings: bool = False

    def clone(self) -> _StateData:
        return self


def _state(cs: CycleState) -> _StateData:
    return cs.read_as(STATE_KEY, _StateData)


def _go_round(x: float) -> int:
    """Go math.Round: half away from zero."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


ClassResources = dict[str, list[int]]  # class -> [requested, capacity]


def build_scorer(shape: Sequence[UtilizationShapePoint]) -> Callable[[ClassResources], int]:
    """buildScorerFunction (scorer.go): per class the shape of requested*100/capacity (full
    utilization when capacity is 0 or exceeded), averaged over classes with math.Round."""
    raw = build_broken_linear_function(
        [FunctionShapePoint(p.utilization, p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
         for p in shape])

    def f(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def scorer(classes: ClassResources) -> int:
        if not classes:
            return 0
        total = sum(f(req, cap) for req, cap in classes.values())
        return _go_round(total / len(classes))

    return scorer


class VolumeBinding(PluginBase):
    NAME: ClassVar[str] = NAME
    Args: ClassVar[type[PluginArgs] | None] = VolumeBindingArgs

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """SignPod: the verdict reads the pod's volumes (ConfigMap and Secret ones aside)."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def __init__(self, args: PluginArgs | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        a = self.args if isinstance(self.args, VolumeBindingArgs) else VolumeBindingArgs()
        self.binder = VolumeBinder(VolumeListers(handle.store if handle is not None else None))
        features = handle.features if handle is not None else {}
        self.scorer: Callable[[ClassResources], int] | None = None
        if features.get(FEATURE_STORAGE_CAPACITY_SCORING, False):
            self.scorer = build_scorer(a.shape or DEFAULT_SHAPE)
        elif a.shape:
            # ValidateVolumeBindingArgs: a shape must not sneak in while the feature is off.
            raise ArgsError("shape: Invalid value: unsupported when StorageCapacityScoring feature is "
                            "disabled")
        self.bind_timeout_seconds = a.bind_timeout_seconds

    # -- events ---------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister (queueing hints on; preCheck gone, so no UpdateNodeTaint)."""
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, add_update),
                                 self.is_schedulable_after_storage_class_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
                                 self.is_schedulable_after_pvc_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE,
                                              ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, add_update),
                                 self.is_schedulable_after_csi_node_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
                                 self.is_schedulable_after_csi_driver_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_update),
                                 self.is_schedulable_after_csi_storage_capacity_change),
        ]

    @staticmethod
    def is_schedulable_after_storage_class_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new class, or changed allowedTopologies, may help."""
        if old is None or tuple(old.allowed_topologies) != tuple(new.allowed_topologies):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_pvc_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Only a claim the pod uses (by name, including ephemeral claims) matters."""
        return QueueingHint.QUEUE if pod_uses_claim(pod, new) else QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_csi_node_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new CSINode, or a change of its migrated-plugins annotation, may help."""
        if old is None:
            return QueueingHint.QUEUE
        if old.meta.annotations.get(ANN_MIGRATED_PLUGINS) != new.meta.annotations.get(ANN_MIGRATED_PLUGINS):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_csi_driver_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Only turning storageCapacity off, for a driver of one of the pod's inline CSI volumes."""
        name = str(_raw(new).get("metadata", {}).get("name") or "")
        for v in pod.volumes:
            csi = v.get("csi")
            if not isinstance(csi, Mapping) or csi.get("driver") != name:
                continue
            if _spec(old).get("storageCapacity") and not _spec(new).get("storageCapacity"):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_csi_storage_capacity_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new capacity, or a larger volume limit (maximumVolumeSize preferred over capacity)."""
        if old is None:
            return QueueingHint.QUEUE

        def limit(o: Any) -> int | None:
            d = _raw(o)
            q = d.get("maximumVolumeSize", d.get("capacity"))
            return value(q) if q is not None else None

        new_limit, old_limit = limit(new), limit(old)
        if new_limit is not None and (old_limit is None or new_limit > old_limit):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- PreFilter --------------------------------------------------------------------------
    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str]:
        """podHasPVCs -> (has a PVC, error message or "")."""
        refs = pod_claim_refs(pod)
        for ref in refs:
            pvc = self.binder.listers.pvc(pod.namespace, ref.claim_name)
            if pvc is None:
                if ref.ephemeral:
                    return True, ("waiting for ephemeral volume controller to create the "
                                  f'persistentvolumeclaim "{ref.claim_name}"')
                return True, not_found("PersistentVolumeClaim", ref.claim_name)
            if pvc.phase == "Lost":
                return True, (f'persistentvolumeclaim "{pvc.name}" bound to non-existent '
                              f'persistentvolume "{pvc.volume_name}"')
            if pvc.meta.deletion_timestamp is not None:
                return True, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if ref.ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err:
                    return True, err
        return bool(refs), ""

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:  # no claim (most pods): podHasPVCs is false without a lookup
            state.write(STATE_KEY, _StateData())
            return None, Status.skip()
        has_pvc, err = self._pod_has_pvcs(pod)
        if err:
            return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        if not has_pvc:
            state.write(STATE_KEY, _StateData())
            return None, Status.skip()
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except VolumeBindingError as exc:
            return None, Status.from_error(exc)
        if claims.unbound_claims_immediate:
            return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_UNBOUND_IMMEDIATE)
        # No PreFilterResult: upstream dropped the local-PV node subset (it assumed hostname
        # label == node name), so every node goes through Filter.
        state.write(STATE_KEY, _StateData(pod_volume_claims=claims))
        return None, None

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        node = node_info.node
        if node is None:
            return Status.from_error(RuntimeError("node not found"))
        if s.pod_volume_claims is None:  # PreFilter skipped: no claims
            return None
        try:
            pod_volumes, reasons = self.binder.find_pod_volumes(pod, s.pod_volume_claims, node)
        except VolumeBindingError as exc:
            return Status.from_error(exc)
        if reasons:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        s.pod_volumes_by_node[node.name] = pod_volumes
        s.has_static_bindings = s.has_static_bindings or bool(pod_volumes.static_bindings)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        """Pods without claims: O(1) success (PreFilter skipped the plugin). Otherwise the
        per-node rule, node by node, since Filter records each node's decisions."""
        if not pod_claim_refs(pod):
            return BatchFilterResult.all_success(len(nodes))
        fast = self._filter_bound_only(state, nodes)
        if fast is not None:
            return fast
        return BatchFilterResult.from_statuses([self.filter(state, pod, ni) for ni in nodes.node_infos()])

    def _filter_bound_only(self, state: CycleState, nodes: NodeBatch) -> BatchFilterResult | None:
        """Filter for a pod whose claims are all bound (the common case): checkBoundClaims
        looks each PV up once for all nodes, and only PVs with a required node affinity are
        matched per node; every passing node gets empty decisions, as ``filter`` records them.
        Without such PVs the answer is the same for every node, so no node is visited. None
        when the per-node rule must run (unbound claims, a node-less NodeInfo, no state)."""
        s = state.get(STATE_KEY)
        if not isinstance(s, _StateData) or s.pod_volume_claims is None:
            return None
        claims = s.pod_volume_claims
        if claims.unbound_claims_delay_binding or not nodes.all_have_nodes():
            return None
        pvs: list[PersistentVolume] = []
        pvs_found = True
        for pvc in claims.bound_claims:  # checkBoundClaims' order: stop at the first missing PV
            pv = self.binder.pv_cache.get_pv(pvc.volume_name)
            if pv is None:
                pvs_found = False
                break
            pvs.append(pv)
        with_affinity = [pv for pv in pvs if pv.node_affinity is not None]
        by_node = s.pod_volumes_by_node
        if not with_affinity:
            if not pvs_found:
                return BatchFilterResult.uniform(len(nodes), _PV_NOT_EXIST)
            by_node.pass_rows(nodes.snapshot, nodes.indices)
            return BatchFilterResult.all_success(len(nodes))
        statuses: list[Status | None] = []
        for ni in nodes.node_infos():
            node = ni.node
            assert node is not None
            if not all(check_node_affinity(pv, node.labels) for pv in with_affinity):
                statuses.append(_NODE_CONFLICT)
            elif not pvs_found:
                statuses.append(_PV_NOT_EXIST)
            else:
                statuses.append(None)
                by_node[node.name] = PodVolumes()
        return BatchFilterResult.from_statuses(statuses)

    # -- PreScore / Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self.scorer is None:
            return Status.skip()
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        return None if s.has_static_bindings else Status.skip()

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if self.scorer is None:
            return 0, None
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return 0, Status.from_error(exc)
        pv = s.pod_volumes_by_node.get(node_info.name)
        if pv is None:
            return 0, None
        classes: ClassResources = {}
        for b in pv.static_bindings:
            req, cap = b.storage_resource()
            acc = classes.setdefault(b.storage_class_name(), [0, 0])
            acc[0] += req
            acc[1] += cap
        return self.scorer(classes), None

    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[np.ndarray[Any, np.dtype[np.int64]], Status | None]:
        if self.scorer is None:
            return np.zeros(len(nodes), dtype=np.int64), None
        return super().score_batch(state, pod, nodes)

    # -- Reserve / Unreserve / PreBind ------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        pv = s.pod_volumes_by_node.get(node_name)
        s.all_bound = True if pv is None else self.binder.assume_pod_volumes(pod, node_name, pv)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = state.get(STATE_KEY)
        if not isinstance(s, _StateData):
            return
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is not None:
            self.binder.revert_assumed_pod_volumes(pv)

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """PreBindPreFlight: Skip when every claim is already bound (PreBind has nothing to
        do), so the binding cycle need not announce the node (KEP-5278)."""
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        return Status.skip() if s.all_bound else None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            s = _state(state)
        except (KeyError, TypeError) as exc:
            return Status.from_error(exc)
        if s.all_bound:
            return None
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is None:
            return Status.from_error(RuntimeError(f'no pod volumes found for node "{node_name}"'))
        try:
            self.binder.bind_pod_volumes(pod, pv, node_name, float(self.bind_timeout_seconds))
        except Exception as exc:  # a store write failed: Error, so the pod is retried
            return Status.from_error(exc)
        return None


def _raw(o: Any) -> dict[str, Any]:
    """The manifest of an object the api does not model (CSIDriver, CSIStorageCapacity)."""
    raw = getattr(o, "raw", o)
    return dict(raw) if isinstance(raw, Mapping) else {}


def _spec(o: Any) -> dict[str, Any]:
    return dict(_raw(o).get("spec") or {})
