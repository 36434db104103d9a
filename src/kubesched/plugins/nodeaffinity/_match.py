"""Node selector matching, per node and over a batch of nodes.

The per-node rule is the api's (k8s.io/component-helpers/scheduling/corev1/nodeaffinity,
``NodeSelectorRequirement.matches_value``); the batch form evaluates each requirement once per
*distinct label value* (``columns.label_column``) and gathers, so both paths share one rule.
``RequiredNodeAffinity`` mirrors nodeaffinity.GetRequiredNodeAffinity: the pod's nodeSelector
(every label must equal) AND its required node affinity (terms ORed; a term with neither
expressions nor fields, or an empty term list, matches nothing).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
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


_Column = tuple[npt.NDArray[np.int32], list[str]]


class NodeMasks:
    """Per label column, memoized across cycles by the column object (``columns.label_column``
    returns a new tuple whenever a node's labels or the node list change; holding it keeps its
    identity from being reused): the value -> code lookup, and per requirement the answer for
    each distinct value plus "label absent" (last). A batch then costs two gathers per
    requirement, and a requirement seen before costs no Python work per value."""

    _LIMIT = 512  # requirements remembered at once

    def __init__(self) -> None:
        self._lookups: dict[str, tuple[_Column, dict[str, int]]] = {}
        self._per_value: dict[Hashable, tuple[_Column, Mask]] = {}

    def lookup(self, key: str, col: _Column) -> dict[str, int]:
        hit = self._lookups.get(key)
        if hit is not None and hit[0] is col:
            return hit[1]
        table = {v: i for i, v in enumerate(col[1])}
        self._lookups[key] = (col, table)
        return table

    def per_value(self, req: NodeSelectorRequirement, col: _Column) -> Mask:
        hit = self._per_value.get(req)
        if hit is not None and hit[0] is col:
            return hit[1]
        if len(self._per_value) >= self._LIMIT:
            self._per_value.clear()
        mask = _per_value(req, col, self.lookup(req.key, col))
        self._per_value[req] = (col, mask)
        return mask


def _per_value(req: NodeSelectorRequirement, col: _Column, lookup: dict[str, int]) -> Mask:
    """``req.matches_value`` for each value of the column, then for an absent label (last, where
    code -1 picks it). Set operators mark the named values through the lookup; the rest (Gt,
    Lt) ask the rule value by value."""
    values = col[1]
    op = req.operator
    if op in ("In", "NotIn"):
        out = np.zeros(len(values) + 1, dtype=bool)
        out[[lookup[v] for v in req.values if v in lookup]] = True
        return ~out if op == "NotIn" else out  # NotIn: unnamed values and absent labels match
    if op in ("Exists", "DoesNotExist"):
        out = np.ones(len(values) + 1, dtype=bool)
        out[-1] = False
        return ~out if op == "DoesNotExist" else out
    return np.array([req.matches_value(True, v) for v in values] + [req.matches_value(False, "")], dtype=bool)


class BatchView:
    """What the mask functions read: the snapshot columns, the batch rows, and the memo of
    per-value answers."""

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

    def codes(self, key: str) -> tuple[_Column, npt.NDArray[np.int32]]:
        """The label column of ``key`` and its codes for the batch rows."""
        col = self.columns.label_column(key)
        return col, col[0].take(self.indices)


def _requirement_mask(req: NodeSelectorRequirement, view: BatchView) -> Mask:
    col, codes = view.codes(req.key)
    return view.masks.per_value(req, col).take(codes)


def _field_mask(req: NodeSelectorRequirement, view: BatchView) -> Mask:
    # matchFields supports metadata.name with In / NotIn only (validated when parsed). Names
    # differ per pod (DaemonSet pods name their node), so this is computed on the batch alone.
    names = view.snapshot.names_array().take(view.indices)
    values = req.values
    if len(values) == 1:  # a DaemonSet pod's own node: one comparison, not np.isin's sort
        inside = np.asarray(names == values[0], dtype=bool)
    elif len(names) <= 256:
        wanted = frozenset(values)
        inside = np.fromiter((n in wanted for n in names.tolist()), dtype=bool, count=len(names))
    else:
        inside = np.isin(names, np.array(values, dtype=object))
    return ~inside if req.operator == "NotIn" else inside


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
        col, codes = view.codes(k)
        masks.append(codes == view.masks.lookup(k, col).get(v, -2))
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
