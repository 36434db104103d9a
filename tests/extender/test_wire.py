"""extender/v1 JSON: Go's field names out, Go's case-insensitive matching in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.api.extenderv1 import (
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    HostPriority,
    MetaPod,
    MetaVictims,
    Victims,
    WireError,
    decode_host_priority_list,
    encode_host_priority_list,
)

from .helpers import node, pod


def test_go_field_names() -> None:
    p, n = Pod.from_dict(pod("p")), Node.from_dict(node("a"))
    assert set(ExtenderArgs(p, node_names=["a"]).to_json()) == {"Pod", "Nodes", "NodeNames"}
    assert ExtenderArgs(p, nodes=[n]).to_json()["Nodes"] == {"metadata": {}, "items": [node("a")]}
    assert ExtenderFilterResult(node_names=["a"]).to_json() == {
        "Nodes": None, "NodeNames": ["a"], "FailedNodes": {}, "FailedAndUnresolvableNodes": {}, "Error": ""}
    assert encode_host_priority_list([HostPriority("a", 3)]) == [{"Host": "a", "Score": 3}]
    assert set(ExtenderPreemptionArgs(p, node_name_to_victims={"a": Victims([p], 1)}).to_json()) == {
        "Pod", "NodeNameToVictims", "NodeNameToMetaVictims"}
    assert ExtenderPreemptionResult({"a": MetaVictims([MetaPod("u")], 2)}).to_json() == {
        "NodeNameToMetaVictims": {"a": {"Pods": [{"UID": "u"}], "NumPDBViolations": 2}}}
    assert ExtenderBindingArgs("p", "ns", "u", "a").to_json() == {
        "PodName": "p", "PodNamespace": "ns", "PodUID": "u", "Node": "a"}
    assert ExtenderBindingResult("x").to_json() == {"Error": "x"}


def test_round_trips() -> None:
    p = Pod.from_dict(pod("p"))
    args = ExtenderPreemptionArgs.from_json(
        ExtenderPreemptionArgs(p, node_name_to_victims={"a": Victims([p], 1)}).to_json())
    assert args.node_name_to_victims is not None and args.node_name_to_victims["a"].pods[0].uid == "p-uid"
    res = ExtenderFilterResult(failed_nodes={"b": "x"}, failed_and_unresolvable_nodes={"c": "y"}, error="e")
    assert ExtenderFilterResult.from_json(res.to_json()) == res
    assert decode_host_priority_list([{"Host": "a", "Score": 7}]) == [HostPriority("a", 7)]
    assert ExtenderBindingArgs.from_json(ExtenderBindingArgs("p", "ns", "u", "a").to_json()).node == "a"


def test_keys_match_ignoring_case_exact_first() -> None:
    args = ExtenderArgs.from_json({"pod": pod("p"), "nodenames": ["a"]})
    assert args.pod.name == "p" and args.node_names == ["a"] and args.nodes is None
    res = ExtenderFilterResult.from_json({"failednodes": {"a": "x"}, "FailedNodes": {"b": "y"}})
    assert res.failed_nodes == {"b": "y"}
    assert decode_host_priority_list(None) == []


@pytest.mark.parametrize(("doc", "message"), [
    ({"Pod": pod("p"), "NodeNames": "a"}, "ExtenderArgs.NodeNames: want a JSON array, got a string"),
    ({"Pod": pod("p"), "Nodes": {"items": [{"metadata": "x"}]}}, "ExtenderArgs.Nodes.items[0]"),
    ({"Pod": True}, "ExtenderArgs.Pod: want a JSON object, got a boolean"),
])
def test_errors_name_the_field(doc: object, message: str) -> None:
    with pytest.raises(WireError, match=None) as info:
        ExtenderArgs.from_json(doc)
    assert message in str(info.value)


def test_scores_must_be_integers() -> None:
    with pytest.raises(WireError, match=r"HostPriorityList\[0\].Score: want an integer"):
        decode_host_priority_list([{"Host": "a", "Score": 1.5}])


@pytest.mark.parametrize("hosts", [["node-1", "a.b.c", ""], ['we"ird', "ü-node", "back\\slash"], []])
def test_host_priority_list_text_is_the_encoded_list(hosts: list[str]) -> None:
    import json

    from kubesched.api.extenderv1 import HostPriority, encode_host_priority_list, host_priority_list_text

    scores = list(range(len(hosts)))
    text = host_priority_list_text(hosts, scores)
    items = [HostPriority(h, s) for h, s in zip(hosts, scores, strict=True)]
    assert text == json.dumps(encode_host_priority_list(items))
    with pytest.raises(ValueError):
        host_priority_list_text([*hosts, "x"], scores)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.from_regex(r"[a-z0-9.\-]{0,12}", fullmatch=True), st.text(max_size=6)),
                          st.integers(-3, 14)), max_size=30))
def test_host_priority_list_text_is_the_encoded_list_for_any_names_and_scores(
        pairs: list[tuple[str, int]]) -> None:
    """The C-level join of plain names with scores 0..10 and the per-node fallback (names to
    escape, scores out of range) both write what json.dumps writes."""
    import json

    from kubesched.api.extenderv1 import HostPriority, encode_host_priority_list, host_priority_list_text

    hosts, scores = [h for h, _ in pairs], [s for _, s in pairs]
    items = [HostPriority(h, s) for h, s in pairs]
    assert host_priority_list_text(hosts, scores) == json.dumps(encode_host_priority_list(items))
