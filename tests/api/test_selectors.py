"""Label selectors, node selector terms and tolerations: upstream's matching rules
(labels.Requirement.Matches, nodeaffinity.NodeSelector.Match, v1.Toleration.ToleratesTaint)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import (
    LabelSelector,
    NodeSelector,
    SelectorError,
    Taint,
    Toleration,
    find_untolerated_taint,
)

LABELS = {"app": "web", "tier": "front", "gen": "4", "count": "1_000"}


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


@pytest.mark.parametrize(("selector", "want"), [
    pytest.param({}, True, id="empty-selector-matches-everything"),
    pytest.param({"matchLabels": {"app": "web"}}, True, id="match-labels"),
    pytest.param({"matchLabels": {"app": "db"}}, False, id="match-labels-other-value"),
    pytest.param({"matchExpressions": [_expr("app", "In", "db", "web")]}, True, id="in"),
    pytest.param({"matchExpressions": [_expr("missing", "In", "x")]}, False, id="in-missing-key"),
    pytest.param({"matchExpressions": [_expr("app", "NotIn", "web")]}, False, id="not-in"),
    pytest.param({"matchExpressions": [_expr("missing", "NotIn", "x")]}, True,
                 id="not-in-missing-key-matches"),
    pytest.param({"matchExpressions": [_expr("tier", "Exists")]}, True, id="exists"),
    pytest.param({"matchExpressions": [_expr("tier", "DoesNotExist")]}, False, id="does-not-exist"),
    pytest.param({"matchLabels": {"app": "web"}, "matchExpressions": [_expr("tier", "In", "back")]}, False,
                 id="labels-and-expressions-are-anded"),
])
def test_label_selector_matches(selector: dict[str, Any], want: bool) -> None:
    parsed = LabelSelector.from_dict(selector)
    assert parsed is not None and parsed.matches(LABELS) is want


def test_missing_label_selector_is_none_so_callers_match_nothing() -> None:
    assert LabelSelector.from_dict(None) is None


@pytest.mark.parametrize(("selector", "error"), [
    pytest.param({"matchExpressions": [_expr("app", "Has")]}, "not a valid label selector operator",
                 id="bad-op"),
    pytest.param({"matchExpressions": [_expr("app", "In")]}, "must be non-empty for In",
                 id="in-without-values"),
    pytest.param({"matchExpressions": [_expr("app", "Exists", "x")]}, "must be empty for Exists",
                 id="exists-with-values"),
    pytest.param({"matchExpressions": [{"operator": "Exists"}]}, "key: required", id="no-key"),
])
def test_label_selector_rejects(selector: dict[str, Any], error: str) -> None:
    with pytest.raises(SelectorError, match=error):
        LabelSelector.from_dict(selector)


def _terms(*terms: dict[str, Any]) -> NodeSelector:
    parsed = NodeSelector.from_dict({"nodeSelectorTerms": list(terms)})
    assert parsed is not None
    return parsed


@pytest.mark.parametrize(("selector", "want"), [
    pytest.param(_terms({"matchExpressions": [_expr("gen", "Gt", "3")]}), True, id="gt"),
    pytest.param(_terms({"matchExpressions": [_expr("gen", "Gt", "4")]}), False, id="gt-equal-is-false"),
    pytest.param(_terms({"matchExpressions": [_expr("gen", "Lt", "5")]}), True, id="lt"),
    pytest.param(_terms({"matchExpressions": [_expr("app", "Gt", "1")]}), False, id="gt-non-integer-label"),
    # strconv.ParseInt rejects underscores, Python's int() would not: "1_000" is no number.
    pytest.param(_terms({"matchExpressions": [_expr("count", "Gt", "1")]}), False,
                 id="gt-label-with-underscore-is-not-an-integer"),
    pytest.param(_terms({"matchExpressions": [_expr("missing", "Lt", "9")]}), False, id="lt-missing-label"),
    pytest.param(_terms({"matchFields": [_expr("metadata.name", "In", "node-1")]}), True,
                 id="match-fields-name"),
    pytest.param(_terms({"matchFields": [_expr("metadata.name", "NotIn", "node-1")]}), False,
                 id="match-fields-not-in"),
    pytest.param(_terms({"matchExpressions": [_expr("app", "In", "web")],
                         "matchFields": [_expr("metadata.name", "In", "node-2")]}), False,
                 id="expressions-and-fields-are-anded"),
    pytest.param(_terms({"matchExpressions": [_expr("app", "In", "db")]},
                        {"matchExpressions": [_expr("tier", "Exists")]}), True, id="terms-are-ored"),
    pytest.param(_terms({}), False, id="empty-term-matches-nothing"),
    pytest.param(_terms(), False, id="no-terms-match-nothing"),
])
def test_node_selector_matches(selector: NodeSelector, want: bool) -> None:
    assert selector.matches("node-1", LABELS) is want


@pytest.mark.parametrize(("term", "error"), [
    pytest.param({"matchExpressions": [_expr("gen", "Gt", "3", "4")]}, "single value", id="gt-two-values"),
    pytest.param({"matchExpressions": [_expr("gen", "Gt", "1_0")]}, "must be an integer",
                 id="gt-not-integer"),
    pytest.param({"matchFields": [_expr("metadata.labels", "In", "x")]}, "only metadata.name",
                 id="field-other-than-name"),
    pytest.param({"matchFields": [_expr("metadata.name", "Exists")]}, "not a valid selector operator",
                 id="field-exists"),
    pytest.param({"matchExpressions": [_expr("a", "Exists", "x")]}, "may not be specified",
                 id="exists-with-values"),
])
def test_node_selector_rejects(term: dict[str, Any], error: str) -> None:
    with pytest.raises(SelectorError, match=error):
        NodeSelector.from_dict({"nodeSelectorTerms": [term]})


TAINT = Taint("dedicated", "gpu", "NoSchedule")


@pytest.mark.parametrize(("toleration", "want"), [
    pytest.param({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}, True, id="equal-all-fields"),
    pytest.param({"key": "dedicated", "operator": "Equal", "value": "cpu"}, False, id="equal-other-value"),
    pytest.param({"key": "dedicated", "value": "gpu"}, True, id="empty-effect-matches-all-effects"),
    pytest.param({"key": "dedicated", "value": "gpu", "effect": "NoExecute"}, False, id="other-effect"),
    pytest.param({"key": "dedicated", "operator": "Exists"}, True, id="exists-any-value"),
    pytest.param({"operator": "Exists"}, True, id="empty-key-exists-tolerates-everything"),
    pytest.param({"operator": "Exists", "effect": "PreferNoSchedule"}, False,
                 id="empty-key-but-other-effect"),
    pytest.param({"key": "other", "operator": "Exists"}, False, id="other-key"),
])
def test_toleration_tolerates_taint(toleration: dict[str, Any], want: bool) -> None:
    assert Toleration.from_dict(toleration).tolerates(TAINT) is want


@pytest.mark.parametrize(("toleration", "error"), [
    pytest.param({"key": "k", "operator": "Like"}, "not one of Equal, Exists", id="bad-operator"),
    pytest.param({"key": "k", "operator": "Exists", "value": "v"}, "must be empty", id="exists-with-value"),
    pytest.param({"value": "v"}, "must be Exists when key is empty", id="empty-key-equal"),
])
def test_toleration_rejects(toleration: dict[str, Any], error: str) -> None:
    with pytest.raises(SelectorError, match=error):
        Toleration.from_dict(toleration)


def test_find_untolerated_taint_only_looks_at_the_given_effects() -> None:
    taints = (Taint("soft", "", "PreferNoSchedule"), TAINT)
    effects = frozenset({"NoSchedule", "NoExecute"})
    assert find_untolerated_taint(taints, (), effects) == TAINT
    assert find_untolerated_taint(taints, (Toleration.from_dict({"key": "dedicated", "operator": "Exists"}),),
                                  effects) is None
