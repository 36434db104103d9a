"""DeviceTaintRules as each release's scheduler applies them: under DRADeviceTaints in 1.33 and
1.34, selecting by deviceClassName and CEL selectors too (kubernetes#130447); under
DRADeviceTaintRules from 1.35, by driver, pool and device only (kubernetes#134152); a rule
without a deviceSelector taints every device (the tracker's applyPatches)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kubesched.api import DeviceClass, DeviceTaintRule, KubeVersion, Pod, ResourceClaim, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework.config import default_config
from kubesched.plugins.helper.dra import manager_for
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node

from ._fixtures import CLASS_NAME, DRIVER, NODE_NAME, claim, device_class, resource_slice

GPU_CLASS = "gpu-class"


def _rule(selector: Mapping[str, Any] | None) -> DeviceTaintRule:
    spec: dict[str, Any] = {"taint": {"key": "maintenance", "effect": "NoSchedule"}}
    if selector is not None:
        spec["deviceSelector"] = selector
    return DeviceTaintRule.from_dict({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
                                      "metadata": {"name": "maintenance"}, "spec": spec})


def _pod() -> Pod:
    meta = {"name": "p", "namespace": "default"}
    return Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                          "spec": {"containers": [{"name": "c", "image": "i"}],
                                   "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]}})


def _allocated(release: str, gates: Mapping[str, bool], rule: DeviceTaintRule) -> list[str]:
    """The devices the claim (any device of the class) gets as ``release`` with ``gates``:
    dev-0 (model "a") and dev-1 (model "b")."""
    clock = VirtualClock()
    store = MemoryStore(clock)
    devices = [("dev-0", {"model": {"string": "a"}}), ("dev-1", {"model": {"string": "b"}})]
    store.load([
        make_node().name(NODE_NAME).obj(),
        DeviceClass.from_dict(device_class()),
        DeviceClass.from_dict(device_class(GPU_CLASS, [f'device.attributes["{DRIVER}"].model == "a"'])),
        ResourceSlice.from_dict(resource_slice(NODE_NAME, devices=devices)),
        rule, ResourceClaim.from_dict(claim("c", owner=None)), _pod(),
    ])
    kv = KubeVersion.parse(release)
    features = {"DynamicResourceAllocation": True, **gates}
    sched = Scheduler(store, clock, config=default_config(features, kube_version=kv),
                      options=SchedulerOptions(features=features))
    sched.run_until_idle(until=clock.now + 10)
    c = store.get("ResourceClaim", "default", "c")
    return [r.device for r in c.allocation.results] if c.allocation is not None else []


BOTH = {"DRADeviceTaints": True, "DRADeviceTaintRules": True}  # 1.35: taints honoured, rules applied
BY_CLASS = {"deviceClassName": GPU_CLASS}
BY_CEL = {"selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a"'}}]}


@pytest.mark.parametrize(("release", "gates", "selector", "devices"), [
    # 1.33/1.34: the rule informer runs under DRADeviceTaints; class and CEL select.
    pytest.param("1.34", {"DRADeviceTaints": True}, BY_CLASS, ["dev-1"], id="1.34-by-class"),
    pytest.param("1.34", {"DRADeviceTaints": True}, BY_CEL, ["dev-1"], id="1.34-by-cel"),
    pytest.param("1.33", {"DRADeviceTaints": True}, BY_CLASS, ["dev-1"], id="1.33-by-class"),
    pytest.param("1.34", {"DRADeviceTaints": True}, {"deviceClassName": "missing"}, ["dev-0"],
                 id="1.34-class-missing-selects-nothing"),
    pytest.param("1.34", {"DRADeviceTaints": True}, {"device": "dev-0"}, ["dev-1"], id="1.34-by-name"),
    pytest.param("1.34", {}, {"device": "dev-0"}, ["dev-0"], id="1.34-gate-off"),
    # 1.35: its own gate; the 1.34 fields are gone, so such a rule selects nothing here.
    pytest.param("1.35", {"DRADeviceTaints": True}, {"device": "dev-0"}, ["dev-0"], id="1.35-own-gate-off"),
    pytest.param("1.35", BOTH, {"device": "dev-0"}, ["dev-1"], id="1.35-by-name"),
    pytest.param("1.35", BOTH, BY_CLASS, ["dev-0"], id="1.35-class-field-gone"),
])
def test_rules_select_as_each_release_did(release: str, gates: dict[str, bool], selector: dict[str, Any],
                                          devices: list[str]) -> None:
    assert _allocated(release, gates, _rule(selector)) == devices


@pytest.mark.parametrize(("release", "gates"), [("1.34", {"DRADeviceTaints": True}),
                                                ("1.37", {})])
def test_a_rule_without_a_device_selector_taints_every_device(release: str, gates: dict[str, bool]) -> None:
    """validateDeviceTaintSelector accepts a nil deviceSelector and applyPatches then taints every
    device (the API comment's "without a selector, no devices are matched" is not what the code
    does): the claim gets no device."""
    rule = _rule(None)
    assert (rule.driver, rule.pool, rule.device, rule.device_class_name, rule.selectors) == (
        None, None, None, None, ())
    assert _allocated(release, gates, rule) == []


def test_slices_listed_for_1_34_rules_follow_class_changes() -> None:
    """The 1.34 tracker re-syncs every slice on a DeviceClass event: a rule naming a class that
    does not exist yet taints nothing, and once the class exists its devices are tainted (the
    manager's listing is not kept across a class change)."""
    store = MemoryStore(VirtualClock())
    store.load([ResourceSlice.from_dict(resource_slice(NODE_NAME, devices=["dev-0"])),
                _rule({"deviceClassName": GPU_CLASS})])
    mgr = manager_for(store)

    def taints() -> list[str]:
        return [t.key for s in mgr.list_slices(True, True) for d in s.devices for t in d.taints]

    assert taints() == []
    store.create(DeviceClass.from_dict(device_class(GPU_CLASS)))
    assert taints() == ["maintenance"]
    assert [t.key for s in mgr.list_slices(True, False) for d in s.devices for t in d.taints] == []


def test_a_1_34_rule_event_requeues_when_its_class_selects_a_device() -> None:
    """As 1.34 a rule event is a ResourceSlice update only when the rule, class and CEL
    selection included, changes a slice's devices (the tracker's syncSlice): a rule whose class
    selects no device requeues nothing, one whose class selects a device does."""
    clock = VirtualClock()
    store = MemoryStore(clock)
    store.load([
        make_node().name(NODE_NAME).obj(),
        DeviceClass.from_dict(device_class()),
        DeviceClass.from_dict(device_class("none", ['device.attributes["other"].model == "a"'])),
        ResourceSlice.from_dict(resource_slice(NODE_NAME, devices=[("dev-0", {"model": {"string": "a"}})])),
        _rule({"device": "dev-0"}), ResourceClaim.from_dict(claim("c", owner=None)), _pod(),
    ])
    features = {"DynamicResourceAllocation": True, "DRADeviceTaints": True}
    sched = Scheduler(store, clock, config=default_config(features, kube_version=KubeVersion(1, 34)),
                      options=SchedulerOptions(features=features))
    sched.run_until_idle(until=clock.now + 10)
    assert sched.queue.pending_pods()[1] == "activeQ:0; backoffQ:0; unschedulablePods:1"

    def rule(name: str, class_name: str) -> DeviceTaintRule:
        return DeviceTaintRule.from_dict({
            "apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": {"deviceClassName": class_name},
                     "taint": {"key": name, "effect": "NoSchedule"}}})

    store.create(rule("selects-nothing", "none"))
    assert sched.queue.pending_pods()[1] == "activeQ:0; backoffQ:0; unschedulablePods:1"
    store.create(rule("selects-dev-0", CLASS_NAME))
    assert sched.queue.pending_pods()[1].endswith("unschedulablePods:0")
