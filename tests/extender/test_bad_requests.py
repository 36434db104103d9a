"""Bad requests get a 4xx with ``Error`` in the result, never a crash or a hang; the server
keeps serving after each."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import ExtenderServer
from kubesched.framework import Code, PluginBase, Status
from kubesched.framework.config import from_dict

from .helpers import example_config, get, node, pod, post, serving

GOOD = {"Pod": pod("p"), "Nodes": {"items": [node("a")]}}


@pytest.fixture(scope="module")
def srv() -> Iterator[ExtenderServer]:
    with serving(example_config(), max_request_bytes=64_000, read_timeout=0.5) as s:
        yield s


def _still_serving(srv: ExtenderServer) -> None:
    code, out = post(srv.url, "filter", GOOD)
    assert code == 200 and out["Error"] == ""


@pytest.mark.parametrize(("verb", "doc", "message"), [
    pytest.param("filter", None, "ExtenderArgs: want a JSON object, got null", id="null"),
    pytest.param("filter", [], "ExtenderArgs: want a JSON object, got an array", id="array"),
    pytest.param("filter", {"Nodes": {"items": []}}, "ExtenderArgs.Pod: missing", id="no-pod"),
    pytest.param("filter", {"Pod": "p", "Nodes": None}, "ExtenderArgs.Pod: want a JSON object, got a string",
                 id="pod-string"),
    pytest.param("filter", {"Pod": pod("p"), "NodeNames": 3}, "ExtenderArgs.NodeNames: want a JSON array",
                 id="names-number"),
    pytest.param("filter", {"Pod": pod("p"), "NodeNames": ["a", 1]},
                 "ExtenderArgs.NodeNames[1]: want a string", id="name-number"),
    pytest.param("filter", {"Pod": pod("p"), "Nodes": {"items": ["a"]}},
                 "ExtenderArgs.Nodes.items[0]: want a JSON object", id="node-string"),
    pytest.param("prioritize", {"Pod": pod("p", cpu="lots"), "Nodes": {"items": [node("a")]}},
                 "ExtenderArgs.Pod: ", id="bad-quantity"),
    pytest.param("filter", {"Pod": pod("p"), "Nodes": {"items": [node("a"), node("a")]}},
                 'node "a" is listed twice', id="duplicate-node"),
    pytest.param("filter", {"Pod": pod("p"), "NodeNames": ["a"]},
                 "needs full Node objects (nodeCacheCapable: false)", id="names-without-cache"),
    pytest.param("preempt", {"Pod": pod("p"), "NodeNameToVictims": {"n": {"Pods": "x"}}},
                 "ExtenderPreemptionArgs.NodeNameToVictims[n].Pods: want a JSON array", id="victims"),
    pytest.param("preempt", {"Pod": pod("p"), "NodeNameToMetaVictims": {"n": {"NumPDBViolations": "1"}}},
                 "NumPDBViolations: want an integer", id="violations-string"),
])
def test_wrong_shapes_are_400_with_error(srv: ExtenderServer, verb: str, doc: Any, message: str) -> None:
    code, out = post(srv.url, verb, doc)
    assert code == 400
    assert message in out["Error"]
    if verb == "filter":  # the result type itself, with only Error set
        assert out["Nodes"] is None and out["FailedNodes"] == {}
    _still_serving(srv)


def test_malformed_json(srv: ExtenderServer) -> None:
    for raw in (b"{", b"", b"\xff\xfe", b'{"Pod": }'):
        code, out = post(srv.url, "prioritize", raw=raw)
        assert code == 400 and out["Error"].startswith("malformed JSON"), raw
    _still_serving(srv)


def test_unknown_node_name_in_the_store_view() -> None:
    store = MemoryStore(VirtualClock())
    store.load([parse_object(node("a"))])
    with serving(store=store) as s:
        code, out = post(s.url, "filter", {"Pod": pod("p"), "NodeNames": ["a", "ghost"]})
    assert code == 400 and out["Error"] == 'node "ghost" not found'


def test_too_large_is_413_without_reading_it(srv: ExtenderServer) -> None:
    big = json.dumps({"Pod": pod("p"), "Nodes": {"items": [node(f"n{i}") for i in range(400)]}}).encode()
    assert len(big) > 64_000
    code, out = post(srv.url, "filter", raw=big)
    assert code == 413 and "larger than the limit of 64000 bytes" in out["Error"]
    _, metrics = get(srv.url, "metrics")
    assert 'kubesched_extender_errors_total{kind="too_large",verb="filter"}' in metrics
    _still_serving(srv)


def _raw_exchange(srv: ExtenderServer, data: bytes) -> bytes:
    host, port = srv.address
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def test_no_content_length_is_411(srv: ExtenderServer) -> None:
    answer = _raw_exchange(srv, b"POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                                b"2\r\n{}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 411")
    _still_serving(srv)


def test_a_client_that_stops_sending_is_dropped(srv: ExtenderServer) -> None:
    # Content-Length promises 1000 bytes, 10 come: the read times out (0.5 s here), a 400.
    answer = _raw_exchange(srv, b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
                                b'{"Pod": {')
    assert answer.startswith(b"HTTP/1.1 400")
    _still_serving(srv)


def test_unknown_path_and_method(srv: ExtenderServer) -> None:
    code, out = post(srv.url, "bind", GOOD)
    assert code == 404 and "no such path" in out["Error"]
    answer = _raw_exchange(srv, b"GET /filter HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 405")
    _still_serving(srv)


class _Broken(PluginBase):
    NAME = "Broken"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        raise RuntimeError("boom")


class _BrokenStatus(PluginBase):
    NAME = "BrokenStatus"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        return Status(Code.ERROR, "cannot judge")


@pytest.mark.parametrize("plugin", ["_Broken", "_BrokenStatus"])
def test_a_failing_plugin_is_500_with_error(plugin: str) -> None:
    cfg = from_dict({"profiles": [{"schedulerName": "default-scheduler", "plugins": {
        "filter": {"enabled": [{"name": f"{__name__}:{plugin}"}]}}}]})
    with serving(cfg) as s:
        code, out = post(s.url, "filter", GOOD)
        assert code == 500 and out["Error"]
        assert get(s.url, "healthz") == (200, "ok")


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                         st.sampled_from(["Pod", "Nodes", "NodeNames", "items", "metadata", "spec", "name",
                                          "containers", "NodeNameToVictims", "Pods", "UID"]),
                         inner, max_size=4),
                     max_leaves=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(verb=st.sampled_from(["filter", "prioritize", "preempt"]), doc=_json)
def test_any_json_is_answered_200_or_400(srv: ExtenderServer, verb: str, doc: Any) -> None:
    code, out = post(srv.url, verb, doc)
    assert code in (200, 400), (code, out)
    if code == 400:
        assert out["Error"]


def test_keep_alive_serves_requests_in_turn_on_one_connection(srv: ExtenderServer) -> None:
    body = json.dumps(GOOD).encode()
    request = (b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(len(body)).encode()
               + b"\r\n\r\n" + body)
    host, port = srv.address
    with socket.create_connection((host, port), timeout=10) as sock:
        for _ in range(2):  # the connection stays open after a 200
            sock.sendall(request)
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(65536)
            header, _, rest = head.partition(b"\r\n\r\n")
            assert header.startswith(b"HTTP/1.1 200") and b"Connection: close" not in header
            length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            while len(rest) < length:
                rest += sock.recv(65536)
            assert json.loads(rest)["Error"] == ""


def test_http_1_0_and_oversized_headers_close_the_connection(srv: ExtenderServer) -> None:
    answer = _raw_exchange(srv, b"GET /healthz HTTP/1.0\r\n\r\n")  # returns only once closed
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
    answer = _raw_exchange(srv, b"GET /healthz HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431")
    answer = _raw_exchange(srv, b"NONSENSE\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400")
    _still_serving(srv)
