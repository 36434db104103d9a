"""InterPodAffinity PreFilter/Filter: required affinity and anti-affinity.

Mirrors pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (master 2026). PreFilter
counts, per topology pair (key, value):

- ``existing_anti_affinity_counts``: existing pods whose required anti-affinity terms match the
  incoming pod (getExistingAntiAffinityCounts, over nodes with such pods);
- ``affinity_counts``: existing pods matching *all* the incoming pod's required affinity terms
  (getIncomingAffinityAntiAffinityCounts);
- ``anti_affinity_counts``: existing pods matching each of its required anti-affinity terms.

Filter then only looks up the node's pairs. The batch path turns each topology key's counts into
an array over the snapshot's label-value codes (``label_column``) and gathers it per node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...cache import NodeInfo
from ...framework import BatchFilterResult, Code, CycleState, NodeBatch, Status
from ..helper import AffinityTerm, PodIndex, PodTerms, ValueCodes, pod_matches_all_terms, term_matcher

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "PRE_FILTER_STATE_KEY",
    "PreFilterState",
    "TopologyCounts",
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

TopologyCounts = dict[tuple[str, str], int]


def _update(m: TopologyCounts, node: Node, key: str, value: int) -> None:
    """topologyToMatchedTermCount.update: entries that drop to zero are deleted."""
    tv = node.labels.get(key)
    if tv is None:
        return
    pair = (key, tv)
    n = m.get(pair, 0) + value
    if n == 0:
        m.pop(pair, None)
    else:
        m[pair] = n


def update_with_affinity_terms(m: TopologyCounts, terms: tuple[AffinityTerm, ...], pod: Pod, node: Node,
                               value: int) -> None:
    """updateWithAffinityTerms: counts only when the pod matches ALL terms."""
    if pod_matches_all_terms(terms, pod):
        for t in terms:
            _update(m, node, t.topology_key, value)


def update_with_anti_affinity_terms(m: TopologyCounts, terms: tuple[AffinityTerm, ...], pod: Pod,
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
    existing_anti_affinity_counts: TopologyCounts = field(default_factory=dict)
    affinity_counts: TopologyCounts = field(default_factory=dict)
    anti_affinity_counts: TopologyCounts = field(default_factory=dict)
    # The counts regrouped by topology key for the batch filter, built once per state (the
    # batch filter runs on several chunks of nodes per cycle); update_with_pod drops them.
    keyed: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict, repr=False)

    arrays: dict[tuple[str, str], tuple[list[str], npt.NDArray[np.int64]]] = field(default_factory=dict,
                                                                                  repr=False)

    def by_key(self, which: str) -> dict[str, dict[str, int]]:
        """``which`` (a counts field name) as topology key -> value -> count."""
        out = self.keyed.get(which)
        if out is None:
            out = self.keyed[which] = _by_key(getattr(self, which))
        return out

    def value_array(self, which: str, key: str, values: list[str], vc: ValueCodes) -> npt.NDArray[np.int64]:
        """The counts of ``which`` for ``key`` per value code of the label column ``values``
        (ValueCodes.array), kept for the cycle's other node chunks."""
        hit = self.arrays.get((which, key))
        if hit is None or hit[0] is not values or len(hit[1]) != len(values) + 1:
            hit = self.arrays[(which, key)] = (values, vc.array(key, values, self.by_key(which).get(key, {})))
        return hit[1]

    def clone(self) -> PreFilterState:
        return PreFilterState(self.terms, self.pod, self.namespace_labels,
                              dict(self.existing_anti_affinity_counts), dict(self.affinity_counts),
                              dict(self.anti_affinity_counts))

    def update_with_pod(self, other: Pod, other_terms: PodTerms, node: Node | None, multiplier: int) -> None:
        """preFilterState.updateWithPod (AddPod/RemovePod)."""
        if node is None:
            return
        self.keyed.clear()
        self.arrays.clear()
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


def _add_pairs(m: TopologyCounts, index: PodIndex, per_node: Iterable[tuple[str, int]], key: str) -> None:
    """Add each node's pod count to the node's (key, value) topology pair (nodes without the
    key count nowhere)."""
    labels_of = index.node_labels()
    get = m.get
    for node_name, n in per_node:
        tv = labels_of[node_name].get(key)
        if tv is not None:
            pair = (key, tv)
            m[pair] = get(pair, 0) + n


def compute_pre_filter_state(pod: Pod, terms: PodTerms, ns_labels: Mapping[str, str],
                             index: PodIndex) -> PreFilterState:
    """The counting half of PreFilter (getExistingAntiAffinityCounts and
    getIncomingAffinityAntiAffinityCounts), over the synced pod index: each distinct term or pod
    group is matched once and its per-node pod counts are added to the node's topology pair."""
    s = PreFilterState(terms, pod, ns_labels)
    for term, _, per_node in index.terms("required_anti_affinity"):
        if term.matches(pod, ns_labels):
            _add_pairs(s.existing_anti_affinity_counts, index, per_node.items(), term.topology_key)
    aff = terms.required_affinity
    if aff:
        matching = list(index.matching_pods_per_node(lambda p: pod_matches_all_terms(aff, p)))
        for t in aff:
            _add_pairs(s.affinity_counts, index, matching, t.topology_key)
    for t in terms.required_anti_affinity:
        # The incoming pod's namespace selectors are merged: no namespace labels needed.
        _add_pairs(s.anti_affinity_counts, index, index.matching_pods_per_node(term_matcher(t)),
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
        if s.affinity_counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    return pods_exist or _first_pod_exception(s)


def _satisfy_pod_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    if s.anti_affinity_counts:
        for t in s.terms.required_anti_affinity:
            tv = labels.get(t.topology_key)
            if tv is not None and s.anti_affinity_counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def _satisfy_existing_pods_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
    if s.existing_anti_affinity_counts:
        for k, v in labels.items():
            if s.existing_anti_affinity_counts.get((k, v), 0) > 0:
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


def _by_key(m: TopologyCounts) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (k, v), c in m.items():
        out.setdefault(k, {})[v] = c
    return out


def filter_batch(s: PreFilterState, nodes: NodeBatch, vc: ValueCodes) -> BatchFilterResult:
    n = len(nodes)
    cols = nodes.snapshot.columns
    idx = nodes.indices

    def gather(which: str, key: str) -> tuple[npt.NDArray[np.int64], B]:
        codes, values = cols.label_column(key)
        c = codes[idx]
        return s.value_array(which, key, values, vc)[c], c >= 0

    has_all = np.ones(n, dtype=bool)
    pods_exist = np.ones(n, dtype=bool)
    for t in s.terms.required_affinity:
        cnt, has = gather("affinity_counts", t.topology_key)
        has_all &= has
        pods_exist &= cnt > 0
    fail_aff: B = ~(has_all & (pods_exist | _first_pod_exception(s)))

    fail_anti = np.zeros(n, dtype=bool)
    if s.anti_affinity_counts:
        for t in s.terms.required_anti_affinity:
            fail_anti |= gather("anti_affinity_counts", t.topology_key)[0] > 0

    fail_existing = np.zeros(n, dtype=bool)
    for key in sorted(s.by_key("existing_anti_affinity_counts")):
        fail_existing |= gather("existing_anti_affinity_counts", key)[0] > 0

    # First failing check wins, in Filter's order.
    rid = np.where(fail_aff, 1, np.where(fail_anti, 2, np.where(fail_existing, 3, 0))).astype(np.int32)
    code_of = np.array([0, int(_AFFINITY_STATUS.code), int(_ANTI_STATUS.code), int(_EXISTING_STATUS.code)],
                       dtype=np.int8)
    return BatchFilterResult(code_of[rid], rid,
                             [(), _AFFINITY_STATUS.reasons, _ANTI_STATUS.reasons, _EXISTING_STATUS.reasons])
