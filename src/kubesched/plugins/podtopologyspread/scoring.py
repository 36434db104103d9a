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
from ..helper import NodeView, PodIndex, ValueCodes, go_div_array
from ._args import LABEL_HOSTNAME
from .common import Constraint, count_pods_match_selector
from .filtering import eligible_masks, pod_counts

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
    host_counts: list[dict[str, int]] = field(default_factory=list)  # hostname constraints: per node
    # Hostname constraints, when PreScore read the snapshot's own node list: the counts per
    # snapshot row (``host_counts`` is then left empty; the batch path gathers from the rows).
    host_rows: list[npt.NDArray[np.int64] | None] = field(default_factory=list)
    snapshot: object = None

    def clone(self) -> PreScoreState:
        return self


def get_pre_score_state(state: CycleState) -> PreScoreState:
    return state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)


def compute_pre_score_state(pod: Pod, constraints: list[Constraint], filtered: Sequence[NodeInfo],
                            view: NodeView, index: PodIndex, require_all: bool,
                            enable_node_inclusion_policy: bool = True) -> PreScoreState:
    """initPreScoreState plus the counting loop of PreScore. ``view`` holds all nodes; a node
    missing a key (allowed only under system defaulting) falls in the ``""`` domain, as
    upstream's ``node.Labels[key]`` lookup does."""
    s = PreScoreState(constraints, namespace=pod.namespace, snapshot=view.snapshot)
    if not constraints:
        return s
    rows = view.rows_of(filtered)
    keep = np.ones(len(rows), dtype=bool)
    if require_all:
        for c in constraints:
            keep &= view.codes(c.topology_key)[0][rows] >= 0
    ignored = frozenset(view.nodes[j].name for j in rows[~keep].tolist())
    rows = rows[keep]
    counts: list[dict[str, int]] = [{} for _ in constraints]
    weights = []
    masks = eligible_masks(pod, view, constraints, require_all, enable_node_inclusion_policy)
    memo: dict[object, npt.NDArray[np.int64]] = {}
    for i, c in enumerate(constraints):
        if c.topology_key == LABEL_HOSTNAME:
            # per-node counts are taken in Score; the domains are the scored nodes
            weights.append(topology_normalizing_weight(len(filtered) - len(ignored)))
            per_node = pod_counts(pod, c, view, index, memo)
            if view.snapshot is not None:
                s.host_rows.append(per_node.copy())  # the index's array moves with later syncs
                s.host_counts.append({})
            else:
                nz = np.flatnonzero(per_node).tolist()
                s.host_counts.append({view.nodes[j].name: int(per_node[j]) for j in nz})
                s.host_rows.append(None)
            continue
        s.host_counts.append({})
        s.host_rows.append(None)
        codes, values = view.codes(c.topology_key)
        dom_idx: dict[str, int] = {}
        dom_of = np.full(len(values) + 1, -1, dtype=np.int64)  # last slot: code -1 (no such label)
        # the codes present among the rows, ascending (-1, no such label, first): np.unique's order
        present = np.bincount(codes[rows] + 1, minlength=len(values) + 1) > 0
        for k in (np.flatnonzero(present) - 1).tolist():
            dom_of[k] = dom_idx.setdefault(values[k] if k >= 0 else "", len(dom_idx))
        if "" in dom_idx:  # a node labelled "" and a node without the key share the "" domain
            dom_of[-1] = dom_idx[""]
            if "" in values:
                dom_of[values.index("")] = dom_idx[""]
        weights.append(topology_normalizing_weight(len(dom_idx)))
        dom = dom_of[codes]
        labeled = dom >= 0
        eligible = masks[i]
        mask = labeled if eligible is None else eligible & labeled
        sums = np.zeros(len(dom_idx), dtype=np.int64)
        if mask.any():
            sums = np.bincount(dom[mask], weights=pod_counts(pod, c, view, index, memo)[mask],
                               minlength=len(dom_idx)).astype(np.int64)
        counts[i] = {v: int(sums[d]) for v, d in dom_idx.items()}
    s.ignored_nodes = ignored
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


def score_batch(s: PreScoreState, nodes: NodeBatch, vc: ValueCodes) -> npt.NDArray[np.int64]:
    n = len(nodes)
    cols = nodes.snapshot.columns
    lst = nodes.snapshot.node_info_list
    score = np.zeros(n, dtype=np.float64)
    names: list[str] | None = None
    for i, c in enumerate(s.constraints):
        codes_all, values = cols.label_column(c.topology_key)
        codes = codes_all[nodes.indices]
        if c.topology_key == LABEL_HOSTNAME:
            rows = s.host_rows[i]
            if rows is not None and nodes.snapshot is s.snapshot:
                cnt = rows[nodes.indices].astype(np.float64)
            else:
                if names is None:
                    names = [lst[j].name for j in nodes.indices.tolist()]
                hc = s.host_counts[i]
                if rows is not None:  # counts per row of another snapshot: by name
                    pos = s.snapshot.node_index  # type: ignore[attr-defined]
                    hc = {nm: int(rows[j]) for nm, j in pos.items() if rows[j]}
                cnt = np.fromiter((hc.get(name, 0) for name in names), dtype=np.float64, count=n)
        else:
            per_value = vc.array(c.topology_key, values, s.topology_value_to_pod_counts[i])
            cnt = per_value[codes].astype(np.float64)
        score = np.where(codes >= 0, score + _term(cnt, c, s.topology_normalizing_weight[i]), score)
    out = go_round(score)
    if s.ignored_nodes:
        if names is None:
            names = [lst[j].name for j in nodes.indices.tolist()]
        out[np.fromiter((name in s.ignored_nodes for name in names), dtype=bool, count=n)] = 0
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
