"""The extender server over real HTTP on 127.0.0.1: each verb, both node forms, health,
metrics, TLS and concurrent requests."""

from __future__ import annotations

import json
import ssl
import threading
import urllib.request
from typing import Any

import pytest
import trustme

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer, scale_to_extender

from .helpers import example_config, get, node, pod, post, serving

AVOID = {"example.com/avoid": "yes"}
PREFERRED = {"example.com/preferred": "true"}


def _store(*docs: dict[str, Any]) -> MemoryStore:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in docs])
    return store


def test_filter_full_nodes_answers_nodes_with_the_plugins_reason() -> None:
    nodes = [node("a"), node("b", labels=AVOID), node("c", labels=PREFERRED)]
    with serving(example_config()) as srv:
        code, out = post(srv.url, "filter", {"Pod": pod("p"), "Nodes": {"items": nodes}})
    assert code == 200
    assert [n["metadata"]["name"] for n in out["Nodes"]["items"]] == ["a", "c"]
    assert out["Nodes"]["items"][0] == nodes[0]  # the objects come back as they were sent
    assert out["NodeNames"] is None
    assert out["FailedNodes"] == {}
    assert out["FailedAndUnresolvableNodes"] == {"b": "node(s) had the label example.com/avoid"}
    assert out["Error"] == ""


def test_filter_node_names_answers_names_and_unschedulable_goes_to_failed_nodes() -> None:
    # The store view (what the informers will feed): n0's 3 cpu are taken by a bound pod, so
    # the 2-cpu pod is Unschedulable there (preemption may help): FailedNodes, not unresolvable.
    store = _store(node("n0"), node("n1"), node("n2", cpu="1"), pod("busy", cpu="3", node_name="n0"))
    with serving(store=store) as srv:
        code, out = post(srv.url, "filter", {"Pod": pod("p", cpu="2"), "NodeNames": ["n0", "n1", "n2"]})
    assert code == 200
    assert out["NodeNames"] == ["n1"] and out["Nodes"] is None
    assert out["FailedNodes"] == {"n0": "Insufficient cpu"}
    assert out["FailedAndUnresolvableNodes"] == {"n2": "Insufficient cpu"}


def test_filter_accepts_lower_case_keys_as_go_does() -> None:
    with serving(example_config()) as srv:
        code, out = post(srv.url, "filter", {"pod": pod("p"), "nodes": {"items": [node("a")]}})
    assert code == 200 and [n["metadata"]["name"] for n in out["Nodes"]["items"]] == ["a"]


def test_prioritize_scales_the_profile_total_to_0_10() -> None:
    nodes = [node("a"), node("c", labels=PREFERRED)]
    with serving(example_config()) as srv:
        code, out = post(srv.url, "prioritize", {"Pod": pod("p"), "Nodes": {"items": nodes}})
    assert code == 200
    assert out == [{"Host": "a", "Score": 0}, {"Host": "c", "Score": 10}]


def test_prioritize_default_profile_scores_are_within_0_10() -> None:
    nodes = [node("a", cpu="2"), node("b", cpu="64")]
    with serving() as srv:
        code, out = post(srv.url, "prioritize", {"Pod": pod("p", cpu="2"), "Nodes": {"items": nodes}})
    assert code == 200
    scores = {hp["Host"]: hp["Score"] for hp in out}
    assert set(scores) == {"a", "b"} and all(0 <= s <= 10 for s in scores.values())
    assert scores["b"] > scores["a"]  # LeastAllocated: the big node is emptier


def test_node_state_follows_each_request() -> None:
    """--no-cache: each request's Node objects are the cluster; a node relabelled between two
    requests is judged by its new labels, a node left out is gone."""
    with serving(example_config()) as srv:
        _, first = post(srv.url, "filter", {"Pod": pod("p"), "Nodes": {"items": [node("a"), node("b")]}})
        _, second = post(srv.url, "filter", {"Pod": pod("p"), "Nodes": {"items": [node("a", labels=AVOID)]}})
    assert [n["metadata"]["name"] for n in first["Nodes"]["items"]] == ["a", "b"]
    assert second["Nodes"]["items"] == [] and list(second["FailedAndUnresolvableNodes"]) == ["a"]


# -- preempt ----------------------------------------------------------------------------------
def _preempt(srv: ExtenderServer, victims: dict[str, list[str]], preemptor: dict[str, Any]) -> Any:
    meta = {n: {"Pods": [{"UID": u} for u in uids], "NumPDBViolations": 0} for n, uids in victims.items()}
    code, out = post(srv.url, "preempt", {"Pod": preemptor, "NodeNameToMetaVictims": meta})
    assert code == 200, out
    return {n: ([p["UID"] for p in v["Pods"]], v["NumPDBViolations"])
            for n, v in out["NodeNameToMetaVictims"].items()}


def test_preempt_drops_nodes_the_filters_reject_even_without_the_victims() -> None:
    store = _store(node("n0"), node("n1", labels=AVOID),
                   pod("low0", cpu="4", node_name="n0"), pod("low1", cpu="4", node_name="n1"))
    with serving(example_config(), store=store) as srv:
        out = _preempt(srv, {"n0": ["low0-uid"], "n1": ["low1-uid"]}, pod("high", cpu="2", priority=100))
    assert out == {"n0": (["low0-uid"], 0)}


def test_preempt_adds_the_victims_the_profile_needs() -> None:
    store = _store(node("n0"), pod("low0", cpu="2", node_name="n0"), pod("low1", cpu="2", node_name="n0"))
    with serving(store=store) as srv:
        out = _preempt(srv, {"n0": ["low0-uid"]}, pod("high", cpu="4", priority=100))
    assert out == {"n0": (["low0-uid", "low1-uid"], 0)}


def test_preempt_never_adds_pods_of_equal_or_higher_priority() -> None:
    store = _store(node("n0"), pod("low0", cpu="2", node_name="n0"),
                   pod("peer", cpu="2", node_name="n0", priority=100))
    with serving(store=store) as srv:
        out = _preempt(srv, {"n0": ["low0-uid"]}, pod("high", cpu="4", priority=100))
    assert out == {}


def _pdb_case(with_pdb: bool) -> dict[str, Any]:
    docs: list[dict[str, Any]] = [
        node("n0", cpu="3"),
        pod("a", cpu="1", node_name="n0", priority=1, labels={"app": "a"}),
        pod("b", cpu="1", node_name="n0", priority=5, labels={"app": "b"})]
    if with_pdb:
        docs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                     "metadata": {"name": "a", "namespace": "default"},
                     "spec": {"selector": {"matchLabels": {"app": "a"}}, "maxUnavailable": 0},
                     "status": {"disruptionsAllowed": 0}})
    with serving(store=_store(*docs)) as srv:
        return _preempt(srv, {"n0": []}, pod("high", cpu="2", priority=100))


def test_preempt_victim_choice_is_pdb_aware() -> None:
    # One of a (priority 1) and b (priority 5) must go. Without a PDB the less important one,
    # a, is evicted; with a PDB protecting a, a is reprieved first and b goes instead.
    assert _pdb_case(with_pdb=False) == {"n0": (["a-uid"], 0)}
    assert _pdb_case(with_pdb=True) == {"n0": (["b-uid"], 0)}


def test_preempt_without_node_state_returns_the_candidates_and_counts_them() -> None:
    victims = {"Pods": [pod("low0", node_name="n0")], "NumPDBViolations": 1}
    with serving(example_config()) as srv:
        code, out = post(srv.url, "preempt", {"Pod": pod("high", priority=100),
                                              "NodeNameToVictims": {"n0": victims}})
        _, metrics = get(srv.url, "metrics")
    assert code == 200
    assert out == {"NodeNameToMetaVictims": {"n0": {"Pods": [{"UID": "low0-uid"}], "NumPDBViolations": 1}}}
    assert 'kubesched_extender_unseen_total{verb="preempt",what="nodes"} 1.0' in metrics


# -- health, metrics, TLS, concurrency ---------------------------------------------------------
def test_healthz_and_metrics() -> None:
    with serving(example_config()) as srv:
        assert get(srv.url, "healthz") == (200, "ok")
        post(srv.url, "filter", {"Pod": pod("p"), "Nodes": {"items": [node("a")]}})
        post(srv.url, "filter", raw=b"{")
        _, text = get(srv.url, "metrics")
    assert 'kubesched_extender_requests_total{code="200",verb="filter"} 1.0' in text
    assert 'kubesched_extender_requests_total{code="400",verb="filter"} 1.0' in text
    assert 'kubesched_extender_request_duration_seconds_count{verb="filter"} 2.0' in text
    assert 'kubesched_extender_errors_total{kind="bad_request",verb="filter"} 1.0' in text
    assert 'kubesched_extender_unseen_total{verb="filter",what="pods"} 1.0' in text


def test_https() -> None:
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    with serving(example_config(), tls=server_ctx) as srv:
        assert srv.url.startswith("https://")
        req = urllib.request.Request(srv.url + "/filter", method="POST", data=json.dumps(
            {"Pod": pod("p"), "Nodes": {"items": [node("a")]}}).encode())
        with urllib.request.urlopen(req, context=client_ctx, timeout=10) as resp:
            assert resp.status == 200 and json.loads(resp.read())["Error"] == ""


def test_concurrent_requests_get_their_own_answers() -> None:
    """Threads sending different clusters at once: each answer matches its own request."""
    errors: list[str] = []
    with serving(example_config()) as srv:
        def worker(i: int) -> None:
            for j in range(5):
                bad = f"n{i}-{j}"
                nodes = [node(f"n{i}-{k}", labels=AVOID if f"n{i}-{k}" == bad else {}) for k in range(5)]
                code, out = post(srv.url, "filter", {"Pod": pod("p"), "Nodes": {"items": nodes}})
                if code != 200 or list(out["FailedAndUnresolvableNodes"]) != [bad] or len(
                        out["Nodes"]["items"]) != 4:
                    errors.append(f"{i}/{j}: {code} {out}")

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert errors == []


def test_engine_is_usable_without_http() -> None:
    from kubesched.api.extenderv1 import ExtenderArgs

    engine = ExtenderEngine(example_config())
    try:
        args = ExtenderArgs.from_json({"Pod": pod("p"), "Nodes": {"items": [node("a", labels=AVOID)]}})
        assert engine.filter(args).failed_and_unresolvable_nodes == {
            "a": "node(s) had the label example.com/avoid"}
    finally:
        engine.close()


def test_preempt_keeps_a_victim_the_view_does_not_see() -> None:
    # kube-scheduler proposes "gone" (its informer knows it, ours not yet) and low0: both stay
    # victims; the check runs with low0 removed.
    store = _store(node("n0"), pod("low0", cpu="4", node_name="n0"))
    with serving(store=store) as srv:
        out = _preempt(srv, {"n0": ["gone-uid", "low0-uid"]}, pod("high", cpu="4", priority=100))
        _, metrics = get(srv.url, "metrics")
    assert out == {"n0": (["gone-uid", "low0-uid"], 0)}
    assert 'kubesched_extender_unseen_total{verb="preempt",what="victims"} 1.0' in metrics


@pytest.mark.parametrize(("totals", "want"), [
    # 10 * t // 1200 against the best total (1200), not the best possible one
    pytest.param([1200, 950, 0], [10, 7, 0], id="best-is-10"),
    # MostAllocated behind kube-scheduler: 62 and 56 would both be 6 on a 0..100 range;
    # against the best: 10 and 560 // 62 = 9, so the profile's first choice stays first
    pytest.param([62, 56, 50, 12], [10, 9, 8, 1], id="first-choice-kept-apart"),
    pytest.param([1, 0], [10, 0], id="any-gap-below-the-best-is-below-10"),
    pytest.param([300, 300], [10, 10], id="equal-best"),
    pytest.param([0, 0], [0, 0], id="no-score-plugin"),
    pytest.param([], [], id="no-node"),
])
def test_scale_to_extender(totals: list[int], want: list[int]) -> None:
    assert scale_to_extender(totals) == want
