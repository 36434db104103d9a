"""``POST /bind`` (kube-scheduler's ``bindVerb``) and readiness, over the store view.

The binding goes through the store's bind (``pods/binding`` on a live store: see
tests/live/test_extender_informers.py); the API's refusals come back as the result's ``Error``
with a 200, as HTTPExtender.Bind reads them. Before an engine exists (the informers syncing),
``/readyz`` and the verbs answer 503 while ``/healthz`` answers ok.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from typing import Any

import pytest

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderEngine, ExtenderServer

from .helpers import get, node, pod, post, serving


def _store(*docs: dict[str, Any]) -> MemoryStore:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in docs])
    return store


def _binding(name: str, node_name: str, uid: str = "") -> dict[str, str]:
    return {"PodName": name, "PodNamespace": "default", "PodUID": uid or f"{name}-uid", "Node": node_name}


def test_bind_creates_the_binding_and_the_cache_follows() -> None:
    store = _store(node("n0", cpu="2"), node("n1", cpu="2"), pod("web", cpu="2"), pod("next", cpu="1"))
    with serving(store=store, bind=True) as srv:
        code, body = post(srv.url, "bind", _binding("web", "n0"))
        assert (code, body) == (200, {"Error": ""})
        assert store.get("Pod", "default", "web").node_name == "n0"
        # The bound pod counts at once: n0 is full for the next pod.
        _, fit = post(srv.url, "filter", {"Pod": pod("next", cpu="1"), "NodeNames": ["n0", "n1"]})
        assert fit["NodeNames"] == ["n1"] and "Insufficient cpu" in fit["FailedNodes"]["n0"]


@pytest.mark.parametrize(("args", "error"), [
    (_binding("gone", "n0"), 'pods "gone" not found'),
    (_binding("web", "n0", uid="other-uid"), "precondition failed: UID in precondition: other-uid"),
])
def test_bind_refused_by_the_store_is_the_results_error(args: dict[str, str], error: str,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    store = _store(node("n0"), pod("web"))
    with caplog.at_level(logging.ERROR, logger="kubesched"), serving(store=store, bind=True) as srv:
        code, body = post(srv.url, "bind", args)
    assert code == 200 and error in body["Error"], body
    assert store.get("Pod", "default", "web").node_name == ""
    [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]  # never silent
    assert line.startswith(f'Failed to bind pod pod="default/{args["PodName"]}" node="n0" err=')
    assert error in line


def test_bind_twice_says_already_assigned() -> None:
    store = _store(node("n0"), node("n1"), pod("web"))
    with serving(store=store, bind=True) as srv:
        assert post(srv.url, "bind", _binding("web", "n0"))[1] == {"Error": ""}
        code, body = post(srv.url, "bind", _binding("web", "n1"))
    assert code == 200 and 'already assigned to node "n0"' in body["Error"]


def test_bind_is_404_unless_enabled_and_400_for_bad_args() -> None:
    store = _store(node("n0"), pod("web"))
    with serving(store=store) as srv:
        code, body = post(srv.url, "bind", _binding("web", "n0"))
        assert code == 404 and "--bind" in body["Error"]
    with serving(store=store, bind=True) as srv:
        code, body = post(srv.url, "bind", {"PodName": 3})
        assert code == 400 and body["Error"].startswith("ExtenderBindingArgs.PodName")
        code, body = post(srv.url, "bind", {"PodName": "web", "PodNamespace": "default", "PodUID": "",
                                            "Node": ""})
        assert code == 400 and "PodName and Node are required" in body["Error"]
    assert store.get("Pod", "default", "web").node_name == ""


def test_bind_without_a_cluster_is_refused() -> None:
    with serving(bind=True) as srv:  # the request view (--no-cache): no API server to write to
        code, body = post(srv.url, "bind", _binding("web", "n0"))
    assert code == 400 and "--no-cache" in body["Error"]


def test_not_ready_until_an_engine_is_set_and_the_store_synced() -> None:
    synced = [False]
    server = ExtenderServer(None, "127.0.0.1", 0, ready=lambda: synced[0]).start()
    try:
        assert get(server.url, "healthz") == (200, "ok")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{server.url}/readyz", timeout=10)
        assert err.value.code == 503
        code, body = post(server.url, "filter", {"Pod": pod("p"), "NodeNames": ["n0"]})
        assert code == 503 and "not synced" in body["Error"]
        server.set_engine(ExtenderEngine(store=_store(node("n0"))))
        assert post(server.url, "filter", {"Pod": pod("p"), "NodeNames": ["n0"]})[0] == 503
        synced[0] = True
        assert get(server.url, "readyz") == (200, "ok")
        code, body = post(server.url, "filter", {"Pod": pod("p"), "NodeNames": ["n0"]})
        assert code == 200 and body["NodeNames"] == ["n0"]
        assert 'kubesched_extender_errors_total{kind="not_ready",verb="filter"} 2.0' in get(
            server.url, "metrics")[1]
    finally:
        server.close()
