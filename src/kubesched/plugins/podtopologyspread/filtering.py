"""PodTopologySpread PreFilter/Filter: DoNotSchedule constraints.

Mirrors pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (master 2026). PreFilter
counts, per constraint, the matching pods in each topology domain of the eligible nodes
(``tp_value_to_match_num``; domains without matching pods count 0) and keeps the two smallest
counts (``critical_paths``) for the global minimum. Filter: a node without a constraint's key is
UnschedulableAndUnresolvable; otherwise ``count(domain) + selfMatch - globalMin > maxSkew`` is
Unschedulable, the global minimum being 0 while fewer than ``minDomains`` domains exist.

The batch path builds, per constraint, an array of counts over the snapshot's label-value codes
and evaluates the skew for all nodes at once; the first failing constraint decides, as in the
per-node loop.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...api import Pod
from ...cache import NodeInfo
from ...framework import BatchFilterResult, Code, CycleState, NodeBatch, Status
from ..helper import NodeView, PodIndex, ValueCodes
from .common import HONOR, IGNORE, Constraint, node_labels_match_spread_constraints

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "PRE_FILTER_STATE_KEY",
    "CriticalPaths",
    "PreFilterState",
    "compute_pre_filter_state",
    "filter_batch",
    "filter_node",
    "get_pre_filter_state",
]

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

_LABEL_STATUS = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
_SKEW_STATUS = Status.of(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)

_MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """criticalPaths: the two smallest (value, count) pairs, updated incrementally.

    Only ``paths[0]``'s count is read (the global minimum); after incremental updates it may
    exceed the true minimum, which upstream accepts because preemption evaluates one node per
    state copy (see the CAVEAT in filtering.go)."""

    __slots__ = ("nums", "values")

    def __init__(self) -> None:
        self.values: list[str] = ["", ""]
        self.nums: list[int] = [_MAX_INT32, _MAX_INT32]

    def min_num(self) -> int:
        return self.nums[0]

    def _swap(self) -> None:
        self.values.reverse()
        self.nums.reverse()

    def update(self, tp_val: str, num: int) -> None:
        vals, nums = self.values, self.nums
        i = 0 if tp_val == vals[0] else 1 if tp_val == vals[1] else -1
        if i >= 0:
            nums[i] = num
            if nums[0] > nums[1]:
                self._swap()
        elif num < nums[0]:
            vals[1], nums[1] = vals[0], nums[0]
            vals[0], nums[0] = tp_val, num
        elif num < nums[1]:
            vals[1], nums[1] = tp_val, num

    def clone(self) -> CriticalPaths:
        c = CriticalPaths()
        c.values, c.nums = list(self.values), list(self.nums)
        return c


@dataclass
class PreFilterState:
    constraints: list[Constraint] = field(default_factory=list)
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    tp_value_to_match_num: list[dict[str, int]] = field(default_factory=list)

    def clone(self) -> PreFilterState:
        return PreFilterState(list(self.constraints), [c.clone() for c in self.critical_paths],
                              [dict(m) for m in self.tp_value_to_match_num])

    def min_match_num(self, i: int) -> int:
        """minMatchNum: the global minimum, 0 while there are fewer domains than minDomains."""
        if len(self.tp_value_to_match_num[i]) < self.constraints[i].min_domains:
            return 0
        return self.critical_paths[i].min_num()

    def update_with_pod(self, updated: Pod, preemptor: Pod, node_info: NodeInfo, delta: int,
                        enable_node_inclusion_policy: bool = True) -> None:
        """updateWithPod (AddPod/RemovePod)."""
        node = node_info.node
        if updated.namespace != preemptor.namespace or node is None:
            return
        if not node_labels_match_spread_constraints(node.labels, self.constraints):
            return
        for i, c in enumerate(self.constraints):
            if enable_node_inclusion_policy and not c.match_node_inclusion_policies(preemptor, node):
                continue
            if not c.matches_pod(updated.labels):
                continue
            v = node.labels[c.topology_key]
            m = self.tp_value_to_match_num[i]
            m[v] = m.get(v, 0) + delta
            self.critical_paths[i].update(v, m[v])


def get_pre_filter_state(state: CycleState) -> PreFilterState:
    return state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)


def _matching_group(pod: Pod, c: Constraint) -> tuple[Hashable, Callable[[Pod], bool]] | None:
    """The pod-index rule of countPodsMatchSelector (pods in the pod's namespace matching the
    selector), as (key, predicate); None for a selector that matches nothing (nil or empty)."""
    sel, ns = c.selector, pod.namespace
    if sel is None or sel.is_empty:
        return None
    return ("spread", ns, sel), lambda p: p.namespace == ns and sel.matches(p.labels)


def pod_counts(pod: Pod, c: Constraint, view: NodeView, index: PodIndex,
               cache: dict[object, npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """countPodsMatchSelector for every node of ``view`` (pods in the pod's namespace, not
    terminating, matching the selector; an empty selector counts nothing), memoized per selector.
    ``index`` must have been synced with ``view``'s nodes; the array is read-only."""
    hit = cache.get(c.selector)
    if hit is not None:
        return hit
    group = _matching_group(pod, c)
    out = (np.zeros(len(view), dtype=np.int64) if group is None
           else index.group_rows(*group, skip_terminating=True))
    cache[c.selector] = out
    return out


def pod_domain_sums(pod: Pod, c: Constraint, index: PodIndex, codes: npt.NDArray[np.int32],
                    num_codes: int) -> npt.NDArray[np.int64]:
    """:func:`pod_counts` summed per code of the label column ``codes`` (every row eligible),
    kept by the index across cycles instead of a ``bincount`` over all nodes per pod."""
    group = _matching_group(pod, c)
    if group is None:
        return np.zeros(num_codes, dtype=np.int64)
    return index.group_domain_sums(*group, codes, num_codes, skip_terminating=True)


def eligible_masks(pod: Pod, view: NodeView, constraints: Sequence[Constraint], require_all: bool,
                   enable_node_inclusion_policy: bool) -> list[npt.NDArray[np.bool_] | None]:
    """Per constraint, the nodes whose pods count towards its domains: nodes with every topology
    key (when ``require_all``) that pass the inclusion policies (or, with the policies disabled,
    the pod's required node affinity). Policies are evaluated per node only when they can
    exclude something: a pod without node selector/affinity, or taints not honored, passes.
    ``None`` stands for every row (the usual case, known from the label columns without a pass
    over the nodes)."""
    n = len(view)
    base: npt.NDArray[np.bool_] | None = None
    if require_all:
        if not all(view.label_domains(c.topology_key)[0] for c in constraints):
            base = view.has_node()
            for c in constraints:
                base &= view.codes(c.topology_key)[0] >= 0
    elif view.snapshot is None:
        base = view.has_node()
    has_node_affinity = bool(pod.node_selector) or (pod.affinity is not None
                                                    and pod.affinity.node_required is not None)
    memo: dict[tuple[bool, bool], npt.NDArray[np.bool_]] = {}

    def policy_mask(aff: bool, taints: bool) -> npt.NDArray[np.bool_]:
        hit = memo.get((aff, taints))
        if hit is None:
            probe = Constraint(1, "", None, 1, HONOR if aff else IGNORE, HONOR if taints else IGNORE)
            hit = memo[(aff, taints)] = np.fromiter(
                (ni.node is not None and probe.match_node_inclusion_policies(pod, ni.node)
                 for ni in view.nodes), dtype=bool, count=n)
        return hit

    def restricted(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return mask if base is None else base & mask

    if not enable_node_inclusion_policy:
        if has_node_affinity:
            base = restricted(policy_mask(True, False))
        return [base for _ in constraints]
    out: list[npt.NDArray[np.bool_] | None] = []
    for c in constraints:
        aff = c.node_affinity_policy == HONOR and has_node_affinity
        taints = c.node_taints_policy == HONOR
        out.append(restricted(policy_mask(aff, taints)) if aff or taints else base)
    return out


def compute_pre_filter_state(pod: Pod, constraints: list[Constraint], view: NodeView, index: PodIndex,
                             enable_node_inclusion_policy: bool = True) -> PreFilterState:
    """calPreFilterState: per constraint, matching pods summed per domain of the eligible nodes
    (``np.bincount`` over the label codes); domains of eligible nodes without pods count 0.
    When every node is eligible the domains are the label column's and the sums the pod
    index's (both kept across cycles: :func:`pod_domain_sums`)."""
    s = PreFilterState(constraints, [CriticalPaths() for _ in constraints], [{} for _ in constraints])
    if not constraints:
        return s
    masks = eligible_masks(pod, view, constraints, True, enable_node_inclusion_policy)
    memo: dict[object, npt.NDArray[np.int64]] = {}
    for i, c in enumerate(constraints):
        codes, values = view.codes(c.topology_key)
        mask = masks[i]
        if mask is None:
            sums = pod_domain_sums(pod, c, index, codes, len(values))
            present = view.label_domains(c.topology_key)[1]
        else:
            if not mask.any():
                continue
            cc = codes[mask]
            sums = np.bincount(cc, weights=pod_counts(pod, c, view, index, memo)[mask], minlength=len(values))
            present = np.flatnonzero(np.bincount(cc, minlength=len(values))).tolist()
        m = s.tp_value_to_match_num[i]
        per_code = sums.tolist()
        for code in present:
            m[values[code]] = int(per_code[code])
        update = s.critical_paths[i].update
        for v, num in m.items():
            update(v, num)
    return s


def filter_node(s: PreFilterState, pod: Pod, node_info: NodeInfo) -> Status | None:
    if not s.constraints:
        return None
    labels = node_info.node.labels if node_info.node is not None else {}
    for i, c in enumerate(s.constraints):
        tv = labels.get(c.topology_key)
        if tv is None:
            return _LABEL_STATUS
        self_match = 1 if c.matches_pod(pod.labels) else 0
        skew = s.tp_value_to_match_num[i].get(tv, 0) + self_match - s.min_match_num(i)
        if skew > c.max_skew:
            return _SKEW_STATUS
    return None


def filter_batch(s: PreFilterState, pod: Pod, nodes: NodeBatch, vc: ValueCodes) -> BatchFilterResult:
    """Filter over a batch: per constraint the verdict is decided per domain (skew too large: 2;
    the trailing slot, no such label: 1) and gathered by the nodes' label codes; the first
    constraint a node fails names its status, as in the per-node loop."""
    n = len(nodes)
    if not s.constraints:
        return BatchFilterResult.all_success(n)
    cols = nodes.snapshot.columns
    rid: npt.NDArray[np.int32] | None = None
    for i, c in enumerate(s.constraints):
        codes_all, values = cols.label_column(c.topology_key)
        per_value = vc.array(c.topology_key, values, s.tp_value_to_match_num[i])
        self_match = 1 if c.matches_pod(pod.labels) else 0
        verdict = ((per_value + (self_match - s.min_match_num(i))) > c.max_skew).astype(np.int32) * 2
        verdict[-1] = 1
        got = verdict[codes_all[nodes.indices]]
        rid = got if rid is None else np.where(rid == 0, got, rid)
    assert rid is not None
    code_of = np.array([0, int(_LABEL_STATUS.code), int(_SKEW_STATUS.code)], dtype=np.int8)
    return BatchFilterResult(code_of[rid], rid, [(), _LABEL_STATUS.reasons, _SKEW_STATUS.reasons])
