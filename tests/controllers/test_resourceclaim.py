"""The resourceclaim controller in simulations: claims from a pod's templates, named, owned and
annotated as upstream's controller makes them, recorded in the pod status; released with the pod."""

from __future__ import annotations

import re
from typing import Any

from kubesched.api import Pod, ResourceClaim, ResourceClaimTemplate
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager, generate_claim_base, generate_claims

TEMPLATE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "single-gpu", "namespace": "default"},
    "spec": {
        "metadata": {"labels": {"team": "ml"}, "annotations": {"note": "from-template"}},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}
        },
    },
}


def _pod(name: str = "trainer", claims: int = 1) -> Pod:
    return Pod.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "resourceClaims": [
                    {"name": f"gpu{i}", "resourceClaimTemplateName": "single-gpu"} for i in range(claims)
                ],
            },
        }
    )


def _run(objs: list[Any], seed: int = 0) -> tuple[MemoryStore, ControllerManager]:
    clock = VirtualClock()
    store = MemoryStore(clock)
    store.load(objs)
    mgr = ControllerManager(store, clock, seed)
    mgr.start()
    clock.run(until=clock.now)
    return store, mgr


def test_claim_generated_from_template_as_upstream() -> None:
    store, mgr = _run([ResourceClaimTemplate.from_dict(TEMPLATE), _pod()])
    (claim,) = store.list("ResourceClaim")
    pod = store.get("Pod", "default", "trainer")
    assert re.fullmatch(r"trainer-gpu0-[bcdfghjklmnpqrstvwxz2456789]{5}", claim.meta.name)
    assert claim.meta.owner_references == (
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": "trainer",
            "uid": pod.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        },
    )
    assert claim.meta.annotations == {
        "note": "from-template",
        "resource.kubernetes.io/pod-claim-name": "gpu0",
    }
    assert claim.meta.labels == {"team": "ml"}
    assert [r.name for r in claim.devices.requests] == ["gpu"]
    assert [(s.name, s.resource_claim_name) for s in pod.resource_claim_statuses] == [
        ("gpu0", claim.meta.name)
    ]
    assert [(type(o), o.meta.name) for o in mgr.created] == [(ResourceClaim, claim.meta.name)]  # for -o yaml


def test_names_are_seeded() -> None:
    names = [
        [
            c.meta.name
            for c in _run([ResourceClaimTemplate.from_dict(TEMPLATE), _pod(claims=2)], seed)[0].list(
                "ResourceClaim"
            )
        ]
        for seed in (1, 1, 2)
    ]
    assert names[0] == names[1] != names[2]


def test_template_created_later_generates_the_claim() -> None:
    store, mgr = _run([_pod()])
    assert store.list("ResourceClaim") == []
    store.create(ResourceClaimTemplate.from_dict(TEMPLATE))
    mgr.clock.run(until=mgr.clock.now)
    assert len(store.list("ResourceClaim")) == 1


def test_generated_claim_goes_with_its_pod() -> None:
    store, mgr = _run([ResourceClaimTemplate.from_dict(TEMPLATE), _pod()])
    store.delete("Pod", "default", "trainer")
    mgr.clock.run(until=mgr.clock.now + 1)
    assert store.list("ResourceClaim") == []


def test_long_names_are_cut_in_proportion() -> None:
    """handleClaim: both names shortened by the same factor, so that the claim name stays."""
    base = generate_claim_base("p" * 60, "claim")
    assert len(base) <= 57 and base.endswith("-clai") and base.startswith("p" * 51)
    assert generate_claim_base("pod", "gpu") == "pod-gpu-"


def test_generate_claims_for_explain() -> None:
    clock = VirtualClock()
    store = MemoryStore(clock)
    store.load([ResourceClaimTemplate.from_dict(TEMPLATE), _pod()])
    (made,) = generate_claims(store, clock, seed=0)
    assert (
        store.get("Pod", "default", "trainer").resource_claim_statuses[0].resource_claim_name
        == made.meta.name
    )


def test_an_orphan_claim_of_the_pod_is_reused() -> None:
    """findPodResourceClaim: a claim made earlier for this pod and entry (the controller created
    it, then failed before updating the pod status) is recorded, not created again."""
    clock = VirtualClock()
    store = MemoryStore(clock)
    store.load([ResourceClaimTemplate.from_dict(TEMPLATE), _pod()])
    pod = store.get("Pod", "default", "trainer")
    orphan = ResourceClaim.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": "trainer-gpu0-old",
                "namespace": "default",
                "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu0"},
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Pod", "name": "trainer", "uid": pod.uid, "controller": True}
                ],
            },
            "spec": TEMPLATE["spec"]["spec"],
        }
    )
    store.create(orphan)
    mgr = ControllerManager(store, clock, 0)
    mgr.start()
    clock.run(until=clock.now)
    assert [c.meta.name for c in store.list("ResourceClaim")] == ["trainer-gpu0-old"]
    status = store.get("Pod", "default", "trainer").resource_claim_statuses
    assert [(s.name, s.resource_claim_name) for s in status] == [("gpu0", "trainer-gpu0-old")]


def test_releasing_pods_reads_only_their_claims() -> None:
    """syncClaim is reached through an index of the claims by the uids of their owners and
    consumers: deleting pods one at a time neither lists every claim again nor touches the
    claims of other pods, and a shared claim reserved for a deleted pod is deallocated."""
    shared = ResourceClaim.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "shared", "namespace": "default"},
            "spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
        }
    )
    pods = [_pod(f"p{i}") for i in range(20)]
    store, mgr = _run([ResourceClaimTemplate.from_dict(TEMPLATE), shared, *pods])
    assert len(store.list("ResourceClaim")) == 21
    p0 = store.get("Pod", "default", "p0")
    claim = store.get("ResourceClaim", "default", "shared")
    store.update(claim.with_changes({
        ("status", "allocation"): {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]}},
        ("status", "reservedFor"): [{"resource": "pods", "name": "p0", "uid": p0.uid}]}))
    lists: list[str] = []
    real_list = store.list

    def counting_list(kind: str, namespace: str | None = None) -> list[Any]:
        lists.append(kind)
        return real_list(kind, namespace)

    store.list = counting_list  # type: ignore[method-assign]
    for i in range(10):
        store.delete("Pod", "default", f"p{i}")
        mgr.clock.run(until=mgr.clock.now + 1)
    assert lists.count("ResourceClaim") <= 1  # the index, built once
    store.list = real_list  # type: ignore[method-assign]
    left = store.list("ResourceClaim")
    assert len(left) == 11
    assert all(c.meta.owner_references[0]["name"] not in {f"p{i}" for i in range(10)}
               for c in left if c.meta.name != "shared")
    released = store.get("ResourceClaim", "default", "shared")
    assert released.reserved_for == () and "allocation" not in released.raw["status"]


def test_a_scheduled_pod_keeps_its_claim_through_graceful_termination() -> None:
    """isPodDone: a scheduled pod being deleted may still run its containers, so its claim stays
    reserved and allocated until the pod is gone (30 s of grace here); an unscheduled pod being
    deleted is done at once. The preemption of a pod with devices depends on it: the devices
    are free only when the victim has terminated."""
    from kubesched.testing import make_node

    shared = ResourceClaim.from_dict({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "shared", "namespace": "default"},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    })
    pod = Pod.from_dict({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "i"}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared"}]},
    })
    store, mgr = _run([make_node().name("n1").obj(), shared, pod])
    p = store.bind("default", "p", "n1")
    claim = store.get("ResourceClaim", "default", "shared")
    store.update(claim.with_changes({
        ("status", "allocation"): {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]}},
        ("status", "reservedFor"): [{"resource": "pods", "name": "p", "uid": p.uid}]}))
    start = mgr.clock.now
    store.delete("Pod", "default", "p")
    mgr.clock.run(until=start + 10)
    held = store.get("ResourceClaim", "default", "shared")
    assert held.reserved_for and held.allocation is not None  # still terminating
    mgr.clock.run(until=start + 31)
    assert store.try_get("Pod", "default", "p") is None
    released = store.get("ResourceClaim", "default", "shared")
    assert released.reserved_for == () and released.allocation is None
