"""/prioritize after /filter for the same pod: the scores of the nodes the filter kept are
computed once the filter answer is sent (ExtenderEngine.warm_prioritize), and /prioritize
answers from them only while they are what it would compute."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer

from .helpers import node, pod


def _store() -> MemoryStore:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in (
        node("a"), node("b"), node("c", cpu="8"), node("d", taints=[
            {"key": "k", "value": "v", "effect": "NoSchedule"}]),
        pod("on-a", cpu="3", node_name="a"), pod("on-b", cpu="1", node_name="b"))])
    return store


def _call(srv: ExtenderServer, verb: str, doc: Any) -> Any:
    body = json.dumps(doc).encode()
    code, _, out = srv.handle("POST", f"/{verb}", str(len(body)), lambda n: body)  # after-work inline
    assert code == 200, out
    return json.loads(out)


class _Counting:
    """Counts the engine's scoring passes."""

    def __init__(self, engine: ExtenderEngine, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        inner = engine._scores

        def scores(*a: Any) -> Any:
            self.n += 1
            return inner(*a)

        monkeypatch.setattr(engine, "_scores", scores)


def _scores_fresh(names: list[str], p: dict[str, Any], store: MemoryStore | None = None) -> Any:
    srv = ExtenderServer(ExtenderEngine(store=store or _store()))
    return _call(srv, "prioritize", {"Pod": p, "NodeNames": names})


def test_prioritize_of_the_kept_nodes_answers_from_the_scores_made_after_filter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    srv = ExtenderServer(ExtenderEngine(store=_store()))
    assert srv.engine is not None
    count = _Counting(srv.engine, monkeypatch)
    kept = _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c", "d"]})["NodeNames"]
    assert kept == ["a", "b", "c"] and count.n == 1  # scored once the filter answer was out
    out = _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": kept})
    assert count.n == 1
    assert out == _scores_fresh(kept, pod("p"))
    assert len({hp["Score"] for hp in out}) > 1  # the nodes' loads differ: a real check


def test_a_change_between_filter_and_prioritize_is_scored_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store()
    srv = ExtenderServer(ExtenderEngine(store=store))
    assert srv.engine is not None
    count = _Counting(srv.engine, monkeypatch)
    kept = _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c"]})["NodeNames"]
    store.create(parse_object(pod("fill", cpu="7", node_name="c")))
    out = _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": kept})
    assert count.n == 2
    changed = _store()
    changed.create(parse_object(pod("fill", cpu="7", node_name="c")))
    assert out == _scores_fresh(kept, pod("p"), changed) != _scores_fresh(kept, pod("p"))


@pytest.mark.parametrize("names", [["b", "a", "c"], ["a", "b"]], ids=["other-order", "fewer"])
def test_other_nodes_or_another_pod_are_scored_anew(monkeypatch: pytest.MonkeyPatch,
                                                    names: list[str]) -> None:
    srv = ExtenderServer(ExtenderEngine(store=_store()))
    assert srv.engine is not None
    count = _Counting(srv.engine, monkeypatch)
    _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c"]})
    assert _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": names}) == _scores_fresh(names, pod("p"))
    _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c"]})
    other = pod("p", cpu="3")
    assert _call(srv, "prioritize", {"Pod": other, "NodeNames": ["a", "b", "c"]}) == _scores_fresh(
        ["a", "b", "c"], other)
    assert count.n == 4


def test_an_answer_applies_the_changes_received_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live view's changes wait on its clock until an answer begins (ExtenderEngine.catch_up)
    or the delivery thread's next round: /filter and /prioritize see every change received
    before them, and the scores computed ahead of a change are not used after it."""
    store = _store()
    engine = ExtenderEngine(store=store)
    srv = ExtenderServer(engine)
    pending: list[dict[str, Any]] = []

    def catch_up() -> int:  # what the live clock's run_due does with the queued changes
        for doc in pending:
            store.create(parse_object(doc))
        n = len(pending)
        pending.clear()
        return n

    engine.catch_up = catch_up
    pending.append(pod("fill-c", cpu="6", node_name="c"))  # c has 2 cpu left
    assert _call(srv, "filter", {"Pod": pod("p", cpu="3"), "NodeNames": ["b", "c"]})["NodeNames"] == ["b"]
    count = _Counting(engine, monkeypatch)
    _call(srv, "filter", {"Pod": pod("q"), "NodeNames": ["a", "b", "c"]})
    pending.append(pod("fill-b", cpu="2", node_name="b"))
    out = _call(srv, "prioritize", {"Pod": pod("q"), "NodeNames": ["a", "b", "c"]})
    assert count.n == 2  # computed ahead, then again after the change
    changed = _store()
    for doc in (pod("fill-c", cpu="6", node_name="c"), pod("fill-b", cpu="2", node_name="b")):
        changed.create(parse_object(doc))
    assert out == _scores_fresh(["a", "b", "c"], pod("q"), changed)
