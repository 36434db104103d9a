"""InterPodAffinity PreFilter/Filter: required affinity and anti-affinity.

Mirrors pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (master 2026). PreFilter
counts, per topology pair (key, value):

- ``existing_anti_affinity_counts``: existing pods whose required anti-affinity terms match the
  incoming pod (getExistingAntiAffinityCounts, over nodes with such pods);
- ``affinity_counts``: existing pods matching *all* the incoming pod's required affinity terms
  (getIncomingAffinityAntiAffinityCounts);
- ``anti_affinity_counts``: existing pods matching each of its required anti-affinity terms.

The counts come from the pod index's per-node arrays summed per label value (upstream walks every
pod of every node), and stay arrays over the snapshot's label-value codes (``label_column``)
until a per-node read or AddPod/RemovePod needs a pair. Filter then only looks up the node's
pairs; the batch path evaluates every snapshot row once per cycle and gathers each node chunk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...cache import NodeInfo
from ...framework import BatchFilterResult, Code, CycleState, NodeBatch, Status
from ..helper import (
    AffinityTerm,
    NodeView,
    PodIndex,
    PodTerms,
    TopologyValueCounts,
    ValueCodes,
    match_key,
    per_value_sums,
    pod_matches_all_terms,
    term_matcher,
)

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "PRE_FILTER_STATE_KEY",
    "PreFilterState",
    "compute_pre_filter_state",
    "filter_batch",
    "filter_node",
    "get_pre_filter_state",
]

PRE_FILTER_STATE_KEY = "PreFilterInterPodAffinity"

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

# Upstream's codes: a missing affinity match cannot be fixed by preempting pods on the node
# (UnschedulableAndUnresolvable); anti-affinity violations can (Unschedulable).
_AFFINITY_STATUS = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_ANTI_STATUS = Status.of(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_EXISTING_STATUS = Status.of(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)


def _update(m: TopologyValueCounts, node: Node, key: str, value: int) -> None:
    """topologyToMatchedTermCount.update: entries that drop to zero are deleted."""
    tv = node.labels.get(key)
    if tv is not None:
        m.add(key, tv, value)


def update_with_affinity_terms(m: TopologyValueCounts, terms: tuple[AffinityTerm, ...], pod: Pod,
                               node: Node, value: int) -> None:
    """updateWithAffinityTerms: counts only when the pod matches ALL terms."""
    if pod_matches_all_terms(terms, pod):
        for t in terms:
            _update(m, node, t.topology_key, value)


def update_with_anti_affinity_terms(m: TopologyValueCounts, terms: tuple[AffinityTerm, ...], pod: Pod,
                                    ns_labels: Mapping[str, str] | None, node: Node, value: int) -> None:
    """updateWithAntiAffinityTerms: each matching term counts on its own."""
    for t in terms:
        if t.matches(pod, ns_labels):
            _update(m, node, t.topology_key, value)


@dataclass
class PreFilterState:
    terms: PodTerms  # the incoming pod's terms, namespace selectors merged
    pod: Pod
    namespace_labels: Mapping[str, str]
    existing_anti_affinity_counts: TopologyValueCounts = field(default_factory=TopologyValueCounts)
    affinity_counts: TopologyValueCounts = field(default_factory=TopologyValueCounts)
    anti_affinity_counts: TopologyValueCounts = field(default_factory=TopologyValueCounts)
    # (snapshot, its columns, its generation, reason id per row): filter_batch's result for every
    # row, built on the first chunk of a cycle; update_with_pod drops it.
    batch_rows: tuple[Any, Any, int, npt.NDArray[np.int32]] | None = field(default=None, repr=False)

    def clone(self) -> PreFilterState:
        return PreFilterState(self.terms, self.pod, self.namespace_labels,
                              self.existing_anti_affinity_counts.copy(), self.affinity_counts.copy(),
                              self.anti_affinity_counts.copy())

    def update_with_pod(self, other: Pod, other_terms: PodTerms, node: Node | None, multiplier: int) -> None:
        """preFilterState.updateWithPod (AddPod/RemovePod)."""
        if node is None:
            return
        self.batch_rows = None
        update_with_anti_affinity_terms(self.existing_anti_affinity_counts,
                                        other_terms.required_anti_affinity, self.pod, self.namespace_labels,
                                        node, multiplier)
        update_with_affinity_terms(self.affinity_counts, self.terms.required_affinity, other, node,
                                   multiplier)
        # The incoming pod's namespace selectors are merged: no namespace labels needed.
        update_with_anti_affinity_terms(self.anti_affinity_counts, self.terms.required_anti_affinity, other,
                                        None, node, multiplier)


def get_pre_filter_state(state: CycleState) -> PreFilterState:
    return state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)


def _add_rows(m: TopologyValueCounts, view: NodeView, rows: npt.NDArray[np.int64], key: str) -> None:
    """Add each node's count in ``rows`` to the node's (key, value) topology pair (nodes without
    the key count nowhere)."""
    codes, values = view.codes(key)
    m.add_array(key, values, per_value_sums(rows, codes, len(values)))


def compute_pre_filter_state(pod: Pod, terms: PodTerms, ns_labels: Mapping[str, str],
                             index: PodIndex, view: NodeView) -> PreFilterState:
    """The counting half of PreFilter (getExistingAntiAffinityCounts and
    getIncomingAffinityAntiAffinityCounts), over the pod index synced with ``view``'s nodes:
    each distinct term or pod group is matched once (its per-node counts are kept up to date
    by the index), then the per-node counts are summed per topology pair."""
    s = PreFilterState(terms, pod, ns_labels)
    anti_of_existing = index.term_rows("required_anti_affinity", match_key(pod, ns_labels),
                                       lambda t: t.matches(pod, ns_labels))
    for key in sorted(anti_of_existing):
        _add_rows(s.existing_anti_affinity_counts, view, anti_of_existing[key], key)
    aff = terms.required_affinity
    if aff:
        matching = index.group_rows(("all", aff), lambda p: pod_matches_all_terms(aff, p))
        for t in aff:
            _add_rows(s.affinity_counts, view, matching, t.topology_key)
    for t in terms.required_anti_affinity:
        # The incoming pod's namespace selectors are merged: no namespace labels needed.
        _add_rows(s.anti_affinity_counts, view, index.group_rows(("term", t), term_matcher(t)),
                  t.topology_key)
    return s


# -- the per-node checks (satisfyPodAffinity, satisfyPodAntiAffinity, satisfyExistingPodsAntiAffinity)

def _first_pod_exception(s: PreFilterState) -> bool:
    """The pod may be the first of a group with affinity to itself: when no pod in the cluster
    matches its terms and it matches them itself, any node with all topology keys passes."""
    return not s.affinity_counts and pod_matches_all_terms(s.terms.required_affinity, s.pod)


def _satisfy_pod_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    pods_exist = True
    for t in s.terms.required_affinity:
        tv = labels.get(t.topology_key)
        if tv is None:
            return False  # all topology labels must exist on the node
        if s.affinity_counts.get(t.topology_key, tv) <= 0:
            pods_exist = False
    return pods_exist or _first_pod_exception(s)


def _satisfy_pod_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    if s.anti_affinity_counts:
        for t in s.terms.required_anti_affinity:
            tv = labels.get(t.topology_key)
            if tv is not None and s.anti_affinity_counts.get(t.topology_key, tv) > 0:
                return False
    return True


def _satisfy_existing_pods_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    m = s.existing_anti_affinity_counts
    if m:
        for k, v in labels.items():
            if m.get(k, v) > 0:
                return False
    return True


def filter_node(s: PreFilterState, node_info: NodeInfo) -> Status | None:
    """Filter for one node."""
    if node_info.node is None:
        return Status.of(Code.ERROR, "node not found")
    labels = node_info.node.labels
    if not _satisfy_pod_affinity(s, labels):
        return _AFFINITY_STATUS
    if not _satisfy_pod_anti_affinity(s, labels):
        return _ANTI_STATUS
    if not _satisfy_existing_pods_anti_affinity(s, labels):
        return _EXISTING_STATUS
    return None


# -- the same checks over a batch -------------------------------------------------------------

B = npt.NDArray[np.bool_]


_CODE_OF = np.array([0, int(_AFFINITY_STATUS.code), int(_ANTI_STATUS.code), int(_EXISTING_STATUS.code)],
                    dtype=np.int8)
_REASONS = [(), _AFFINITY_STATUS.reasons, _ANTI_STATUS.reasons, _EXISTING_STATUS.reasons]


def _reason_ids(s: PreFilterState, snapshot: Any, vc: ValueCodes) -> npt.NDArray[np.int32]:
    """The failing check (0: none, 1..3 in Filter's order) for every row of the snapshot,
    computed once per state and snapshot: the algorithm filters the nodes in several chunks."""
    cols = snapshot.columns
    hit = s.batch_rows
    if hit is not None and hit[0] is snapshot and hit[1] is cols and hit[2] == snapshot.generation:
        return hit[3]
    n = len(snapshot.node_info_list)

    def gather(m: TopologyValueCounts, key: str) -> tuple[npt.NDArray[np.int64], B]:
        codes, values = cols.label_column(key)
        return m.per_code(key, values, vc)[codes], codes >= 0

    # The anti-affinity checks, per topology key in label-value space (a node fails a key's
    # check when its value's count is nonzero): one gather per key instead of one per term.
    anti: dict[str, B] = {}
    if s.anti_affinity_counts:
        for t in s.terms.required_anti_affinity:
            _mark(anti, t.topology_key, s.anti_affinity_counts, cols, vc)
    existing: dict[str, B] = {}
    for key in s.existing_anti_affinity_counts.nonzero_keys():
        _mark(existing, key, s.existing_anti_affinity_counts, cols, vc)

    # First failing check wins, in Filter's order: affinity (1), anti-affinity (2), existing
    # pods' anti-affinity (3); over several keys the smallest nonzero check wins.
    rid = np.zeros(n, dtype=np.int32)
    keys = {*anti, *existing}
    for key in keys:
        size = len(anti[key]) if key in anti else len(existing[key])
        by_code = np.zeros(size, dtype=np.int32)
        if key in existing:
            by_code[existing[key]] = 3
        if key in anti:
            by_code[anti[key]] = 2
        per_node = by_code[cols.label_column(key)[0]]
        if len(keys) == 1:
            rid = per_node
        else:
            rid = np.where((rid == 0) | ((per_node > 0) & (per_node < rid)), per_node, rid)
    if s.terms.required_affinity:
        has_all = np.ones(n, dtype=bool)
        pods_exist = np.ones(n, dtype=bool)
        for t in s.terms.required_affinity:
            cnt, has = gather(s.affinity_counts, t.topology_key)
            has_all &= has
            pods_exist &= cnt > 0
        rid[~(has_all & (pods_exist | _first_pod_exception(s)))] = 1
    # (Without required affinity terms the affinity check passes everywhere.)
    s.batch_rows = (snapshot, cols, snapshot.generation, rid)
    return rid


def _mark(out: dict[str, B], key: str, counts: TopologyValueCounts, cols: Any, vc: ValueCodes) -> None:
    """OR into ``out[key]`` the label values of ``key`` whose count is nonzero (per value
    code, with the trailing entry for nodes without the label)."""
    values = cols.label_column(key)[1]
    hit = counts.per_code(key, values, vc) > 0
    prev = out.get(key)
    out[key] = hit if prev is None else prev | hit


def filter_batch(s: PreFilterState, nodes: NodeBatch, vc: ValueCodes) -> BatchFilterResult:
    rid = _reason_ids(s, nodes.snapshot, vc)[nodes.indices]
    return BatchFilterResult(_CODE_OF[rid], rid, list(_REASONS))
