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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...api import Pod
from ...cache import NodeInfo
from ...framework import MAX_NODE_SCORE, CycleState, NodeBatch
from ..helper import PodIndex, PodTerms, ValueCodes, term_matcher

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


def _add_all(m: ScoreMap, index: PodIndex, per_node: Iterable[tuple[str, int]], key: str,
             factor: int) -> None:
    """Add ``factor`` times each node's pod count to the node's value of topology ``key``
    (nodes without the key count nowhere)."""
    labels_of = index.node_labels()
    per_key: dict[str, int] | None = None
    for node_name, n in per_node:
        tv = labels_of[node_name].get(key)
        if tv is not None:
            if per_key is None:
                per_key = m.setdefault(key, {})
            per_key[tv] = per_key.get(tv, 0) + factor * n


def compute_topology_score(pod: Pod, terms: PodTerms, ns_labels: Mapping[str, str], index: PodIndex,
                           hard_pod_affinity_weight: int) -> ScoreMap:
    """The loop of PreScore (processExistingPod over every pod), over the synced pod index: each
    distinct term or pod group is matched once and weighted by its per-node pod count."""
    m: ScoreMap = {}
    # The incoming pod's preferred terms against existing pods (namespace selectors merged).
    for sign, weighted in ((1, terms.preferred_affinity), (-1, terms.preferred_anti_affinity)):
        for w in weighted:
            _add_all(m, index, index.matching_pods_per_node(term_matcher(w.term)), w.term.topology_key,
                     sign * w.weight)
    # Existing pods' required affinity (hardPodAffinityWeight) and preferred terms against the pod.
    kinds: list[tuple[str, int]] = [("preferred_affinity", 1), ("preferred_anti_affinity", -1)]
    if hard_pod_affinity_weight > 0:
        kinds.insert(0, ("required_affinity", 1))
    for kind, sign in kinds:
        for term, weight, per_node in index.terms(kind):
            if term.matches(pod, ns_labels):
                tw = hard_pod_affinity_weight if kind == "required_affinity" else weight
                _add_all(m, index, per_node.items(), term.topology_key, sign * tw)
    return m


def score_node(s: PreScoreState, node_info: NodeInfo) -> int:
    labels = node_info.node.labels if node_info.node is not None else {}
    score = 0
    for key, per_value in s.topology_score.items():
        v = labels.get(key)
        if v is not None:
            score += per_value.get(v, 0)
    return score


def score_batch(s: PreScoreState, nodes: NodeBatch, vc: ValueCodes) -> npt.NDArray[np.int64]:
    out = np.zeros(len(nodes), dtype=np.int64)
    cols = nodes.snapshot.columns
    for key, per_value in s.topology_score.items():
        codes, values = cols.label_column(key)
        out += vc.array(key, values, per_value)[codes[nodes.indices]]
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
