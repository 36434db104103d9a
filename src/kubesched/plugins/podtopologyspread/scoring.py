"""PodTopologySpread PreScore/Score/NormalizeScore: ScheduleAnyway constraints.

Mirrors pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (master 2026). PreScore
takes the domains of the filtered nodes (nodes missing a key are ignored, except under system
default spreading, so hostname spreading works on nodes without a zone label), weighs each
constraint by ``log(domains + 2)`` and counts matching pods per domain over all nodes. Score
sums ``count * weight + (maxSkew - 1)`` per constraint (hostname counts come from the node
itself) and rounds; NormalizeScore maps fewer matching pods to higher scores:
``100 * (max + min - score) / max``, ignored nodes 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...api import Pod
from ...cache import NodeInfo
from ...framework import MAX_NODE_SCORE, CycleState, NodeBatch
from ..helper import go_div_array
from ._args import LABEL_HOSTNAME
from .common import (
    Constraint,
    count_per_node,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
)
from .filtering import eligible_rows

__all__ = [
    "PRE_SCORE_STATE_KEY",
    "PreScoreState",
    "compute_pre_score_state",
    "get_pre_score_state",
    "go_round",
    "normalize_scores",
    "score_batch",
    "score_node",
    "topology_normalizing_weight",
]

PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"

F64 = npt.NDArray[np.float64]


def topology_normalizing_weight(size: int) -> float:
    """topologyNormalizingWeight: log(size + 2), so small topologies are not watered down."""
    return math.log(size + 2)


def go_round(x: F64) -> npt.NDArray[np.int64]:
    """Go's math.Round (half away from zero), element-wise; exact (``x - trunc(x)`` is exact)."""
    t = np.trunc(x)
    frac = x - t
    return (t + np.where(np.abs(frac) >= 0.5, np.sign(x), 0.0)).astype(np.int64)


@dataclass
class PreScoreState:
    """Read-only after PreScore (clone shares it)."""

    constraints: list[Constraint] = field(default_factory=list)
    ignored_nodes: frozenset[str] = frozenset()
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    topology_normalizing_weight: list[float] = field(default_factory=list)
    namespace: str = ""

    def clone(self) -> PreScoreState:
        return self


def get_pre_score_state(state: CycleState) -> PreScoreState:
    return state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)


def compute_pre_score_state(pod: Pod, constraints: list[Constraint], filtered: Sequence[NodeInfo],
                            all_nodes: Sequence[NodeInfo], require_all: bool,
                            enable_node_inclusion_policy: bool = True) -> PreScoreState:
    """initPreScoreState plus the counting loop of PreScore."""
    s = PreScoreState(constraints, namespace=pod.namespace)
    if not constraints:
        return s
    counts: list[dict[str, int]] = [{} for _ in constraints]
    ignored: set[str] = set()
    for ni in filtered:
        node = ni.node
        if node is None:
            continue
        if require_all and not node_labels_match_spread_constraints(node.labels, constraints):
            ignored.add(node.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue  # per-node counts are taken in Score
            counts[i].setdefault(node.labels.get(c.topology_key, ""), 0)
    weights = []
    for i, c in enumerate(constraints):
        size = len(filtered) - len(ignored) if c.topology_key == LABEL_HOSTNAME else len(counts[i])
        weights.append(topology_normalizing_weight(size))

    rows = eligible_rows(pod, all_nodes, constraints, require_all, enable_node_inclusion_policy)
    by_selector: dict[object, npt.NDArray[np.int64]] = {}
    for i, c in enumerate(constraints):
        m = counts[i]
        if c.topology_key == LABEL_HOSTNAME or not m or not rows[i]:
            continue
        # Only nodes in a domain of some candidate node matter.
        sel = [j for j in rows[i]
               if all_nodes[j].node.labels.get(c.topology_key, "") in m]  # type: ignore[union-attr]
        if not sel:
            continue
        per_node = by_selector.get(c.selector)
        if per_node is None:
            per_node = by_selector[c.selector] = count_per_node(all_nodes, c.selector, pod.namespace)
        for j in sel:
            v = all_nodes[j].node.labels.get(c.topology_key, "")  # type: ignore[union-attr]
            m[v] += int(per_node[j])
    s.ignored_nodes = frozenset(ignored)
    s.topology_value_to_pod_counts = counts
    s.topology_normalizing_weight = weights
    return s


def _term(cnt: F64, c: Constraint, weight: float) -> F64:
    """scoreForCount: ``cnt * weight + (maxSkew - 1)``; maxSkew-1 waters down small skews."""
    return cnt * weight + float(c.max_skew - 1)


def score_node(s: PreScoreState, node_info: NodeInfo) -> int:
    node = node_info.node
    if node is None or node.name in s.ignored_nodes:
        return 0
    score = np.zeros(1, dtype=np.float64)
    for i, c in enumerate(s.constraints):
        tv = node.labels.get(c.topology_key)
        if tv is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = count_pods_match_selector(node_info, c.selector, s.namespace)
        else:
            cnt = s.topology_value_to_pod_counts[i].get(tv, 0)
        score = score + _term(np.array([cnt], dtype=np.float64), c, s.topology_normalizing_weight[i])
    return int(go_round(score)[0])


def score_batch(s: PreScoreState, nodes: NodeBatch) -> npt.NDArray[np.int64]:
    n = len(nodes)
    cols = nodes.snapshot.columns
    score = np.zeros(n, dtype=np.float64)
    infos: list[NodeInfo] | None = None
    for i, c in enumerate(s.constraints):
        codes_all, values = cols.label_column(c.topology_key)
        codes = codes_all[nodes.indices]
        has = codes >= 0
        if c.topology_key == LABEL_HOSTNAME:
            if infos is None:
                infos = nodes.node_infos()
            cnt = count_per_node(infos, c.selector, s.namespace).astype(np.float64)
        else:
            m = s.topology_value_to_pod_counts[i]
            cnt = np.array([*(m.get(v, 0) for v in values), 0], dtype=np.float64)[codes]
        score = np.where(has, score + _term(cnt, c, s.topology_normalizing_weight[i]), score)
    out = go_round(score)
    if s.ignored_nodes:
        lst = nodes.snapshot.node_info_list
        ignored = np.fromiter((lst[j].name in s.ignored_nodes for j in nodes.indices.tolist()),
                              dtype=bool, count=n)
        out[ignored] = 0
    return out


def normalize_scores(s: PreScoreState, scores: npt.NDArray[np.int64], node_names: Sequence[str]) -> None:
    """NormalizeScore: ignored nodes get 0; when every score is 0 all get 100; otherwise
    ``100 * (max + min - score) / max`` (Go integer division)."""
    if scores.size == 0:
        return
    ignored = np.zeros(scores.size, dtype=bool)
    if s.ignored_nodes:
        ignored = np.fromiter((name in s.ignored_nodes for name in node_names), dtype=bool, count=scores.size)
    valid = scores[~ignored]
    if valid.size == 0:
        scores[:] = 0
        return
    lo = int(valid.min())
    hi = max(int(valid.max()), 0)
    if hi == 0:
        out = np.full(scores.size, MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = go_div_array(MAX_NODE_SCORE * (hi + lo - scores), hi)
    out[ignored] = 0
    scores[:] = out
