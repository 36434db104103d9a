"""One small protocol per extension point.

Mirrors staging/src/k8s.io/kube-scheduler/framework/interface.go (master 2026). Every plugin
has ``name()``; each extension point is its own protocol, and optional abilities
(PreFilterExtensions, ScoreExtensions, EnqueueExtensions, the batch paths) are separate, so a
plugin implements only what upstream's does. The runtime checks membership with
``isinstance(plugin, FilterPlugin)`` (the protocols are runtime-checkable).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ._batch import BatchFilterResult, NodeBatch
from ._cycle_state import CycleState
from ._events import ClusterEvent, ClusterEventWithHint
from ._status import Status

if TYPE_CHECKING:
    from ..api import AllocationResult, Pod, PodDisruptionBudget, ResourceClaim
    from ..cache import NodeInfo, PodInfo
    from ._diagnosis import NodeToStatus
    from ._waiting_pods import PermitFuture
    from .preemption import DecidedNodes, Victims

__all__ = [
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MIN_NODE_SCORE",
    "AsyncPreBindPlugin",
    "AsyncRunnerHandle",
    "BatchFilterPlugin",
    "BatchScorePlugin",
    "BindPlugin",
    "BulkDryRun",
    "DryRunPreemption",
    "EnqueueExtensions",
    "FilterInputs",
    "FilterPlugin",
    "NodeAllocationsPlugin",
    "PermitPlugin",
    "Plugin",
    "PodActivator",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreBindPreFlightPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "PreemptionExtender",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "SignFragment",
    "SignPlugin",
    "SkippedErrorLogger",
    "filter_inputs",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """PreFilter's node subset: ``None`` means all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """Intersection, as PreFilterResult.Merge."""
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """The nominating info: the node the pod was nominated to (``""`` clears it)."""

    nominated_node_name: str = ""
    mode: str = "ModeOverride"  # ModeNoop | ModeOverride


@dataclass(eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue (framework.QueuedPodInfo)."""

    pod: Pod
    timestamp: float = 0.0  # when the pod was added to the queue; QueueSort's tie-breaker
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] | None = None
    pending_plugins: set[str] | None = None
    gated: bool = False  # kept equal to ``gating_plugin != ""`` (QueuedPodInfo.Gated upstream)
    gating_plugin: str = ""
    gating_plugin_events: tuple[ClusterEvent, ...] = ()  # events the gating plugin registered
    backoff_expiration: float | None = None  # cached by the backoff queue; None: not computed yet
    consecutive_errors: int = 0  # failures with an Error status in a row (ConsecutiveErrorsCount)
    unschedulable_count: int = 0  # rejections by plugins (UnschedulableCount): drives the backoff
    # The last 5-minute flush that offered this pod the timeout (FlushTimestamp): a pod a
    # PreEnqueue plugin kept gated then waits a full period again, its timestamp (the queue
    # order) untouched.
    flush_timestamp: float | None = None

    @property
    def key(self) -> str:
        return self.pod.key


@runtime_checkable
class Plugin(Protocol):
    def name(self) -> str: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Runs before a pod enters activeQ; a non-success keeps it out (gated) until an event
    the plugin registered moves it back."""

    def pre_enqueue(self, pod: Pod) -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders activeQ. Exactly one per profile, and every profile must use the same one."""

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    """Which cluster events can make a pod this plugin rejected schedulable."""

    def events_to_register(self) -> list[ClusterEventWithHint]: ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Incremental updates to PreFilter state when the preemption dry run or the nominated-pod
    pass adds or removes a pod on a node."""

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None: ...

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Runs once per cycle before Filter. Unschedulable / UnschedulableAndUnresolvable reject the
    pod for every node; Skip skips this plugin's Filter for the cycle."""

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Whether the pod fits on one node. Unschedulable: might fit after preemption;
    UnschedulableAndUnresolvable: preemption on this node cannot help."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class BatchFilterPlugin(FilterPlugin, Protocol):
    """Filter over all candidate nodes at once; must agree with ``filter`` node by node."""

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult: ...


class FilterInputs(enum.Enum):
    """What a Filter plugin's verdict on a node reads: a capability the plugin states about
    itself (class attribute ``FILTER_INPUTS``, :class:`~kubesched.framework.PluginBase` says
    ``ANY``), like an optional interface upstream. No counterpart upstream: the batch fast paths
    (nominated pods in the Filter pass, preemption's dry run) ask it instead of naming plugins,
    and decide a node without copying it only when every active filter states ``NODE`` or
    ``RESOURCES`` (see ``framework/_nominated.py``). A wrong statement gives wrong answers;
    ``ANY`` is always safe."""

    ANY = "any"
    """The verdict may read anything, the pods on the node included (the default)."""
    NODE = "node"
    """Only the node object and the cycle state written in PreFilter, never the pods on the
    node; the plugin has no PreFilter extensions (NodeUnschedulable, NodeName, TaintToleration,
    NodeAffinity)."""
    RESOURCES = "resources"
    """Only the node's allocatable, the summed requests of its pods and their number
    (``NodeInfo.allocatable``, ``.requested``, ``len(.pods)``; ``filter`` accepts any object
    with those three, ``filter_batch`` a columns view with ``requested`` and ``pod_count``
    replaced), and monotone: fewer pods never fit worse (NodeResourcesFit)."""


_FILTER_METHODS = ("filter", "filter_batch")


def filter_inputs(plugin: object) -> FilterInputs:
    """The plugin's ``FILTER_INPUTS``, from the class that last defined its Filter methods: a
    subclass that overrides ``filter`` or ``filter_batch`` without restating the capability
    gets ``ANY`` (its verdict is its own), one that overrides only other methods keeps it."""
    for cls in type(plugin).__mro__:
        own = vars(cls)
        if "FILTER_INPUTS" in own:
            value = own["FILTER_INPUTS"]
            return value if isinstance(value, FilterInputs) else FilterInputs.ANY
        if any(m in own for m in _FILTER_METHODS):
            return FilterInputs.ANY
    return FilterInputs.ANY


SignFragment = tuple[str, object]
"""fwk.SignFragment: one part of a pod's scheduling signature, ``(signer name, value)``; the
value is anything JSON can encode (see ``framework/_signature.py``'s signers)."""


@runtime_checkable
class SignPlugin(Plugin, Protocol):
    """SignPlugin (KEP-5598): the parts of a pod this plugin's PreFilter, Filter, PreScore and
    Score read, so that two pods with equal signatures get the same feasibility and scores on the
    same nodes. A non-success status means the plugin cannot sign this pod (its verdict depends
    on more than the pod: other pods, claims, topology), which makes the pod unsignable. A
    profile with a PreFilter, Filter, PreScore or Score plugin that is not a SignPlugin signs no
    pod (``computeBatchablePlugins``)."""

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]: ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs when no node passed Filter (DefaultPreemption). ``filtered_node_status`` maps node
    name to the status that rejected it."""

    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Runs once per cycle with the feasible nodes; Skip skips this plugin's Score."""

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    def normalize_score(self, state: CycleState, pod: Pod, scores: npt.NDArray[np.int64],
                        node_names: Sequence[str]) -> Status | None:
        """Rewrite ``scores`` (aligned with ``node_names``) in place into 0..MAX_NODE_SCORE."""
        ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class BatchScorePlugin(ScorePlugin, Protocol):
    def score_batch(self, state: CycleState, pod: Pod,
                    nodes: NodeBatch) -> tuple[npt.NDArray[np.int64], Status | None]: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """Success, Wait (with the returned timeout in seconds) or a rejection."""

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PreBindPreFlightPlugin(PreBindPlugin, Protocol):
    """A PreBind plugin that can tell beforehand whether it has work for the pod: upstream's
    ``PreBindPlugin.PreBindPreFlight`` (newest upstream, KEP-5278). Optional here so that a
    PreBind plugin written against an older interface keeps working (it counts as having
    work)."""

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class AsyncPreBindPlugin(PreBindPlugin, Protocol):
    """A PreBind plugin that may wait (no upstream counterpart: upstream's PreBind simply
    blocks its binding goroutine, e.g. DynamicResources polling device binding conditions);
    the returned future resolves when the wait ends and the next PreBind plugins run then."""

    def pre_bind_async(self, state: CycleState, pod: Pod, node_name: str) -> PermitFuture: ...


@runtime_checkable
class NodeAllocationsPlugin(Plugin, Protocol):
    """A plugin that allocates devices in Filter and can say what it allocated on a node
    (no upstream counterpart: ``explain``/``simulate`` show it, as DynamicResources' Filter
    computes it)."""

    def node_allocations(self, state: CycleState,
                         node_name: str) -> list[tuple[ResourceClaim, AllocationResult]]: ...


@runtime_checkable
class DryRunPreemption(Protocol):
    """A preemption policy (preemption.Interface) with a faster SelectVictimsOnNode for one
    preemption (no upstream counterpart: upstream's DryRunPreemption always copies each node).
    ``prepare_dry_run`` returns a function asked about the i-th node in the Evaluator's
    visiting order, which answers None for a node it cannot decide; it may also have
    ``bulk(i)`` and ``known(j)`` (see framework.preemption's Evaluator)."""

    def prepare_dry_run(self, state: CycleState, pod: Pod, pdbs: Sequence[PodDisruptionBudget],
                        node_statuses: NodeToStatus | None, nodes: Sequence[NodeInfo], num_candidates: int,
                        ) -> Callable[[int, NodeInfo], tuple[list[Pod], int, Status] | None] | None: ...


@runtime_checkable
class BulkDryRun(Protocol):
    """A dry-run function from :meth:`DryRunPreemption.prepare_dry_run` that also answers runs
    of nodes at once (no upstream counterpart): ``bulk(i)`` decides the nodes from the i-th on
    that have no victims, ``known(j)`` gives (name, result) of a node it answered, or None when
    the node needs the per-node call."""

    def __call__(self, i: int, ni: NodeInfo) -> tuple[list[Pod], int, Status] | None: ...

    def bulk(self, i: int) -> DecidedNodes: ...

    def known(self, i: int) -> tuple[str, tuple[list[Pod], int, Status]] | None: ...


@runtime_checkable
class AsyncRunnerHandle(Protocol):
    """A Handle that says where work upstream runs in a goroutine outside the cycles goes
    (asynchronous preemption's API calls; upstream's ``Handle.Parallelizer`` and goroutines):
    None is a task due now on the clock (simulations), live mode sets its worker pool. No
    upstream interface: a Handle without it runs the work on its clock."""

    run_async: Callable[[Callable[[], None]], None] | None


@runtime_checkable
class PodActivator(Protocol):
    """Upstream's ``PodActivator`` (interface.go): moves pods to the active queue. The
    scheduling queue is one; the Handle's nominator is the queue in a scheduler, and a
    nominator that is not (a framework outside a scheduler) activates nothing."""

    def activate(self, pods: Mapping[str, Pod]) -> None: ...


class PreemptionExtender(Protocol):
    """What the framework asks of a scheduler extender: the preemption part of upstream's
    ``framework.Extender`` (pkg/scheduler/framework/extender.go), for callExtenders. The
    scheduler's HTTP extender implements all of it."""

    def name(self) -> str: ...

    def is_ignorable(self) -> bool: ...

    def is_interested(self, pod: Pod) -> bool: ...

    def supports_preemption(self) -> bool: ...

    def process_preemption(self, pod: Pod, node_name_to_victims: Mapping[str, Victims],
                           get_node: Callable[[str], NodeInfo | None]) -> Mapping[str, Victims]: ...


@runtime_checkable
class SkippedErrorLogger(Protocol):
    """An extender that logs the errors the scheduler skips itself (no upstream interface:
    upstream logs each one at the call site; the HTTP extender warns once, then debugs)."""

    def log_skipped_error(self, verb: str, err: BaseException) -> None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Skip: this binder does not handle the pod; the next one is asked."""

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...
