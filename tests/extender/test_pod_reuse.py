"""The pod of a request is parsed only when no equal manifest was parsed already: the last
request's pod (kube-scheduler sends each pod to /filter, then /prioritize) or the store's copy
of it (the informers parsed the pending pod already). The answers are those of a parse."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubesched.api import Pod
from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer

from .helpers import node, pod


def _store(*extra: dict[str, Any]) -> MemoryStore:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in (
        node("a"), node("b"), node("c", cpu="8"), pod("on-a", cpu="3", node_name="a"), *extra)])
    return store


def _call(srv: ExtenderServer, verb: str, doc: Any) -> Any:
    body = json.dumps(doc).encode()
    code, _, out = srv.handle("POST", f"/{verb}", str(len(body)), lambda n: body)
    assert code == 200, out
    return json.loads(out)


class _Parses:
    """Counts Pod.from_dict calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        inner = Pod.from_dict

        def counted(d: Any) -> Pod:
            self.n += 1
            return inner(d)

        monkeypatch.setattr(Pod, "from_dict", staticmethod(counted))


def _untyped(doc: dict[str, Any]) -> dict[str, Any]:
    """The manifest as kube-scheduler sends it: no kind, no apiVersion."""
    return {k: v for k, v in doc.items() if k not in ("kind", "apiVersion")}


def test_prioritize_after_filter_does_not_parse_the_pod_again(monkeypatch: pytest.MonkeyPatch) -> None:
    srv = ExtenderServer(ExtenderEngine(store=_store()))
    parses = _Parses(monkeypatch)
    p = pod("p", cpu="2")
    kept = _call(srv, "filter", {"Pod": p, "NodeNames": ["a", "b", "c"]})["NodeNames"]
    assert parses.n == 1
    out = _call(srv, "prioritize", {"Pod": _untyped(p), "NodeNames": kept})
    assert parses.n == 1
    fresh = ExtenderServer(ExtenderEngine(store=_store()))
    assert out == _call(fresh, "prioritize", {"Pod": p, "NodeNames": kept})


def test_the_stores_pending_pod_is_used_when_the_request_sends_the_same_manifest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(pod("p", cpu="2"))
    held = store.get("Pod", "default", "p")
    srv = ExtenderServer(ExtenderEngine(store=store))
    parses = _Parses(monkeypatch)
    _call(srv, "filter", {"Pod": _untyped(dict(held.raw)), "NodeNames": ["a", "b", "c"]})
    assert parses.n == 0


@pytest.mark.parametrize("verb", ["filter", "prioritize"])
def test_a_manifest_that_differs_from_the_known_ones_is_parsed(monkeypatch: pytest.MonkeyPatch,
                                                               verb: str) -> None:
    """Another version of the store's pod, or of the last request's, is the request's pod."""
    store = _store(pod("p", cpu="1"))
    srv = ExtenderServer(ExtenderEngine(store=store))
    _call(srv, "filter", {"Pod": pod("p", cpu="2"), "NodeNames": ["a", "b", "c"]})
    parses = _Parses(monkeypatch)
    big = pod("p", cpu="6")  # fits c only
    out = _call(srv, verb, {"Pod": big, "NodeNames": ["a", "b", "c"]})
    assert parses.n == 1
    fresh = ExtenderServer(ExtenderEngine(store=_store(pod("p", cpu="1"))))
    assert out == _call(fresh, verb, {"Pod": big, "NodeNames": ["a", "b", "c"]})
    if verb == "filter":
        assert out["NodeNames"] == ["c"]


def test_metrics_count_how_prioritize_met_the_scores_computed_ahead() -> None:
    store = _store()
    srv = ExtenderServer(ExtenderEngine(store=store))
    kept = _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c"]})["NodeNames"]
    _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": kept})  # hit
    _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c"]})
    store.create(parse_object(pod("fill", cpu="7", node_name="c")))
    _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": kept})  # stale
    _call(srv, "filter", {"Pod": pod("p"), "NodeNames": ["a", "b", "c"]})
    _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": ["a"]})  # other names
    _call(srv, "prioritize", {"Pod": pod("p"), "NodeNames": ["a"]})  # nothing ahead
    text = srv.metrics.exposition().decode()
    for result in ("hit", "stale", "other", "none"):
        assert f'kubesched_extender_prioritize_ahead_total{{result="{result}"}} 1.0' in text


def test_remembered_node_lists_follow_the_nodes_of_the_snapshot() -> None:
    """The rows of a node-name list are remembered between requests, but only while the
    snapshot's node list is the same: a deleted node is unknown again, an added one takes its
    place in the rows, and names that cannot be told apart from their join are not remembered."""
    store = _store()
    srv = ExtenderServer(ExtenderEngine(store=store))
    ask = {"Pod": pod("p", cpu="1"), "NodeNames": ["c", "a", "b"]}
    assert _call(srv, "filter", ask)["NodeNames"] == ["c", "a", "b"]
    assert _call(srv, "filter", ask)["NodeNames"] == ["c", "a", "b"]
    store.delete("Node", "", "a")
    body = json.dumps(ask).encode()
    code, _, out = srv.handle("POST", "/filter", str(len(body)), lambda n: body)
    assert code == 400 and json.loads(out)["Error"] == 'node "a" not found'
    store.create(parse_object(node("a", cpu="1")))  # back, at another row, too small now
    assert _call(srv, "filter", ask)["NodeNames"] == ["c", "b"]
    weird = {"Pod": pod("p"), "NodeNames": ["a\u0000b", "c"]}
    body = json.dumps(weird).encode()
    code, _, out = srv.handle("POST", "/filter", str(len(body)), lambda n: body)
    assert code == 400 and "not found" in json.loads(out)["Error"]
