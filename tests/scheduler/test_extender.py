"""The HTTP extender client against a real local extender (extender.go, extender/v1 JSON)."""

from __future__ import annotations

import pytest

from kubesched.cache import NodeInfo
from kubesched.scheduler._extender import (
    ExtenderConfig,
    ExtenderError,
    HTTPExtender,
    Victims,
    parse_duration,
)
from kubesched.testing.wrappers import make_node, make_pod

from .extender_server import ExtenderBehaviour, running_extender

NODES = [NodeInfo.of(make_node().name(f"n{i}").capacity({"cpu": "4"}).obj()) for i in range(3)]
POD = make_pod().name("p").uid("p-uid").req({"cpu": "1"}).obj()


def _ext(url: str, **kw: object) -> HTTPExtender:
    d = {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 2,
         "bindVerb": "bind", "preemptVerb": "preempt", **kw}
    return HTTPExtender(ExtenderConfig.from_dict(d))


@pytest.mark.parametrize("cache_capable", [False, True], ids=["full-nodes", "nodeCacheCapable"])
def test_filter(cache_capable: bool) -> None:
    b = ExtenderBehaviour(reject={"n1": "no n1"}, unresolvable={"n2": "never n2"})
    with running_extender(b) as url:
        ext = _ext(url, nodeCacheCapable=cache_capable)
        feasible, failed, unresolvable = ext.filter(POD, NODES)
    assert [n.name for n in feasible] == ["n0"]
    assert feasible[0] is NODES[0]
    assert failed == {"n1": "no n1"}
    assert unresolvable == {"n2": "never n2"}
    verb, args = b.requests[0]
    assert verb == "filter"
    assert args["Pod"]["metadata"]["name"] == "p"
    if cache_capable:
        assert args["NodeNames"] == ["n0", "n1", "n2"] and args["Nodes"] is None
    else:
        assert [n["metadata"]["name"] for n in args["Nodes"]["items"]] == ["n0", "n1", "n2"]
        assert args["NodeNames"] is None


def test_prioritize_returns_scores_and_weight() -> None:
    b = ExtenderBehaviour(scores={"n0": 3, "n2": 10})
    with running_extender(b) as url:
        scores, weight = _ext(url).prioritize(POD, NODES)
    assert scores == [("n0", 3), ("n1", 0), ("n2", 10)]
    assert weight == 2


def test_no_verbs_means_no_calls() -> None:
    ext = HTTPExtender(ExtenderConfig(url_prefix="http://127.0.0.1:1/none"))
    assert ext.filter(POD, NODES) == (list(NODES), {}, {})
    assert ext.prioritize(POD, NODES) == ([("n0", 0), ("n1", 0), ("n2", 0)], 0)
    assert not (ext.is_filter() or ext.is_prioritizer() or ext.is_binder() or ext.supports_preemption())


def test_http_error_and_result_error() -> None:
    with running_extender(ExtenderBehaviour(fail_with=500)) as url, pytest.raises(ExtenderError) as e:
        _ext(url).filter(POD, NODES)
    assert "failed filter with extender at URL" in str(e.value) and "code 500" in str(e.value)
    with running_extender(ExtenderBehaviour(error="boom")) as url, pytest.raises(ExtenderError, match="boom"):
        _ext(url).filter(POD, NODES)


def test_unreachable_extender_is_an_error() -> None:
    ext = _ext("http://127.0.0.1:9/nothing", httpTimeout="1s")
    with pytest.raises(ExtenderError):
        ext.filter(POD, NODES)


def test_bind_sends_binding_args() -> None:
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        _ext(url).bind(POD, "n1")
    assert b.bound == [{"PodName": "p", "PodNamespace": "default", "PodUID": "p-uid", "Node": "n1"}]


@pytest.mark.parametrize("cache_capable", [False, True], ids=["victims", "meta-victims"])
def test_process_preemption_maps_uids_back_to_pods(cache_capable: bool) -> None:
    victim = make_pod().name("v").uid("v-uid").node("n0").obj()
    ni = NodeInfo.of(NODES[0].node, [victim])
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        out = _ext(url, nodeCacheCapable=cache_capable).process_preemption(
            POD, {"n0": Victims([victim], 1)}, lambda name: ni if name == "n0" else None)
    assert list(out) == ["n0"]
    assert out["n0"].pods == [victim] and out["n0"].num_pdb_violations == 1


@pytest.mark.parametrize(("managed", "requests", "want"), [
    pytest.param([], {"cpu": "1"}, True, id="no managed resources: every pod"),
    pytest.param([{"name": "example.com/gpu"}], {"cpu": "1"}, False, id="pod without the resource"),
    pytest.param([{"name": "example.com/gpu"}], {"example.com/gpu": "1"}, True, id="pod requesting it"),
])
def test_is_interested(managed: list[dict[str, str]], requests: dict[str, str], want: bool) -> None:
    ext = HTTPExtender(ExtenderConfig.from_dict({"urlPrefix": "http://x", "managedResources": managed}))
    assert ext.is_interested(make_pod().name("p").req(requests).obj()) is want


@pytest.mark.parametrize(("value", "want"), [
    ("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), (5, 5.0), (None, 0.0), ("0", 0.0)])
def test_parse_duration(value: object, want: float) -> None:
    assert parse_duration(value) == want


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"extenders\[0\]\.weight"):
        ExtenderConfig.from_dict({"urlPrefix": "http://x", "prioritizeVerb": "p"})
    with pytest.raises(ValueError, match=r"extenders\[0\]\.bogus"):
        ExtenderConfig.from_dict({"urlPrefix": "http://x", "bogus": 1})
    with pytest.raises(ValueError, match="httpTimeout"):
        ExtenderConfig.from_dict({"urlPrefix": "http://x", "httpTimeout": "soon"})
