"""The extender answers through the scheduler's batch paths, and never stalls on small answers.

- ``/filter`` and ``/prioritize`` in the store view run the in-tree plugins' batch methods over
  the snapshot's columns (the per-node methods are never called), as the scheduler's own cycles;
- the server disables Nagle's algorithm (headers and body are two writes: the body would wait
  for the client's delayed ACK, 40 ms);
- ``settle()`` freezes the heap built so far out of the cyclic collector's reach.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine
from kubesched.plugins.noderesources.fit import Fit
from kubesched.plugins.tainttoleration.taint_toleration import TaintToleration

from .helpers import node, pod, post, serving


def _store(*docs: dict[str, Any]) -> MemoryStore:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in docs])
    return store


@pytest.fixture
def no_per_node(monkeypatch: pytest.MonkeyPatch) -> None:
    def per_node(*args: Any) -> Any:
        raise AssertionError("the per-node method ran")

    monkeypatch.setattr(Fit, "filter", per_node)
    monkeypatch.setattr(Fit, "score", per_node)
    monkeypatch.setattr(TaintToleration, "filter", per_node)
    monkeypatch.setattr(TaintToleration, "score", per_node)


def test_filter_and_prioritize_use_the_batch_paths(no_per_node: None) -> None:
    taint = [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    store = _store(node("n0"), node("n1", cpu="1"), node("n2", taints=taint), node("n3"),
                   pod("busy", cpu="3", node_name="n3"))
    with serving(store=store) as srv:
        names = ["n3", "n2", "n1", "n0"]
        code, body = post(srv.url, "filter", {"Pod": pod("p", cpu="2"), "NodeNames": names})
        assert code == 200, body
        assert body["NodeNames"] == ["n0"], body
        # n3 is full (preemption could help); n1 has less cpu than the pod asks in all (it could not)
        assert body["FailedNodes"] == {"n3": "Insufficient cpu"}
        assert set(body["FailedAndUnresolvableNodes"]) == {"n1", "n2"}
        code, scores = post(srv.url, "prioritize", {"Pod": pod("p", cpu="2"), "NodeNames": names})
        assert code == 200, scores
        assert [s["Host"] for s in scores] == names and all(0 <= s["Score"] <= 10 for s in scores)


def test_the_server_disables_nagle() -> None:
    with serving(store=_store(node("n0"))) as srv:
        assert srv._httpd.RequestHandlerClass.disable_nagle_algorithm is True


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_settle_freezes_the_loaded_cluster(unfrozen: None) -> None:
    engine = ExtenderEngine(store=_store(node("n0"), pod("a", node_name="n0")))
    try:
        before = gc.get_freeze_count()
        engine.settle()
        assert gc.get_freeze_count() > before
    finally:
        engine.close()
