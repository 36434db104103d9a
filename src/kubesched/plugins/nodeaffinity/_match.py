"""Node selector matching, per node and over a batch of nodes.

The per-node rule is the api's (k8s.io/component-helpers/scheduling/corev1/nodeaffinity,
``NodeSelectorRequirement.matches_value``); the batch form evaluates each requirement once per
*distinct label value* (``columns.label_column``) and gathers, so both paths share one rule.
``RequiredNodeAffinity`` mirrors nodeaffinity.GetRequiredNodeAffinity: the pod's nodeSelector
(every label must equal) AND its required node affinity (terms ORed; a term with neither
expressions nor fields, or an empty term list, matches nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kubesched.api import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    WeightedNodeSelectorTerm,
)
from kubesched.cache import NodeColumns
from kubesched.framework import NodeBatch

__all__ = [
    "BatchView",
    "RequiredNodeAffinity",
    "preferred_score",
    "preferred_score_batch",
    "selector_mask",
    "term_mask",
]

Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class BatchView:
    """What the mask functions read: the label columns and the node names of a batch."""

    columns: NodeColumns
    indices: npt.NDArray[np.int64]
    names: npt.NDArray[np.object_]

    @staticmethod
    def of(nodes: NodeBatch) -> BatchView:
        lst = nodes.snapshot.node_info_list
        names = np.array([lst[i].name for i in nodes.indices.tolist()], dtype=object)
        return BatchView(nodes.snapshot.columns, nodes.indices, names)

    def __len__(self) -> int:
        return len(self.indices)


def _requirement_mask(req: NodeSelectorRequirement, view: BatchView) -> Mask:
    codes, values = view.columns.label_column(req.key)
    per_value = np.array(
        [req.matches_value(True, v) for v in values] + [req.matches_value(False, "")], dtype=bool
    )
    c = codes[view.indices]
    return per_value[np.where(c < 0, len(values), c)]


def _field_mask(req: NodeSelectorRequirement, view: BatchView) -> Mask:
    # matchFields supports metadata.name with In / NotIn only (validated when parsed).
    inside = np.isin(view.names, np.array(req.values, dtype=object))
    return ~inside if req.operator == "NotIn" else inside


def term_mask(term: NodeSelectorTerm, view: BatchView) -> Mask:
    """NodeSelectorTerm over a batch: expressions and fields ANDed; an empty term matches none."""
    if not term.match_expressions and not term.match_fields:
        return np.zeros(len(view), dtype=bool)
    out = np.ones(len(view), dtype=bool)
    for r in term.match_expressions:
        out &= _requirement_mask(r, view)
    for r in term.match_fields:
        out &= _field_mask(r, view)
    return out


def selector_mask(sel: NodeSelector, view: BatchView) -> Mask:
    """NodeSelector over a batch: terms ORed."""
    out = np.zeros(len(view), dtype=bool)
    for t in sel.terms:
        out |= term_mask(t, view)
    return out


def _labels_mask(selector: Mapping[str, str], view: BatchView) -> Mask:
    out = np.ones(len(view), dtype=bool)
    for k, v in selector.items():
        codes, values = view.columns.label_column(k)
        want = values.index(v) if v in values else -2
        out &= codes[view.indices] == want
    return out


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """nodeaffinity.RequiredNodeAffinity: the pod's nodeSelector and required node affinity."""

    label_selector: Mapping[str, str] | None
    node_selector: NodeSelector | None

    @staticmethod
    def of(pod: Pod) -> RequiredNodeAffinity:
        """GetRequiredNodeAffinity."""
        aff = pod.affinity
        return RequiredNodeAffinity(pod.node_selector or None, aff.node_required if aff else None)

    def match(self, node_name: str, labels: Mapping[str, str]) -> bool:
        if self.label_selector and any(labels.get(k) != v for k, v in self.label_selector.items()):
            return False
        return self.node_selector is None or self.node_selector.matches(node_name, labels)

    def mask(self, view: BatchView) -> Mask:
        out = _labels_mask(self.label_selector, view) if self.label_selector else np.ones(len(view), bool)
        if self.node_selector is not None:
            out &= selector_mask(self.node_selector, view)
        return out


def preferred_score(
    terms: Sequence[WeightedNodeSelectorTerm], node_name: str, labels: Mapping[str, str]
) -> int:
    """PreferredSchedulingTerms.Score: the sum of the weights of the matching terms."""
    return sum(t.weight for t in terms if t.weight != 0 and t.term.matches(node_name, labels))


def preferred_score_batch(
    terms: Sequence[WeightedNodeSelectorTerm], view: BatchView
) -> npt.NDArray[np.int64]:
    out = np.zeros(len(view), dtype=np.int64)
    for t in terms:
        if t.weight != 0:
            out += np.where(term_mask(t.term, view), np.int64(t.weight), np.int64(0))
    return out
