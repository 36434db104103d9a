"""Preemption with claims (DRAPreemption, upstream's PreFilterExtensions of DynamicResources):
a dry run that removes a victim frees the devices of the claims only it used. Off by default,
as upstream (alpha in 1.37): then the victims' devices stay in use and no pod is preempted
for a device.

The preemptor is nominated at once, and bound to the freed device by the queue's 5-minute
leftover flush: gated by DefaultPreemption while its preemption ran, it hears no later event
its plugins registered (the victim's deletion concerns no hint of DynamicResources, and the
claim's deallocation no event of the gating plugin); the flush re-runs PreEnqueue (kubernetes
PR 139162). Parked at t=0, it is retried at the first 30 s tick after 300 s."""

from __future__ import annotations

from typing import Any

from kubesched.api import NEWEST_KUBE_VERSION, DeviceClass, Node, Pod, ResourceClaim, ResourceSlice
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing import make_node

from ._fixtures import NODE_NAME, claim, device_class, resource_slice


def _pod(name: str, priority: int, *claims: str) -> Pod:
    return Pod.from_dict({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"priority": priority,
                 "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}],
                 "resourceClaims": [{"name": f"r{i}", "resourceClaimName": c} for i, c in enumerate(claims)]},
    })


class _Cluster:
    def __init__(self, gates: dict[str, bool], devices: int = 1) -> None:
        self.clock = VirtualClock()
        self.store = MemoryStore(self.clock)
        node: Node = make_node().name(NODE_NAME).capacity({"cpu": "8", "memory": "8Gi", "pods": "110"}).obj()
        slice_ = resource_slice(NODE_NAME, devices=[f"dev-{i}" for i in range(devices)])
        self.store.load([node, DeviceClass.from_dict(device_class()), ResourceSlice.from_dict(slice_)])
        self.sched = Scheduler(self.store, self.clock, options=SchedulerOptions(features=gates))
        ControllerManager(self.store, self.clock).start()

    def add(self, *objs: Any, until: float | None = None) -> None:
        for o in objs:
            self.store.create(o)
        self.sched.run_until_idle(until=until)

    def claim(self, name: str) -> ResourceClaim:
        return ResourceClaim.from_dict(claim(name, owner=None))

    def node_of(self, name: str) -> str | None:
        pod = self.store.try_get("Pod", "default", name)
        return None if pod is None else pod.node_name

    def nominated(self, name: str) -> str:
        return str(self.store.get("Pod", "default", name).nominated_node_name or "")

    def allocated(self) -> dict[str, list[str]]:
        return {cl.meta.name: [r.device for r in cl.allocation.results]
                for cl in self.store.list("ResourceClaim") if cl.allocation is not None}


ON = {"DRAPreemption": True}
BEFORE_FLUSH = 329.0
"""The preemption is over, the preemptor still parked: the leftover flush is due at 330 s."""


def test_a_preemptor_needing_the_device_of_a_lower_priority_pod_preempts_it() -> None:
    c = _Cluster(ON)
    c.add(c.claim("c-low"), _pod("low", 0, "c-low"))
    assert c.node_of("low") == NODE_NAME
    assert c.allocated() == {"c-low": ["dev-0"]}
    c.add(c.claim("c-high"), _pod("high", 100, "c-high"), until=BEFORE_FLUSH)
    assert c.node_of("low") is None  # preempted; the controller deallocated its claim when it was gone
    assert c.nominated("high") == NODE_NAME and not c.node_of("high")
    assert c.allocated() == {}
    c.sched.run_until_idle()
    assert c.node_of("high") == NODE_NAME and c.clock.now == 330.0
    assert c.allocated() == {"c-high": ["dev-0"]}  # the victim's device


def test_without_the_gate_the_victims_devices_are_not_counted() -> None:
    """Upstream's default: RemovePod is a no-op, DRA's rejection is unresolvable."""
    c = _Cluster({})
    c.add(c.claim("c-low"), _pod("low", 0, "c-low"))
    c.add(c.claim("c-high"), _pod("high", 100, "c-high"))
    assert c.node_of("low") == NODE_NAME
    assert not c.node_of("high")
    events = [e.message for e in c.store.events() if e.reason == "FailedScheduling"]
    assert any("cannot allocate all claims" in m and "Preemption is not helpful" in m for m in events), events


def test_a_claim_shared_with_a_surviving_pod_is_not_freed() -> None:
    """low and keeper share c-shared; keeper outranks the preemptor, so removing low in the dry
    run leaves the claim reserved: its device is not free and nobody is preempted."""
    c = _Cluster(ON)
    c.add(c.claim("c-shared"), _pod("low", 0, "c-shared"), _pod("keeper", 200, "c-shared"))
    assert c.node_of("low") == NODE_NAME and c.node_of("keeper") == NODE_NAME
    c.add(c.claim("c-high"), _pod("high", 100, "c-high"))
    assert c.node_of("low") == NODE_NAME
    assert not c.node_of("high") and not c.nominated("high")


def test_every_user_of_a_shared_claim_preempted_frees_it() -> None:
    """Both users of c-shared rank below the preemptor: both go, and the device with them."""
    c = _Cluster(ON)
    c.add(c.claim("c-shared"), _pod("low-a", 0, "c-shared"), _pod("low-b", 1, "c-shared"))
    c.add(c.claim("c-high"), _pod("high", 100, "c-high"), until=BEFORE_FLUSH)
    assert c.node_of("low-a") is None and c.node_of("low-b") is None
    assert c.nominated("high") == NODE_NAME and c.allocated() == {}
    c.sched.run_until_idle()
    assert c.node_of("high") == NODE_NAME and c.allocated() == {"c-high": ["dev-0"]}


def test_only_the_victim_holding_the_needed_device_goes() -> None:
    """Two devices held by two lower-priority pods; the preemptor needs one: the dry run removes
    both, and the reprieve loop keeps the pod it can add back without taking the last device."""
    c = _Cluster(ON, devices=2)
    c.add(c.claim("c-a"), _pod("low-a", 0, "c-a"), c.claim("c-b"), _pod("low-b", 5, "c-b"))
    before = c.allocated()
    c.add(c.claim("c-high"), _pod("high", 100, "c-high"), until=BEFORE_FLUSH)
    assert c.nominated("high") == NODE_NAME
    # The reprieve loop adds back the most important pod first (low-b, its device in use again)
    # and keeps it; adding low-a back would take the last device.
    assert c.node_of("low-a") is None and c.node_of("low-b") == NODE_NAME
    assert set(c.allocated()) == {"c-b"}
    c.sched.run_until_idle()
    assert c.node_of("high") == NODE_NAME
    assert c.allocated() == {"c-b": before["c-b"], "c-high": before["c-a"]}  # low-a's device


def test_dry_run_removal_and_restore_are_symmetric_for_shares_and_capacity() -> None:
    """upstream's TestPreemptionSimulationSymmetry (consumable-capacity-remove-add, shared claims
    removed and added back in either order) through the plugin's PreFilterExtensions: removing
    every user of a claim frees its device (a share and its consumed capacity, or the whole
    device), adding one back restores exactly the state before; clones are independent."""
    from fractions import Fraction

    from kubesched.cache import NodeInfo, PodInfo
    from kubesched.dra.structured import DeviceID, SharedDeviceID
    from kubesched.framework import CycleState
    from kubesched.plugins.dynamicresources import DynamicResources

    clock = VirtualClock()
    store = MemoryStore(clock)
    node: Node = make_node().name(NODE_NAME).obj()
    share = {"request": "req-1", "driver": "some-driver", "pool": NODE_NAME, "device": "instance-1",
             "shareID": "7f6b5a2e-0000-4000-8000-000000000001", "consumedCapacity": {"cpu": "5"}}
    whole = {"request": "req-1", "driver": "some-driver", "pool": NODE_NAME, "device": "instance-2"}
    pods = {name: _pod(name, 0, claim_name) for name, claim_name in
            (("a", "c-share"), ("b", "c-whole"), ("c", "c-whole"))}
    objs: list[Any] = [node, DeviceClass.from_dict(device_class()), *pods.values(),
                       ResourceClaim.from_dict(claim("c-high", owner=None))]
    store.load(objs)
    uid = {n: store.get("Pod", "default", n).uid for n in pods}
    for name, result, users in (("c-share", share, ["a"]), ("c-whole", whole, ["b", "c"])):
        m = claim(name, owner=None)
        m["status"] = {"allocation": {"devices": {"results": [result]}},
                       "reservedFor": [{"resource": "pods", "name": u, "uid": uid[u]} for u in users]}
        store.create(ResourceClaim.from_dict(m))

    from types import SimpleNamespace

    handle = SimpleNamespace(features={"DRAPreemption": True}, rng=None, store=store, clock=clock,
                             kube_version=NEWEST_KUBE_VERSION)
    pl = DynamicResources(None, handle)  # type: ignore[arg-type]
    state = CycleState()
    _, st = pl.pre_filter(state, _pod("high", 100, "c-high"), [])
    assert st is None or st.is_success()
    dev_share = SharedDeviceID("some-driver", NODE_NAME, "instance-1", "7f6b5a2e-0000-4000-8000-000000000001")
    dev_whole = DeviceID("some-driver", NODE_NAME, "instance-2")

    def allocated(cs: CycleState) -> tuple[set[Any], set[Any], dict[Any, Any]]:
        a = cs.read("DynamicResources").dry_run.allocated
        return set(a.allocated_devices), set(a.allocated_shared_device_ids), dict(a.aggregated_capacity)

    before = allocated(state)
    assert dev_whole in before[0] and dev_share in before[1]
    assert before[2][DeviceID("some-driver", NODE_NAME, "instance-1")]["cpu"] == Fraction(5)
    ni = NodeInfo()
    high = _pod("high", 100, "c-high")
    for order in (["b", "c", "b", "c"], ["b", "c", "c", "b"]):
        cs = state.clone()
        pl.remove_pod(cs, high, PodInfo(store.get("Pod", "default", order[0])), ni)
        assert dev_whole in allocated(cs)[0]  # still reserved for the other user
        pl.remove_pod(cs, high, PodInfo(store.get("Pod", "default", order[1])), ni)
        assert dev_whole not in allocated(cs)[0]
        assert allocated(state) == before  # the original is untouched
        pl.add_pod(cs, high, PodInfo(store.get("Pod", "default", order[2])), ni)
        pl.add_pod(cs, high, PodInfo(store.get("Pod", "default", order[3])), ni)
        assert allocated(cs) == before
    cs = state.clone()
    pl.remove_pod(cs, high, PodInfo(store.get("Pod", "default", "a")), ni)
    assert allocated(cs) == (before[0], set(), {})
    pl.add_pod(cs, high, PodInfo(store.get("Pod", "default", "a")), ni)
    assert allocated(cs) == before
