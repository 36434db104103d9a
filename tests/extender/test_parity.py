"""Parity: for random small clusters, ``/filter`` + ``/prioritize`` over HTTP agree with
``explain`` on the same cluster and pod: the same nodes rejected with the same code and
reasons, and each feasible node's score is explain's weighted total scaled to 0..10.

``request`` view (``--no-cache``): nodes only, sent as full Node objects. ``store`` view (the
informer mode's path, here over a MemoryStore): bound pods too, nodes sent by name."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.loader import parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.extender import scale_to_extender
from kubesched.framework import Code
from kubesched.scheduler import explain

from .helpers import node, pod, post, serving

ZONES = ("z1", "z2", "z3")


@st.composite
def _nodes(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 5))):
        n = node(f"n{i}", cpu=str(draw(st.integers(1, 8))),
                 labels={"topology.kubernetes.io/zone": draw(st.sampled_from(ZONES)),
                         "disk": draw(st.sampled_from(["ssd", "hdd"]))},
                 taints=draw(st.sampled_from([[], [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                                              [{"key": "spot", "effect": "PreferNoSchedule"}]])),
                 pods=str(draw(st.integers(1, 4))))
        out.append(n)
    return out


@st.composite
def _pending(draw: st.DrawFn) -> dict[str, Any]:
    p = pod("pending", cpu=draw(st.sampled_from(["100m", "1", "2", "3500m"])), labels={"app": "web"})
    spec = p["spec"]
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    if draw(st.booleans()):
        spec["nodeSelector"] = {"disk": "ssd"}
    if draw(st.booleans()):
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": draw(st.integers(1, 100)), "preference": {"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In",
                 "values": [draw(st.sampled_from(ZONES))]}]}}]}}
    if draw(st.booleans()):
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
            "labelSelector": {"matchLabels": {"app": "web"}}}]
    if draw(st.booleans()):
        spec.setdefault("affinity", {})["podAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": draw(st.integers(1, 100)), "podAffinityTerm": {
                    "topologyKey": "topology.kubernetes.io/zone",
                    "labelSelector": {"matchLabels": {"app": "db"}}}}]}
    if draw(st.booleans()):
        spec.setdefault("affinity", {})["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}]}
    return p


@st.composite
def _bound(draw: st.DrawFn, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = [n["metadata"]["name"] for n in nodes]
    return [pod(f"b{i}", cpu=draw(st.sampled_from(["500m", "1", "2"])),
                node_name=draw(st.sampled_from(names)), labels={"app": draw(st.sampled_from(["web", "db"]))})
            for i in range(draw(st.integers(0, 6)))]


def _check(objects: list[dict[str, Any]], nodes: list[dict[str, Any]], pending: dict[str, Any],
           store: MemoryStore | None) -> None:
    e = explain([parse_object(d) for d in [*objects, pending]], "default", "pending")
    names = [n["metadata"]["name"] for n in nodes]
    with serving(store=store) as srv:
        if store is None:
            args: dict[str, Any] = {"Pod": pending, "Nodes": {"items": nodes}}
        else:
            args = {"Pod": pending, "NodeNames": names}
        code, out = post(srv.url, "filter", args)
        assert code == 200, out
        verdicts: dict[str, tuple[Code, str]] = {}
        for n, msg in out["FailedNodes"].items():
            verdicts[n] = (Code.UNSCHEDULABLE, msg)
        for n, msg in out["FailedAndUnresolvableNodes"].items():
            verdicts[n] = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)
        expected = {ne.name: (ne.status.code, ne.status.message()) for ne in e.nodes if not ne.feasible}
        assert verdicts == expected
        feasible = [ne for ne in e.nodes if ne.feasible]
        kept = (out["NodeNames"] if store is not None
                else [n["metadata"]["name"] for n in out["Nodes"]["items"]])
        assert sorted(kept) == sorted(ne.name for ne in feasible)
        if not feasible:
            return
        # kube-scheduler prioritizes the nodes that passed every filter, in its order.
        order = [n for n in names if n in set(kept)]
        if store is None:
            by_name = {n["metadata"]["name"]: n for n in nodes}
            args = {"Pod": pending, "Nodes": {"items": [by_name[n] for n in order]}}
        else:
            args = {"Pod": pending, "NodeNames": order}
        code, scores = post(srv.url, "prioritize", args)
        assert code == 200, scores
    want = dict(zip([ne.name for ne in feasible],
                    scale_to_extender([ne.total_score or 0 for ne in feasible]), strict=True))
    assert {hp["Host"]: hp["Score"] for hp in scores} == want


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_request_view_agrees_with_explain(data: st.DataObject) -> None:
    nodes = data.draw(_nodes())
    _check(nodes, nodes, data.draw(_pending()), None)


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_store_view_agrees_with_explain(data: st.DataObject) -> None:
    nodes = data.draw(_nodes())
    bound = data.draw(_bound(nodes))
    store = MemoryStore(VirtualClock())
    store.load([parse_object(d) for d in [*nodes, *bound]])
    _check([*nodes, *bound], nodes, data.draw(_pending()), store)
