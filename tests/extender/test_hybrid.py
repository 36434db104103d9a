"""``--no-cache`` with a kubeconfig (the hybrid view): the node state is each request's Node
objects, the pods on those nodes come from the store the informers keep (a MemoryStore here)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kubesched.api import Node
from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer
from kubesched.framework.config import SchedulerConfig, from_dict

from .helpers import node, pod, post

AVOID = {"example.com/avoid": "yes"}



def _config() -> SchedulerConfig:
    """The default plugins and the example's AvoidLabel (importable once the session's
    fixture has put the example on the path); NodeResourcesFit the only score plugin, so that
    its LeastAllocated score shows through the 0..10 scaling."""
    return from_dict({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {
            "multiPoint": {"enabled": [{"name": "kubesched_example_extender:AvoidLabel"}]},
            "score": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit"}]}}}],
    })


def _store(*docs: dict[str, Any]) -> MemoryStore:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in docs])
    return store


@contextmanager
def _hybrid(store: MemoryStore) -> Iterator[ExtenderServer]:
    engine = ExtenderEngine(_config(), store=store, nodes_from_request=True)
    server = ExtenderServer(engine, "127.0.0.1", 0)
    server.start()
    try:
        yield server
    finally:
        server.close()


def _filter(srv: ExtenderServer, p: dict[str, Any], *nodes: dict[str, Any]) -> dict[str, Any]:
    code, out = post(srv.url, "filter", {"Pod": p, "Nodes": {"items": list(nodes)}})
    assert code == 200, out
    return dict(out)


def test_pods_from_the_store_nodes_from_the_request() -> None:
    """The store's pod fills node a (resource fit sees it); the request's label on b (absent
    from the store's b) rejects b; c, unknown to the store, is judged as the request sends it."""
    store = _store(node("a"), node("b"), pod("big", cpu="4", node_name="a"))
    with _hybrid(store) as srv:
        out = _filter(srv, pod("p"), node("a"), node("b", labels=AVOID), node("c"))
    assert [n["metadata"]["name"] for n in out["Nodes"]["items"]] == ["c"]
    assert out["FailedNodes"] == {"a": "Insufficient cpu"}
    assert out["FailedAndUnresolvableNodes"] == {"b": "node(s) had the label example.com/avoid"}


def test_the_request_wins_over_a_later_store_change_and_new_pods_are_seen() -> None:
    """A node the informers update after a request is judged again by the next request's
    version; a pod bound in the store since is counted."""
    store = _store(node("a"), node("b"))
    with _hybrid(store) as srv:
        first = _filter(srv, pod("p"), node("a", labels=AVOID), node("b"))
        store.update(Node.from_dict(node("a")))  # the informers' a: no label
        store.create(parse_object(pod("fill", cpu="4", node_name="b")))
        second = _filter(srv, pod("p"), node("a", labels=AVOID), node("b"))
    assert list(first["FailedAndUnresolvableNodes"]) == ["a"] and not first["FailedNodes"]
    assert list(second["FailedAndUnresolvableNodes"]) == ["a"]
    assert second["FailedNodes"] == {"b": "Insufficient cpu"}


def test_prioritize_counts_the_store_pods() -> None:
    store = _store(node("a"), node("b"), pod("full", cpu="4", node_name="a"))
    with _hybrid(store) as srv:
        code, out = post(srv.url, "prioritize", {"Pod": pod("p"), "Nodes": {"items": [node("a"), node("b")]}})
    assert code == 200, out
    scores = {hp["Host"]: hp["Score"] for hp in out}
    # LeastAllocated (cpu, memory): a's cpu is taken, b's free; b, the best, gets 10
    assert scores == {"a": 5, "b": 10}


def test_node_names_only_is_a_client_error() -> None:
    with _hybrid(_store(node("a"))) as srv:
        code, out = post(srv.url, "filter", {"Pod": pod("p"), "NodeNames": ["a"]})
    assert code == 400 and "needs full Node objects" in out["Error"]


def test_a_node_only_a_request_named_is_gone_from_the_next_request() -> None:
    """Node c, unknown to the informers, is named by one request only. The next request, for a
    pod spread over zones, names a and b (one matching pod each): the zones are level, both
    fit. Were c still cached, its zone with no pod would make every other zone's skew 2."""
    store = _store(node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"}),
                   pod("web-1", node_name="a", labels={"app": "web"}),
                   pod("web-2", node_name="b", labels={"app": "web"}))
    spread = pod("p", labels={"app": "web"})
    spread["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}}}]
    a, b = node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})
    with _hybrid(store) as srv:
        first = _filter(srv, spread, a, b, node("c", labels={"zone": "z3"}))
        second = _filter(srv, spread, a, b)
    assert [n["metadata"]["name"] for n in first["Nodes"]["items"]] == ["c"]
    assert [n["metadata"]["name"] for n in second["Nodes"]["items"]] == ["a", "b"]
    assert not second["FailedNodes"] and not second["FailedAndUnresolvableNodes"]


def test_a_request_only_node_the_informers_learn_of_goes_back_to_their_copy() -> None:
    store = _store(node("a"))
    with _hybrid(store) as srv:
        _filter(srv, pod("p"), node("a"), node("c", labels=AVOID))
        store.create(parse_object(node("c")))  # the informers' c: no label
        _filter(srv, pod("p"), node("a"))
        assert srv.engine is not None
        assert srv.engine.sched.cache.node("c") is store.get("Node", "", "c")
