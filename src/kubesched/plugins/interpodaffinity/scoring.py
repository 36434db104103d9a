"""InterPodAffinity PreScore/Score/NormalizeScore: preferred affinity and anti-affinity.

Mirrors pkg/scheduler/framework/plugins/interpodaffinity/scoring.go (master 2026). PreScore sums,
per topology key and value, the weights of:

- the incoming pod's preferred affinity (+) / anti-affinity (-) terms matched by existing pods;
- existing pods' required affinity terms matched by the incoming pod (``hardPodAffinityWeight``);
- existing pods' preferred affinity (+) / anti-affinity (-) terms matched by the incoming pod
  (skipped, with PreScore returning Skip, under ``ignorePreferredTermsOfExistingPods`` when the
  incoming pod has no preferred terms).

A node's score is the sum over keys of the value its label takes; the batch path gathers the
same sums through the snapshot's label codes. NormalizeScore scales min..max to 0..100.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...api import Node, Pod
from ...cache import NodeInfo, PodInfo
from ...framework import MAX_NODE_SCORE, CycleState, NodeBatch
from ._terms import AffinityTerm, PodTerms, PodTermsCache, WeightedAffinityTerm

__all__ = [
    "PRE_SCORE_STATE_KEY",
    "PreScoreState",
    "compute_topology_score",
    "get_pre_score_state",
    "normalize_scores",
    "score_batch",
    "score_node",
]

PRE_SCORE_STATE_KEY = "PreScoreInterPodAffinity"

ScoreMap = dict[str, dict[str, int]]


@dataclass
class PreScoreState:
    """Read-only after PreScore, so clone shares it (as upstream)."""

    topology_score: ScoreMap = field(default_factory=dict)

    def clone(self) -> PreScoreState:
        return self


def get_pre_score_state(state: CycleState) -> PreScoreState:
    return state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)


def _process_term(m: ScoreMap, term: AffinityTerm, weight: int, pod: Pod, ns_labels: Mapping[str, str] | None,
                  node: Node, multiplier: int) -> None:
    """scoreMap.processTerm."""
    if term.matches(pod, ns_labels):
        tv = node.labels.get(term.topology_key)
        if tv is not None:
            per_key = m.setdefault(term.topology_key, {})
            per_key[tv] = per_key.get(tv, 0) + weight * multiplier


def _process_terms(m: ScoreMap, terms: tuple[WeightedAffinityTerm, ...], pod: Pod,
                   ns_labels: Mapping[str, str] | None, node: Node, multiplier: int) -> None:
    for w in terms:
        _process_term(m, w.term, w.weight, pod, ns_labels, node, multiplier)


def _process_existing_pod(m: ScoreMap, terms: PodTerms, pod: Pod, ns_labels: Mapping[str, str],
                          existing: PodInfo, existing_terms: PodTerms, node: Node,
                          hard_pod_affinity_weight: int) -> None:
    """processExistingPod."""
    if not node.labels:
        return
    # The incoming pod's namespace selectors are merged: no namespace labels for its terms.
    _process_terms(m, terms.preferred_affinity, existing.pod, None, node, 1)
    _process_terms(m, terms.preferred_anti_affinity, existing.pod, None, node, -1)
    if hard_pod_affinity_weight > 0:
        for t in existing_terms.required_affinity:
            _process_term(m, t, hard_pod_affinity_weight, pod, ns_labels, node, 1)
    _process_terms(m, existing_terms.preferred_affinity, pod, ns_labels, node, 1)
    _process_terms(m, existing_terms.preferred_anti_affinity, pod, ns_labels, node, -1)


def compute_topology_score(pod: Pod, terms: PodTerms, ns_labels: Mapping[str, str],
                           all_nodes: Sequence[NodeInfo], cache: PodTermsCache,
                           hard_pod_affinity_weight: int) -> ScoreMap:
    """The loop of PreScore. Without preferred terms of its own, only pods with affinity
    (HavePodsWithAffinityList / PodsWithAffinity) can contribute."""
    has_constraints = terms.has_preferred
    m: ScoreMap = {}
    for ni in all_nodes:
        node = ni.node
        if node is None:
            continue
        pods = ni.pods if has_constraints else ni.pods_with_affinity
        for pi in pods:
            _process_existing_pod(m, terms, pod, ns_labels, pi, cache.get(pi.pod), node,
                                  hard_pod_affinity_weight)
    return m


def score_node(s: PreScoreState, node_info: NodeInfo) -> int:
    labels = node_info.node.labels if node_info.node is not None else {}
    score = 0
    for key, per_value in s.topology_score.items():
        v = labels.get(key)
        if v is not None:
            score += per_value.get(v, 0)
    return score


def score_batch(s: PreScoreState, nodes: NodeBatch) -> npt.NDArray[np.int64]:
    out = np.zeros(len(nodes), dtype=np.int64)
    cols = nodes.snapshot.columns
    for key, per_value in s.topology_score.items():
        codes, values = cols.label_column(key)
        arr = np.array([*(per_value.get(v, 0) for v in values), 0], dtype=np.int64)
        out += arr[codes[nodes.indices]]
    return out


def normalize_scores(s: PreScoreState, scores: npt.NDArray[np.int64]) -> None:
    """NormalizeScore: ``int64(100 * (score - min) / (max - min))`` in float64, truncated;
    all zero when every node scored the same."""
    if not s.topology_score or scores.size == 0:
        return
    lo = int(scores.min())
    hi = int(scores.max())
    diff = hi - lo
    if diff <= 0:
        scores[:] = 0
        return
    f = float(MAX_NODE_SCORE) * ((scores - lo).astype(np.float64) / float(diff))
    scores[:] = np.trunc(f).astype(np.int64)
