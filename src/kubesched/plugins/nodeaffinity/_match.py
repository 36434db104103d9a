"""Node selector matching, per node and over a batch of nodes.

The per-node rule is the api's (k8s.io/component-helpers/scheduling/corev1/nodeaffinity,
``NodeSelectorRequirement.matches_value``); the batch form evaluates each requirement once per
*distinct label value* (``columns.label_column``) and gathers, so both paths share one rule.
``RequiredNodeAffinity`` mirrors nodeaffinity.GetRequiredNodeAffinity: the pod's nodeSelector
(every label must equal) AND its required node affinity (terms ORed; a term with neither
expressions nor fields, or an empty term list, matches nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
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
from kubesched.cache import NodeColumns, Snapshot
from kubesched.framework import NodeBatch

__all__ = [
    "BatchView",
    "NodeMasks",
    "RequiredNodeAffinity",
    "preferred_score",
    "preferred_score_batch",
    "selector_mask",
    "term_mask",
]

Mask = npt.NDArray[np.bool_]


class NodeMasks:
    """One bool per snapshot node for a requirement, memoized across cycles by the object it was
    computed from: a label column (``columns.label_column`` returns a new tuple whenever a
    node's labels or the node list change) or the names array (rebuilt when the node list
    changes). A hit needs that very object, which the memo holds so that its identity cannot be
    reused; a batch then costs one gather per requirement."""

    _LIMIT = 512  # distinct requirements remembered at once

    def __init__(self) -> None:
        self._memo: dict[Hashable, tuple[object, Mask]] = {}

    def get(self, key: Hashable, source: object, compute: Callable[[], Mask]) -> Mask:
        hit = self._memo.get(key)
        if hit is not None and hit[0] is source:
            return hit[1]
        if len(self._memo) >= self._LIMIT:
            self._memo.clear()
        mask = compute()
        self._memo[key] = (source, mask)
        return mask


class BatchView:
    """What the mask functions read: the snapshot columns, the batch rows, the batch's node
    names (built only when a matchFields requirement asks) and the memo of node masks."""

    __slots__ = ("columns", "indices", "masks", "snapshot")

    def __init__(self, snapshot: Snapshot, indices: npt.NDArray[np.int64], masks: NodeMasks | None = None):
        self.snapshot = snapshot
        self.columns: NodeColumns = snapshot.columns
        self.indices = indices
        self.masks = masks if masks is not None else NodeMasks()

    @staticmethod
    def of(nodes: NodeBatch, masks: NodeMasks | None = None) -> BatchView:
        return BatchView(nodes.snapshot, nodes.indices, masks)

    def __len__(self) -> int:
        return len(self.indices)


def _requirement_mask(req: NodeSelectorRequirement, view: BatchView) -> Mask:
    col = view.columns.label_column(req.key)

    def compute() -> Mask:
        codes, values = col
        # the "label absent" answer goes last, where code -1 picks it
        per_value = np.array(
            [req.matches_value(True, v) for v in values] + [req.matches_value(False, "")], dtype=bool
        )
        return per_value[codes]

    return view.masks.get(("label", req), col, compute).take(view.indices)


def _field_mask(req: NodeSelectorRequirement, view: BatchView) -> Mask:
    # matchFields supports metadata.name with In / NotIn only (validated when parsed).
    names = view.snapshot.names_array()

    def compute() -> Mask:
        inside = np.isin(names, np.array(req.values, dtype=object))
        return ~inside if req.operator == "NotIn" else inside

    return view.masks.get(("field", req), names, compute).take(view.indices)


def _all(masks: Sequence[Mask]) -> Mask:
    """AND of fresh masks (the first is combined in place)."""
    out = masks[0]
    for m in masks[1:]:
        out &= m
    return out


def term_mask(term: NodeSelectorTerm, view: BatchView) -> Mask:
    """NodeSelectorTerm over a batch: expressions and fields ANDed; an empty term matches none."""
    if not term.match_expressions and not term.match_fields:
        return np.zeros(len(view), dtype=bool)
    return _all(
        [_requirement_mask(r, view) for r in term.match_expressions]
        + [_field_mask(r, view) for r in term.match_fields]
    )


def selector_mask(sel: NodeSelector, view: BatchView) -> Mask:
    """NodeSelector over a batch: terms ORed."""
    if not sel.terms:
        return np.zeros(len(view), dtype=bool)
    out = term_mask(sel.terms[0], view)
    for t in sel.terms[1:]:
        out |= term_mask(t, view)
    return out


def _labels_mask(selector: Mapping[str, str], view: BatchView) -> Mask:
    """A nodeSelector (every label equal) over a batch; empty matches all."""
    masks = []
    for k, v in selector.items():
        col = view.columns.label_column(k)

        def compute(col: tuple[npt.NDArray[np.int32], list[str]] = col, v: str = v) -> Mask:
            codes, values = col
            return codes == (values.index(v) if v in values else -2)

        masks.append(view.masks.get(("selector", k, v), col, compute).take(view.indices))
    return _all(masks) if masks else np.ones(len(view), dtype=bool)


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
        if self.node_selector is None:
            return _labels_mask(self.label_selector or {}, view)
        out = selector_mask(self.node_selector, view)
        if self.label_selector:
            out &= _labels_mask(self.label_selector, view)
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
