"""PreBind waits for device binding conditions (DRADeviceBindingConditions), on the virtual
clock, as upstream's PreBind polls the claims every 5 s up to the binding timeout: the pod is
bound once a driver (here: a status update at a chosen time) reports the conditions, and fails
with upstream's errors when a failure condition is reported or the timeout passes."""

from __future__ import annotations

from typing import Any

from kubesched.api import DeviceClass, Node, Pod, ResourceClaim, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework.config import from_dict
from kubesched.scheduler import Scheduler
from kubesched.testing import make_node

from ._fixtures import NODE_NAME, claim, device_class, device_status, resource_slice


def _pod() -> Pod:
    return Pod.from_dict({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i"}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]},
    })


class _Cluster:
    def __init__(self, binding_timeout: str | None = None) -> None:
        self.clock = VirtualClock()
        self.store = MemoryStore(self.clock)
        node: Node = make_node().name(NODE_NAME).obj()
        self.store.load([node, DeviceClass.from_dict(device_class()),
                         ResourceSlice.from_dict(resource_slice(NODE_NAME, binding=True)),
                         ResourceClaim.from_dict(claim("c", owner=None)), _pod()])
        config = None
        if binding_timeout is not None:
            config = from_dict({
                "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
                    {"name": "DynamicResources", "args": {"bindingTimeout": binding_timeout}}]}]})
        self.sched = Scheduler(self.store, self.clock, config=config)
        self.bound_at: float | None = None
        self.store.subscribe(self._watch)

    def _watch(self, ev: Any) -> None:
        if ev.kind == "Pod" and ev.new is not None and ev.new.node_name and self.bound_at is None:
            self.bound_at = self.clock.now

    def report(self, at: float, conditions: dict[str, str]) -> None:
        """The driver sets the device's conditions at time ``at``."""
        def write() -> None:
            c = self.store.get("ResourceClaim", "default", "c")
            self.store.update_status(c.with_changes({("status", "devices"): [device_status(conditions)]}))
        self.clock.schedule(at, write)

    def claim(self) -> ResourceClaim:
        c: ResourceClaim = self.store.get("ResourceClaim", "default", "c")
        return c

    def reasons(self) -> list[str]:
        return [e.reason for e in self.store.events()]

    def failures(self) -> list[str]:
        return [e.message for e in self.store.events() if e.reason == "FailedScheduling"]


def test_the_pod_is_bound_once_the_driver_reports_the_conditions() -> None:
    c = _Cluster()
    c.report(12.0, {"condition": "True", "failed": "False"})
    c.sched.run_until_idle()
    assert c.store.get("Pod", "default", "p").node_name == NODE_NAME
    assert c.bound_at == 15.0  # the poll after the report (checks at 0, 5, 10, 15)
    assert "BindingConditionsPending" in c.reasons()
    assert [r.uid for r in c.claim().reserved_for] == [c.store.get("Pod", "default", "p").uid]


def test_a_failure_condition_ends_the_wait_with_upstreams_error() -> None:
    c = _Cluster()
    c.report(7.0, {"condition": "False", "failed": "True"})
    c.sched.run_until_idle(until=10.0)
    assert not c.store.get("Pod", "default", "p").node_name
    # The binding cycle failed at 10 s: Unreserve took the pod out of reservedFor; the next
    # attempt finds the claim failed and PostFilter deallocates it for a fresh allocation.
    assert c.claim().reserved_for == ()
    want = 'device binding failed: claim=c, reason=r, message=""'
    assert any(want in m for m in c.failures()), c.failures()


def test_the_wait_ends_at_the_binding_timeout() -> None:
    c = _Cluster(binding_timeout="30s")
    c.sched.run_until_idle(until=29.0)
    assert c.claim().reserved_for  # still waiting, the claim reserved for the pod
    c.sched.run_until_idle(until=31.0)
    assert not c.store.get("Pod", "default", "p").node_name
    assert c.claim().reserved_for == ()
    assert any("device binding timeout: context deadline exceeded" in m for m in c.failures()), c.failures()


def test_a_binding_timeout_under_one_second_is_refused() -> None:
    import pytest

    from kubesched.framework import ArgsError

    with pytest.raises((ArgsError, ValueError), match='bindingTimeout: Invalid value: "500ms": must be'):
        _Cluster(binding_timeout="0.5s")
