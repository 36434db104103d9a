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

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...api import Pod
from ...cache import NodeInfo
from ...framework import MAX_NODE_SCORE, CycleState, NodeBatch
from ..helper import (
    NodeView,
    PodIndex,
    PodTerms,
    TopologyValueCounts,
    ValueCodes,
    match_key,
    per_value_sums,
    term_matcher,
)

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



@dataclass
class PreScoreState:
    """Read-only after PreScore, so clone shares it (as upstream). ``topology_keys``: the keys
    upstream's topologyScore map holds (a key is there once a matching pod sits on a node with
    that key, even when weights cancel out to 0)."""

    topology_score: TopologyValueCounts = field(default_factory=TopologyValueCounts)
    topology_keys: frozenset[str] = frozenset()

    def clone(self) -> PreScoreState:
        return self


def get_pre_score_state(state: CycleState) -> PreScoreState:
    return state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)


class _Sums:
    """Accumulates factor * per-row counts per topology key, then sums them per domain."""

    def __init__(self, view: NodeView) -> None:
        self.view = view
        self.rows: dict[str, npt.NDArray[np.int64]] = {}
        self.keys: set[str] = set()

    def add(self, key: str, rows: npt.NDArray[np.int64], factor: int) -> None:
        """``rows`` hold nonnegative counts: a positive one on a node with ``key`` puts the key
        in the map, as processTerm does when a term matches."""
        codes = self.view.codes(key)[0]
        if key not in self.keys and bool((rows[codes >= 0] > 0).any()):
            self.keys.add(key)
        acc = self.rows.get(key)
        self.rows[key] = rows * factor if acc is None else acc + rows * factor

    def result(self) -> PreScoreState:
        out = TopologyValueCounts()
        for key in sorted(self.keys):
            codes, values = self.view.codes(key)
            out.add_array(key, values, per_value_sums(self.rows[key], codes, len(values)))
        return PreScoreState(out, frozenset(self.keys))


def compute_topology_score(pod: Pod, terms: PodTerms, ns_labels: Mapping[str, str], index: PodIndex,
                           view: NodeView, hard_pod_affinity_weight: int) -> PreScoreState:
    """The loop of PreScore (processExistingPod over every pod), over the pod index synced with
    ``view``'s nodes: each distinct term or pod group is matched once (the index keeps its
    per-node counts up to date), then the weighted counts are summed per topology value."""
    sums = _Sums(view)
    # The incoming pod's preferred terms against existing pods (namespace selectors merged).
    for sign, weighted in ((1, terms.preferred_affinity), (-1, terms.preferred_anti_affinity)):
        for w in weighted:
            rows = index.group_rows(("term", w.term), term_matcher(w.term))
            sums.add(w.term.topology_key, rows, sign * w.weight)
    # Existing pods' required affinity (hardPodAffinityWeight) and preferred terms against the pod.
    kinds: list[tuple[str, int]] = [("preferred_affinity", 1), ("preferred_anti_affinity", -1)]
    if hard_pod_affinity_weight > 0:
        kinds.insert(0, ("required_affinity", hard_pod_affinity_weight))
    key = match_key(pod, ns_labels)
    for kind, factor in kinds:
        per_key = index.term_rows(kind, key, lambda t: t.matches(pod, ns_labels))
        for tk in sorted(per_key):
            sums.add(tk, per_key[tk], factor)
    return sums.result()


def score_node(s: PreScoreState, node_info: NodeInfo) -> int:
    labels = node_info.node.labels if node_info.node is not None else {}
    score = 0
    for key in s.topology_keys:
        v = labels.get(key)
        if v is not None:
            score += s.topology_score.get(key, v)
    return score


def score_batch(s: PreScoreState, nodes: NodeBatch, vc: ValueCodes) -> npt.NDArray[np.int64]:
    out = np.zeros(len(nodes), dtype=np.int64)
    cols = nodes.snapshot.columns
    for key in sorted(s.topology_keys):
        codes, values = cols.label_column(key)
        out += s.topology_score.per_code(key, values, vc)[codes[nodes.indices]]
    return out


def normalize_scores(s: PreScoreState, scores: npt.NDArray[np.int64]) -> None:
    """NormalizeScore: ``int64(100 * (score - min) / (max - min))`` in float64, truncated;
    all zero when every node scored the same."""
    if not s.topology_keys or scores.size == 0:
        return
    lo = int(scores.min())
    hi = int(scores.max())
    diff = hi - lo
    if diff <= 0:
        scores[:] = 0
        return
    f = float(MAX_NODE_SCORE) * ((scores - lo).astype(np.float64) / float(diff))
    scores[:] = np.trunc(f).astype(np.int64)
