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

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...api import Pod
from ...cache import NodeInfo
from ...framework import BatchFilterResult, Code, CycleState, NodeBatch, Status
from .common import (
    Constraint,
    count_per_node,
    node_labels_match_spread_constraints,
    required_node_affinity_matches,
)

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


def eligible_rows(pod: Pod, nodes: Sequence[NodeInfo], constraints: Sequence[Constraint],
                  require_all: bool, enable_node_inclusion_policy: bool) -> list[list[int]]:
    """Per constraint, the positions in ``nodes`` whose pods count towards its domains: nodes
    with every topology key (when ``require_all``) that pass the inclusion policies (or, with the
    policies disabled, the pod's required node affinity)."""
    out: list[list[int]] = [[] for _ in constraints]
    needs_policy = [c.node_affinity_policy == "Honor" or c.node_taints_policy == "Honor" for c in constraints]
    for j, ni in enumerate(nodes):
        node = ni.node
        if node is None:
            continue
        if not enable_node_inclusion_policy and not required_node_affinity_matches(pod, node):
            continue
        labels = node.labels
        if require_all and not node_labels_match_spread_constraints(labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if enable_node_inclusion_policy and needs_policy[i] and \
                    not c.match_node_inclusion_policies(pod, node):
                continue
            out[i].append(j)
    return out


def compute_pre_filter_state(pod: Pod, constraints: list[Constraint], nodes: Sequence[NodeInfo],
                             enable_node_inclusion_policy: bool = True) -> PreFilterState:
    """calPreFilterState, with the per-domain sums done by ``np.bincount`` over label codes."""
    s = PreFilterState(constraints, [CriticalPaths() for _ in constraints], [{} for _ in constraints])
    if not constraints:
        return s
    rows = eligible_rows(pod, nodes, constraints, True, enable_node_inclusion_policy)
    counts_by_selector: dict[object, np.ndarray] = {}
    for i, c in enumerate(constraints):
        if not rows[i]:
            continue
        key = (c.selector,)
        counts = counts_by_selector.get(key)
        if counts is None:
            counts = counts_by_selector[key] = count_per_node(nodes, c.selector, pod.namespace)
        ids: dict[str, int] = {}
        codes = np.empty(len(rows[i]), dtype=np.int64)
        for r, j in enumerate(rows[i]):
            v = nodes[j].node.labels[c.topology_key]  # type: ignore[union-attr]
            codes[r] = ids.setdefault(v, len(ids))
        sums = np.bincount(codes, weights=counts[rows[i]], minlength=len(ids)).astype(np.int64)
        m = s.tp_value_to_match_num[i]
        for v, code in ids.items():
            m[v] = int(sums[code])
    for i in range(len(constraints)):
        for v, num in s.tp_value_to_match_num[i].items():
            s.critical_paths[i].update(v, num)
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


def filter_batch(s: PreFilterState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
    n = len(nodes)
    rid = np.zeros(n, dtype=np.int32)
    if not s.constraints:
        return BatchFilterResult.all_success(n)
    cols = nodes.snapshot.columns
    for i, c in enumerate(s.constraints):
        codes_all, values = cols.label_column(c.topology_key)
        codes = codes_all[nodes.indices]
        m = s.tp_value_to_match_num[i]
        per_value = np.array([*(m.get(v, 0) for v in values), 0], dtype=np.int64)
        self_match = 1 if c.matches_pod(pod.labels) else 0
        skew = per_value[codes] + self_match - s.min_match_num(i)
        undecided = rid == 0
        rid[undecided & (codes < 0)] = 1
        rid[undecided & (codes >= 0) & (skew > c.max_skew)] = 2
    code_of = np.array([0, int(_LABEL_STATUS.code), int(_SKEW_STATUS.code)], dtype=np.int8)
    return BatchFilterResult(code_of[rid], rid, [(), _LABEL_STATUS.reasons, _SKEW_STATUS.reasons])
