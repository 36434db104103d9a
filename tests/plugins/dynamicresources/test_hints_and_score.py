"""upstream's TestIsSchedulableAfterClaimChange, TestIsSchedulableAfterPodChange and
Test_computesScore (dynamicresources_test.go, master 2026), with upstream's case names; plus the
events the plugin registers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubesched.api import AllocationResult, DeviceRequestAllocationResult, Pod, ResourceClaim
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import ActionType, EventResource, QueueingHint
from kubesched.plugins.dynamicresources import DynamicResources
from kubesched.plugins.dynamicresources.dynamic_resources import _compute_score

from ._fixtures import (
    CLAIM_NAME,
    CLAIM_NAME2,
    POD_UID,
    POD_WITH_CLAIM_NAME,
    POD_WITH_CLAIM_TEMPLATE,
    POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
    POD_WITH_TWO_CLAIM_TEMPLATES,
    RESOURCE_NAME,
    allocation,
    claim,
    first_available,
    pod,
    result,
    sub,
)
from ._runner import _Handle

Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def _plugin(claims: list[dict[str, Any]]) -> tuple[DynamicResources, MemoryStore]:
    clock = VirtualClock()
    store = MemoryStore(clock)
    store.load([ResourceClaim.from_dict(c) for c in claims])
    return DynamicResources(None, _Handle(store, {}, clock)), store


def _stored(store: MemoryStore, m: dict[str, Any]) -> ResourceClaim:
    """Create or update ``m`` in the store and return the stored version (upstream goes through
    the client and waits for the assume cache)."""
    obj = ResourceClaim.from_dict(m)
    current = store.try_get("ResourceClaim", obj.meta.namespace, obj.meta.name)
    if current is None:
        return store.create(obj)  # type: ignore[return-value]
    return store.update(
        obj.with_changes(
            {
                ("metadata", "uid"): current.meta.uid,
                ("metadata", "resourceVersion"): current.meta.resource_version,
            }
        )
    )  # type: ignore[return-value]


PENDING, ALLOCATED = claim(), claim(allocation=allocation())
OTHER_ALLOCATED = claim("not-my-claim", owner=None, allocation=allocation())


def _finalizer_added(m: dict[str, Any]) -> dict[str, Any]:
    m = copy.deepcopy(m)
    m["metadata"]["finalizers"] = [*m["metadata"].get("finalizers", []), "foo"]
    return m


def _status_changed(m: dict[str, Any]) -> dict[str, Any]:
    m = copy.deepcopy(m)
    m["status"] = {"allocation": allocation()}
    return m


def _deallocated(m: dict[str, Any]) -> dict[str, Any]:
    m = copy.deepcopy(m)
    m["status"].pop("allocation")
    return m


def _renamed(m: dict[str, Any]) -> dict[str, Any]:
    m = copy.deepcopy(m)
    m["metadata"]["name"] += "-foo"
    return m


def _wrong_owner(m: dict[str, Any]) -> dict[str, Any]:
    m = copy.deepcopy(m)
    m["metadata"]["ownerReferences"][0]["uid"] += "123"
    return m


# (name, pod, claims in the store, old (manifest, "stored" or an object), new, hint)
CLAIM_CASES: list[Any] = [
    ("skip-deletes", POD_WITH_CLAIM_TEMPLATE, [], ALLOCATED, None, SKIP),
    ("backoff-wrong-new-object", POD_WITH_CLAIM_TEMPLATE, [], None, "not-a-claim", Q),
    ("skip-wrong-claim", POD_WITH_CLAIM_TEMPLATE, [], None, _wrong_owner(ALLOCATED), SKIP),
    ("skip-unrelated-claim", POD_WITH_CLAIM_TEMPLATE, [ALLOCATED], None, _renamed(ALLOCATED), SKIP),
    ("queue-on-add", POD_WITH_CLAIM_NAME, [], None, PENDING, Q),
    ("backoff-wrong-old-object", POD_WITH_CLAIM_NAME, [PENDING], "not-a-claim", PENDING, Q),
    ("skip-adding-finalizer", POD_WITH_CLAIM_NAME, [PENDING], PENDING, _finalizer_added(PENDING), SKIP),
    ("queue-on-status-change", POD_WITH_CLAIM_NAME, [PENDING], PENDING, _status_changed(PENDING), Q),
    (
        "claim-deallocate",
        POD_WITH_CLAIM_NAME,
        [PENDING, OTHER_ALLOCATED],
        OTHER_ALLOCATED,
        _deallocated(OTHER_ALLOCATED),
        Q,
    ),
]


@pytest.mark.parametrize(
    ("name", "the_pod", "claims", "old", "new", "hint"), CLAIM_CASES, ids=[c[0] for c in CLAIM_CASES]
)
def test_is_schedulable_after_claim_change(
    name: str, the_pod: Pod, claims: list[dict[str, Any]], old: Any, new: Any, hint: QueueingHint
) -> None:
    pl, store = _plugin(claims)
    old_obj: Any = old
    if isinstance(old, dict):
        old_obj = store.try_get(
            "ResourceClaim", old["metadata"]["namespace"], old["metadata"]["name"]
        ) or ResourceClaim.from_dict(old)
    new_obj: Any = new
    if isinstance(new, dict):
        new_obj = _stored(store, new)
    assert pl.is_schedulable_after_claim_change(the_pod, old_obj, new_obj) == hint


def _two_templates_one_status() -> Pod:
    return pod(
        ((RESOURCE_NAME, CLAIM_NAME, True), (RESOURCE_NAME + "-2", CLAIM_NAME, True)),
        [(RESOURCE_NAME, CLAIM_NAME)],
    )


POD_CASES: list[Any] = [
    ("backoff-wrong-new-object", [], POD_WITH_CLAIM_TEMPLATE, "not-a-claim", SKIP),
    ("complete", [PENDING], POD_WITH_CLAIM_TEMPLATE, POD_WITH_CLAIM_TEMPLATE_IN_STATUS, Q),
    (
        "wrong-pod",
        [PENDING],
        pod(((RESOURCE_NAME, CLAIM_NAME, True),), name="my-pod2", uid=POD_UID + "2"),
        POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
        SKIP,
    ),
    ("missing-claim", [], POD_WITH_CLAIM_TEMPLATE, POD_WITH_CLAIM_TEMPLATE_IN_STATUS, SKIP),
    ("incomplete", [PENDING], POD_WITH_TWO_CLAIM_TEMPLATES, _two_templates_one_status(), SKIP),
]


@pytest.mark.parametrize(
    ("name", "claims", "the_pod", "obj", "hint"), POD_CASES, ids=[c[0] for c in POD_CASES]
)
def test_is_schedulable_after_pod_change(
    name: str, claims: list[dict[str, Any]], the_pod: Pod, obj: Any, hint: QueueingHint
) -> None:
    """Upstream's "backoff-wrong-new-object" wants an error (which queues); a Python hint gets
    the pod objects the queue hands it, so an object of another type is simply not this pod."""
    pl, _ = _plugin(claims)
    assert pl.is_schedulable_after_pod_change(the_pod, None, obj) == hint


def test_events_to_register() -> None:
    pl, _ = _plugin([])
    got = {(e.event.resource, e.event.action) for e in pl.events_to_register()}
    assert got == {
        (
            EventResource.NODE,
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE,
        ),
        (EventResource.RESOURCE_CLAIM, ActionType.ADD | ActionType.UPDATE),
        (EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
        (EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
        (EventResource.RESOURCE_SLICE, ActionType.ADD | ActionType.UPDATE),
    }


# -- Test_computesScore ----------------------------------------------------------------------------
def _prioritized_claim(*requests: tuple[str, int]) -> ResourceClaim:
    reqs = [first_available(name, *(sub(f"subreq-{i + 1}") for i in range(n))) for name, n in requests]
    return ResourceClaim.from_dict(claim(requests=reqs))


def _allocations(*per_claim: tuple[str, ...]) -> list[AllocationResult]:
    return [
        AllocationResult(
            tuple(DeviceRequestAllocationResult(r, "d", "p", "x") for r in requests), (), None, None
        )
        for requests in per_claim
    ]


SCORE_CASES: list[Any] = [
    (
        "more-claims-than-allocations",
        [_prioritized_claim(("req-1", 1)), _prioritized_claim(("req-2", 1))],
        [],
        None,
    ),
    (
        # Upstream's allocatedClaim (allocated before this cycle) and pendingClaim2, both with an
        # ``exactly`` request: one allocation for the one claim that needs it, no error, score 0
        # (kubernetes PR 139017; it failed with "smaller than number of claims" before).
        "mix-of-allocated-and-unallocated-claims",
        [ResourceClaim.from_dict(claim(allocation=allocation())),
         ResourceClaim.from_dict(claim(CLAIM_NAME2))],
        _allocations(("req-1",)),
        0,
    ),
    (
        "single-request-only-subrequest-allocated",
        [_prioritized_claim(("req-1", 1))],
        _allocations(("req-1/subreq-1",)),
        8,
    ),
    (
        "single-request-last-subrequest-allocated",
        [_prioritized_claim(("req-1", 8))],
        _allocations(("req-1/subreq-8",)),
        1,
    ),
    (
        "multiple-requests-with-middle-subrequests-allocated",
        [_prioritized_claim(("req-1", 4), ("req-2", 5))],
        _allocations(("req-1/subreq-4", "req-2/subreq-5")),
        9,
    ),
    (
        "multiple-requests-with-top-subrequests-allocated",
        [_prioritized_claim(("req-1", 8), ("req-2", 1))],
        _allocations(("req-1/subreq-8", "req-2/subreq-1")),
        9,
    ),
    (
        "multiple-claims-with-last-subrequests-allocated",
        [_prioritized_claim(("req-1", 8)), _prioritized_claim(("req-2", 8))],
        _allocations(("req-1/subreq-8",), ("req-2/subreq-8",)),
        2,
    ),
    (
        "multiple-claims-with-top-subrequests-allocated",
        [_prioritized_claim(("req-1", 1)), _prioritized_claim(("req-2", 1))],
        _allocations(("req-1/subreq-1",), ("req-2/subreq-1",)),
        16,
    ),
]


@pytest.mark.parametrize(
    ("name", "claims", "allocations", "want"), SCORE_CASES, ids=[c[0] for c in SCORE_CASES]
)
def test_compute_score(
    name: str, claims: list[ResourceClaim], allocations: list[AllocationResult], want: int | None
) -> None:
    if want is None:
        with pytest.raises(ValueError, match="smaller than number of claims"):
            _compute_score(claims, allocations)
    else:
        assert _compute_score(claims, allocations) == want


def test_compute_score_counts_allocated_claims_by_their_own_allocation() -> None:
    """Newest upstream (kubernetes PR 139017): ``allocations`` follow the claims still to
    allocate, so an allocated claim before them does not shift them; and an allocated claim is
    scored too, by the sub-request its ``status.allocation`` names (8 for the first one here)."""
    plain = ResourceClaim.from_dict(claim("a", allocation=allocation()))
    pending = _prioritized_claim(("req-1", 2))
    assert _compute_score([plain, pending], _allocations(("req-1/subreq-2",))) == 7
    prioritized = ResourceClaim.from_dict(claim(
        "b", requests=[first_available("req-1", sub("subreq-1"), sub("subreq-2"))],
        allocation=allocation(result(request="req-1/subreq-1"))))
    assert _compute_score([prioritized, pending], _allocations(("req-1/subreq-2",))) == 8 + 7
    assert _compute_score([pending, prioritized], _allocations(("req-1/subreq-1",))) == 8 + 8
    with pytest.raises(ValueError, match="smaller than number of claims needing allocation"):
        _compute_score([prioritized, pending], [])
