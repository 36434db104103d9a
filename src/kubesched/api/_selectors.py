"""Label selectors, node selectors, taints and tolerations, with upstream's matching rules.

Mirrors k8s.io/apimachinery/pkg/labels (selector.go), k8s.io/component-helpers/scheduling/
corev1/nodeaffinity (nodeaffinity.go) and k8s.io/api/core/v1 toleration.go. Every structure is
parsed and checked once, when the manifest is read, so that matching is a cheap pure function.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _fields as f

__all__ = [
    "LabelSelector",
    "LabelSelectorRequirement",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "SelectorError",
    "Taint",
    "Toleration",
]


_INT64 = re.compile(r"[+-]?[0-9]+")


def parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``, None where it fails. Python's ``int`` is laxer
    (``1_000`` and surrounding spaces parse), and ``1_000`` is a valid label value."""
    if not _INT64.fullmatch(text):
        return None
    n = int(text)
    return n if -(2**63) <= n < 2**63 else None


class SelectorError(ValueError):
    """A selector, taint or toleration that the API server would reject."""


_LABEL_OPS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
_NODE_OPS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """labels.Requirement.Matches for the four set-based operators."""
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        return self.key not in labels  # DoesNotExist


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector. ``LabelSelector()`` (empty) matches everything.

    A *missing* selector (``None`` where a selector is optional) matches nothing, as
    ``metav1.LabelSelectorAsSelector(nil)`` returns ``labels.Nothing()``; callers keep ``None``.
    """

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        for k, v in self.match_labels:
            if labels.get(k) != v:
                return False
        return all(r.matches(labels) for r in self.match_expressions)

    @property
    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    @staticmethod
    def from_dict(d: Mapping[str, Any] | None, path: str = "") -> LabelSelector | None:
        """Parse a metav1.LabelSelector; errors name the field below ``path`` (the selector's
        own path, e.g. ``spec.selector``; empty: paths start at ``matchLabels``)."""
        if d is None:
            return None
        pre = f"{path}." if path else ""
        if not isinstance(d, Mapping):
            where = path or "label selector"
            raise SelectorError(f"{where}: Invalid value: {f.go_value(d)}: must be an object")
        ml = f.string_map(d.get("matchLabels"), f"{pre}matchLabels")
        exprs = []
        for e, epath in f.objects(d.get("matchExpressions"), f"{pre}matchExpressions"):
            op = e.get("operator")
            key = f.string(e.get("key"), f"{epath}.key")
            values = f.strings(e.get("values"), f"{epath}.values")
            if not key:
                raise SelectorError(f"{epath}.key: required")
            if not isinstance(op, str) or op not in _LABEL_OPS:
                raise SelectorError(
                    f"{epath}.operator: {op!r} is not a valid label selector "
                    "operator (In, NotIn, Exists, DoesNotExist)"
                )
            if op in ("In", "NotIn") and not values:
                raise SelectorError(f"{epath}.values: must be non-empty for {op}")
            if op in ("Exists", "DoesNotExist") and values:
                raise SelectorError(f"{epath}.values: must be empty for {op}")
            exprs.append(LabelSelectorRequirement(key, op, frozenset(values)))
        return LabelSelector(tuple(sorted(ml.items())), tuple(exprs))



@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches_value(self, present: bool, value: str) -> bool:
        """One requirement against one label (or field) value; nodeaffinity's requirement semantics."""
        op = self.operator
        if op == "In":
            return present and value in self.values
        if op == "NotIn":
            return not present or value not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        # Gt / Lt: both sides must parse as integers, else no match (labels.Requirement.Matches).
        if not present or len(self.values) != 1:
            return False
        lhs, rhs = parse_int64(value), parse_int64(self.values[0])
        if lhs is None or rhs is None:
            return False
        return lhs > rhs if op == "Gt" else lhs < rhs

    def matches(self, labels: Mapping[str, str]) -> bool:
        return self.matches_value(self.key in labels, labels.get(self.key, ""))


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """Expressions and fields are ANDed; a term with neither matches no node."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        if not self.match_expressions and not self.match_fields:
            return False
        if not all(r.matches(labels) for r in self.match_expressions):
            return False
        # matchFields supports only metadata.name (validated at parse time).
        return all(r.matches_value(True, node_name) for r in self.match_fields)


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """v1.NodeSelector: the terms are ORed."""

    terms: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        return any(t.matches(node_name, labels) for t in self.terms)

    @staticmethod
    def terms_from_list(items: Any, path: str) -> tuple[NodeSelectorTerm, ...]:
        return tuple(_parse_term(t, tpath) for t, tpath in f.objects(items, path))

    @staticmethod
    def from_dict(d: Mapping[str, Any] | None, path: str = "nodeSelector") -> NodeSelector | None:
        if d is None:
            return None
        d = f.mapping(d, path)
        return NodeSelector(
            NodeSelector.terms_from_list(d.get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")
        )


def _parse_requirement(e: Mapping[str, Any], path: str, fields: bool) -> NodeSelectorRequirement:
    key = f.string(e.get("key"), f"{path}.key")
    op = e.get("operator")
    values = f.strings(e.get("values"), f"{path}.values")
    if not key:
        raise SelectorError(f"{path}.key: required")
    if not isinstance(op, str) or op not in _NODE_OPS:
        raise SelectorError(f"{path}.operator: {op!r} is not a valid node selector operator")
    if op in ("In", "NotIn") and not values:
        raise SelectorError(f"{path}.values: must be specified when operator is {op}")
    if op in ("Exists", "DoesNotExist") and values:
        raise SelectorError(f"{path}.values: may not be specified when operator is {op}")
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise SelectorError(f"{path}.values: must be specified single value when operator is {op}")
        if parse_int64(values[0]) is None:
            raise SelectorError(f"{path}.values[0]: must be an integer for {op}")
    if fields:
        if key != "metadata.name":
            raise SelectorError(f"{path}.key: not a valid field selector key {key!r} (only metadata.name)")
        if op not in ("In", "NotIn"):
            raise SelectorError(f"{path}.operator: not a valid selector operator for fields: {op}")
        if len(values) != 1:
            raise SelectorError(f"{path}.values: must have one element for metadata.name")
    return NodeSelectorRequirement(key, op, values)


def _parse_term(t: Mapping[str, Any], path: str) -> NodeSelectorTerm:
    t = f.mapping(t, path)
    exprs = tuple(
        _parse_requirement(e, epath, False)
        for e, epath in f.objects(t.get("matchExpressions"), f"{path}.matchExpressions")
    )
    fields = tuple(
        _parse_requirement(e, epath, True)
        for e, epath in f.objects(t.get("matchFields"), f"{path}.matchFields")
    )
    return NodeSelectorTerm(exprs, fields)


TAINT_EFFECTS = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = "NoSchedule"

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str = "taint") -> Taint:
        d = f.mapping(d, path)
        key = f.string(d.get("key"), f"{path}.key")
        effect = d.get("effect")
        if not key:
            raise SelectorError(f"{path}.key: required")
        if not isinstance(effect, str) or effect not in TAINT_EFFECTS:
            raise SelectorError(
                f"{path}.effect: {effect!r} is not one of NoSchedule, PreferNoSchedule, NoExecute"
            )
        return Taint(key, f.string(d.get("value"), f"{path}.value"), effect)


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """v1.Toleration.ToleratesTaint: empty effect matches all effects, empty key with
        Exists matches all keys; Equal compares values."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return False

    @staticmethod
    def from_dict(d: Mapping[str, Any], path: str = "toleration") -> Toleration:
        d = f.mapping(d, path)
        op = d.get("operator") or "Equal"
        if not isinstance(op, str) or op not in ("Equal", "Exists"):
            raise SelectorError(f"{path}.operator: {op!r} is not one of Equal, Exists")
        key = f.string(d.get("key"), f"{path}.key")
        value = f.string(d.get("value"), f"{path}.value")
        if op == "Exists" and value:
            raise SelectorError(f"{path}.value: must be empty when operator is Exists")
        if not key and op != "Exists":
            raise SelectorError(f"{path}.operator: must be Exists when key is empty")
        effect = f.string(d.get("effect"), f"{path}.effect")
        if effect and effect not in TAINT_EFFECTS:
            raise SelectorError(f"{path}.effect: {effect!r} is not a valid taint effect")
        secs = f.opt_int64(d.get("tolerationSeconds"), f"{path}.tolerationSeconds")
        return Toleration(key, op, value, effect, secs)


def tolerations_tolerate_taint(tolerations: tuple[Toleration, ...], taint: Taint) -> bool:
    """v1helper.TolerationsTolerateTaint."""
    return any(t.tolerates(taint) for t in tolerations)


def find_untolerated_taint(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...], effects: frozenset[str]
) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint: first taint with an effect in ``effects`` that no
    toleration tolerates."""
    for taint in taints:
        if taint.effect in effects and not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None
