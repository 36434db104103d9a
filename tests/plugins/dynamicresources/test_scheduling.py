"""DynamicResources inside the scheduler: in-flight allocations keep two pods in a row off the
same device; the queueing hints bring a pod back when its claim is generated or when devices
are freed (not at the five-minute flush)."""

from __future__ import annotations

from typing import Any
from unittest import mock

from kubesched.api import (
    DeviceClass,
    DeviceTaintRule,
    Node,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager
from kubesched.plugins.dynamicresources import DynamicResources
from kubesched.scheduler import Scheduler
from kubesched.testing import make_node

from ._fixtures import CLASS_NAME, NODE_NAME, claim, device_class, resource_slice

FLUSH = 300.0  # unschedulable pods are retried at the latest after this long


def _pod(name: str, claim_name: str | None = None, template: str | None = None) -> Pod:
    entry: dict[str, Any] = {"name": "gpu"}
    if template is not None:
        entry["resourceClaimTemplateName"] = template
    else:
        entry["resourceClaimName"] = claim_name or name
    return Pod.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}], "resourceClaims": [entry]},
        }
    )


def _template() -> ResourceClaimTemplate:
    return ResourceClaimTemplate.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one", "namespace": "default"},
            "spec": {
                "spec": {
                    "devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": CLASS_NAME}}]}
                }
            },
        }
    )


def _cluster(devices: int, *objs: Any) -> tuple[MemoryStore, Scheduler, ControllerManager]:
    clock = VirtualClock()
    store = MemoryStore(clock)
    node: Node = make_node().name(NODE_NAME).obj()
    slice_ = resource_slice(NODE_NAME, devices=[f"dev-{i}" for i in range(devices)])
    store.load([node, DeviceClass.from_dict(device_class()), ResourceSlice.from_dict(slice_), *objs])
    sched = Scheduler(store, clock)
    mgr = ControllerManager(store, clock)
    mgr.start()
    return store, sched, mgr


def _devices(store: MemoryStore) -> dict[str, list[str]]:
    out = {}
    for c in store.list("ResourceClaim"):
        if c.allocation is not None:
            out[c.meta.name] = [r.device for r in c.allocation.results]
    return out


def test_two_pods_in_a_row_never_share_a_device() -> None:
    claims = [ResourceClaim.from_dict(claim(f"c{i}", owner=None)) for i in range(3)]
    store, sched, _ = _cluster(2, *claims, *(_pod(f"p{i}", f"c{i}") for i in range(3)))
    sched.schedule_pending()  # every pod's cycle before any binding cycle: allocations in flight
    sched.run_until_idle()
    bound = {p.name: p.node_name for p in store.list("Pod")}
    assert sorted(n for n in bound.values() if n) == [NODE_NAME, NODE_NAME]
    devices = _devices(store)
    assert sorted(d for ds in devices.values() for d in ds) == ["dev-0", "dev-1"]
    (waiting,) = [p for p in store.list("Pod") if not p.node_name]
    assert "cannot allocate all claims" in (waiting.condition("PodScheduled") or {}).get("message", "")


def test_pod_waits_for_its_generated_claim() -> None:
    store, sched, mgr = _cluster(1, _pod("p", template="one"))
    sched.run_until_idle()
    assert not store.get("Pod", "default", "p").node_name  # PreEnqueue: ResourceClaim not created yet
    start = mgr.clock.now
    store.create(_template())
    sched.run_until_idle()
    assert store.get("Pod", "default", "p").node_name == NODE_NAME
    assert mgr.clock.now - start < FLUSH


def test_freed_device_wakes_the_waiting_pod() -> None:
    store, sched, mgr = _cluster(1, _template(), _pod("first", template="one"))
    sched.run_until_idle()
    assert store.get("Pod", "default", "first").node_name == NODE_NAME
    store.create(_pod("second", template="one"))
    sched.run_until_idle()
    assert not store.get("Pod", "default", "second").node_name
    start = mgr.clock.now
    store.delete("Pod", "default", "first", grace_period_seconds=0)
    sched.run_until_idle()
    assert store.get("Pod", "default", "second").node_name == NODE_NAME
    assert mgr.clock.now - start < FLUSH
    assert list(_devices(store).values()) == [["dev-0"]]


def test_device_taint_rule_taints_and_its_removal_wakes_the_pod() -> None:
    """DeviceTaintRules taint the devices they select (the pod does not tolerate it); deleting
    the rule reaches the queue as a ResourceSlice update (upstream's slice tracker)."""
    rule = DeviceTaintRule.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceTaintRule",
            "metadata": {"name": "maintenance"},
            "spec": {
                "deviceSelector": {"device": "dev-0"},
                "taint": {"key": "maintenance", "effect": "NoSchedule"},
            },
        }
    )
    store, sched, mgr = _cluster(1, rule, _template(), _pod("p", template="one"))
    sched.run_until_idle(until=mgr.clock.now + 10)
    pod = store.get("Pod", "default", "p")
    assert not pod.node_name
    assert "cannot allocate all claims" in (pod.condition("PodScheduled") or {}).get("message", "")
    start = mgr.clock.now
    store.delete("DeviceTaintRule", "", "maintenance")
    sched.run_until_idle()
    assert store.get("Pod", "default", "p").node_name == NODE_NAME
    assert mgr.clock.now - start < FLUSH


def _rule(name: str, **selector: str) -> DeviceTaintRule:
    return DeviceTaintRule.from_dict({
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": name},
        "spec": {"deviceSelector": selector, "taint": {"key": name, "effect": "NoSchedule"}}})


def test_only_a_rule_change_that_changes_a_slice_wakes_the_pod() -> None:
    """The slice tracker reports a rule's add, update or delete as updates of the slices whose
    patched copy changed (deviceTaintAdd/Update/Delete, syncSlice): a rule selecting no
    device, or an update that keeps selector and taint, requeues nothing; a rule tainting a
    device (even one that cannot help) is a ResourceSlice update, and DynamicResources
    registers those without a hint."""
    store, sched, mgr = _cluster(1, _rule("maintenance", device="dev-0"), _template(),
                                 _pod("p", template="one"))
    sched.run_until_idle(until=mgr.clock.now + 10)
    assert not store.get("Pod", "default", "p").node_name

    def waiting() -> str:
        return sched.queue.pending_pods()[1]

    assert waiting() == "activeQ:0; backoffQ:0; unschedulablePods:1"
    store.create(_rule("elsewhere", driver="other.example.com"))  # selects no device
    other = store.get("DeviceTaintRule", "", "maintenance")
    store.update(DeviceTaintRule.from_dict({**other.raw, "metadata": {
        **other.raw["metadata"], "labels": {"seen": "yes"}}}))  # selector and taint unchanged
    store.delete("DeviceTaintRule", "", "elsewhere")
    assert waiting() == "activeQ:0; backoffQ:0; unschedulablePods:1"
    store.create(_rule("more", device="dev-0"))  # a second taint on the device
    assert waiting().endswith("unschedulablePods:0")  # moved to activeQ (its backoff is over)


def test_claim_events_ask_only_the_pods_of_the_claim() -> None:
    """isSchedulableAfterClaimChange / isSchedulableAfterPodChange can only queue the pods that
    own or name the claim (the updated pod itself): the queue reaches those pods through the
    plugin's candidates instead of asking the hint of every waiting pod, so generating claims
    for N waiting pods costs O(N) hint calls, not O(N^2); every pod still gets its device."""
    n = 30
    calls: list[str] = []
    claim_hint = DynamicResources.is_schedulable_after_claim_change
    pod_hint = DynamicResources.is_schedulable_after_pod_change

    def counting(hint: Any) -> Any:
        def wrapped(self: DynamicResources, pod: Pod, old: Any, new: Any) -> Any:
            calls.append(pod.name)
            return hint(self, pod, old, new)
        return wrapped

    with mock.patch.object(DynamicResources, "is_schedulable_after_claim_change", counting(claim_hint)), \
            mock.patch.object(DynamicResources, "is_schedulable_after_pod_change", counting(pod_hint)):
        store, sched, _ = _cluster(n, *(_pod(f"p{i:02}", template="one") for i in range(n)))
        sched.run_until_idle()
        assert not any(p.node_name for p in store.list("Pod"))  # PreEnqueue: no claims yet
        store.create(_template())
        sched.run_until_idle()
    assert all(p.node_name == NODE_NAME for p in store.list("Pod"))
    assert sorted(d for ds in _devices(store).values() for d in ds) == sorted(f"dev-{i}" for i in range(n))
    assert len(calls) <= 3 * n


def test_pod_naming_a_claim_wakes_when_it_is_created() -> None:
    """A claim named by ``resourceClaimName`` has no owner pod: every waiting pod stays a
    candidate of its events (here the one gated until the claim exists)."""
    store, sched, mgr = _cluster(1, _pod("p", "shared"))
    sched.run_until_idle()
    assert not store.get("Pod", "default", "p").node_name
    start = mgr.clock.now
    store.create(ResourceClaim.from_dict(claim("shared", owner=None)))
    sched.run_until_idle()
    assert store.get("Pod", "default", "p").node_name == NODE_NAME
    assert mgr.clock.now - start < FLUSH


def test_directly_named_claims_are_forgotten_with_their_pods() -> None:
    """The plugin's table of directly named claims (which keeps every waiting pod a candidate
    of such a claim's events) follows the pods: 200 pods, each naming its own claim, come and
    go with their claims; afterwards the table holds about the pods still there, not all 200
    names (it used to keep every name ever seen)."""
    store, sched, _ = _cluster(1)
    plugin = sched.profiles["default-scheduler"].plugins_map["DynamicResources"]
    for i in range(200):
        store.create(ResourceClaim.from_dict(claim(f"c{i}", owner=None)))
        store.create(_pod(f"p{i}", f"c{i}"))
        sched.run_until_idle()
        assert store.get("Pod", "default", f"p{i}").node_name == NODE_NAME
        store.delete("Pod", "default", f"p{i}", grace_period_seconds=0)
        store.delete("ResourceClaim", "default", f"c{i}")
        sched.run_until_idle()
    assert len(plugin.named_claims) < 70
    # A pod still waiting for its named claim keeps it, and is woken when it appears.
    store.create(_pod("late", "c-late"))
    sched.run_until_idle()
    assert ("default", "c-late") in plugin.named_claims
    store.create(ResourceClaim.from_dict(claim("c-late", owner=None)))
    sched.run_until_idle()
    assert store.get("Pod", "default", "late").node_name == NODE_NAME
