"""DeviceTaintRules on a live cluster: which releases' schedulers watch them and in which version
(the ResourceSlice tracker's rule informer), what happens when the API server does not serve
that version, and the versions the loader reads them from."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

import pytest

from kubesched.api import KubeVersion, parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import NotFound
from kubesched.cluster.live import LIVE_KINDS, Informer, LiveStore, list_kind, watched_kinds
from kubesched.dra import selector_errors
from kubesched.framework import feature_gates_for

RULE = {"kind": "DeviceTaintRule", "metadata": {"name": "maintenance", "resourceVersion": "7"},
        "spec": {"deviceSelector": {"driver": "gpu.example.com", "device": "gpu-0"},
                 "taint": {"key": "maintenance", "effect": "NoSchedule"}}}


@pytest.mark.parametrize(("release", "gates", "version"), [
    pytest.param("1.33", {}, None, id="1.33-dra-off"),
    pytest.param("1.33", {"DynamicResourceAllocation": True}, None, id="1.33-taints-off"),
    pytest.param("1.33", {"DynamicResourceAllocation": True, "DRADeviceTaints": True},
                 "resource.k8s.io/v1alpha3", id="1.33-under-DRADeviceTaints"),
    pytest.param("1.34", {}, None, id="1.34-taints-off"),
    pytest.param("1.34", {"DRADeviceTaints": True}, "resource.k8s.io/v1alpha3",
                 id="1.34-under-DRADeviceTaints"),
    pytest.param("1.35", {"DRADeviceTaints": True}, None, id="1.35-own-gate-off"),
    pytest.param("1.35", {}, None, id="1.35-alpha-off"),
    pytest.param("1.35", {"DRADeviceTaintRules": True}, "resource.k8s.io/v1alpha3", id="1.35-on-v1alpha3"),
    pytest.param("1.36", {}, None, id="1.36-beta-off"),
    pytest.param("1.36", {"DRADeviceTaintRules": True}, "resource.k8s.io/v1beta2", id="1.36-on-v1beta2"),
    pytest.param("1.37", {}, "resource.k8s.io/v1", id="1.37-on-by-default-v1"),
    pytest.param("1.37", {"DRADeviceTaintRules": False}, None, id="1.37-turned-off"),
    pytest.param("1.37", {"DynamicResourceAllocation": False}, None, id="1.37-no-dra"),
])
def test_the_rule_informer_per_release_and_gates(release: str, gates: dict[str, bool],
                                                 version: str | None) -> None:
    kv = KubeVersion.parse(release)
    kinds = watched_kinds(kv, feature_gates_for(kv, gates))
    assert kinds.get("DeviceTaintRule") == version
    assert [k for k in kinds if k != "DeviceTaintRule"] == list(LIVE_KINDS)  # the others always
    assert all(v == "v1" or "/v1" in v for k, v in kinds.items() if k != "DeviceTaintRule")


class _Api:
    """A REST client answering discovery and one list of DeviceTaintRules."""

    def __init__(self, served: Mapping[str, list[str]]) -> None:
        self.served = served
        self.paths: list[str] = []

    def clone(self) -> _Api:  # the live store's event client
        return self

    def request(self, method: str, path: str, body: Any = None, **_: Any) -> Any:
        self.paths.append(path)
        version = path.removeprefix("/apis/").removesuffix("/devicetaintrules")
        if version not in self.served:
            raise NotFound("the server could not find the requested resource")
        if path.endswith("/devicetaintrules"):
            return {"metadata": {"resourceVersion": "9"}, "items": [RULE]}
        return {"kind": "APIResourceList", "resources": [{"name": n} for n in self.served[version]]}


def test_the_rules_are_listed_in_the_release_s_version() -> None:
    api = _Api({"resource.k8s.io/v1beta2": ["deviceclasses", "devicetaintrules"]})
    pages: list[Any] = []
    rv = list_kind(api, "DeviceTaintRule", lambda items, _: pages.extend(items), optional=True,  # type: ignore[arg-type]
                   api_version="resource.k8s.io/v1beta2")
    assert rv == "9" and pages == [RULE]
    assert api.paths == ["/apis/resource.k8s.io/v1beta2", "/apis/resource.k8s.io/v1beta2/devicetaintrules"]


@pytest.mark.parametrize(("served", "why"), [
    pytest.param({}, "resource.k8s.io/v1beta2 is not served by the API server", id="version-off"),
    pytest.param({"resource.k8s.io/v1beta2": ["deviceclasses"]},
                 "resource.k8s.io/v1beta2 is served without devicetaintrules", id="gate-off"),
])
def test_a_version_the_server_does_not_serve_is_one_line_and_no_rules(
        served: dict[str, list[str]], why: str, caplog: pytest.LogCaptureFixture) -> None:
    """Upstream's informer keeps failing to list and the scheduler never syncs; kubesched says
    so once and goes on without rules (listing again every 30 s)."""
    api = _Api(served)
    events: list[Any] = []
    inf = Informer(api, "DeviceTaintRule", threading.RLock(), events.append, optional=True,  # type: ignore[arg-type]
                   api_version="resource.k8s.io/v1beta2")
    with caplog.at_level(logging.WARNING):
        inf.start()
        try:
            assert inf.synced.wait(10)
        finally:
            inf.stop()
            inf.join(5)
    assert inf.items == {} and events == []
    assert [r.getMessage() for r in caplog.records] == [
        f"DeviceTaintRule: resource.k8s.io/v1beta2 cannot be listed ({why}); treating it as empty"]


def test_the_live_store_watches_each_kind_in_the_version_given() -> None:
    kv = KubeVersion.parse("1.35")
    store = LiveStore(_Api({}), VirtualClock(),  # type: ignore[arg-type]
                      watched_kinds(kv, feature_gates_for(kv, {"DRADeviceTaintRules": True})))
    try:
        assert store.informers["DeviceTaintRule"].api_version == "resource.k8s.io/v1alpha3"
        assert store.informers["ResourceSlice"].api_version == "resource.k8s.io/v1"
    finally:
        store.sink.close()


@pytest.mark.parametrize("version", ["resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                                     "resource.k8s.io/v1alpha3"])
def test_rules_are_read_from_every_version_that_has_them(version: str) -> None:
    rule = parse_object({"apiVersion": version, **RULE})
    assert (rule.driver, rule.pool, rule.device) == ("gpu.example.com", None, "gpu-0")


def test_a_1_34_rule_keeps_its_class_and_cel_selectors() -> None:
    """v1alpha3 of 1.33 and 1.34 had deviceClassName and CEL selectors (dropped in 1.35): they
    are read, so that a 1.34 simulation selects as the 1.34 tracker did and a newer one leaves
    the rule out rather than reading it wider; a selector that does not compile is refused as
    the API server's validateDeviceTaintSelector does."""
    sel = {"deviceClassName": "gpu", "selectors": [{"cel": {"expression": "device.driver == 'x'"}}]}
    doc = {"apiVersion": "resource.k8s.io/v1alpha3", **RULE,
           "spec": {"deviceSelector": sel, "taint": {"key": "k", "effect": "NoSchedule"}}}
    rule = parse_object(doc)
    assert (rule.device_class_name, rule.selectors) == ("gpu", ("device.driver == 'x'",))
    assert selector_errors(rule) == []
    bad = parse_object({**doc, "spec": {**doc["spec"], "deviceSelector": {
        "selectors": [{"cel": {"expression": "device.nope("}}]}}})
    (err,) = selector_errors(bad)
    assert err.startswith("spec.deviceSelector.selectors[0].cel.expression: Invalid value")
    with pytest.raises(ValueError, match=r"spec\.deviceSelector\.deviceClassName: Invalid value"):
        parse_object({**doc, "spec": {**doc["spec"], "deviceSelector": {"deviceClassName": "Not_A_Name"}}})
